"""The Unseen words page's cards of a family without the engine's merge views: each word as its
family's folder explains it (`explorer/families/<name>/unseen.py`, a `display.unseen.Card`), drawn.
Streamlit glue only."""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.display.tables import EMPTY
from explorer.display.unseen import Card
from explorer.ui import state

_NOTES = {"warning": st.warning, "caption": st.caption, "markdown": st.markdown}


def draw_notes(notes: Sequence[tuple[str, str]]) -> None:
    """Notes as `Card.notes` holds them: (kind, Markdown), in order."""
    for kind, text in notes:
        _NOTES[kind](text)


def draw(card: Card, index: int) -> None:
    """One word's card: its heading, chips, notes, table and merge trees (`index`: the word's place)."""
    with st.container(border=True):
        st.markdown(card.title)
        st.html(card.chips)
        draw_notes(card.notes)
        if card.table is not None:
            if card.table_title:
                st.markdown(card.table_title)
            st.dataframe(card.table, hide_index=True, width="stretch", key=state.UNS_TABLE + str(index),
                         placeholder=EMPTY)
        if card.trees is not None:
            st.plotly_chart(card.trees, key=state.b_tree(index), config={"displayModeBar": False}, width="stretch")
        if card.trees_html:
            if card.trees_title:
                st.markdown(card.trees_title)
            st.html(card.trees_html)
