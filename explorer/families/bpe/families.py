"""BPE on the Families page: our engine in bytes mode with GPT-4o's split, and BPE-dropout's segmentations."""
from __future__ import annotations

from typing import Any

import pandas as pd

from bpe_core import BPEError, Settings, Tokenizer, train
from bpe_core.analysis import dropout_distribution
from explorer.display.families import Segmentations, dropout_frame
from explorer.display.render import as_clause

SETTINGS = Settings(mode="bytes", pretokenizer="o200k")
NOTE = "BPE here is our engine in bytes mode with GPT-4o's split (o200k)."
# Its training's time on the page's default (250,000 characters of English to 2,000 tokens: 0.46 s here), the
# unit of the families' COST: the page starts the longest training first.
COST = 1.0
DROPOUT_P = 0.1
DROPOUT_SAMPLES = 1_000
DROPOUT_SEED = 0


def train_on(text: str, *, vocab_size: int, transition: int) -> Tokenizer:
    """BPE trained on the page's text to the vocabulary size (it has no transition)."""
    return train([text], SETTINGS, vocab_size=vocab_size)


def _dropout(model: Any, word: str) -> tuple[pd.DataFrame, str]:
    """BPE-dropout on the word as it stands after a space (" lowest"), seeded: the same every time."""
    try:
        dist = dropout_distribution(model, " " + word, p=DROPOUT_P, samples=DROPOUT_SAMPLES, seed=DROPOUT_SEED)
    except BPEError as exc:
        raise BPEError(f"cannot sample: {as_clause(str(exc))}") from None
    caption = (f"The word after a space, as BPE sees it in running text; {len(dist.outcomes):,} distinct "
               "segmentations, the 8 most frequent shown. The seed makes the samples the same every time.")
    return dropout_frame(dist), caption


SEGMENTATIONS = Segmentations(f"BPE-dropout: {DROPOUT_SAMPLES:,} samples at p = {DROPOUT_P}, seed {DROPOUT_SEED}",
                              _dropout)
