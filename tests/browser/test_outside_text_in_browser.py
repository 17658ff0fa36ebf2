"""A corpus of Markdown, LaTeX, directives, URLs and HTML, pasted and shown on every page: as text."""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, go_to, requests_to, settle, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

OUTSIDE = (
    "**bold** $x$ $$y$$ ~~s~~ :red[r] :smile: :material/home: ![i](https://example.invalid/p.png) "
    "[l](https://example.invalid) https://example.invalid www.example.invalid a@example.invalid "
    "<b>h</b> &quot; _it_"
)
CORPUS = "\n".join([OUTSIDE] * 6)
PAGES = ("Watch training", "Corpus", "Unseen words", "Lessons", "Common mistakes", "Compare tokenizers",
         "Vocabulary", "Import and export", "BPE-dropout", "Tokenize")

# What Markdown would have made of the corpus: links, images, maths, emphasis, icons, colour.
RENDERED = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const all = (sel) => [...document.querySelectorAll(sel)];
  const text = (e) => e.textContent.trim();
  return {
    links: all('a[href*="example.invalid"]').map(a => a.href),
    images: all('img[src*="example.invalid"]').map(i => i.src),
    katex: all('.katex').length,
    emphasis: all('strong, b, em, del, s').map(text).filter(t => ['bold', 'h', 'it', 's', 'r'].includes(t)),
    icons: all('[data-testid=stIconMaterial]').map(text).filter(t => t === 'home'),
    colour: all('.stMarkdownColoredText').map(text),
    emoji: main.textContent.includes('\\u{1F604}'),
  };
}"""


def test_markdown_from_a_corpus_stays_text_on_every_page(page, server):
    with requests_to(page, "example.invalid") as requests:
        page.goto(server + "/corpora")
        expect(page.get_by_role("heading", level=1, name="Corpus")).to_be_visible()
        page.get_by_role("tab", name="Paste text").click()
        page.get_by_label("Paste text to train on").fill(CORPUS)
        page.get_by_role("button", name="Use this text").click()
        in_use = page.locator(LIVE).get_by_role("heading", name=re.compile(r"^In use: Pasted: \*\*bold\*\*"))
        expect(in_use).to_be_visible()
        go_to(page, "Unseen words")
        box = page.get_by_label(re.compile("Words to encode"))
        box.fill(OUTSIDE)
        box.press("Enter")
        expect(page.locator(LIVE).get_by_role("heading", name=re.compile(r"^\*\*bold\*\*"))).to_be_visible()

        for name in PAGES:
            go_to(page, name)
            expect(page.get_by_role("heading", level=1)).to_be_visible()
            settle(page)
            shoot(page, "outside-text-" + re.sub(r"\W+", "-", name.lower()))
            found = page.evaluate(RENDERED)
            assert found == {"links": [], "images": [], "katex": 0, "emphasis": [], "icons": [], "colour": [],
                             "emoji": False}, name
            if name in ("Corpus", "Unseen words"):
                expect(page.locator(LIVE).get_by_text("**bold**", exact=False).first).to_be_visible()
    assert requests == []
