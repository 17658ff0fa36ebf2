"""A tokenizer's report card: its measures on a reference text and on the parallel set, and its checks.

`report_card(tokenizer, text)` encodes the text once (`profile`), measures the merges on it
(`residue`), probes digits and whitespace, and, given the parallel set's counts, the languages'
premiums and their Gini coefficient. What each figure means, and where it comes from, is in
`bpe_core.report.measures`; the checks are in `bpe_core.report.checks`.
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..analysis.language_tax import premiums
from ..analysis.stats import TextStats
from ..families.registry import family_of
from ..settings import BPEError
from ..tokenizer_model import TokenizerModel
from .digits import DigitGrouping, digit_grouping
from .formulas import DEFAULT_ALPHA, distribution, efficiency, gini
from .profile import RoundTrip, TextProfile, profile, round_trip, whole_characters
from .residue import MIN_MADE, RESIDUE_SHARE, Residue, residue

WHITESPACE_PROBE = "a  b\tc\n\nd   e \n"  # runs of spaces, a tab, a blank line, a trailing space
REFERENCE = "en"


@dataclass(frozen=True)
class LanguageRow:
    """One language of the parallel set: its counts, tokens per byte and premium over the reference."""

    code: str
    stats: TextStats
    premium: float | None


@dataclass(frozen=True)
class Fairness:
    """The languages of a parallel set through one tokenizer, and the Gini coefficient of their
    tokens per byte (None when no language has tokens)."""

    languages: tuple[LanguageRow, ...]
    gini: float | None
    reference: str

    @property
    def highest(self) -> LanguageRow | None:
        """The language with the highest premium."""
        rows = [row for row in self.languages if row.premium is not None]
        return max(rows, key=lambda row: row.premium or 0.0) if rows else None


@dataclass(frozen=True)
class ReportCard:
    """Everything the report measures of one tokenizer on one reference text (see `measures`)."""

    vocabulary_size: int
    text: TextProfile
    alpha: float
    renyi_efficiency: float | None
    shannon_efficiency: float | None
    residue: Residue | None  # None: the model has no ranked merges
    digits: DigitGrouping
    partial_vocabulary: int  # vocabulary tokens that hold part of a UTF-8 character
    unreachable: int | None  # None: its family has no such check
    whitespace: RoundTrip  # WHITESPACE_PROBE decoded back
    fairness: Fairness | None


_PARTIAL: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()  # the app's sessions share built-in tokenizers across threads


def partial_tokens(tokenizer: TokenizerModel) -> int:
    """How many vocabulary tokens hold part of a UTF-8 character; counted once per tokenizer object."""
    with _LOCK, contextlib.suppress(KeyError, TypeError):  # not counted yet; no weak reference to it
        return _PARTIAL[tokenizer]
    found = sum(1 for token in tokenizer.vocab if not whole_characters(tokenizer, token))
    with _LOCK, contextlib.suppress(TypeError):
        _PARTIAL[tokenizer] = found
    return found


@dataclass(frozen=True)
class VocabularyChecks:
    """What a card says of the vocabulary alone, whatever the text: how many tokens hold part of a
    UTF-8 character, and how many no text encodes to (None: its family has no such check). Seconds
    for a large vocabulary, so a caller may compute them once (`vocabulary_checks`) and keep them."""

    partial: int
    unreachable: int | None


def vocabulary_checks(tokenizer: TokenizerModel) -> VocabularyChecks:
    unreachable = family_of(tokenizer).unreachable
    return VocabularyChecks(partial_tokens(tokenizer), None if unreachable is None else unreachable(tokenizer))


def fairness(stats: Mapping[str, TextStats], *, reference: str = REFERENCE) -> Fairness:
    """Premiums over `reference` and the Gini coefficient of tokens per byte over the languages.

    >>> f = fairness({"en": TextStats(10, 10, 2, 5), "xx": TextStats(10, 10, 2, 10)})
    >>> [(row.code, row.premium) for row in f.languages], f.gini
    ([('en', 1.0), ('xx', 2.0)], 0.16666666666666666)
    """
    extra = premiums(stats, reference=reference)
    rows = tuple(LanguageRow(code, s, extra[code]) for code, s in stats.items())
    return Fairness(rows, gini([row.stats.tokens_per_byte for row in rows]), reference)


def report_card(
    tokenizer: TokenizerModel,
    text: str,
    *,
    parallel: Mapping[str, TextStats] | None = None,
    alpha: float = DEFAULT_ALPHA,
    min_made: int = MIN_MADE,
    residue_share: float = RESIDUE_SHARE,
    checked: VocabularyChecks | None = None,
) -> ReportCard:
    """Measure `tokenizer` on `text`; with `parallel` (each language's `text_stats` on a parallel
    set, as `bpe_core.analysis.language_tax.language_stats` gives), its fairness too; `checked` is
    its `vocabulary_checks`, when already known.

    >>> from bpe_core import train
    >>> card = report_card(train("low low lower newest", merges=6), "low lower lowest")
    >>> card.text.words, card.text.round_trip.exact, card.digits.kind
    (3, True, 'unknown to it')
    """
    if not alpha >= 0:
        raise BPEError(f"the order α of the Rényi entropy is 0 or more, not {alpha}")
    if not 0 < residue_share <= 1:
        raise BPEError(f"the residue share is above 0 and at most 1, not {residue_share}")
    if min_made < 1:
        raise BPEError(f"a token judged for residue is made at least once, not {min_made} times")
    vocabulary = tokenizer.vocab
    seen = profile(tokenizer, text)
    probabilities = distribution(seen.counts.values())
    merges = tokenizer.merges
    own = vocabulary_checks(tokenizer) if checked is None else checked
    return ReportCard(
        vocabulary_size=len(vocabulary),
        text=seen,
        alpha=alpha,
        renyi_efficiency=efficiency(probabilities, len(vocabulary), alpha),
        shannon_efficiency=efficiency(probabilities, len(vocabulary), 1.0),
        residue=None if merges is None else residue(
            merges, seen.counts, vocabulary_size=len(vocabulary), min_made=min_made, threshold=residue_share),
        digits=digit_grouping(tokenizer),
        partial_vocabulary=own.partial,
        unreachable=own.unreachable,
        whitespace=round_trip(WHITESPACE_PROBE, tokenizer.decode(tokenizer.encode_ids(WHITESPACE_PROBE))),
        fairness=None if parallel is None else fairness(parallel),
    )
