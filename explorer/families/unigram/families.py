"""Unigram on the Families page: meta-space "▁" words, EM and pruning, and its n best segmentations of a word."""
from __future__ import annotations

from typing import Any

import pandas as pd

from bpe_core.families import UnigramModel, train_unigram
from explorer.display.families import Segmentations, nbest_caption, nbest_frame

NOTE = ""
COST = 2.5  # its training's time on the Families page beside BPE's (1.1-1.4 s against 0.5 s)
NBEST = 8


def train_on(text: str, *, vocab_size: int, transition: int) -> UnigramModel:
    """Unigram trained on the page's text to the vocabulary size (it has no transition)."""
    return train_unigram([text], vocab_size=vocab_size)


def _nbest(model: Any, word: str) -> tuple[pd.DataFrame, str]:
    found = model.nbest(word, NBEST)
    return nbest_frame(found), nbest_caption(len(found), NBEST)


# The heading is drawn before the word is segmented, so it promises no number the list may not reach.
SEGMENTATIONS = Segmentations(f"Unigram: the most probable segmentations (up to {NBEST})", _nbest)
