"""Unigram on the Vocabulary page: what its columns mean, and a piece's log-probability and rank."""
from __future__ import annotations

import math

from explorer.data.any_model import AnyModel
from explorer.display.render import md_escape
from explorer.display.vocabulary import FamilyRow


def columns_note(model: AnyModel) -> str:
    return "Log-probability: the piece's score; Viterbi picks the segmentation whose scores sum highest."


def details(model: AnyModel, row: FamilyRow) -> list[str]:
    """The piece's captions: the unknown token, or its log-probability and rank among the pieces."""
    um = model.model
    if row.id == um.unk_id:
        return ["The unknown token: it stands for characters no piece covers."]
    rank = sorted(um.scores[1:], reverse=True).index(row.score) + 1 if row.score is not None else None
    return [md_escape(f"Log-probability {row.score:.4f} (probability {math.exp(row.score):.3g}); "
                      f"rank {rank:,} of {len(um.scores) - 1:,} pieces by probability.")]
