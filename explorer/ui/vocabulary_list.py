"""The Vocabulary page for a model without the engine's merge views (a family without ranked merges, any
tokenizer read from a file into parts): the table (capped), search, lengths and one token's details in
its family's own terms (`explorer/families/<name>/vocabulary.py`: what its columns mean, what is known of
a token). Streamlit glue over the pure `explorer.display.vocabulary`."""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.data.any_model import AnyModel
from explorer.display import vocabulary as view
from explorer.display.render import md_escape
from explorer.families import part
from explorer.ui import page_header, state
from explorer.ui import tokenizer_picker as picker
from explorer.ui.server_caches import kept_while_used

ss = st.session_state


@kept_while_used(st.cache_resource(show_spinner="Listing the vocabulary…", max_entries=2))  # ~90 MB for 250k
def _builtin_rows(name: str) -> tuple[view.FamilyRow, ...]:
    """A built-in's rows, shared by every session (frozen rows, never modified)."""
    return tuple(view.family_rows(AnyModel.of(picker.load(name))))


def _rows(model: AnyModel, source: str) -> Sequence[view.FamilyRow]:
    """The model's rows, built once for the model on screen (a 200k vocabulary takes seconds); a built-in's
    shared by every session while in use."""
    name = picker.builtin_of(source)
    if name is not None:
        return _builtin_rows(name)
    memo = ss.get(state.VOC_FAM_MEMO)
    if memo is None or memo[0] is not model.model:
        memo = ss[state.VOC_FAM_MEMO] = (model.model, view.family_rows(model))
    return memo[1]


def _row_clicked() -> None:
    picked = (ss.get(state.VOC_FAM_TABLE) or {}).get("selection", {}).get("rows", [])
    shown_ids = ss.get(state.VOC_SHOWN_IDS, [])
    if picked and picked[0] < len(shown_ids):
        ss[state.VOC_FAM_TOKEN] = shown_ids[picked[0]]


def show(model: AnyModel, source: str) -> None:
    """The whole page for a model without merge views."""
    rows = _rows(model, source)
    st.subheader(f"All {len(rows):,} tokens")
    search, flag_col = st.columns([3, 2])
    query = search.text_input("Search tokens or the text they stand for (a space or · matches a space)",
                              key=state.VOC_W_SEARCH)
    flags = view.family_flags(model.family)
    flag = flag_col.radio("Show", flags, format_func=view.FLAGS.get, horizontal=True, key=state.VOC_W_FLAG)
    found = view.family_search(rows, query, flag if flag in flags else "all")
    shown = found[: view.MAX_FAMILY_ROWS]
    ss[state.VOC_SHOWN_IDS] = [r.id for r in shown]
    st.dataframe(view.family_frame(model, shown), hide_index=True, width="stretch", height=360,
                 key=state.VOC_FAM_TABLE, on_select=_row_clicked, selection_mode="single-row",
                 placeholder=view.EMPTY)
    more = f" (the first {len(shown):,} drawn: search to find the others)" if len(found) > len(shown) else ""
    st.caption(f"{len(found):,} of {len(rows):,} tokens{more}. Click a column name to sort; click a row to see the "
               "token below. " + part(model.family, "vocabulary").columns_note(model))

    left, right = st.columns(2, gap="large")
    with left:
        st.plotly_chart(view.family_length_histogram(rows, presenter=page_header.presenter()), key=state.VOC_FAM_HIST,
                        config={"displayModeBar": False}, width="stretch")
    with right:
        by_id = {r.id: r for r in rows}
        if ss.get(state.VOC_FAM_TOKEN) not in by_id:
            ss[state.VOC_FAM_TOKEN] = rows[-1].id if rows else None
        if not rows:
            return
        st.number_input(f"Token id (0 to {max(by_id):,}; or click a row of the table)", min_value=0,
                        max_value=max(by_id), step=1, key=state.VOC_W_TOKEN,
                        on_change=state.bind(ss, state.VOC_W_TOKEN, state.VOC_FAM_TOKEN))
        row = by_id.get(ss[state.VOC_FAM_TOKEN])
        if row is None:
            st.warning("No token has that id.")
            return
        _details(model, row)


def _details(model: AnyModel, row: view.FamilyRow) -> None:
    with st.container(border=True):
        st.markdown(f"**{md_escape(row.shown)}** · id {row.id:,} · stands for “{md_escape(row.surface)}” "
                    f"({row.chars} character{'s' * (row.chars != 1)}, {row.n_bytes} byte{'s' * (row.n_bytes != 1)})")
        for line in part(model.family, "vocabulary").details(model, row):
            st.caption(line)
