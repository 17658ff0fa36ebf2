"""Vocabulary: every token with its numbers, token lengths, nearly unused tokens, and one token's life story.

Any family: a model with the engine's merge view has life stories and merge trees (its phases and
marked tokens, such as superwords, in their own columns); any other (a family without ranked merges,
a tokenizer read from a file into parts) has the list of `ui.vocabulary_list`: the token as written,
the text it stands for, its length, and what the model has (continuation pieces, the training step
that made it, a log-probability), with each token's details in its family's own terms.
"""
from __future__ import annotations

import streamlit as st

from bpe_core.analysis import life_story
from explorer.display import tree_chart
from explorer.display import vocabulary as view
from explorer.display.render import Chip, chips_html, md_escape
from explorer.ui import animation, page_caches, page_header, state, vocabulary_list
from explorer.ui import tokenizer_picker as picker

ss = st.session_state  # this page's keys are state.VOC_*


def _row_clicked() -> None:
    picked = (ss.get(state.VOC_W_TABLE) or {}).get("selection", {}).get("rows", [])
    shown_ids = ss.get(state.VOC_SHOWN_IDS, [])
    if picked and picked[0] < len(shown_ids):
        ss[state.VOC_TOKEN] = shown_ids[picked[0]]


page_header.header("Vocabulary",
                    "Every token: how long it is, the text it stands for and, for the families that merge, when it "
                    "was made; the pieces of a family that prunes come with their log-probability.",
                    summary=False)
source = picker.pick("Tokenizer", state.VOC_W_SOURCE, families=True)
if source is None:
    st.stop()
picker.show_about(source)  # the tokenizer this page shows, which may not be the sidebar's; a built-in's terms
model = picker.model_or_stop(source)
if not model.merge_based:  # no ranked merges, or a tokenizer of parts: no life stories to tell
    vocabulary_list.show(model, source)
    st.stop()
tok = model.tokenizer  # the merge list itself, or a family's merge view (its vocabulary, ranks and merge trees)
rows = picker.vocab_rows(tok, source)
byte_level = tok.settings.mode == "bytes"
by_id = {r.id: r for r in rows}
has_counts = any(r.uses is not None for r in rows)
own_note = view.merge_view_note(model)
if own_note:
    st.caption(md_escape(own_note))
elif not has_counts:
    st.info(("This tokenizer was published without its training record" if picker.builtin_of(source) else
             "This tokenizer came from a file without a training record") + ": merge counts and uses are unknown.")

st.subheader(f"All {len(rows):,} tokens")
query = st.text_input("Search tokens (a space or · matches a space)", key=state.VOC_W_SEARCH)
found = view.search(rows, query)
if model.mark is not None and st.toggle(f"{model.mark.plural.capitalize()} only", key=state.VOC_W_SUPER):
    found = [r for r in found if model.is_marked(r.token)]
ss[state.VOC_SHOWN_IDS] = [r.id for r in found]
builtin = picker.builtin_of(source)
frame = page_caches.builtin_frame(builtin) if builtin is not None and not query else view.vocab_frame(found)
if model.phase_one is not None or model.mark is not None:
    frame = view.with_phases(frame, found, model)
st.dataframe(frame, hide_index=True, width="stretch", height=360, key=state.VOC_W_TABLE,
             on_select=_row_clicked, selection_mode="single-row", placeholder=view.EMPTY)
st.caption(f"{len(found):,} of {len(rows):,} tokens. Click a column name to sort; click a row to see its life story "
           "below. Step: the merge that made the token (step k is the k-th merge). Uses: occurrences in the training "
           "corpus after training (all merges applied). Step and count are "
           f"{view.EMPTY} for base symbols, which no merge made"
           + (f", and for the {len(tok.unreachable):,} tokens no merge builds: the file lists them, and a piece of "
              "text that is itself one of them is taken whole." if tok.unreachable else "."))

left, right = st.columns(2, gap="large")
with left:
    unit = st.radio("Length in", list(view.UNITS), format_func=view.UNITS.get, horizontal=True, key=state.VOC_W_UNIT)
    st.plotly_chart(view.length_histogram(rows, unit=unit, presenter=page_header.presenter()), key=state.VOC_HIST,
                    config={"displayModeBar": False}, width="stretch")
