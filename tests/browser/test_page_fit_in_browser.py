"""Wide tables fit the page at 1400x900 in Chromium: Compare, Language tax and Families.

Streamlit draws a dataframe on a canvas inside a scroller; a table wider than its frame used to run
out of sight on the right. Each live table is measured: its frame inside the main block, and the
grid's content (the scroller's scrollWidth) no wider than the frame shows (its clientWidth).
"""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, SCREENSHOTS, open_expander, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WINDOW = {"width": 1400, "height": 900}
TABLES = f"{LIVE} [data-testid=stDataFrame]"
MEASURE = """(table) => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect();
  const box = table.getBoundingClientRect();
  const scroller = table.querySelector('.dvn-scroller');
  return {main: [main.left, main.right], box: [box.left, box.right],
          content: scroller ? scroller.scrollWidth : null, shown: scroller ? scroller.clientWidth : null};
}"""
SCROLL_TO_END = """(table) => { const s = table.querySelector('.dvn-scroller');
  s.scrollLeft = s.scrollWidth; return s.scrollLeft + s.clientWidth; }"""


def fits(table, *, or_scrolls: bool = False) -> dict:
    """The table's measures, once its grid is drawn; fails naming what sticks out. `or_scrolls`: a
    table too wide for any page may scroll inside its frame instead, its last column reachable."""
    expect(table.locator(".dvn-scroller")).to_have_count(1)
    found = table.evaluate(MEASURE)
    (left, right), (main_left, main_right) = found["box"], found["main"]
    assert main_left <= left and right <= main_right, f"the table's frame leaves the main block: {found}"
    if or_scrolls and found["content"] > found["shown"] + 1:
        end = table.evaluate(SCROLL_TO_END)
        assert end >= found["content"] - 1, f"the table's last column cannot be scrolled to: {found}, {end}"
        return found
    assert found["content"] <= found["shown"] + 1, f"the table is wider than its frame, cut on the right: {found}"
    return found


def shoot_window(page, name: str) -> None:
    """A screenshot of the 1400x900 window as it is (`shoot` grows the window to the whole page)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def builtin_button(page, title: str):
    """The Add button of a built-in, its expander open on the built-ins' tab (the expander's label
    counts the tokenizers in use, so each added one draws it anew, closed)."""
    tab = page.get_by_role("tab", name="Built-in tokenizers")
    open_expander(page, "Add a tokenizer", tab)
    tab.click()
    button = page.locator(LIVE).get_by_role("button", name=f"Add {title}")
    expect(button).to_be_visible()
    return button


def test_compare_tables_fit_with_four_tokenizers(page, warm_server):
    page.set_viewport_size(WINDOW)
    page.goto(warm_server + "/side-by-side")
    expect(page.get_by_role("heading", level=1, name="Compare tokenizers")).to_be_visible()
    expect(page.locator(TABLES)).to_have_count(2, timeout=60_000)  # counts and vocabulary overlap
    for n, title in ((3, "GPT-4o (o200k_base)"), (4, "Llama 3 (llama3)")):
        builtin_button(page, title).click()
        expect(page.locator(f"{LIVE} .bpe-chips")).to_have_count(n, timeout=60_000)
    expect(builtin_button(page, "GPT-4o (o200k_base)")).to_be_disabled()  # already compared: not offered twice
    tables = page.locator(TABLES)
    expect(tables).to_have_count(2)
    for i in range(2):
        tables.nth(i).scroll_into_view_if_needed()
        fits(tables.nth(i))
    tables.first.scroll_into_view_if_needed()
    shoot_window(page, "fit-compare-1400")


def test_language_tax_tables_fit(page, warm_server):
    page.set_viewport_size(WINDOW)
    page.goto(warm_server + "/language-tax")
    expect(page.get_by_role("heading", level=1, name="Language tax")).to_be_visible()
    wide = page.locator(TABLES).first
    expect(wide).to_be_visible(timeout=120_000)  # the first visit counts every language
    wide.scroll_into_view_if_needed()
    fits(wide)  # a language a row, a column for each of the six tokenizers
    shoot_window(page, "fit-language-tax-1400")
    # Every number (ten columns, one a tokenizer's whole name) is too wide for any page: it scrolls.
    for label, or_scrolls in (("Every number: bytes, characters, tokens", True), ("Where the texts come from", False)):
        inside = page.locator("[data-testid=stExpander]").filter(has=page.get_by_text(label)).locator(
            "[data-testid=stDataFrame]")
        open_expander(page, label, inside)
        inside.scroll_into_view_if_needed()
        fits(inside, or_scrolls=or_scrolls)
    expect(page.locator(f"{LIVE} .tax-sentence")).to_have_count(2)  # the sentence in English and Hindi
    shoot(page, "fit-language-tax")


def test_families_table_fits(page, warm_server):
    """The lesson's table: a column per family, every row shown, nothing cut on the right."""
    page.set_viewport_size(WINDOW)
    page.goto(warm_server + "/families")
    expect(page.locator(f"{LIVE} .bpe-row")).to_have_count(4, timeout=60_000)
    table = page.locator(TABLES).first
    table.scroll_into_view_if_needed()
    fits(table)
    scroller = table.locator(".dvn-scroller")
    assert scroller.evaluate("(s) => s.scrollHeight <= s.clientHeight + 1"), "the lesson's table hides rows below"
    shoot_window(page, "fit-families-1400")
