"""Tokenizer families beside byte-pair encoding (issue 10).

One module per subject: ``wordpiece*`` (WordPiece), ``unigram*`` (Unigram) and
``superbpe*`` (SuperBPE). Each family offers a fast trainer, a slow reference
trainer, a model class (encode, decode, trace, our JSON, ``tokenizer.json``).
"""

from .superbpe_model import SuperBPEModel
from .superbpe_trainer import SuperBPEStep, SuperBPETraining
from .superbpe_training import train_superbpe, train_superbpe_from_counts
from .unigram import UnigramModel, UnigramRound, train_unigram, train_unigram_from_counts
from .wordpiece import (
    WordPieceModel,
    WordPieceStep,
    train_wordpiece,
    train_wordpiece_from_counts,
)

# Each family adds its public names here beside its import line.
__all__ = [
    "SuperBPEModel",
    "SuperBPEStep",
    "SuperBPETraining",
    "UnigramModel",
    "UnigramRound",
    "WordPieceModel",
    "WordPieceStep",
    "train_superbpe",
    "train_superbpe_from_counts",
    "train_unigram",
    "train_unigram_from_counts",
    "train_wordpiece",
    "train_wordpiece_from_counts",
]
