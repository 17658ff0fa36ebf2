"""Text from outside (a corpus, a file name, a link) is shown as its own characters on every page.

A corpus made of Markdown, LaTeX, Streamlit directives, URLs and HTML is pasted, trained, typed as
the unseen words, uploaded as a tokenizer file name, and every page is visited: no Markdown string
of any page (titles, captions, notices, labels, options, metrics, tabs, expanders) may hold an
unescaped construct, and every Plotly string shows `<`, `&` and quotes literally.
"""
from __future__ import annotations

import re

import pytest
from apptest_helpers import APP, html_bodies, plotly_specs
from plain_text import OUTSIDE, RAW, constructs, markdown_strings, selectbox_options, shown
from streamlit.testing.v1 import AppTest

from explorer.data import tokenizer_files
from explorer.display import charts
from explorer.display.render import WORD_JOINER, md_escape
from explorer.ui import state
from tests.explorer.test_merge_trees import drawn_trees

PAGES = ("views/train.py", "views/corpus.py", "views/unseen.py", "views/lessons.py", "views/mistakes.py",
         "views/compare.py", "views/vocabulary.py", "views/files.py", "views/dropout.py", "views/tokenize.py",
         "views/stability.py", "views/audit.py")
CORPUS = "\n".join([OUTSIDE] * 6 + ["**bold** **bold** [l](https://example.invalid) <b>h</b>"] * 4) + "\n"
# No "/" in it: a browser sends a bare file name, and anything before a slash is dropped as a folder.
FILE_NAME = "**x** $x$ ~~s~~ :red[r] [l](www.example.invalid) a@example.invalid <b>h &quot;.json"
# The Unseen words page draws the first 12 words: an HTML tag and a code span among them.
UNSEEN = "<b>h</b> `c*de` " + OUTSIDE


# ---- md_escape and plotly_text on their own ---------------------------------------------------

@pytest.mark.parametrize("text", [
    OUTSIDE, "\\*not bold\\*", "1. a list", "- item", "> quote", "    indented", "\tcode", "| a | b |",
    "a  \nb", "x\r\ny\u2028z", "=== setext", "[^1]", "<https://example.invalid>", "&#65; &amp;", "~~~", "```",
    ":+1: :-1:", "WWW.EXAMPLE.INVALID", "mailto:a@b.invalid", "&#32;",
])
def test_md_escape_leaves_no_construct_and_reads_back(text):
    escaped = md_escape(text)
    assert constructs(escaped) == []
    expected = re.sub(r"\r\n|[\n\r\u2028]", " ", text)
    assert shown(escaped) == expected.replace("\t", " ")
    assert "\n" not in escaped  # one line: a label stays a label


def test_md_escape_pins_the_form():
    assert md_escape("**a** $x$") == "\\*\\*a\\*\\* \\$x\\$"
    assert md_escape("https://x") == "https\\:" + WORD_JOINER + "\\/\\/x"
    assert md_escape("www.x a@b") == "www" + WORD_JOINER + "\\.x a\\@" + WORD_JOINER + "b"
    assert md_escape("    # h") == "&#32;" * 4 + "\\# h"
    assert md_escape("plain words") == "plain words"


def test_plotly_text_escapes_tags_and_entities_but_not_quotes():
    assert charts.plotly_text('<b>"x"</b> &quot; &#65;') == '&lt;b&gt;"x"&lt;/b&gt; &amp;quot; &amp;#65;'
    assert charts.label('"') == '"'  # a token holding a quote shows a quote, not &quot;


# ---- every page with that corpus ----------------------------------------------------------------

