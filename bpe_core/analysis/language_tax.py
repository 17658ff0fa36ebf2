"""The language tax: what a tokenizer charges each language for the same content.

Given parallel texts (the same messages in each language), a language's *premium* is its token
count over the reference language's (English) with the same tokenizer: 2.0 means twice the
tokens, so twice the cost, half the context and twice the latency for the same meaning. Texts
that are not parallel (a user's own corpus) get tokens per character and per byte, but no
premium, since their content differs.

>>> from bpe_core import train
>>> tok = train("aa aa aa b", merges=2)
>>> rows = language_tax({"toy": tok}, {"en": "aa aa", "xx": "ab ab"})
>>> [(r.language, r.stats.tokens, r.premium) for r in rows]
[('en', 2, 1.0), ('xx', 6, 3.0)]
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..model import Tokenizer
from ..settings import BPEError
from .stats import TextStats, text_stats

__all__ = ["TaxRow", "language_stats", "language_tax", "premiums", "tax_rows"]


@dataclass(frozen=True)
class TaxRow:
    """One tokenizer on one language's text: the counts, and the premium over the reference
    language (None when the text is not parallel to it)."""

    tokenizer: str
    language: str
    stats: TextStats
    premium: float | None


def language_stats(tokenizer: Tokenizer, texts: Mapping[str, str]) -> dict[str, TextStats]:
    """`text_stats` of each text, in the order given."""
    return {language: text_stats(tokenizer, text) for language, text in texts.items()}


def premiums(
    stats: Mapping[str, TextStats], *, reference: str = "en", parallel: Collection[str] | None = None
) -> dict[str, float | None]:
    """Each language's tokens over the reference language's (None for a language not in
    ``parallel``, default: all of them, and for every language when the reference has no tokens).

    >>> s = {"en": TextStats(10, 10, 2, 4), "fr": TextStats(12, 12, 2, 6)}
    >>> premiums(s)
    {'en': 1.0, 'fr': 1.5}
    """
    if reference not in stats:
        raise BPEError(f"the reference language {reference!r} is not among the texts")
    base = stats[reference].tokens
    return {
        language: (s.tokens / base if base and (parallel is None or language in parallel) else None)
        for language, s in stats.items()
    }


def language_tax(
    tokenizers: Mapping[str, Tokenizer],
    texts: Mapping[str, str],
    *,
    reference: str = "en",
    parallel: Collection[str] | None = None,
) -> list[TaxRow]:
    """One row per tokenizer and language (tokenizers outer, languages in the texts' order)."""
    rows = []
    for name, tokenizer in tokenizers.items():
        rows.extend(tax_rows(name, language_stats(tokenizer, texts), reference=reference, parallel=parallel))
    return rows


def tax_rows(
    name: str, stats: Mapping[str, TextStats], *, reference: str = "en", parallel: Collection[str] | None = None
) -> list[TaxRow]:
    """The rows of one tokenizer from stats computed before (a page caches `language_stats`)."""
    extra = premiums(stats, reference=reference, parallel=parallel)
    return [TaxRow(name, language, s, extra[language]) for language, s in stats.items()]
