"""Cutting a trained tokenizer to its first merges equals training with that many merges."""
from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings, first_merges, train
from sample_corpora import load_corpus

SETTINGS = [Settings(), Settings(mode="text", tie_break="first"), Settings(mode="bytes", tie_break="hf"),
            Settings(eow="suffix", lowercase=True)]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: f"{s.mode}-{s.tie_break}-{s.eow}")
def test_the_cut_is_the_shorter_training(settings):
    text = load_corpus("seed002")
    full = train(text, settings, merges=60)
    for k in (0, 1, 17, 59, 60):
        cut, trained = first_merges(full, k), train(text, settings, merges=k)
        assert cut.merges == trained.merges and cut.vocab == trained.vocab
        assert cut.trace == trained.trace and cut.training.top_pairs == trained.training.top_pairs
        assert cut.training.stop_reason == trained.training.stop_reason
        assert cut.encode(text).ids == trained.encode(text).ids


def test_more_merges_than_made_only_when_training_ran_out():
    text = load_corpus("seed000")
    ran_out = train(text, merges=40)  # no pair is left after 18 merges
    assert len(first_merges(ran_out, 30).merges) == 18
    reached = train(text, merges=10)
    with pytest.raises(BPEError, match=r"^only the first 10 merges of this tokenizer are known, not 11$"):
        first_merges(reached, 11)
    with pytest.raises(BPEError, match="not -1"):
        first_merges(reached, -1)
    loaded = type(reached)(settings=reached.settings, merges=reached.merges, base=reached.training.base)
    with pytest.raises(BPEError, match="only a tokenizer trained here"):
        first_merges(loaded, 2)
