"""Why Unigram splits a word as it does: Viterbi's most probable segmentation and the runners-up. Pure.

Unigram encodes a word by Viterbi: the segmentation whose pieces' log-probabilities sum highest;
`nbest` lists the runners-up with their probabilities. The tokens themselves always come from the
engine (`encode_with_spans`, `nbest`); this module only reads them out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from bpe_core.families import UnigramModel


@dataclass(frozen=True)
class Segmentation:
    """One of Unigram's best segmentations of a word: pieces, log-probability, share among those listed."""

    pieces: tuple[str, ...]
    log_probability: float
    share: float


def unigram_words(text: str) -> list[str]:
    """The user's words for Unigram: cut at spaces, as the meta-space rule cuts them ("▁" each)."""
    return [word for word in text.split(" ") if word]


def unigram_nbest(model: UnigramModel, word: str, n: int) -> list[Segmentation]:
    """The `n` best segmentations of `word` (the engine's `nbest`), best first."""
    return [Segmentation(tuple(pieces), log_p, share) for pieces, log_p, share in model.nbest(word, n)]


def piece_score(model: UnigramModel, piece: str) -> float:
    """A piece's log-probability in the model; a piece it lacks scores as an unknown node does."""
    index = model.vocab.get(piece)
    return model.unk_score if index is None or index == model.unk_id else model.scores[index]


def probability(log_p: float) -> str:
    """A log-probability as a readable probability.

    >>> probability(-2.302585092994046), probability(-30.0)
    ('0.1', '9.36e-14')
    """
    return f"{math.exp(log_p):.3g}"
