"""Shared fixtures: the lessons' corpora and settings."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEED000 = (
    "low low low low low lower lower newest newest newest "
    "newest newest newest widest widest widest new new newer"
)
SEED003 = "like liker love lovely hug hugs hugging hearts"
SEED002 = [
    "the cat sat on the mat",
    "the dog ran in the park",
    "cats and dogs are pets",
    "the cat chased the dog",
    "dogs like to run and play",
    "cats prefer to sleep all day",
    "the park has many dogs and cats",
    "running dogs and sleeping cats",
    "the fastest dog won the race",
    "slower cats prefer the mat",
    "cats run and dogs play in parks",
    "the dog chased a cat running fast",
]


@pytest.fixture
def seed000() -> str:
    return SEED000


@pytest.fixture
def seed003() -> str:
    return SEED003


@pytest.fixture
def seed002() -> list[str]:
    return list(SEED002)
