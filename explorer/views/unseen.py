"""Unseen words: how a tokenizer (trained here, uploaded or built in) splits words it may never have seen, and why."""
from __future__ import annotations

import streamlit as st

from bpe_core import merge_tree
from explorer.display import charts, tables
from explorer.display.render import Chip, cap_token, chips_html, md_escape, token_text
from explorer.ui import animation, page_header, state
from explorer.ui import tokenizer_picker as picker

MAX_WORDS = 12
ss = st.session_state

sidebar_shown = ss.get(state.UNSEEN_SOURCE, picker.SIDEBAR) == picker.SIDEBAR  # its summary and training notes
page_header.header(
    "Unseen words", "Encoding replays the learned merges, in the order they were learned, on each new word.",
    summary=sidebar_shown)
source = picker.pick("Tokenizer", state.W_UNSEEN_SOURCE, remember=state.UNSEEN_SOURCE)  # the sidebar's at first
if source is None:
    st.stop()
if source != picker.SIDEBAR or not sidebar_shown:
    picker.show_about(source)
tok = picker.tokenizer_or_stop(source)
byte_level = tok.settings.mode == "bytes"
steps = len(tok.merges)  # step k is the k-th merge, for rank files (the built-ins) too

st.text_input("Words to encode (split into words as this tokenizer splits text)", key=state.W_WORDS,
              on_change=state.bind(ss, state.W_WORDS, state.WORDS))
words = tok.words_of(ss[state.WORDS])
if not words:
    st.info("Type one or more words above.")
    st.stop()
if len(words) > MAX_WORDS:
    st.caption(f"Showing the first {MAX_WORDS} of {len(words)} words.")
    words = words[:MAX_WORDS]

if ss[state.TIMELINE] is None or ss[state.TIMELINE] > steps or ss.get(state.TIMELINE_FOR) != source:
    ss[state.TIMELINE], ss[state.TIMELINE_FOR] = steps, source
if steps:
    st.slider("Timeline: each word after k merges (drag to watch it being built)", 0, steps, key=state.W_TIMELINE,
              on_change=state.bind(ss, state.W_TIMELINE, state.TIMELINE))
k = ss[state.TIMELINE]
counts = {m.rank: m.count for m in tok.trace}

for index, word in enumerate(words):
    pieces = tok.encode_word(word)
    unknown = [p for p in pieces if p not in tok.vocab]
    chips = [
        Chip(p, token_id=tok.vocab.get(p, tok.unk_id), birth=tok.birth.get(p), unknown=p in unknown) for p in pieces
    ]
    with st.container(border=True):
        st.markdown(
            f"#### {md_escape(token_text(word, byte_level=False))} → {len(pieces)} token{'s' * (len(pieces) != 1)}"
        )
        left, right = st.columns([1, 1], gap="medium")
        with left:
            st.markdown("**Pieces** (small numbers are token ids)")
            st.html(chips_html(chips, byte_level=byte_level, show_id=True))
            if unknown:
                st.caption("Red pieces were never seen in training: they become the unknown token.")
            whole = [p for p in pieces if p in tok.unreachable]
            if whole:
                names = ", ".join(md_escape(cap_token(token_text(p, byte_level=byte_level))) for p in whole)
                st.caption(f"No merge builds {names}: the vocabulary lists it, and a word that is itself a token is "
                           "taken whole, before any merge. It has no step, and its tree is one node.")
            if steps:
                at_k = tok.encode_word(word, limit=k)
                st.markdown(f"**After {k:,} merge{'s' * (k != 1)}**")
                st.html(chips_html([Chip(p, birth=tok.birth.get(p), unknown=p in unknown) for p in at_k],
                                   byte_level=byte_level))
            made = sorted({(tok.birth[p] + 1, p) for p in pieces if p in tok.birth})  # (step that made it, piece)
            if made and source == picker.SIDEBAR:  # only the sidebar's training has an animation to jump into
                st.markdown("**Jump to the step that created a piece**")
                jump_cols = st.columns(min(4, len(made)))
                for j, (step, piece) in enumerate(made):
                    jump_cols[j % len(jump_cols)].button(
                        # The step first: a narrow button cuts the end of its label, never the step.
                        f"Step {step}: {md_escape(cap_token(token_text(piece, byte_level=byte_level)))}",
                        key=state.b_jump(index, step),
                        on_click=animation.jump_to,
                        args=(step,),
                        width="stretch",
                    )
        with right:
            st.markdown("**Merge tree** (each node: its token and the step that made it)")
            trees = [merge_tree(tok, p) for p in pieces]
            st.plotly_chart(
                charts.merge_tree_figure(
                    trees, counts=counts, byte_level=byte_level, unknown=unknown, presenter=page_header.presenter()
                ),
                key=state.b_tree(index),
                config={"displayModeBar": False},
                width="stretch",
            )
        built = tok.merge_steps(word)
        st.markdown("**How it was built:** the merges that fired, in order")
        if built:
            st.dataframe(tables.built_table(built, tok), hide_index=True, width="stretch", placeholder=tables.EMPTY)
        else:
            st.caption("No merge applies: the word stays as single symbols.")
