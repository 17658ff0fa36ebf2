"""Vocabulary overlap: which tokens two vocabularies share, which only one has, by length in bytes."""
from __future__ import annotations

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.overlap import Overlap, vocabulary_overlap
from bpe_core.builtin import builtin_names
from explorer.data.tokenizer_files import UPLOAD_TYPES
from explorer.display import overlap as view
from explorer.display.render import md_escape
from explorer.ui import page_caches, page_header, state
from explorer.ui import tokenizer_picker as picker

ss = st.session_state  # this page's keys are state.OVL_*


def _compare(key_a: str, tok_a: Tokenizer, key_b: str, tok_b: Tokenizer) -> tuple[Overlap, dict[str, list[str]]]:
    """The overlap and its lists' search texts, remembered for the last pair of tokenizers."""
    memo = ss.get(state.OVL_MEMO)
    if memo is not None and memo[0] is tok_a and memo[1] is tok_b:
        return memo[2], memo[3]
    name_a, name_b = picker.builtin_of(key_a), picker.builtin_of(key_b)
    with st.spinner("Comparing the vocabularies…"):
        if name_a is not None and name_b is not None:
            found = page_caches.builtin_overlap(name_a, name_b, tok_a, tok_b)
        else:
            found = vocabulary_overlap(tok_a, tok_b)
    ss[state.OVL_MEMO] = (tok_a, tok_b, found, {})
    return found, ss[state.OVL_MEMO][3]


def _installed_builtins() -> list[str]:
    return [picker.builtin_key(n) for n in builtin_names() if not picker.builtin_missing(n)]


def _defaults(options: dict[str, str]) -> None:
    """A: the sidebar's tokenizer (or the first built-in), B: the first other built-in installed."""
    preferred = [picker.SIDEBAR, *_installed_builtins(), *options]
    if ss[state.OVL_A] not in options:
        ss[state.OVL_A] = next(k for k in preferred if k in options)
    if ss[state.OVL_B] not in options:
        ss[state.OVL_B] = next((k for k in preferred if k in options and k != ss[state.OVL_A]), ss[state.OVL_A])


def _uploaded() -> None:
    files = ss.get(state.OVL_W_UPLOAD) or []
    loaded = picker.add_uploads([(f.name, f.getvalue()) for f in files])
    if loaded:
        ss[state.OVL_B] = loaded[-1].key


page_header.header(
    "Vocabulary overlap",
    "Which tokens two vocabularies share and which only one has, compared by the bytes each token stands for.",
    summary=False)

options = picker.choices()
if options:
    _defaults(options)
else:
    st.info("No tokenizer to compare: train one in the sidebar or upload a file below.")
with st.expander("Upload a tokenizer file (it becomes B)"):
    st.file_uploader("Hugging Face tokenizer.json, GPT-2 vocab.json + merges.txt (both together), a .tiktoken "
                     "file or our model.json", type=UPLOAD_TYPES, accept_multiple_files=True,
                     key=state.OVL_W_UPLOAD, on_change=_uploaded)
    picker.show_upload_notice()
if not options:
    st.stop()

left, right = st.columns(2, gap="large")
for column, letter, value_key, widget_key in ((left, "A", state.OVL_A, state.OVL_W_A),
                                              (right, "B", state.OVL_B, state.OVL_W_B)):
    with column:
        write_back = state.bind(ss, widget_key, value_key)
        st.selectbox(f"Tokenizer {letter}", list(options), format_func=lambda k: options.get(k, k), key=widget_key,
                     on_change=write_back)
        picker.show_about(ss[value_key])
key_a, key_b = ss[state.OVL_A], ss[state.OVL_B]
tok_a = picker.tokenizer_or_stop(key_a)
tok_b = picker.tokenizer_or_stop(key_b)
overlap, texts = _compare(key_a, tok_a, key_b, tok_b)

metrics = st.columns(6)
metrics[0].metric("Tokens in A", f"{overlap.size_a:,}")
metrics[1].metric("Tokens in B", f"{overlap.size_b:,}")
metrics[2].metric("Shared", f"{len(overlap.shared):,}")
metrics[3].metric("Only in A", f"{len(overlap.only_a):,}")
metrics[4].metric("Only in B", f"{len(overlap.only_b):,}")
metrics[5].metric("Jaccard", view.jaccard_text(overlap.jaccard),
                  help="Shared tokens over the tokens in either vocabulary.")
st.caption("This page reads BPE merge lists (trained here, uploaded, or built in); the Compare page's overlap table "
           "takes any tokenizer, every family and the files read into parts included.")
st.caption("Tokens are compared by the bytes they stand for, so GPT-2's `Ġthe` and a text-mode ` the` are one "
           "token. A token that ends in `</w>` (the end of a word) equals only another such token; `<unk>` and "
           "special tokens equal only themselves and count as 0 bytes long.")
if key_a == key_b:
    st.info("A and B are the same tokenizer: pick another one for B.")

st.plotly_chart(view.length_figure(overlap, presenter=page_header.presenter()), key=state.OVL_CHART,
                config={"displayModeBar": False}, width="stretch")

counts = {which: len(view.keys_of(overlap, which)) for which in view.LISTS}
if ss[state.OVL_LIST] not in view.LISTS:
    ss[state.OVL_LIST] = "shared"
list_col, search_col = st.columns([3, 2])
with list_col:
    write_back = state.bind(ss, state.OVL_W_LIST, state.OVL_LIST)
    st.radio("List", list(view.LISTS), format_func=lambda w: f"{view.LISTS[w]} ({counts[w]:,})", horizontal=True,
             key=state.OVL_W_LIST, on_change=write_back)
with search_col:
    write_back = state.bind(ss, state.OVL_W_SEARCH, state.OVL_SEARCH)
    st.text_input("Search tokens (a space or · matches a space; Ġthe finds GPT-2's spelling)",
                  key=state.OVL_W_SEARCH, on_change=write_back)
which, query = ss[state.OVL_LIST], ss[state.OVL_SEARCH]
keys = view.keys_of(overlap, which)
if query and which not in texts:
    texts[which] = view.search_texts(overlap, keys)
found = view.search(keys, texts.get(which, []), query) if query else list(keys)
st.dataframe(view.token_frame(overlap, found, tok_a.vocab, tok_b.vocab), hide_index=True, width="stretch",
             height=360, key=state.OVL_TABLE, placeholder=view.EMPTY)
st.caption(md_escape(view.list_caption(which, min(len(found), view.MAX_ROWS), len(found), len(keys), query)))
