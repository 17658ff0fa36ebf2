"""The seed lessons and their common mistakes, computed with the engine. Pure: no Streamlit here.

The numbers each lesson prints are kept here as `expected_*` constants; the Lessons page shows
the engine's own results next to a check that they match.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from bpe_core import Settings, Tokenizer, encode_replay, train
from bpe_core.analysis.longest_match import GreedyVocabulary, compare
from explorer.data.training import TrainRequest


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    corpus_id: str
    request: TrainRequest
    words: str  # what the Unseen words page starts with


SEED000 = Lesson(
    key="seed000",
    title="Seed 000: low, lower, newest, widest",
    corpus_id="seed000",
    request=TrainRequest(Settings(), "merges", 10),
    words="lowest newer wider slow",
)
SEED003 = Lesson(
    key="seed003",
    title="Seed 003: like, love, hug (text mode)",
    corpus_id="seed003",
    request=TrainRequest(Settings(mode="text", tie_break="first"), "vocab", 25),
    words="like lovely hugging",
)
SEED002 = Lesson(
    key="seed002",
    title="Seed 002: cats and dogs",
    corpus_id="seed002",
    request=TrainRequest(Settings(lowercase=True), "vocab", 120),
    words="the cat ran dogs chase cats running and sleeping unrecognized word",
)
LESSONS = {lesson.key: lesson for lesson in (SEED000, SEED003, SEED002)}

# What the lessons print.
EXPECTED_000_MERGES = [
    ("w", "e", 9), ("t", "</w>", 9), ("s", "t</w>", 9), ("n", "e", 9), ("w", "</w>", 7),
    ("ne", "we", 7), ("l", "o", 7), ("newe", "st</w>", 6), ("lo", "w</w>", 5), ("w", "i", 3),
]
EXPECTED_000_UNSEEN = {
    "lowest": ["lo", "we", "st</w>"],
    "newer": ["newe", "r", "</w>"],
    "wider": ["wi", "d", "e", "r", "</w>"],
    "slow": ["s", "low</w>"],
}
EXPECTED_003_ADDED = [" h", " l", " hu", " hug", "ik", "ike", " lo", " lov", " love"]
EXPECTED_003_TOKENS = [
    "l", "ike", " l", "ike", "r", " love", " love", "l", "y", " hug", " hug", "s", " hug", "g", "i",
    "n", "g", " h", "e", "a", "r", "t", "s",
]
SEED002_INPUTS = ["the cat ran", "dogs chase cats", "running and sleeping", "unrecognized word"]
TRY_IT_EXTRA = "lowest lowest lowest"


def with_extra(text: str, extra: str = TRY_IT_EXTRA) -> str:
    """The corpus with more words appended, as the lesson's "try it yourself" asks."""
    return text.rstrip("\n") + " " + extra + "\n"


@dataclass(frozen=True)
class TryIt:
    before: list[tuple[str, int]]  # (token, count) for each merge, original corpus
    after: list[tuple[str, int]]  # the same with "lowest lowest lowest" added
    collapse_before: int | None  # step where every word is one token, with up to 20 merges
    collapse_after: int | None


def _collapse(tok: Tokenizer) -> int | None:
    training = tok.training
    if training is None:
        return None
    if training.initial_multi_token_words == 0:
        return 0
    return next((m.rank + 1 for m in training.trace if m.multi_token_words == 0), None)


def try_it_yourself(text: str, *, merges: int = 10, more: int = 20) -> TryIt:
    """Seed 000's exercise: add "lowest lowest lowest", then raise to 20 merges to find the collapse."""
    extra = with_extra(text)
    before = train(text, merges=merges)
    after = train(extra, merges=merges)
    return TryIt(
        before=[(m.token, m.count) for m in before.trace],
        after=[(m.token, m.count) for m in after.trace],
        collapse_before=_collapse(train(text, merges=more)),
        collapse_after=_collapse(train(extra, merges=more)),
    )


# ---- common mistakes -------------------------------------------------------------------------

def wrong_orders(merges: Sequence[tuple[str, str]], *, seed: int = 0) -> dict[str, list[tuple[str, str]]]:
    """The merge list in orders that are not the learned one."""
    shuffled = list(merges)
    random.Random(seed).shuffle(shuffled)
    return {
        "sorted alphabetically": sorted(merges),
        "reversed": list(reversed(merges)),
        f"shuffled (seed {seed})": shuffled,
    }


def order_rows(
    tokenizer: Tokenizer, words: Sequence[str], wrong: Sequence[tuple[str, str]]
) -> list[tuple[str, list[str], list[str]]]:
    """(word, right pieces, pieces with the merges replayed in the wrong order)."""
    return [(w, tokenizer.encode_word(w), encode_replay(tokenizer.initial_symbols(w), wrong)) for w in words]


def marker_rows(
    with_marker: Tokenizer, without: Tokenizer, words: Sequence[str]
) -> list[tuple[str, list[str], list[str]]]:
    """(word, pieces with </w>, pieces with no end-of-word marker)."""
    return [(w, with_marker.encode_word(w), without.encode_word(w)) for w in words]


def greedy_rows(tokenizer: Tokenizer, words: Sequence[str]) -> list[tuple[str, list[str], list[str]]]:
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
