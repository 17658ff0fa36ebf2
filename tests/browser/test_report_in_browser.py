"""The Report card page in Chromium: the measures table, the charts and the checks, on the lesson and on 1 MB."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from bpe_core.builtin import builtin_info
from bpe_core.formats.detect import load_model
from bpe_core.report import measure, report_card
from explorer.display.report import format_value
from sample_corpora import load_corpus

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def _row(page, title: str) -> list[str]:
    """The cells of the table row whose measure is `title` (its value cells, left to right)."""
    row = page.locator(f"{LIVE} table.rc-table tr").filter(has=page.locator("td", has_text=title)).first
    cells = row.locator("td")
    return [cells.nth(i).inner_text().strip() for i in range(1, cells.count())]


def test_report_card_grades_three_tokenizers_on_the_lesson_and_on_a_megabyte(page, warm_server):
    page.goto(warm_server + "/report-card")
    expect(page.get_by_role("heading", level=1, name="Report card")).to_be_visible()
    table = page.locator(f"{LIVE} table.rc-table")
    expect(table).to_be_visible(timeout=120_000)
    gpt2, o200k = builtin_info("gpt2").title, builtin_info("o200k_base").title
    heads = [t.strip() for t in table.locator("th").all_inner_texts()]
    assert heads[0] == "Measure" and heads[2:] == [gpt2, o200k] and heads[1].startswith("Trained here")
    lesson = load_corpus("seed000")
    expected = report_card(load_model("gpt2"), lesson)
    fertility = measure("tokens_per_word")
    assert _row(page, "Tokens per word (fertility)")[1] == format_value(fertility, fertility.value(expected))
    assert _row(page, "Digit grouping")[1:] == ["by learned merges", "left to right, 3 at a time"]
    expect(page.locator(f"{LIVE} [data-testid=stPlotlyChart]")).to_have_count(2)
    expect(page.locator(f"{LIVE} .rc-check")).to_have_count(3 * 7)
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "report-card")

    # A megabyte of English prose, through the page's own picker: the numbers are the engine's on it.
    page.locator(f"{LIVE} [data-testid=stSelectbox]").filter(has_text="Reference text").locator("input").click()
    page.get_by_role("option", name="English prose", exact=False).first.click()
    caption = page.locator(LIVE).get_by_text("Reference text: the first 1.0 MB", exact=False)
    expect(caption).to_be_visible(timeout=180_000)
    expect(table.locator("td", has_text="Tokens per word (fertility)")).to_be_visible(timeout=180_000)
    text = load_corpus("english").encode("utf-8")[:1_000_000].decode("utf-8", errors="ignore")
    expected = report_card(load_model("o200k_base"), text)
    share = measure("single_token_word_rate")
    expect(page.locator(f"{LIVE} table.rc-table tr").filter(has_text="Single-token words").locator("td").nth(3)
           ).to_have_text(format_value(share, share.value(expected)), timeout=180_000)
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "report-card-english")
