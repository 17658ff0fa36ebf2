"""The three lessons as data: corpus, training settings, starting words, printed numbers. No Streamlit here.

The numbers each lesson prints are kept here as `EXPECTED_*` constants; the Lessons page shows
the engine's own results next to a check that they match. What the lessons compute (the common
mistakes, the "try it yourself" exercise) is engine code: `bpe_core.analysis.mistakes`.
"""
from __future__ import annotations

from dataclasses import dataclass

from bpe_core import Settings
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
    title="low, lower, newest, widest",
    corpus_id="seed000",
    request=TrainRequest(Settings(), "merges", 10),
    words="lowest newer wider slow",
)
SEED003 = Lesson(
    key="seed003",
    title="like, love, hug (text mode)",
    corpus_id="seed003",
    request=TrainRequest(Settings(mode="text", tie_break="first"), "vocab", 25),
    words="like lovely hugging",
)
SEED002 = Lesson(
    key="seed002",
    title="cats and dogs",
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
TRY_IT_EXTRA = "lowest lowest lowest"  # what the first lesson's "try it yourself" adds to its corpus
