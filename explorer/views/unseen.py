"""Unseen words: how a tokenizer of any family (trained here, uploaded or built in) splits words it may
never have seen, and why. A family with the engine's merge view replays its merges (a timeline, merge
trees, the merges that fired); any other explains each word in its own terms (its folder's `unseen`:
a longest match, the most probable segmentations, a file's pieces with their merge trees)."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from bpe_core import BPEError, merge_tree
from explorer.display import merge_trees, tables
from explorer.display.render import Chip, cap_token, chips_html, md_escape, token_text
from explorer.display.unseen import CUT_NOTE, cut_text, cut_words
from explorer.display.vocabulary import family_chips_html, phases_note
from explorer.families import part
from explorer.ui import animation, page_header, state, unseen_cards
from explorer.ui import tokenizer_picker as picker

MAX_WORDS = 12
ss = st.session_state

sidebar_shown = ss.get(state.UNSEEN_SOURCE, picker.SIDEBAR) == picker.SIDEBAR  # its summary and training notes
page_header.header(
    "Unseen words", "How a tokenizer splits words it may never have seen, and why, in its family's own terms.",
    summary=sidebar_shown)
source = picker.pick("Tokenizer", state.W_UNSEEN_SOURCE, remember=state.UNSEEN_SOURCE, families=True)
if source is None:
    st.stop()
if source != picker.SIDEBAR or not sidebar_shown:
    picker.show_about(source)
model = picker.model_or_stop(source)
trained = ss[state.TRAINED] if source == picker.SIDEBAR else None  # its corpus's numbers can be told
own = part(model.family, "unseen")
st.html(merge_trees.CSS)
st.caption(md_escape(own.how(model)))

st.text_input("Words to encode (split into words as this tokenizer splits text)", key=state.W_WORDS,
              on_change=state.bind(ss, state.W_WORDS, state.WORDS))
text, text_cut = cut_text(ss[state.WORDS])  # typed or from a link: one long word would hold the browser
try:
    words, words_cut = cut_words(own.words(model, text))
except BPEError as exc:  # e.g. a file without an unknown token meets a character it cannot spell
    st.error(f"This tokenizer cannot encode that text: {md_escape(str(exc))}")
    st.stop()
if not words:
    st.info("Type one or more words above.")
    st.stop()
if len(words) > MAX_WORDS:
    st.caption(f"Showing the first {MAX_WORDS} of {len(words)} words.")
    words = words[:MAX_WORDS]
if text_cut or words_cut:
    st.caption(CUT_NOTE)

if not model.merge_based:
    n = None
    if own.COUNT is not None:
        st.number_input(own.COUNT, min_value=1, max_value=20, key=state.UNS_W_NBEST,
                        on_change=state.bind(ss, state.UNS_W_NBEST, state.UNS_NBEST))
        n = int(ss[state.UNS_NBEST])
    for index, card in enumerate(own.cards(model, text, words, n=n, presenter=page_header.presenter())):
        unseen_cards.draw(replace(card, notes=[*card.notes, *model.shows.word_notes(model.model, trained, card.word)]),
                          index)
    st.stop()

tok = model.tokenizer  # the merge list itself, or a family's merge view (the same merges, ranked)
byte_level = tok.settings.mode == "bytes"
steps = len(tok.merges)  # step k is the k-th merge, for rank files (the built-ins) too
phase_one = model.phase_one
if phase_one is not None:
    st.caption(md_escape(phases_note(phase_one)))

if ss[state.TIMELINE] is None or ss[state.TIMELINE] > steps or ss.get(state.TIMELINE_FOR) != source:
    ss[state.TIMELINE], ss[state.TIMELINE_FOR] = steps, source
if steps:
    st.slider("Timeline: each word after k merges (drag to watch it being built)", 0, steps, key=state.W_TIMELINE,
              on_change=state.bind(ss, state.W_TIMELINE, state.TIMELINE))
k = ss[state.TIMELINE]
counts = {m.rank: m.count for m in model.model.trace}  # the model's own record of its merges (none for a file)

for index, word in enumerate(words):
    pieces = tok.encode_word(word)
    unknown = [p for p in pieces if p not in tok.vocab]
    chips = [
        Chip(p, token_id=tok.vocab.get(p, tok.unk_id), birth=tok.birth.get(p), unknown=p in unknown) for p in pieces
    ]
    marked = [p for p in pieces if model.is_marked(p)]
    with st.container(border=True):
        st.markdown(
            f"#### {md_escape(token_text(word, byte_level=False))} → {len(pieces)} token{'s' * (len(pieces) != 1)}"
        )
        left, right = st.columns([1, 1], gap="medium")
        with left:
            st.markdown("**Pieces** (small numbers are token ids)")
            if model.mark is not None:  # the same tokens, the marked ones underlined
                st.html(family_chips_html(model, model.segment(word), word))
            else:
                st.html(chips_html(chips, byte_level=byte_level, show_id=True))
            if marked and model.mark is not None:
                names = ", ".join(md_escape(cap_token(token_text(p, byte_level=byte_level))) for p in marked)
                st.caption(f"{model.mark.plural.capitalize()} ({model.mark.note}): {names}.")
            if unknown:
                st.caption("Red pieces were never seen in training: they become the unknown token.")
            whole = [p for p in pieces if p in tok.unreachable]
            if whole:
                names = ", ".join(md_escape(cap_token(token_text(p, byte_level=byte_level))) for p in whole)
                st.caption(f"No merge builds {names}: the vocabulary lists it, and a word that is itself a token is "
                           "taken whole, before any merge. It has no step, and its tree is one node.")
        with right:
            if steps:
                at_k = tok.encode_word(word, limit=k)
                st.markdown(f"**After {k:,} merge{'s' * (k != 1)}**")
                st.html(chips_html([Chip(p, birth=tok.birth.get(p), unknown=p in unknown) for p in at_k],
                                   byte_level=byte_level))
        unseen_cards.draw_notes(model.shows.word_notes(model.model, trained, word))
        made = sorted({(tok.birth[p] + 1, p) for p in pieces if p in tok.birth})  # (step that made it, piece)
        if made and trained is not None:  # only the sidebar's training has an animation to jump into
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
        # Full width: a tree is as wide as its labels need (wider than the card, it scrolls sideways).
        st.markdown("**Merge tree** (each node: its token and the step that made it)")
        st.html(merge_trees.trees_html([merge_tree(tok, p) for p in pieces], counts=counts, byte_level=byte_level,
                                       unknown=unknown))
        built = tok.merge_steps(word)
        st.markdown("**How it was built:** the merges that fired, in order")
        if built:
            st.dataframe(tables.built_table(built, tok, counts=counts, phase_one=phase_one),
                         hide_index=True, width="stretch", placeholder=tables.EMPTY)
        else:
            st.caption("No merge applies: the word stays as single symbols.")
