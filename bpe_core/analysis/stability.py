"""Training stability: how much of a full run's vocabulary a run on a prefix of the corpus already has.

Train on the first 1%, 10%, 50% and 100% of a corpus (by characters, cut at a word boundary) with
the same settings and target, then compare each run's merge list with the full run's: the share of
its merged tokens already present, the share of its first N merges (N = 10, 100, 1000, ...), how
many of the first k merges agree as sets, and the first step where the two lists differ.

Each prefix is counted and trained on its own: counting is linear in the text, and counts of
pieces do not simply add up across a cut (a pre-tokenizer may join a punctuation run to the
newline after it), so adding the counts of the pieces would not be exact.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..pretokenize import count_words, require_str, type_name
from ..settings import BPEError, Settings
from ..training import train_from_counts

Pair = tuple[str, str]

FRACTIONS = (0.01, 0.1, 0.5, 1.0)
WORD_BOUNDARY_REACH = 1_000  # characters searched past a cut for whitespace before cutting mid-word


@dataclass(frozen=True)
class Divergence:
    """The first step (counted from 1) where a run's merge list differs from the full run's.

    A merge is None where that list has already ended (training ran out of pairs).
    """

    step: int
    merge: Pair | None  # this run's merge at that step
    full_merge: Pair | None  # the full run's


@dataclass(frozen=True)
class FractionStability:
    """One prefix's run compared with the full run."""

    fraction: float
    characters: int  # characters of the prefix trained on
    merges: tuple[Pair, ...]
    vocabulary_share: float  # share of the full run's merged tokens this run also made
    first_shares: tuple[tuple[int, float], ...]  # (N, share of the full run's first N merges this run made)
    agreement: tuple[tuple[int, int], ...]  # (k, how many of the first k merges the two runs share, as sets)
    divergence: Divergence | None  # None: the same merges, in the same order


@dataclass(frozen=True)
class Stability:
    """Every fraction's comparison, smallest first; the full run is the last one."""

    full_merges: tuple[Pair, ...]
    checkpoints: tuple[int, ...]  # the N (and k) compared
    fractions: tuple[FractionStability, ...]


def checkpoints(total: int) -> tuple[int, ...]:
    """The numbers of first merges compared: 10, 100, 1000, ... up to `total`, and `total` itself.

    >>> checkpoints(2500)
    (10, 100, 1000, 2500)
    >>> checkpoints(7)
    (7,)
    """
    points = []
    n = 10
    while n <= total:
        points.append(n)
        n *= 10
    if total and (not points or points[-1] != total):
        points.append(total)
    return tuple(points)


def first_divergence(merges: Sequence[Pair], full: Sequence[Pair]) -> Divergence | None:
    """Where two merge lists first differ (a list that ends first differs there), or None.

    >>> first_divergence([("a", "b"), ("c", "d")], [("a", "b"), ("ab", "c")])
    Divergence(step=2, merge=('c', 'd'), full_merge=('ab', 'c'))
    >>> first_divergence([("a", "b")], [("a", "b")]) is None
    True
    """
    for i in range(max(len(merges), len(full))):
        mine = tuple(merges[i]) if i < len(merges) else None
        theirs = tuple(full[i]) if i < len(full) else None
        if mine != theirs:
            return Divergence(i + 1, mine, theirs)  # type: ignore[arg-type]  # pairs of two
    return None


def compare_merges(
    fraction: float, characters: int, merges: Sequence[Pair], full: Sequence[Pair]
) -> FractionStability:
    """One run's merges compared with the full run's (a full run with no merges: every share is 1)."""
    mine = [(a, b) for a, b in merges]
    theirs = [(a, b) for a, b in full]
    full_tokens = {a + b for a, b in theirs}
    vocab_share = len(full_tokens & {a + b for a, b in mine}) / len(full_tokens) if full_tokens else 1.0
    made = set(mine)
    points = checkpoints(len(theirs))
    shares = tuple((n, len(made.intersection(theirs[:n])) / n) for n in points)
    agreement = tuple((k, len(set(mine[:k]).intersection(theirs[:k]))) for k in points)
    return FractionStability(
        fraction=fraction, characters=characters, merges=tuple(mine), vocabulary_share=vocab_share,
        first_shares=shares, agreement=agreement, divergence=first_divergence(mine, theirs),
    )


