"""The Unseen words page's card of one word, as data: what a family's folder says of the word, for
`ui.unseen_cards` to draw. Pure: no Streamlit here.

A family without the engine's merge views explains its words in its own terms
(`explorer/families/<name>/unseen.py` `cards`): the pieces as chips, notes (a warning, captions),
a table of the search behind them, and merge trees where its model has merges (or its training
built its pieces by merges).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from explorer.display.render import md_escape, token_text

# Characters of one word the page draws. Its chips and merge trees grow with it (a word of n symbols
# has up to 2n - 1 tree nodes: 127 here, 511 for 64 four-byte characters in byte mode), and one word of
# 2,000 characters took the browser about a minute. Typed words and a link's `words=` are cut alike.
MAX_WORD = 64
CUT_NOTE = (f"Words longer than {MAX_WORD} characters are cut to their first {MAX_WORD} here: the page could not "
            "draw the pieces and merge trees of a longer word quickly.")
_LONG_RUN = re.compile(rf"(\S{{{MAX_WORD}}})\S+|(\s{{{MAX_WORD}}})\s+")


def cut_text(text: str) -> tuple[str, bool]:
    """`text` with each run of non-space (and of space) cut to `MAX_WORD` characters; whether any was.

    >>> cut_text("ab " + "x" * 70)[0] == "ab " + "x" * MAX_WORD
    True
    """
    cut = _LONG_RUN.sub(lambda m: m.group(1) or m.group(2), text)
    return cut, len(cut) != len(text)


def cut_words(words: list[str]) -> tuple[list[str], bool]:
    """Each word cut to `MAX_WORD` characters (a piece of several words outgrows its runs); whether any was."""
    return [w[:MAX_WORD] for w in words], any(len(w) > MAX_WORD for w in words)


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
    trees_title: str = ""  # Markdown over `trees_html`
    trees_html: str = ""  # merge trees as escaped HTML (`display.merge_trees.trees_html`), under `trees`

    @property
    def title(self) -> str:
        """The card's heading in Markdown: the word and how many tokens it takes."""
        plural = "s" * (self.tokens != 1)
        return f"#### {md_escape(token_text(self.word, byte_level=False))} → {self.tokens} token{plural}"
