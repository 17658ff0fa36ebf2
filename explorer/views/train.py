"""Watch training: the steps one by one, as an animation (the app's default page).

Every family plays in the browser-side player (`ui.animation`); its frames, texts, title and
trace table come from its folder (`explorer.families.part(family, "player")`).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.families import part
from explorer.ui import animation, page_header, state

shown = st.session_state[state.TRAINED]
family = shown.family if shown is not None else st.session_state[state.W_FAMILY]
title, intro = part(family, "player").TITLE
trained = page_header.header(title, intro)
if trained is not None:
    animation.show(trained, presenter=page_header.presenter())
    frames = part(trained.family, "player")
    with st.expander(f"All {trained.steps:,} {frames.UNITS} as a table"):
        st.dataframe(pd.DataFrame(frames.trace_rows(trained)), hide_index=True, width="stretch")
