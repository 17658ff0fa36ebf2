from __future__ import annotations

import plotly.graph_objects as go
import pytest

from bpe_core import merge_tree
from explorer.data.training import Curve
from explorer.display import charts, tree_chart


def valid(fig: go.Figure) -> dict:
    """Plotly's own validation, which the app skips for speed."""
    return go.Figure(fig.to_dict()).to_dict()


def test_top_pairs_highlights_the_chosen_pair(seed000_trained):
    pairs = seed000_trained.tokenizer.top_pairs_at(0)
    fig = valid(charts.top_pairs_figure(pairs))
    bar = fig["data"][0]
    assert list(bar["x"]) == [n for _, _, n in pairs]
    colours = list(bar["marker"]["color"])
    assert colours[0] == charts.CHOSEN and colours.count(charts.CHOSEN) == 1
    assert fig["layout"]["yaxis"]["ticktext"][0] == "w  +  e"


def test_chart_labels_are_escaped():
    fig = valid(charts.top_pairs_figure([("<script>", "<img src=x onerror=alert(1)>", 3)]))
    label = fig["layout"]["yaxis"]["ticktext"][0]
    assert "<" not in label and "&lt;script&gt;" in label


def test_visible_whitespace_in_labels():
    fig = charts.top_pairs_figure([(" ", "h", 2)])
    assert fig.layout.yaxis.ticktext[0] == "·  +  h"


def test_compression_marks_step_and_collapse():
    curve = Curve([10, 8, 6, 5], [2.5, 2.0, 1.5, 1.25], [3, 2, 1, 0])
    fig = valid(charts.compression_figure(curve, step=2, collapse=3))
    xs = [s["x0"] for s in fig["layout"]["shapes"]]
    assert xs == [2, 3]
    assert "collapse at step 3" in fig["layout"]["annotations"][0]["text"]
    assert list(fig["data"][3]["x"]) == [2] and list(fig["data"][3]["y"]) == [6]
    assert list(fig["data"][2]["y"]) == [3, 2, 1, 0]  # words still split
    # tokens per word is the same line as total tokens: the right axis is scaled to match
    top, right = fig["layout"]["yaxis"]["range"][1], fig["layout"]["yaxis2"]["range"][1]
    assert right == pytest.approx(top * 2.5 / 10)


def test_compression_without_collapse_has_no_annotation(seed000_trained):
    fig = valid(charts.compression_figure(seed000_trained.curve, step=0, collapse=None))
    assert not fig["layout"].get("annotations")


def test_thin_steps_keeps_ends_and_marked_steps():
    assert charts.thin_steps(10) == list(range(11))
    thinned = charts.thin_steps(100_000, keep=[12_345], limit=100)
    assert thinned[0] == 0 and thinned[-1] == 100_000 and 12_345 in thinned
    assert len(thinned) <= 102


@pytest.mark.parametrize("word", ["lowest", "newer", "slow"])
def test_merge_tree_layout_and_figure(seed000_trained, word):
    tok = seed000_trained.tokenizer
    pieces = tok.encode_word(word)
    trees = [merge_tree(tok, p) for p in pieces]
    nodes, edges = tree_chart.layout_tree(trees)
    leaves = [n for n in nodes if n["y"] == 0]
    assert [n["token"] for n in sorted(leaves, key=lambda n: n["x"])] == tok.initial_symbols(word)
    for parent, child in edges:
        assert nodes[parent]["y"] > nodes[child]["y"]
    fig = valid(tree_chart.merge_tree_figure(trees, counts={m.rank: m.count for m in tok.trace}))
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert len(texts) == len(nodes)
    if word == "lowest":
        assert "lo<br><sub>step 7</sub>" in texts and "we<br><sub>step 1</sub>" in texts
        assert "st&lt;/w&gt;<br><sub>step 3</sub>" in texts
        tops = [a["text"] for a in fig["layout"]["annotations"] if a["borderwidth"] == 2]
        assert tops == ["lo<br><sub>step 7</sub>", "we<br><sub>step 1</sub>", "st&lt;/w&gt;<br><sub>step 3</sub>"]
        hovers = fig["data"][1]["hovertext"]
        assert "we<br>made at step 1<br>seen 9 times in training" in hovers  # the first merge: w + e, 9 times


def test_outside_text_in_a_figure_shows_as_its_characters():
    """Plotly reads <b>, <br> and entities but not &quot;: a quote stays a quote, tags become text."""
    from bpe_core import MergeNode

    fig = charts.top_pairs_figure([('"', "<b>", 3), ("&amp;", "'", 2)], title='<i>"t"</i> & co')
    layout = fig.to_dict()["layout"]
    assert list(layout["yaxis"]["ticktext"]) == ['"  +  &lt;b&gt;', "&amp;amp;  +  '"]
    assert layout["title"]["text"] == '&lt;i&gt;"t"&lt;/i&gt; &amp; co'
    tree = tree_chart.merge_tree_figure([MergeNode('"<', 0, MergeNode('"', None), MergeNode("<", None))])
    texts = [a["text"] for a in tree.to_dict()["layout"]["annotations"]]
    assert texts == ['"', "&lt;", '"&lt;<br><sub>step 1</sub>']
