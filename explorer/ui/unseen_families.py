"""The Unseen words page's cards for WordPiece and Unigram: each word segmented and explained in its
family's own terms (greedy longest match; Viterbi with the n best alternatives); and for a tokenizer
read from a file into parts, its pieces of each word with merge trees where its model has merges.
Streamlit glue over the pure `explorer.data.family_explain` and `explorer.display.vocabulary.family_chips_html`."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.data import family_explain as explain
from explorer.data.any_model import AnyModel
from explorer.data.family_view import Piece
from explorer.display import charts
from explorer.display.render import cap_token, md_escape, token_text
from explorer.display.tables import EMPTY
from explorer.display.vocabulary import family_chips_html
from explorer.ui import page_header, state

TREES_SHOWN = 12  # merge trees drawn per word


def _title(word: str, tokens: int) -> None:
    st.markdown(f"#### {md_escape(token_text(word, byte_level=False))} → {tokens} token{'s' * (tokens != 1)}")


def wordpiece_card(model: AnyModel, word: str, index: int) -> None:
    """One word by greedy longest match: its pieces, the match step by step, or why it is unknown."""
    wp = model.model
    match = explain.longest_match(wp, word)
    with st.container(border=True):
        _title(word, len(match.tokens))
        pieces = model.segment(word)
        st.html(family_chips_html(model, pieces, word))
        if match.unknown_reason:
            st.warning(md_escape(f"Unknown: {match.unknown_reason}."))
        if match.steps and len(word) <= explain.MAX_EXPLAINED_WORD:
            rows = [{
                "position": step.start + 1,
                "longest piece found": EMPTY if step.piece is None else token_text(step.piece),
                "longer candidates tried first": step.tried,
                "the first of them": ", ".join(token_text(t) for t in step.tried_shown)
                + (", …" if step.tried > len(step.tried_shown) else ""),
            } for step in match.steps]
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=state.UNS_WP_TABLE + str(index))


def unigram_card(model: AnyModel, word: str, index: int, n: int) -> None:
    """One word by Viterbi: its best pieces with their log-probabilities, and the n best segmentations."""
    um = model.model
    pieces = model.segment(word)
    best = explain.unigram_nbest(um, word, n)
    with st.container(border=True):
        _title(word, len(pieces))
        st.html(family_chips_html(model, pieces, word))
        if any(p.unknown for p in pieces):
            st.caption(f"Red: characters no piece covers; they become the unknown token {md_escape(um.unk_token)}.")
        if best and best[0].pieces:
            scores = " + ".join(f"({explain.piece_score(um, p):.2f})" for p in best[0].pieces)
            st.caption(md_escape(f"Viterbi's choice: the segmentation whose pieces' log-probabilities sum highest, "
                                 f"{scores} = {best[0].log_probability:.2f}."))
        st.markdown(f"**The {len(best)} best segmentation{'s' * (len(best) != 1)}** (share: the probability among "
                    "these alone)")
        st.dataframe(pd.DataFrame({
            "rank": list(range(1, len(best) + 1)),
            "segmentation": [" ".join(token_text(p) for p in seg.pieces) for seg in best],
            "pieces": [len(seg.pieces) for seg in best],
            "log-probability": [round(seg.log_probability, 3) for seg in best],
            "probability": [explain.probability(seg.log_probability) for seg in best],
            "share": [f"{100 * seg.share:.1f}%" for seg in best],
        }), hide_index=True, width="stretch", key=state.UNS_NBEST_TABLE + str(index))


def file_card(model: AnyModel, word: str, pieces: list[Piece], text: str, index: int) -> None:
    """One word of the text as a tokenizer of parts encoded it: its pieces and, with merges, their merge trees."""
    with st.container(border=True):
        _title(word, len(pieces))
        st.html(family_chips_html(model, pieces, text))
        if any(p.unknown for p in pieces):
            st.caption(f"Red: text the vocabulary cannot spell; it becomes the unknown token "
                       f"{md_escape(model.unk_token or '')}.")
        special = [p.token for p in pieces if p.special]
        if special:
            names = ", ".join(md_escape(cap_token(model.shown(t))) for t in special)
            st.caption(f"Cut out of the text whole, before the model: {names} (added or special tokens).")
        merged = [p for p in pieces if not (p.unknown or p.special)]
        if model.merges and merged:
            trees = [model.drawn_tree(p.token) for p in merged[:TREES_SHOWN]]
            st.markdown("**Merge trees** (each node: its token and the merge that made it, in rank order)")
            st.plotly_chart(charts.merge_tree_figure(trees, byte_level=model.draws_bytes,
                                                     presenter=page_header.presenter()),
                            key=state.b_tree(index), config={"displayModeBar": False}, width="stretch")
