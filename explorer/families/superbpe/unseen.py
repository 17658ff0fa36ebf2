"""SuperBPE on the Unseen words page: its merges replayed by rank on pieces of several words (the
page's merge cards, its phases and superwords marked)."""
from __future__ import annotations

from bpe_core.families.superbpe import phase_two_pieces
from explorer.data.any_model import AnyModel


def how(model: AnyModel) -> str:
    return ("SuperBPE replays its merges by rank too, on pieces that may hold several words: after the "
            "transition its merges cross spaces, so a phrase can become one token (a superword, underlined).")


def words(model: AnyModel, text: str) -> list[str]:
    """The pieces phase two merges inside (each may hold several words)."""
    return phase_two_pieces(text)