def _outside_strings_in(spec) -> list[str]:
    """Every string of a Plotly figure's data and layout."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(spec)
    return found


def _check_page(at, page: str) -> list[str]:
    """Problems on the page: unescaped constructs, escaped selectbox options, raw Plotly text."""
    problems = []
    for kind, text in markdown_strings(at):
        if constructs(text) or any(raw in text for raw in RAW):
            problems.append(f"{page} {kind}: {text!r} renders {constructs(text)}")
    for option in selectbox_options(at):
        if re.search(r"\\[*$\[<]", option):
            problems.append(f"{page} selectbox option {option!r} shows Markdown escapes")
    for spec in plotly_specs(at):
        for text in _outside_strings_in(spec):
            # Plotly reads tags and entities: the app's own are <br>, <sub>, <b>, <i> and <extra>.
            tags = re.findall(r"<(?!/?(?:br|sub|b|i|sup|extra)>)[^>]*>", text)
            if tags or "&quot;" in text or re.search(r"&(?!amp;|lt;|gt;|#\d+;)", text):
                problems.append(f"{page} chart string {text!r}")
    return problems


@pytest.fixture(scope="module")
def visited():
    """The app with the Markdown corpus in use and trained, words typed, a tokenizer file uploaded."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/corpus.py").run()
    at.text_area(key=state.W_PASTE).set_value(CORPUS).run()
    at.button(key=state.B_USE_PASTE).click().run()
    at.sidebar.number_input(key=state.W_MERGES).set_value(40)
    next(b for b in at.button if b.label == "Train").click().run()
    assert not at.exception, at.exception
    assert at.session_state[state.TRAINED].steps > 20
    at.switch_page("views/unseen.py").run()
    at.text_input(key=state.W_WORDS).set_value(UNSEEN).run()
    at.switch_page("views/files.py").run()
    exported = tokenizer_files.export_tokenizer(at.session_state[state.TRAINED].tokenizer).ours
    at.file_uploader(key="io_w_upload").set_value((FILE_NAME, exported, "application/json")).run()
    assert not at.exception, at.exception
    at.session_state["drop_word"] = "**bold**"
    seen = {}
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        seen[page] = (_check_page(at, page), [shown(t) for _, t in markdown_strings(at)], plotly_specs(at),
                      html_bodies(at))
    return seen


@pytest.mark.parametrize("page", PAGES)
def test_no_page_renders_outside_text_as_markdown(visited, page):
    problems, *_ = visited[page]
    assert problems == []


def test_the_outside_text_was_on_the_pages(visited):
    """The check above saw the corpus: its words are on the pages, as their own characters."""
    corpus_page = " ".join(visited["views/corpus.py"][1])
    assert "In use: Pasted: **bold** $x$ $$y$$ ~~s~~" in corpus_page
    unseen = visited["views/unseen.py"][1]
    assert "#### **bold** → 1 token" in unseen  # the word's own heading
    assert any(line.startswith("Step ") and "**" in line for line in unseen)  # a "jump to the step" button
    files = " ".join(visited["views/files.py"][1])
    assert "**x** $x$ ~~s~~ :red[r]" in files  # the upload notice names the file as it is
    # The trees of "<b>h</b>": their leaves are the word's characters, each `<` and `>` escaped as HTML.
    html = next(h for h in visited["views/unseen.py"][3] if 'class="bpe-trees"' in h)
    assert "<b>" not in html
    trees = drawn_trees(html)  # each node's text as shown, the HTML read
    leaves = [n["text"] for tree in trees for n in tree if n["row"] == max(m["row"] for m in tree)]
    assert leaves == ["<", "b", ">", "h", "<", "/", "b", ">", "</w>"]


def test_a_crafted_link_is_told_as_plain_text():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"mode": "[Reload here](https://example.invalid)", "pre": "![t](https://example.invalid/p.png)"})
    at.run()
    assert not at.exception
    notices = [w.value for w in at.warning]
    assert len(notices) == 1 and constructs(notices[0]) == []
    expected = "mode=[Reload here](https://example.invalid) in the link is not one of word, text, bytes."
    assert expected in shown(notices[0])
    assert "pre=![t](https://example.invalid/p.png) in the link is not one of" in shown(notices[0])


