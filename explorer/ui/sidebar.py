"""The sidebar every page shares: the corpus in use, the training settings, presenter mode."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.families.registry import family
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS
from explorer.families import explorer_family, taking, titles, trainable
from explorer.ui import link, state, store

_HELP = {
    "mode": "word: split on whitespace, add an end-of-word marker (as in the lesson \u201clow, lower, newest, "
    "widest\u201d). text: characters, spaces included (the lesson \u201clike, love, hug\u201d). bytes: UTF-8 "
    "bytes, like GPT-2.",
    "eow": "Word mode only: text and bytes modes have no end-of-word marker, so this is off there "
    "(choose word mode and press Train to change it). separate: a `</w>` symbol after each word; "
    "suffix: glued to the last character; none: no marker (see Common mistakes).",
    "pretokenizer": "Text and bytes modes: how the text is cut into pieces that merges stay inside. "
    "none: the whole text is one piece.",
    "tie_break": "When pairs have the same count. count-pair: the greatest pair (as in \u201clow, lower, newest, "
    "widest\u201d); first: the pair seen first (as in \u201clike, love, hug\u201d); hf: the pair of "
    "earliest-learned symbols.",
    "min_frequency": "Stop when the best pair occurs fewer times than this.",
}


def _family_help() -> str:
    """The Family select's help: a clause for every family, and which train to a number of merges."""
    clauses = [f"{family(name).title}: {family(name).summary}." for name in trainable()]
    return " ".join(clauses) + (f" Only {titles(taking('target'))} can stop after a number of merges; the others "
                                "train to a vocabulary size.")


def _off(option: str, name: str) -> bool:
    return option not in explorer_family(name).options


def _help(option: str, name: str) -> str:
    """A widget's help (its own text, or that of the families that take it), saying why it is off when
    the family has no such option."""
    text = _HELP.get(option) or " ".join(
        explorer_family(other).option_help[option] for other in taking(option)
        if option in explorer_family(other).option_help)
    reason = explorer_family(name).off_reason
    if not _off(option, name) or not reason:
        return text
    return f"Off for {family(name).title}: {reason}. " + text


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
        if ss.get(state.W_FAMILY) not in trainable():
            ss[state.W_FAMILY] = state.SETTING_DEFAULTS[state.W_FAMILY]
        fam = ss[state.W_FAMILY]
        st.selectbox("Family", trainable(), key=state.W_FAMILY, help=_family_help(),
                     format_func=lambda name: family(name).title)
        st.selectbox("Mode", MODES, key=state.W_MODE, help=_help("mode", fam), disabled=_off("mode", fam))
        st.selectbox("End of word", EOW_STYLES, key=state.W_EOW, help=_help("eow", fam),
                     disabled=ss[state.W_MODE] != "word" or _off("eow", fam))
        st.selectbox("Pre-tokenizer", ("", *PRETOKENIZERS), key=state.W_PRETOK, help=_help("pretokenizer", fam),
                     format_func=lambda p: p or "the mode's default", disabled=_off("pretokenizer", fam))
        st.selectbox("Tie-break", TIE_BREAKS, key=state.W_TIE, help=_help("tie_break", fam),
                     disabled=_off("tie_break", fam))
        by_size = titles([name for name in trainable() if _off("target", name)])
        st.radio("Stop after", ("merges", "vocab"), key=state.W_TARGET, horizontal=True, disabled=_off("target", fam),
                 format_func=lambda t: "a number of merges" if t == "merges" else "a vocabulary size",
                 help=_help("target", fam) + f"{by_size} train to a vocabulary size.")
        # One above the other: side by side, presenter mode broke "Vocabulary" mid-word.
        limit = f"At most {state.MAX_APP_MERGES:,}: the most this app trains for one visitor."
        st.number_input("Merges", min_value=0, max_value=state.MAX_APP_MERGES, step=1, key=state.W_MERGES,
                        help=_help("target", fam) + limit, disabled=_off("target", fam))
        st.number_input("Vocabulary size", min_value=1, max_value=state.MAX_APP_MERGES, step=1, key=state.W_VOCAB,
                        help=limit)
        st.number_input("Transition", min_value=0, max_value=state.MAX_APP_MERGES, step=1, key=state.W_TRANSITION,
                        help=_help("transition", fam), disabled=_off("transition", fam))
        st.checkbox("Lowercase", key=state.W_LOWER, help=_help("lowercase", fam) or None,
                    disabled=_off("lowercase", fam))
        st.selectbox("Unicode normalization", NORMALIZATIONS, key=state.W_NORM,
                     help=_help("normalization", fam) or None, disabled=_off("normalization", fam))
        st.number_input("Minimum pair count", min_value=1, max_value=state.MAX_INPUT, step=1, key=state.W_MINFREQ,
                        help=_help("min_frequency", fam), disabled=_off("min_frequency", fam))
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
