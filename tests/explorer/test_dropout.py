"""The BPE-dropout page: its table and chart as pure functions, then the page in AppTest."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from bpe_core import Settings, train
from bpe_core.analysis import dropout_distribution
from explorer.display import dropout as view
from sample_corpora import load_corpus


@pytest.fixture(scope="module")
def tok():
    return train(load_corpus("seed000"), merges=10)


def test_table_and_share(tok):
    dist = dropout_distribution(tok, "newest", p=0.1, samples=1000, seed=0)
    frame = view.outcomes_frame(dist)
    assert frame["times"].sum() == 1000 and frame["times"].is_monotonic_decreasing
    assert frame.iloc[0]["segmentation"] == "newest</w>" and frame.iloc[0]["deterministic"] == "yes"
    assert (frame["deterministic"] == "yes").sum() == 1
    assert view.deterministic_share(dist) == pytest.approx(frame.iloc[0]["times"] / 1000)
    assert "ne | we | st</w>" in set(frame["segmentation"])


def test_no_dropout_and_full_dropout(tok):
    none = dropout_distribution(tok, "newest", p=0.0, samples=50, seed=3)
    assert view.outcomes_frame(none)["segmentation"].tolist() == ["newest</w>"]
    assert view.deterministic_share(none) == 1.0
    every = dropout_distribution(tok, "newest", p=1.0, samples=50, seed=3)
    assert view.outcomes_frame(every)["segmentation"].tolist() == ["n | e | w | e | s | t | </w>"]


def test_chart_is_valid_escaped_and_marks_the_deterministic_one():
    text_tok = train("<b>&</b> " * 20, Settings(mode="text"), merges=6)
    dist = dropout_distribution(text_tok, "<b>&</b>", p=0.3, samples=200, seed=1)
    fig = view.outcomes_figure(dist)
    go.Figure(fig.to_dict())
    bar = fig.to_dict()["data"][0]
    assert all("<b>" not in t for t in fig.to_dict()["layout"]["yaxis"]["ticktext"])
    assert any("&lt;" in t for t in fig.to_dict()["layout"]["yaxis"]["ticktext"])
    colours = bar["marker"]["color"]
    assert colours.count(view.CHOSEN) == 1 and len(colours) <= view.TOP_SHOWN


def test_bytes_segmentations_show_hex_for_partial_characters():
    tok = train("日本 " * 10, Settings(mode="bytes"), merges=3)
    dist = dropout_distribution(tok, "日本", p=0.5, samples=100, seed=0)
    text = " ".join(view.outcomes_frame(dist, byte_level=True)["segmentation"])
    assert "\ufffd" not in text and "<e6" in text


# ---- the page ------------------------------------------------------------------------------------

def test_page_samples_and_is_reproducible(app):
    app.switch_page("views/dropout.py").run()
    assert not app.exception and not app.error
    table = app.dataframe[0].value
    assert table["times"].sum() == 1000 and table.iloc[0]["deterministic"] == "yes"
    chart = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["yaxis"]["ticktext"][0] == "newest&lt;/w&gt;"
    app.slider(key="drop_w_p").set_value(0.5).run()
    first = app.dataframe[0].value
    app.number_input(key="drop_w_seed").set_value(7).run()
    app.number_input(key="drop_w_seed").set_value(0).run()
    assert app.dataframe[0].value.equals(first)  # the same seed gives the same samples
    app.text_input(key="drop_w_word").set_value("two words").run()
    assert not app.exception and "dropout works on one word" in app.error[0].value
