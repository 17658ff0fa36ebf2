"""Unseen words: how a tokenizer of any family (trained here, uploaded or built in) splits words it may
never have seen, and why: BPE and SuperBPE replay their merges, WordPiece takes the longest match,
Unigram the most probable segmentation; a tokenizer read from a file into parts shows its pieces of
the text, with merge trees when its model has merges."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError, merge_tree
from bpe_core.families.superbpe import phase_two_pieces
from explorer.data import family_explain
from explorer.data.token_texts import pieces_by_word
from explorer.display import charts, tables
from explorer.display.render import Chip, cap_token, chips_html, md_escape, token_text
from explorer.display.vocabulary import family_chips_html, phases_note
from explorer.ui import animation, page_header, state, unseen_families
from explorer.ui import tokenizer_picker as picker

MAX_WORDS = 12
HOW = {
    "bpe": "BPE replays the learned merges, in the order they were learned, on each new word.",
    "superbpe": "SuperBPE replays its merges by rank too, on pieces that may hold several words: after the "
                "transition its merges cross spaces, so a phrase can become one token (a superword, underlined).",
    "wordpiece": "WordPiece takes, from the start of each word, the longest piece of its vocabulary that fits "
                 "(\"##\" marks a piece inside a word); if at some point nothing fits, the whole word becomes "
                 "the unknown token.",
    "unigram": "Unigram picks the segmentation whose pieces are most probable together (Viterbi over every way to "
               "cut the word); the runners-up are listed with their probabilities.",
}
HOW_FILE = {  # a tokenizer read from a file into parts, by its model's kind
    "BPE": "its BPE model merges each piece's symbols, the pair of lowest rank first",
    "WordPiece": "its WordPiece model takes the longest piece of its vocabulary that fits, from the start of each "
                 "word (a continuation prefix marks a piece inside a word)",
    "Unigram": "its Unigram model picks the segmentation whose pieces are most probable together (Viterbi)",
    "WordLevel": "its WordLevel model looks each piece up whole: a piece it lacks is the unknown token",
}


def how_file(title: str, kind: str) -> str:
    """How a tokenizer of parts splits text, in one paragraph."""
    return (f"{title}: read from a file, it normalizes the text, cuts out its added and special tokens whole, "
            f"splits the rest with its pre-tokenizer, and {HOW_FILE.get(kind, 'its model splits each piece')}. "
            "The words below are cut from the whole text as it encodes it.")
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
st.caption(md_escape(HOW.get(model.family) or how_file(model.title, model.kind)))

st.text_input("Words to encode (split into words as this tokenizer splits text)", key=state.W_WORDS,
              on_change=state.bind(ss, state.W_WORDS, state.WORDS))
text = ss[state.WORDS]
if model.family == "wordpiece":
    words = family_explain.wordpiece_words(model.model, text)
elif model.family == "unigram":
    words = family_explain.unigram_words(text)
elif model.family == "superbpe":
    words = phase_two_pieces(text)
elif model.merge_based:
    words = model.tokenizer.words_of(text)
else:  # a tokenizer of parts: the whole text encoded once, its pieces grouped by word
    try:
        by_word = pieces_by_word(text, model.segment(text))
    except BPEError as exc:  # e.g. a file without an unknown token meets a character it cannot spell
        st.error(f"This tokenizer cannot encode that text: {md_escape(str(exc))}")
        st.stop()
    words = [word for word, _ in by_word]
if not words:
    st.info("Type one or more words above.")
    st.stop()
if len(words) > MAX_WORDS:
    st.caption(f"Showing the first {MAX_WORDS} of {len(words)} words.")
    words = words[:MAX_WORDS]

if model.family == "wordpiece":
    for index, word in enumerate(words):
        unseen_families.wordpiece_card(model, word, index)
    st.stop()
if model.family == "unigram":
    st.number_input("Best segmentations listed per word", min_value=1, max_value=20, key=state.UNS_W_NBEST,
                    on_change=state.bind(ss, state.UNS_W_NBEST, state.UNS_NBEST))
    for index, word in enumerate(words):
        unseen_families.unigram_card(model, word, index, int(ss[state.UNS_NBEST]))
    st.stop()
if not model.merge_based:
    if not model.merges:
        st.caption(md_escape(f"{model.title} has no merges, so there is no merge tree: its model splits each piece "
                             "of text directly."))
    for index, (word, pieces) in enumerate(by_word[:MAX_WORDS]):
        unseen_families.file_card(model, word, pieces, text, index)
    st.stop()

tok = model.tokenizer  # BPE's, or SuperBPE's merge view (the same merges, ranked)
byte_level = tok.settings.mode == "bytes"
steps = len(tok.merges)  # step k is the k-th merge, for rank files (the built-ins) too
transition = model.model.transition if model.family == "superbpe" else None
if transition is not None:
    st.caption(md_escape(phases_note(transition)))

if ss[state.TIMELINE] is None or ss[state.TIMELINE] > steps or ss.get(state.TIMELINE_FOR) != source:
    ss[state.TIMELINE], ss[state.TIMELINE_FOR] = steps, source
if steps:
    st.slider("Timeline: each word after k merges (drag to watch it being built)", 0, steps, key=state.W_TIMELINE,
              on_change=state.bind(ss, state.W_TIMELINE, state.TIMELINE))
k = ss[state.TIMELINE]
counts = {m.rank: m.count for m in (model.model.trace if transition is not None else tok.trace)}

for index, word in enumerate(words):
    pieces = tok.encode_word(word)
    unknown = [p for p in pieces if p not in tok.vocab]
    chips = [
        Chip(p, token_id=tok.vocab.get(p, tok.unk_id), birth=tok.birth.get(p), unknown=p in unknown) for p in pieces
    ]
    supers = [p for p in pieces if model.is_superword(p)]
    with st.container(border=True):
        st.markdown(
            f"#### {md_escape(token_text(word, byte_level=False))} → {len(pieces)} token{'s' * (len(pieces) != 1)}"
        )
        left, right = st.columns([1, 1], gap="medium")
        with left:
            st.markdown("**Pieces** (small numbers are token ids)")
            if transition is not None:  # SuperBPE: the same tokens, superwords underlined
                st.html(family_chips_html(model, model.segment(word), word))
            else:
                st.html(chips_html(chips, byte_level=byte_level, show_id=True))
            if supers:
                names = ", ".join(md_escape(cap_token(token_text(p, byte_level=byte_level))) for p in supers)
                st.caption(f"Superwords (one token across a space): {names}.")
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
            st.dataframe(tables.built_table(built, tok, counts=counts if transition is not None else None,
                                            transition=transition),
                         hide_index=True, width="stretch", placeholder=tables.EMPTY)
        else:
            st.caption("No merge applies: the word stays as single symbols.")
