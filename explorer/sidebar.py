"""The sidebar every page shares: the corpus in use, the training settings, presenter mode."""
from __future__ import annotations

import streamlit as st

from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS

from . import services, state

_HELP = {
    "mode": "word: split on whitespace, add an end-of-word marker (the seed 000 lesson). "
    "text: characters, spaces included (seed 003). bytes: UTF-8 bytes, like GPT-2.",
    "eow": "Word mode only. separate: a </w> symbol after each word; suffix: glued to the last "
    "character; none: no marker (see Common mistakes).",
    "pre": "Text and bytes modes: how the text is cut into pieces that merges stay inside. "
    "none: the whole text is one piece.",
    "tie": "When pairs have the same count. count-pair: the greatest pair (seed 000); first: the "
    "pair seen first (seed 003); hf: the pair of earliest-learned symbols.",
    "min": "Stop when the best pair occurs fewer times than this.",
}


def _corpus_changed() -> None:
    ss = st.session_state
    ss[state.CORPUS] = ss[state.W_CORPUS]
    ss[state.STEP] = 1
    ss[state.PLAYING] = False


def render() -> None:
    ss = st.session_state
    options = services.corpus_options()
    if ss[state.W_CORPUS] not in options:
        ss[state.W_CORPUS] = ss[state.CORPUS] if ss[state.CORPUS] in options else state.DEFAULT_CORPUS
        ss[state.CORPUS] = ss[state.W_CORPUS]
    st.selectbox("Corpus", list(options), format_func=lambda k: options.get(k, k), key=state.W_CORPUS,
                 on_change=_corpus_changed, help="Upload or paste your own text on the Corpus page.")
    with st.form("settings", border=True):
        st.markdown("**Training settings**")
        st.selectbox("Mode", MODES, key=state.W_MODE, help=_HELP["mode"])
        st.selectbox("End of word", EOW_STYLES, key=state.W_EOW, help=_HELP["eow"])
        st.selectbox("Pre-tokenizer", ("", *PRETOKENIZERS), key=state.W_PRETOK, help=_HELP["pre"],
                     format_func=lambda p: p or "the mode's default")
        st.selectbox("Tie-break", TIE_BREAKS, key=state.W_TIE, help=_HELP["tie"])
        st.radio("Stop after", ("merges", "vocab"), key=state.W_TARGET, horizontal=True,
                 format_func=lambda t: "a number of merges" if t == "merges" else "a vocabulary size")
        a, b = st.columns(2)
        a.number_input("Merges", min_value=0, max_value=state.MAX_INPUT, step=1, key=state.W_MERGES)
        b.number_input("Vocabulary size", min_value=1, max_value=state.MAX_INPUT, step=1, key=state.W_VOCAB)
        st.checkbox("Lowercase", key=state.W_LOWER)
        st.selectbox("Unicode normalization", NORMALIZATIONS, key=state.W_NORM)
        st.number_input("Minimum pair count", min_value=1, max_value=state.MAX_INPUT, step=1, key=state.W_MINFREQ,
                        help=_HELP["min"])
        st.form_submit_button("Train", type="primary", icon=":material/model_training:", width="stretch")
    st.toggle("Presenter mode (larger type)", key=state.W_PRESENTER)
