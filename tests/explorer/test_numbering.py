"""One public numbering: step k is the k-th merge, counted from 1, wherever a person reads it.

A merge's 0-based `rank` stays inside the engine and the files whose format is 0-based; the
screen shows steps. The lesson's first merge is w + e (9 times), its seventh l + o.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpe_core import merge_tree, train
from bpe_core.analysis import dropout_distribution, vocabulary_table
from explorer.display import charts, tables, tree_chart
from explorer.display import compare as compare_view
from explorer.display import dropout as dropout_view
from explorer.display import vocabulary as vocab_view
from explorer.display.render import Chip, chip_html
from explorer.ui import player
from sample_corpora import load_corpus


@pytest.fixture(scope="module")
def tok():
    return train(load_corpus("seed000"), merges=10)


def test_a_chip_says_the_step_that_made_it():
    title = re.search(r'title="([^"]*)"', chip_html(Chip("we", token_id=12, birth=0))).group(1)
    assert title == "token &#x27;we&#x27; · id 12 · made at step 1"


def test_the_players_texts_say_steps_not_ranks():
    here = Path(player.__file__).parent  # the player's script: frame.js, then player.js
    js = "".join((here / name).read_text(encoding="utf-8") for name in ("frame.js", "player.js"))
    literals = re.findall(r'"[^"\n]*"|`[^`\n]*`|\'[^\'\n]*\'', js)
    assert "`made at step ${birth + 1}`" in literals
    assert [text for text in literals if "rank" in text.lower()] == []


def test_merge_tree_nodes_are_labelled_with_steps(tok):
    fig = tree_chart.merge_tree_figure([merge_tree(tok, "lo")], counts={m.rank: m.count for m in tok.trace})
    assert [a.text for a in fig.layout.annotations] == ["l", "o", "lo<br><sub>step 7</sub>"]
    assert fig.data[1].hovertext[-1] == "lo<br>made at step 7<br>seen 7 times in training"


def test_tables_have_a_step_column_and_no_rank(tok):
    merges = tables.merges_table(tok.trace)
    assert "rank" not in merges.columns and list(merges["step"])[:2] == [1, 2]
    built = tables.built_table(tok.merge_steps("lowest"), tok)
    assert "rank" not in built.columns and list(built["step"]) == [1, 2, 3, 7]


def test_the_vocabulary_says_steps(tok):
    rows = vocabulary_table(tok)
    frame = vocab_view.vocab_frame(rows)
    assert "rank" not in frame.columns
    we = next(r for r in rows if r.token == "we")
    assert frame.loc[frame["id"] == we.id, "step"].item() == 1
    assert vocab_view.token_label(we) == f"{we.id} · we (step 1)"
    assert "rank" not in vocab_view.unused_frame(rows, threshold=1.0).columns


def test_every_chart_has_one_presenter_type_size(tok):
    """Presenter mode enlarges every chart's type to the same size (the Compare, Vocabulary and dropout
    charts were 20, the others 17)."""
    size = charts.PRESENTER_FONT_SIZE
    figures = [
        charts.top_pairs_figure(tok.top_pairs_at(0), presenter=True),
        tree_chart.merge_tree_figure([merge_tree(tok, "lo")], presenter=True),
        compare_view.curve_figure([("a", [(0, 5), (1, 4)])], presenter=True),
        dropout_view.outcomes_figure(dropout_distribution(tok, "newest", p=0.1, samples=20, seed=0), presenter=True),
        vocab_view.length_histogram(vocabulary_table(tok), presenter=True),
    ]
    assert [fig.layout.font.size for fig in figures] == [size] * len(figures)
    # Streamlit's theme would draw ticks and legends at 7/8 of that: they are set to the same size.
    ticks = [axis.tickfont.size for fig in figures for axis in (*fig.select_xaxes(), *fig.select_yaxes())]
    assert ticks and set(ticks) == {size}
    assert {fig.layout.legend.font.size for fig in figures} == {size}
    assert [charts.chart_font(False)["size"], size] == [13, 18]
