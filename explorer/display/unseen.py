"""The Unseen words page's card of one word, as data: what a family's folder says of the word, for
`ui.unseen_cards` to draw. Pure: no Streamlit here.

A family without the engine's merge views explains its words in its own terms
(`explorer/families/<name>/unseen.py` `cards`): the pieces as chips, notes (a warning, captions),
a table of the search behind them, and merge trees where its model has merges.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from explorer.display.render import md_escape, token_text


@dataclass(frozen=True)
class Card:
    """One word's card. `notes` are (kind, Markdown) with kind "warning", "caption" or "markdown",
    drawn in order under the chips; `table_title` (Markdown) heads `table`."""

    word: str
    tokens: int
    chips: str  # escaped HTML
    notes: list[tuple[str, str]] = field(default_factory=list)
    table_title: str = ""
    table: pd.DataFrame | None = None
    trees: go.Figure | None = None

    @property
    def title(self) -> str:
        """The card's heading in Markdown: the word and how many tokens it takes."""
        plural = "s" * (self.tokens != 1)
        return f"#### {md_escape(token_text(self.word, byte_level=False))} → {self.tokens} token{plural}"
