"""Merge trees on Unseen words in Chromium: every drawn node's box measured, no two of them intersecting
and no label cut, for a SuperBPE superword across a space, a long BPE token of a built-in (also on a
narrow screen, where the tree scrolls sideways) and WordPiece's pieces as training built them, with the
note on why a word stays in pieces; a screenshot of each."""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from bpe_core import merge_tree
from bpe_core.families import train_wordpiece
from explorer.data.training import family_request, train_corpus
from explorer.display.render import token_text
from explorer.families.wordpiece import why
from sample_corpora import load_corpus
from tests.conftest import require_cl100k

pytestmark = pytest.mark.browser

WORDS = "Words to encode (split into words as this tokenizer splits text)"
# Each drawn node of the current run: its box on screen, whether its label overflows it, its text.
NODES = f"""() => [...document.querySelectorAll('{LIVE} .bpe-tree .bpe-node')].map(n => {{
    const r = n.getBoundingClientRect();
    return {{left: r.left, top: r.top, right: r.right, bottom: r.bottom, text: n.textContent,
             cut: n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1}};
}})"""
SCROLLS = f"""() => [...document.querySelectorAll('{LIVE} .bpe-tree-box')].map(b => getComputedStyle(b).overflowX)"""


def measured(page, expected_nodes: int) -> list[dict]:
    """The drawn nodes, once all `expected_nodes` are on the page; no two boxes intersect, no label is cut."""
    expect(page.locator(f"{LIVE} .bpe-tree .bpe-node")).to_have_count(expected_nodes, timeout=60_000)
    nodes = page.evaluate(NODES)
    for i, a in enumerate(nodes):
        assert a["right"] > a["left"] and a["bottom"] > a["top"] and not a["cut"], a
        for b in nodes[i + 1:]:
            apart = (a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5
                     or a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5)
            assert apart, (a, b)
    assert set(page.evaluate(SCROLLS)) == {"auto"}  # a tree wider than the card scrolls: nothing is cut off
    return nodes


def tree_size(tok, word: str) -> int:
    """Nodes of the word's trees: a tree of n symbols has n - 1 merges."""
    return sum(2 * len(merge_tree(tok, p).leaves()) - 1 for p in tok.encode_word(word))


def label(node) -> str:
    """A node's text as drawn: its token, then the step that made it."""
    return token_text(node.token, byte_level=True) + ("" if node.rank is None else f"step {node.rank + 1}")


def test_a_superbpe_superword_tree(page, warm_server):
    text = "the fastest dog sleeping cats"
    model = train_corpus([load_corpus("seed002")], family_request("superbpe", 400, limit=50_000, transition=300)).model
    tok = model.tokenizer
    assert "Ġsleeping" + "Ġcats" in tok.encode_word(text)  # a superword: one token across a space
    page.goto(f"{warm_server}/unseen-words?corpus=seed002&family=superbpe&vocab=400&transition=300&words={text}")
    expect(page.get_by_role("heading", level=1, name="Unseen words")).to_be_visible(timeout=60_000)
    nodes = measured(page, tree_size(tok, text))
    tree = merge_tree(tok, "Ġsleeping" + "Ġcats")
    (superword,) = [n for n in nodes if n["text"] == label(tree)]
    parts = [n for n in nodes if n["text"] in (label(tree.left), label(tree.right))]
    assert len(parts) == 2  # its two parts, under it and within its width
    assert all(superword["left"] <= n["left"] and n["right"] <= superword["right"] and n["top"] > superword["bottom"]
               for n in parts)
    shoot(page, "merge-tree-superbpe")


@pytest.mark.parametrize("width", [1440, 820])
def test_a_long_bpe_token_of_a_builtin(page, warm_server, width):
    require_cl100k()
    from bpe_core.builtin import load_builtin

    cl = load_builtin("cl100k_base")
    text = "the telecommunications"
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{warm_server}/unseen-words?words={text}")
    expect(page.get_by_role("heading", level=1, name="Unseen words")).to_be_visible(timeout=60_000)
    page.locator(f"[data-testid=stMain] {LIVE} [data-testid=stSelectbox]").filter(has_text="Tokenizer").click()
    page.get_by_role("option", name=re.compile(r"^GPT-4 \(cl100k_base\)")).click()
    assert cl.encode_word(" telecommunications") == ["Ġtelecommunications"]  # one token of 19 bytes
    nodes = measured(page, tree_size(cl, "the") + tree_size(cl, " telecommunications"))
    assert any(n["text"].startswith("·telecommunications") for n in nodes)
    if width == 1440:
        shoot(page, "merge-tree-cl100k")


def test_wordpiece_pieces_as_training_built_them_and_why_a_word_stays_in_pieces(page, warm_server):
    model = train_wordpiece([load_corpus("seed000")], vocab_size=60)
    page.goto(f"{warm_server}/unseen-words?family=wordpiece&vocab=60&words=lowest")
    expect(page.get_by_role("heading", level=1, name="Unseen words")).to_be_visible(timeout=60_000)
    pieces = model.encode_tokens("lowest")
    assert pieces == ["low", "##est"]
    expect(page.locator(LIVE).get_by_text(f"No step merged low + ##est: {why.SCORE}")).to_be_visible(timeout=60_000)
    measured(page, sum(2 * len(p.removeprefix("##")) - 1 for p in pieces))  # a piece's characters are its symbols
    shoot(page, "merge-tree-wordpiece")
