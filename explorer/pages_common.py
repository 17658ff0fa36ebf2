"""What every page starts with: its title, the link and training messages, the trained bundle."""
from __future__ import annotations

import streamlit as st

from . import services, state
from .render import md_escape
from .training import Trained


def presenter() -> bool:
    return bool(st.session_state[state.W_PRESENTER])


def header(title: str, intro: str = "") -> Trained | None:
    """Title, messages, a one-line summary; returns the trained bundle (None: nothing to show)."""
    ss = st.session_state
    st.title(title)
    if intro:
        st.caption(intro)
    if ss[state.URL_NOTICE]:
        st.warning(f"Some of the link's settings were ignored: {ss[state.URL_NOTICE]}.")
    trained = ss[state.TRAINED]
    if ss[state.TRAIN_ERROR]:
        kept = " The previous result is still shown." if trained is not None else ""
        st.error(f"Could not train: {ss[state.TRAIN_ERROR]}{kept}")
    if trained is None:
        st.info("Pick a corpus and settings in the sidebar, then press Train.")
        return None
    corpus_key = ss[state.TRAINED_FOR][0]
    tok = trained.tokenizer
    summary = (
        f"**{md_escape(services.corpus_title(corpus_key))}** · {trained.request.describe()} · "
        f"{trained.steps:,} merges learned · vocabulary {tok.vocab_size:,} tokens: "
        f"{trained.alphabet:,} base symbols + {tok.vocab_size - trained.alphabet - bool(tok.unk_token):,} "
        f"made by merges{' + the unknown token' if tok.unk_token else ''}"
    )
    st.caption(summary)
    asked = trained.request.amount if trained.request.target == "merges" else None
    if trained.stop_reason and not trained.stop_reason.startswith("reached"):
        st.info(f"Training stopped early: {trained.stop_reason}.")
    elif asked is not None and trained.steps < asked:
        st.info(f"Training stopped after {trained.steps:,} merges.")
    return trained
