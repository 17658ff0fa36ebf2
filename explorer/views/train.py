"""Watch training: the merges one by one, as an animation (the app's default page).

BPE plays in the browser-side player (`ui.animation`); WordPiece, Unigram and SuperBPE in the
server-drawn player (`ui.family_player`), each in its own terms.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.display import tables
from explorer.display.render import cap_token
from explorer.ui import animation, family_player, page_header, state

TITLES = {
    "bpe": ("Watch BPE learn", "Each step glues the most frequent neighbouring pair into one new token."),
    "wordpiece": ("Watch WordPiece learn", "Each step merges the pair with the highest score count(ab) / "
                  "(count(a) · count(b)): pairs frequent together but rare apart."),
    "unigram": ("Watch Unigram prune", "It starts from many candidate pieces; each round re-estimates their "
                "probabilities (EM) and removes the pieces whose loss costs the corpus the least likelihood."),
    "superbpe": ("Watch SuperBPE learn", "Byte-level BPE inside pre-tokens up to the transition, then merges "
                 "across spaces: superword tokens."),
}

shown = st.session_state[state.TRAINED]
family = shown.family if shown is not None else st.session_state[state.W_FAMILY]
title, intro = TITLES.get(family, TITLES["bpe"])
trained = page_header.header(title, intro)
if trained is not None and trained.family == "bpe":
    animation.show(trained, presenter=page_header.presenter())
    with st.expander(f"All {trained.steps:,} merges as a table"):
        table = tables.merges_table(trained.tokenizer.trace, byte_level=trained.byte_level)
        for column in ("left", "right", "new token"):
            table[column] = table[column].map(cap_token)  # a text-mode token can be a whole corpus
        st.dataframe(table, hide_index=True, width="stretch")
elif trained is not None:
    family_player.show(trained, presenter=page_header.presenter())
    unit = "rounds" if trained.family == "unigram" else "steps"
    with st.expander(f"All {trained.steps:,} {unit} as a table"):
        st.dataframe(pd.DataFrame(family_player.trace_rows(trained)), hide_index=True, width="stretch")
