"""Common mistakes with BPE, each computed right against wrong on the same words.

Merges replayed in another order than they were learned, no end-of-word marker, greedy longest
match over the BPE vocabulary, and a tokenizer trained on other text than it encodes. Also the
lesson's exercise of adding words to a corpus, which changes the merges and when words collapse.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from ..encoder import encode_replay
from ..model import Tokenizer
from ..settings import Settings
from ..training import train
from .compression import collapse_step
from .longest_match import GreedyVocabulary, compare

# (word, right pieces, wrong pieces)
Row = tuple[str, list[str], list[str]]


def wrong_orders(merges: Sequence[tuple[str, str]], *, seed: int = 0) -> dict[str, list[tuple[str, str]]]:
    """The merge list in orders that are not the learned one."""
    shuffled = list(merges)
    random.Random(seed).shuffle(shuffled)
    return {
        "sorted alphabetically": sorted(merges),
        "reversed": list(reversed(merges)),
        f"shuffled (seed {seed})": shuffled,
    }


def order_rows(tokenizer: Tokenizer, words: Sequence[str], wrong: Sequence[tuple[str, str]]) -> list[Row]:
    """(word, right pieces, pieces with the merges replayed in the wrong order)."""
    return [(w, tokenizer.encode_word(w), encode_replay(tokenizer.initial_symbols(w), wrong)) for w in words]


def marker_rows(with_marker: Tokenizer, without: Tokenizer, words: Sequence[str]) -> list[Row]:
    """(word, pieces with </w>, pieces with no end-of-word marker)."""
    return [(w, with_marker.encode_word(w), without.encode_word(w)) for w in words]


def greedy_rows(tokenizer: Tokenizer, words: Sequence[str]) -> list[Row]:
    """(word, BPE pieces, greedy longest-match pieces over the same vocabulary).

    Words longer than `bpe_core.analysis.longest_match.WORD_CAP` characters are cut there.
    """
    vocab = GreedyVocabulary.of_tokenizer(tokenizer)
    rows = [compare(tokenizer, w, vocab=vocab) for w in words]
    return [(row.word, row.bpe, row.greedy) for row in rows]


def around_first_difference(
    bpe: Sequence[str], greedy: Sequence[str], *, context: int = 2, chars: int = 60
) -> tuple[str, list[str], list[str], bool, bool]:
    """The part of a long word where two segmentations of it first disagree, to show in a table.

    Returns (text, bpe pieces, greedy pieces, cut before, cut after): from `context` shared pieces
    before the first disagreement up to the first place, at least `chars` characters on, where
    both cut again, and the text those pieces spell. (Both lists spell the same symbols, so
    after equal leading pieces they start at the same place.)

    >>> around_first_difference(["a", "b", "cd", "e", "f"], ["a", "b", "c", "de", "f"], context=1, chars=3)
    ('bcde', ['b', 'cd', 'e'], ['b', 'c', 'de'], True, True)
    """
    same = 0
    while same < min(len(bpe), len(greedy)) and bpe[same] == greedy[same]:
        same += 1
    start = max(0, same - context)
    ends_a = list(accumulate(map(len, bpe[start:])))
    ends_b = set(accumulate(map(len, greedy[start:])))
    stop = next((end for end in ends_a if end >= chars and end in ends_b), ends_a[-1] if ends_a else 0)
    a = [p for p, end in zip(bpe[start:], ends_a) if end <= stop]
    b = [p for p, end in zip(greedy[start:], accumulate(map(len, greedy[start:]))) if end <= stop]
    return "".join(a), a, b, start > 0, start + len(a) < len(bpe)


# ---- a tokenizer trained on other text -------------------------------------------------------


def tokens_per_word(tokenizer: Tokenizer, text: str) -> float:
    """Fertility: tokens per whitespace-separated word of `text`."""
    words = len(text.split())
    return len(tokenizer.encode_ids(text)) / words if words else 0.0


@dataclass(frozen=True)
class Mismatch:
    """Tokens per word for each (trained on, encoded text) pair."""

    trained_on: list[str]
    encoded: list[str]
    fertility: list[list[float]]  # fertility[i][j]: trained on trained_on[i], encoding encoded[j]


def mismatch(
    train_texts: dict[str, str], test_texts: dict[str, str], *, settings: Settings | None = None, merges: int = 1000
) -> Mismatch:
    """Train one tokenizer per training text, measure tokens per word on every test text."""
    tokenizers = {name: train(text, settings or Settings(), merges=merges) for name, text in train_texts.items()}
    return Mismatch(
        trained_on=list(train_texts),
        encoded=list(test_texts),
        fertility=[[tokens_per_word(tok, t) for t in test_texts.values()] for tok in tokenizers.values()],
    )


# ---- adding words to the corpus --------------------------------------------------------------


def with_extra(text: str, extra: str) -> str:
    """The corpus with more words appended on its last line.

    >>> with_extra("low lower\\n", "lowest")
    'low lower lowest\\n'
    """
    return text.rstrip("\n") + " " + extra + "\n"


@dataclass(frozen=True)
class TryIt:
    before: list[tuple[str, int]]  # (token, count) for each merge, original corpus
    after: list[tuple[str, int]]  # the same with the extra words added
    collapse_before: int | None  # step where every word is one token, with up to `more` merges
    collapse_after: int | None


def try_it_yourself(text: str, extra: str, *, merges: int = 10, more: int = 20) -> TryIt:
    """Add `extra` words to a corpus: the merges before and after, and with `more` merges, the collapse step."""
    added = with_extra(text, extra)
    before = train(text, merges=merges)
    after = train(added, merges=merges)
    return TryIt(
        before=[(m.token, m.count) for m in before.trace],
        after=[(m.token, m.count) for m in after.trace],
        collapse_before=collapse_step(train(text, merges=more).training),
        collapse_after=collapse_step(train(added, merges=more).training),
    )
