"""The lessons' trainings and the Common mistakes page's experiments: the same for everyone, so cached
server-wide (`st.cache_resource`)."""
from __future__ import annotations

import streamlit as st

from bpe_core import Settings, Tokenizer
from bpe_core.analysis import mistakes
from explorer.data import lessons
from explorer.data.training import Trained, TrainRequest, train_corpus
from explorer.ui.store import sample_text


@st.cache_resource(show_spinner=False)
def lesson_trained(lesson_key: str) -> Trained:
    lesson = lessons.LESSONS[lesson_key]
    return train_corpus([sample_text(lesson.corpus_id)], lesson.request)


@st.cache_resource(show_spinner=False)
def try_it_yourself() -> mistakes.TryIt:
    return mistakes.try_it_yourself(sample_text("seed000"), lessons.TRY_IT_EXTRA)


@st.cache_resource(show_spinner=False)
def seed000_variant(eow: str) -> Tokenizer:
    """The "low, lower, newest, widest" lesson's 10 merges trained with another end-of-word style."""
    trained = train_corpus([sample_text("seed000")], TrainRequest(Settings(eow=eow), "merges", 10))
    return trained.tokenizer


MISMATCH_BYTES = 400_000  # characters of each corpus trained on (its start)
MISMATCH_TEST_CHARS = 50_000  # characters at the end of each corpus, never trained on, encoded
MISMATCH_MERGES = 1_000
# Measured on 2 busy cores: 1.1-2 s (two trainings of 400,000 characters, four encodings of 50,000).
MISMATCH_SPINNER = "Training on English prose and on Python code (1 to 3 seconds)…"


@st.cache_resource(show_spinner=MISMATCH_SPINNER)
def mismatch() -> mistakes.Mismatch:
    """Tokens per word when the tokenizer was trained on other text: English vs Python."""
    english = sample_text("english")
    python = sample_text("python")
    # Held-out test texts: the end of each corpus, never seen in training.
    train_texts = {"English prose": english[:MISMATCH_BYTES], "Python code": python[:MISMATCH_BYTES]}
    test_texts = {"English prose": english[-MISMATCH_TEST_CHARS:], "Python code": python[-MISMATCH_TEST_CHARS:]}
    return mistakes.mismatch(train_texts, test_texts, merges=MISMATCH_MERGES)
