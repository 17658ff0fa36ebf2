"""WordPiece on the Families page: BERT's pre-tokenizer, "##" continuations, five special tokens; one
segmentation a word (greedy longest match)."""
from __future__ import annotations

from bpe_core.families import WordPieceModel, train_wordpiece
from explorer.families.wordpiece.why import FAMILIES_NOTE

NOTE = FAMILIES_NOTE  # why its tokens per word may stay high
COST = 0.5  # its training's time on the Families page beside BPE's (0.2-0.3 s against 0.5 s)
SEGMENTATIONS = None  # longest match gives each word one segmentation


def train_on(text: str, *, vocab_size: int, transition: int) -> WordPieceModel:
    """WordPiece trained on the page's text to the vocabulary size (it has no transition)."""
    return train_wordpiece([text], vocab_size=vocab_size)
