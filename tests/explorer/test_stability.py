"""The Training stability page: its chart, chips and table as pure functions, then the page under AppTest."""
from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest
from apptest_helpers import html_bodies, plotly_specs

from bpe_core.analysis import stability
from explorer.display import stability as view
from explorer.display import tables
from explorer.display.render import md_escape
from explorer.ui import state, store
from sample_corpora import load_corpus

A = "low lower newest widest "
SAME_START = A * 7 + "wer " * 6  # the same first 4 merges at 50%, then ('we', 'st</w>') against ('we', 'r')


@pytest.fixture(scope="module")
def seed000():
    return stability(load_corpus("seed000"), merges=10)


def test_chart_shows_the_vocabulary_share_and_the_first_merges(seed000):
    fig = view.shares_figure(seed000)
    go.Figure(fig.to_dict())  # valid Plotly
    lines = {trace.name: (list(trace.x), list(trace.y)) for trace in fig.data}
    assert lines == {"final vocabulary (merged tokens)": (["1%", "10%", "50%", "100%"], [20.0, 20.0, 40.0, 100.0]),
                     # fewer as merges: ('low', '</w>') and ('lo', 'w</w>') make the same token
                     "first 10 merges": (["1%", "10%", "50%", "100%"], [10.0, 10.0, 20.0, 100.0])}


def test_divergence_is_drawn_as_chips_of_both_merges():
    found = stability(SAME_START, merges=8, fractions=(0.5,))
    html = view.divergence_html(found.fractions[0], found, byte_level=False)
    assert "diverges at step 5 (the first 4 merges agree)" in html
    assert html.count('class="bpe-chip') == 6  # we + st</w> -> west</w>, and we + r -> wer
    assert "bpe-new" in html and "&lt;/w&gt;" in html and "</w>" not in html.replace("</span>", "")
    same = view.divergence_html(found.fractions[1], found, byte_level=False)
    assert "the same merges as the full run" in same


def test_table_has_a_row_per_fraction(seed000):
    frame = view.stability_frame(seed000, byte_level=False)
    assert list(frame["trained on"]) == ["1%", "10%", "50%", "100%"]
    assert list(frame["characters"]) == [3, 11, 59, 109]
    assert list(frame["final vocabulary %"]) == [20.0, 20.0, 40.0, 100.0]
    assert list(frame["first 10 agree (as sets)"]) == ["1 of 10", "1 of 10", "2 of 10", "10 of 10"]
    assert list(frame["first difference at step"].astype(object).fillna(0)) == [1, 1, 1, 0]
    assert list(frame["its merge"])[2] == "o + w" and list(frame["full run's merge"])[2] == "w + e"
    assert frame.iloc[3][["first difference at step", "its merge", "full run's merge"]].isna().all()  # the full run


def test_a_long_token_is_cut_in_its_chip():
    html = view.merge_html(("x" * 60, "y" * 30), [], byte_level=False)
    shown = re.sub(r' title="[^"]*"', "", html)  # what is drawn, without the hover text
    assert "x" * 40 + "…(+20 more)" in shown and "x" * 41 not in shown
    assert "y" * 30 + "</span>" in shown  # short enough: a chip of its own
    assert "x" * 40 + "…(+50 more)" in shown  # the merged token: 90 characters


# ---- the page ---------------------------------------------------------------------------------

def test_small_corpus_is_compared_at_once(app):
    app.switch_page("views/stability.py").run()
    assert not app.exception and not app.error
    spec = plotly_specs(app)[0]
    assert spec["data"][0]["y"] == [20.0, 20.0, 40.0, 100.0]
    shown = "".join(html_bodies(app))
    assert "diverges at step 1" in shown and "bpe-chip" in shown
    assert len(app.dataframe[0].value) == 4
    # The sidebar's only (beside the presenter switch): nothing to press here.
    assert [b.label for b in app.button if b.key != state.B_PRESENTER] == ["Train"]


def test_the_full_runs_row_shows_a_dash_where_it_has_no_difference(app):
    """The 100% row has no first difference: its cells read "—", not "None" (Streamlit's word for a missing value)."""
    app.switch_page("views/stability.py").run()
    table = app.dataframe[0]
    assert table.proto.placeholder == tables.EMPTY == "—"
    last = table.value.iloc[-1]
    assert last["trained on"] == "100%" and last[["first difference at step", "its merge"]].isna().all()
    assert not (table.value.astype(str) == "None").any().any()  # no cell holds the word itself
    assert any(c.value.startswith("Final vocabulary") and f"{tables.EMPTY}: no difference" in c.value
               for c in app.caption)


def test_large_corpus_waits_for_the_button(app, monkeypatch):
    monkeypatch.setattr(store, "IN_THREAD_CHARS", 10)  # the lesson corpus counts as large: worker processes
    app.switch_page("views/stability.py").run()
    assert not app.exception
    assert not plotly_specs(app) and state.STAB_RESULT not in app.session_state
    button = app.button(key=state.STAB_RUN)
    assert button.label == md_escape("Train on 1%, 10% and 50% of Lesson: low, lower, newest, widest")
    button.click().run(timeout=120)
    assert not app.exception and not app.error
    assert plotly_specs(app)[0]["data"][0]["y"] == [20.0, 20.0, 40.0, 100.0]
