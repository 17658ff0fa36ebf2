"""Watch training: the merges one by one, as an animation (the app's default page)."""
from __future__ import annotations

import streamlit as st

from explorer import animation, pages_common, tables

trained = pages_common.header("Watch BPE learn", "Each step glues the most frequent neighbouring pair into one new token.")
if trained is not None:
    animation.show(trained, presenter=pages_common.presenter())
    with st.expander(f"All {trained.steps:,} merges as a table"):
        st.dataframe(tables.merges_table(trained.tokenizer.trace, byte_level=trained.byte_level), hide_index=True,
                     width="stretch")
