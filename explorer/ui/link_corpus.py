"""The corpus a link carries (`text=`): made the corpus in use when the link opens, and written
back into the link while a small pasted or uploaded corpus is in use (`link.link_carries`)."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from explorer.data.corpus import pasted_corpus
from explorer.ui import state, store


def load() -> None:
    """Make the small corpus a link carried (`text=`) the corpus in use, keeping the link's step."""
    ss = st.session_state
    text = ss.pop(state.LINK_TEXT, None)
    if text is None:
        return
    step, playing = ss[state.STEP], ss[state.PLAYING]
    try:
        store.add_user_corpus(pasted_corpus(text))
    except BPEError as exc:
        ss[state.URL_NOTICE] = ("warning", f"The text the link carried could not be used: {exc}")
        return
    ss[state.STEP], ss[state.PLAYING] = step, playing
    opened = f"This link carries its own corpus: {len(text):,} characters of pasted text, now in use."
    kind, told = ss[state.URL_NOTICE] or ("info", "")
    ss[state.URL_NOTICE] = (kind, f"{opened} {told}".strip())


def own_text() -> str | None:
    """The text of the uploaded or pasted corpus in use (None for a sample): small ones go in the link."""
    key = st.session_state[state.CORPUS]
    if key.startswith("sample:"):
        return None
    try:
        return store.get_corpus(key).text
    except BPEError:
        return None
