"""The sidebar every page shares: the corpus in use, the training settings, presenter mode."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS
from explorer.data.family_view import FAMILY_TITLES
from explorer.data.training import FAMILIES
from explorer.ui import link, state, store

_HELP = {
    "mode": "word: split on whitespace, add an end-of-word marker (as in the lesson \u201clow, lower, newest, "
    "widest\u201d). text: characters, spaces included (the lesson \u201clike, love, hug\u201d). bytes: UTF-8 "
    "bytes, like GPT-2.",
    "eow": "Word mode only: text and bytes modes have no end-of-word marker, so this is off there "
    "(choose word mode and press Train to change it). separate: a `</w>` symbol after each word; "
    "suffix: glued to the last character; none: no marker (see Common mistakes).",
    "pre": "Text and bytes modes: how the text is cut into pieces that merges stay inside. "
    "none: the whole text is one piece.",
    "tie": "When pairs have the same count. count-pair: the greatest pair (as in \u201clow, lower, newest, "
    "widest\u201d); first: the pair seen first (as in \u201clike, love, hug\u201d); hf: the pair of "
    "earliest-learned symbols.",
    "min": "Stop when the best pair occurs fewer times than this.",
    "family": "BPE merges the most frequent pair; WordPiece the pair with the best score count(ab) / "
    "(count(a) · count(b)); Unigram starts from many pieces and prunes the least useful; SuperBPE is byte-level "
    "BPE whose second phase may merge across spaces (superword tokens). All but BPE train to a vocabulary size.",
    "transition": "SuperBPE only: the vocabulary size where phase two starts (merges across spaces); at least 256 "
    "(the bytes) and at most the vocabulary size. 0: 90% of the vocabulary, the paper's best ratio.",
}
# Why a setting is off for a family (the help text of a disabled widget).
_NOT_FOR = {
    "wordpiece": "WordPiece splits text as BERT does (whitespace, then punctuation) and merges characters",
    "unigram": "Unigram splits text at spaces (marked ▁) and prunes pieces by likelihood",
    "superbpe": "SuperBPE works on bytes with the paper's pre-tokenizer in phase one",
}
_APPLIES = {  # setting -> the families it applies to
    "mode": ("bpe",), "eow": ("bpe",), "pre": ("bpe",), "tie": ("bpe", "superbpe"), "target": ("bpe",),
    "merges": ("bpe",), "lower": ("bpe", "wordpiece"), "norm": ("bpe",), "min": ("bpe", "superbpe"),
    "transition": ("superbpe",),
}


def _off(setting: str, family: str) -> bool:
    return family not in _APPLIES[setting]


def _help(setting: str, family: str, text: str = "") -> str:
    """A widget's help, saying why it is off when the family has no such setting."""
    if not _off(setting, family) or family == "bpe":
        return text
    return f"Off for {FAMILY_TITLES[family]}: {_NOT_FOR[family]}. " + text


def _corpus_changed() -> None:
    ss = st.session_state
    ss[state.CORPUS] = ss[state.W_CORPUS]
    ss[state.STEP] = 1
    ss[state.PLAYING] = False


def render() -> None:
    ss = st.session_state
    options = store.corpus_options()
    if ss[state.W_CORPUS] not in options:
        ss[state.W_CORPUS] = ss[state.CORPUS] if ss[state.CORPUS] in options else state.DEFAULT_CORPUS
        ss[state.CORPUS] = ss[state.W_CORPUS]
    # Selectbox options are plain text (not Markdown), so corpus titles go in as they are.
    st.selectbox("Corpus", list(options), format_func=lambda k: options.get(k, k), key=state.W_CORPUS,
                 on_change=_corpus_changed, help="Upload or paste your own text on the Corpus page.")
    link_caption(ss[state.CORPUS])
    with st.form("settings", border=True):
        st.markdown("**Training settings**")
        if ss.get(state.W_FAMILY) not in FAMILIES:
            ss[state.W_FAMILY] = "bpe"
        fam = ss[state.W_FAMILY]
        st.selectbox("Family", FAMILIES, key=state.W_FAMILY, help=_HELP["family"],
                     format_func=lambda f: FAMILY_TITLES.get(f, f))
        st.selectbox("Mode", MODES, key=state.W_MODE, help=_help("mode", fam, _HELP["mode"]),
                     disabled=_off("mode", fam))
        st.selectbox("End of word", EOW_STYLES, key=state.W_EOW, help=_help("eow", fam, _HELP["eow"]),
                     disabled=ss[state.W_MODE] != "word" or _off("eow", fam))
        st.selectbox("Pre-tokenizer", ("", *PRETOKENIZERS), key=state.W_PRETOK, help=_help("pre", fam, _HELP["pre"]),
                     format_func=lambda p: p or "the mode's default", disabled=_off("pre", fam))
        st.selectbox("Tie-break", TIE_BREAKS, key=state.W_TIE, help=_help("tie", fam, _HELP["tie"]),
                     disabled=_off("tie", fam))
        st.radio("Stop after", ("merges", "vocab"), key=state.W_TARGET, horizontal=True, disabled=_off("target", fam),
                 format_func=lambda t: "a number of merges" if t == "merges" else "a vocabulary size",
                 help=_help("target", fam, "WordPiece, Unigram and SuperBPE train to a vocabulary size."))
        # One above the other: side by side, presenter mode broke "Vocabulary" mid-word.
        limit = f"At most {state.MAX_APP_MERGES:,}: the most this app trains for one visitor."
        st.number_input("Merges", min_value=0, max_value=state.MAX_APP_MERGES, step=1, key=state.W_MERGES,
                        help=_help("merges", fam, limit), disabled=_off("merges", fam))
        st.number_input("Vocabulary size", min_value=1, max_value=state.MAX_APP_MERGES, step=1, key=state.W_VOCAB,
                        help=limit)
        st.number_input("Transition", min_value=0, max_value=state.MAX_APP_MERGES, step=1, key=state.W_TRANSITION,
                        help=_help("transition", fam, _HELP["transition"]), disabled=_off("transition", fam))
        st.checkbox("Lowercase", key=state.W_LOWER, help=_help("lower", fam) or None, disabled=_off("lower", fam))
        st.selectbox("Unicode normalization", NORMALIZATIONS, key=state.W_NORM, help=_help("norm", fam) or None,
                     disabled=_off("norm", fam))
        st.number_input("Minimum pair count", min_value=1, max_value=state.MAX_INPUT, step=1, key=state.W_MINFREQ,
                        help=_help("min", fam, _HELP["min"]), disabled=_off("min", fam))
        st.form_submit_button("Train", type="primary", icon=":material/model_training:", width="stretch")
    st.toggle("Presenter mode", key=state.W_PRESENTER, help="Larger type, for a projector or a shared screen.")


def link_caption(corpus_key: str) -> None:
    """Under the corpus picker: what the page's link (the address bar) opens when a corpus is the user's own."""
    if corpus_key.startswith("sample:"):
        return
    try:
        text = store.get_corpus(corpus_key).text
    except BPEError:
        return
    if link.link_carries(text):
        st.caption(f"This page's link (the address bar) carries this text ({len(text):,} characters): "
                   "whoever opens it sees the same corpus.")
    else:
        own = "uploaded file" if corpus_key.startswith("upload:") else "pasted text"
        st.caption(f"This page's link (the address bar) opens a sample corpus, not your {own}: a link carries "
                   f"only texts up to {link.LINK_TEXT_MAX_BYTES:,} bytes. Send the {own} along with the link.")
