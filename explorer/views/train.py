"""Watch training: the merges one by one, as an animation (the app's default page)."""
from __future__ import annotations

import streamlit as st

from explorer.display import tables
from explorer.display.render import cap_token
from explorer.ui import animation, page_header

trained = page_header.header(
    "Watch BPE learn", "Each step glues the most frequent neighbouring pair into one new token."
)
if trained is not None:
    animation.show(trained, presenter=page_header.presenter())
    with st.expander(f"All {trained.steps:,} merges as a table"):
        table = tables.merges_table(trained.tokenizer.trace, byte_level=trained.byte_level)
        for column in ("left", "right", "new token"):
            table[column] = table[column].map(cap_token)  # a text-mode token can be a whole corpus
        st.dataframe(table, hide_index=True, width="stretch")