def compare_runs(runs: Mapping[float, tuple[int, Sequence[Pair]]]) -> Stability:
    """Runs by fraction (characters trained on, merges) compared with the largest fraction's run."""
    if not runs:
        raise BPEError("there are no training runs to compare")
    order = sorted(runs)
    full = [(a, b) for a, b in runs[order[-1]][1]]
    return Stability(
        full_merges=tuple(full),
        checkpoints=checkpoints(len(full)),
        fractions=tuple(compare_merges(f, runs[f][0], runs[f][1], full) for f in order),
    )


def check_fractions(fractions: Iterable[float]) -> tuple[float, ...]:
    """Fractions between 0 (excluded) and 1 (included), sorted, without repeats; 1 is always among them."""
    found = set()
    for f in fractions:
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f <= 1:
            raise BPEError(f"a fraction of the corpus is a number above 0 and at most 1, not {f!r}")
        found.add(float(f))
    found.add(1.0)
    return tuple(sorted(found))


def prefix_length(text: str, fraction: float) -> int:
    """Characters in the first `fraction` of a text, cut at the next word boundary (next to whitespace).

    A text with no whitespace within WORD_BOUNDARY_REACH characters of the cut is cut there.

    >>> text = "low lower newest widest"
    >>> text[:prefix_length(text, 0.3)]
    'low lower'
    """
    if fraction >= 1:
        return len(text)
    cut = round(len(text) * fraction)
    for i in range(cut, min(len(text), cut + WORD_BOUNDARY_REACH)):
        if text[i].isspace() or (i > 0 and text[i - 1].isspace()):
            return i
    return cut


def corpus_prefix(texts: Sequence[str], fraction: float) -> list[str]:
    """The first `fraction` of several texts read one after another, by characters, cut as `prefix_length`."""
    total = sum(map(len, texts))
    if fraction >= 1:
        return list(texts)
    wanted = round(total * fraction)
    out: list[str] = []
    for text in texts:
        if wanted <= len(text):
            out.append(text[:prefix_length(text, wanted / len(text) if text else 1.0)])
            break
        out.append(text)
        wanted -= len(text)
    return [t for t in out if t]


def stability(
    texts: str | Sequence[str],
    settings: Settings | None = None,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    fractions: Iterable[float] = FRACTIONS,
) -> Stability:
    """Train on prefixes of a corpus with one target and compare each run with the full one.

    >>> s = stability("low low lower newest newest widest " * 4, merges=3, fractions=(0.5,))
    >>> [(f.fraction, f.vocabulary_share, f.divergence) for f in s.fractions]
    [(0.5, 1.0, None), (1.0, 1.0, None)]
    """
    settings = settings if settings is not None else Settings()
    if isinstance(texts, str):
        texts = [texts]
    elif isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Sequence):
        raise BPEError(f"stability takes a text (str) or a list of texts, not {type_name(texts)}")
    for n, text in enumerate(texts, 1):
        require_str(text, what=f"text {n:,} of {len(texts):,}")
    order = check_fractions(fractions)
    counts: dict[float, tuple[int, Mapping[str, int]]] = {}
    for fraction in order:
        part = corpus_prefix(texts, fraction)
        counts[fraction] = (sum(map(len, part)), count_words(part, settings))
    return stability_from_counts(counts, settings, merges=merges, vocab_size=vocab_size)


def stability_from_counts(
    counts: Mapping[float, tuple[int, Mapping[str, int]]],
    settings: Settings,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
) -> Stability:
    """As `stability`, from each fraction's (characters, word counts) as `count_words` gives them."""
    runs: dict[float, tuple[int, Sequence[Pair]]] = {}
    for fraction in check_fractions(counts):
        if fraction not in counts:
            raise BPEError("the word counts of the whole corpus (fraction 1.0) are missing")
        characters, words = counts[fraction]
        if not words:
            raise BPEError(f"the first {fraction:.0%} of the corpus holds no word to train on; use a larger corpus")
        trained = train_from_counts(words, settings, merges=merges, vocab_size=vocab_size)
        runs[fraction] = (characters, trained.merges)
    return compare_runs(runs)
