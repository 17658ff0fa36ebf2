"""The Unseen words page's cards of a family without the engine's merge views: each word as its
family's folder explains it (`explorer/families/<name>/unseen.py`, a `display.unseen.Card`), drawn.
Streamlit glue only."""
from __future__ import annotations

import streamlit as st

from explorer.display.tables import EMPTY
from explorer.display.unseen import Card
from explorer.ui import state

_NOTES = {"warning": st.warning, "caption": st.caption, "markdown": st.markdown}


def draw(card: Card, index: int) -> None:
    """One word's card: its heading, chips, notes, table and merge trees (`index`: the word's place)."""
    with st.container(border=True):
        st.markdown(card.title)
        st.html(card.chips)
        for kind, text in card.notes:
            _NOTES[kind](text)
        if card.table is not None:
            if card.table_title:
                st.markdown(card.table_title)
            st.dataframe(card.table, hide_index=True, width="stretch", key=state.UNS_TABLE + str(index),
                         placeholder=EMPTY)
        if card.trees is not None:
            st.plotly_chart(card.trees, key=state.b_tree(index), config={"displayModeBar": False}, width="stretch")
