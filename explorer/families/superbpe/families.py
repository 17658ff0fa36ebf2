"""SuperBPE on the Families page: phase one with BPE's split (o200k), so its first merges are BPE's."""
from __future__ import annotations

from bpe_core import BPEError
from bpe_core.families import SuperBPEModel, train_superbpe

NOTE = "SuperBPE's phase one uses the same split, so its first merges are BPE's."
COST = 1.0  # its training's time on the Families page beside BPE's (0.4-0.5 s against 0.5 s)
SEGMENTATIONS = None  # its merges, replayed by rank, give each text one segmentation


def train_on(text: str, *, vocab_size: int, transition: int) -> SuperBPEModel:
    """SuperBPE trained on the page's text, phase two from the `transition` vocabulary size."""
    if 256 < vocab_size <= transition:  # below the bytes, the engine says why
        raise BPEError(f"the transition ({transition:,}) must be below the vocabulary size ({vocab_size:,}) "
                       "for phase two to learn anything")
    return train_superbpe([text], vocab_size=vocab_size, transition=transition, pretokenizer="o200k")