with right:
    threshold = st.slider("Nearly unused: uses after training at most this share of the count when merged",
                          0.0, 1.0, 0.25, 0.05, key=state.VOC_W_THRESHOLD)
    if has_counts:
        unused = view.unused_frame(rows, threshold=threshold)
        st.markdown(f"**{len(unused):,} tokens that later merges left nearly unused**")
        st.dataframe(unused, hide_index=True, width="stretch", placeholder=view.EMPTY)
    else:  # no uses, so none qualifies: not worth a pass over a 200k vocabulary
        st.markdown("**0 tokens that later merges left nearly unused**")
        st.caption("Unknown without a training record.")

st.subheader("A token's life story")
if ss.get(state.VOC_TOKEN) not in by_id:
    ss[state.VOC_TOKEN] = view.default_token(rows)
write_back = state.bind(ss, state.VOC_W_TOKEN, state.VOC_TOKEN)
if len(rows) <= view.MAX_PICKER:
    labels = {r.id: view.token_label(r) for r in rows}
    st.selectbox("Token", list(labels), format_func=labels.get, key=state.VOC_W_TOKEN, on_change=write_back)
else:
    st.number_input(f"Token id (0 to {max(by_id):,}; or click a row of the table)", min_value=0, max_value=max(by_id),
                    step=1, key=state.VOC_W_TOKEN, on_change=write_back)
if ss[state.VOC_TOKEN] not in by_id:
    st.warning("No token has that id.")
    st.stop()
story = life_story(tok, by_id[ss[state.VOC_TOKEN]].token)
row = by_id[story.id]


def chips(tokens: list[str]) -> str:
    return chips_html([Chip(t, token_id=tok.vocab.get(t), birth=tok.birth.get(t)) for t in tokens],
                      byte_level=byte_level, show_id=True)


with st.container(border=True):
    st.html(f'<div class="bpe-merge">{chips([story.token])}</div>')
    metrics = st.columns(4)
    metrics[0].metric("Born at step", f"{story.step:,}" if story.rank is not None else
                      "no merge builds it" if row.unreachable else "base symbol",
                help="Step k is the k-th merge: the animation at step k shows the vocabulary after k merges, "
                     "this token included.")
    metrics[1].metric("Pair count when merged", "—" if story.count is None else f"{story.count:,}")
    metrics[2].metric("Uses after training", "—" if story.uses is None else f"{story.uses:,}")
    metrics[3].metric("Tokens built on it", f"{len(story.children):,}")
    text_col, tree_col = st.columns([1, 1], gap="medium")
    with text_col:
        if story.parents is not None:
            st.markdown(f"**Parents** (joined at step {story.step:,})")
            st.html(chips(list(story.parents)))
        else:
            what = ("the unknown token" if story.token == tok.unk_token else
                    "a token no merge builds: the vocabulary lists it, and text that is itself this token is taken "
                    "whole" if row.unreachable else "a base symbol")
            st.markdown(f"**Parents:** none, it is {what}")
        if story.children:
            shown = story.children[:40]
            many = len(story.children) != 1
            st.markdown(f"**Built on it** ({len(story.children):,} merge{'s' * many} "
                        f"take{'s' * (not many)} it as a part"
                        f"{', first 40 shown' if len(story.children) > 40 else ''})")
            st.html(chips([made for made, _ in shown]))
        else:
            st.markdown("**Built on it:** nothing; no later merge uses it.")
        if row.kept is not None:
            st.caption(f"After training it keeps {100 * row.kept:.0f}% of the occurrences it had when merged.")
        if source == picker.SIDEBAR and story.rank is not None:
            st.button(f"Watch its birth in the animation (step {story.step:,})", key=state.VOC_JUMP,
                      on_click=animation.jump_to, args=(story.step,), icon=":material/play_circle:", type="primary")
    with tree_col:
        st.markdown("**Merge tree**")
        counts = {merge.rank: merge.count for merge in tok.trace}
        st.plotly_chart(tree_chart.merge_tree_figure([story.tree], counts=counts, byte_level=byte_level,
                                                 presenter=page_header.presenter()),
                        key=state.VOC_TREE, config={"displayModeBar": False}, width="stretch")
