"""Heavy pages at full size in Chromium: a 1.5 MB corpus in text mode, where the whole text is one "word".

Common mistakes used to hang there (greedy longest match over the whole corpus) and Compare
trained a second tokenizer on opening. Both must draw their content, with no error box.
"""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, go_to, shoot
from playwright.sync_api import expect

from sample_corpora import load_corpus

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory):
    text = load_corpus("english").encode("utf-8")[:1_500_000].decode("utf-8", errors="ignore")
    path = tmp_path_factory.mktemp("heavy") / "english-1.5mb.txt"
    path.write_text(text, encoding="utf-8")
    return path, len(text)


def go(page, link: str, title: str) -> None:
    go_to(page, link)
    expect(page.get_by_role("heading", level=1, name=title)).to_be_visible()


def test_common_mistakes_and_compare_on_a_large_text_mode_corpus(page, warm_server, big_corpus):
    path, characters = big_corpus
    page.goto(warm_server + "/corpora?mode=text&merges=30&step=1")
    expect(page.get_by_role("heading", level=1, name="Corpus")).to_be_visible()
    page.get_by_role("tab", name="Upload files").click()
    page.locator("input[type=file]").set_input_files(str(path))
    expect(page.get_by_text("Loaded english-1.5mb.txt")).to_be_visible(timeout=60_000)

    go(page, "Common mistakes", "Common mistakes")
    cap = page.locator(LIVE).get_by_text("Only the first 2,000 characters of each word are compared", exact=False)
    expect(cap).to_be_visible()
    expect(cap).to_contain_text(f"the longest word here has {characters:,} characters")
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]").nth(2)).to_be_visible()  # the lessons' three tables
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "heavy-common-mistakes-text-1.5mb")

    go(page, "Compare tokenizers", "Compare tokenizers")
    columns = page.locator(f"[data-testid=stHorizontalBlock] {LIVE} .bpe-chips")
    expect(columns).to_have_count(2)  # the sidebar's tokenizer and the same with its first 15 merges
    # The label as drawn (a shortened table header keeps its full text in a hidden tooltip too).
    expect(page.locator(LIVE).get_by_text("text mode, 15 merges", exact=False).filter(visible=True).first
           ).to_be_visible()
    expect(page.locator(f"{LIVE} .cmp-text")).to_contain_text("lowest·newer")
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "heavy-compare-text-1.5mb")
