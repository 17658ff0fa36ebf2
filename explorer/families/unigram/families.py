"""Unigram on the Families page: meta-space "▁" words, EM and pruning, and its n best segmentations of a word."""
from __future__ import annotations

from typing import Any

import pandas as pd

from bpe_core.families import UnigramModel, train_unigram
from explorer.display.families import Segmentations, nbest_frame

NOTE = ""
NBEST = 8


def train_on(text: str, *, vocab_size: int, transition: int) -> UnigramModel:
    """Unigram trained on the page's text to the vocabulary size (it has no transition)."""
    return train_unigram([text], vocab_size=vocab_size)


def _nbest(model: Any, word: str) -> tuple[pd.DataFrame, str]:
    caption = ("Share of the n best: each one's probability over the sum of the n shown (exp of the "
               "log-probability, normalised).")
    return nbest_frame(model.nbest(word, NBEST)), caption


SEGMENTATIONS = Segmentations(f"Unigram: the {NBEST} most probable segmentations", _nbest)
