"""The Language tax page in Chromium: the chart and the table of fifteen languages, no error box."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def test_language_tax_draws_the_chart_and_the_table(page, warm_server):
    page.goto(warm_server + "/language-tax")
    expect(page.get_by_role("heading", level=1, name="Language tax")).to_be_visible()
    chart = page.locator(f"{LIVE} [data-testid=stPlotlyChart]")
    expect(chart).to_be_visible(timeout=120_000)  # the first visit counts the tokens of every language
    expect(chart.locator(".legendtext", has_text="GPT-4o (o200k_base)")).to_have_count(1)
    expect(chart.locator(".xtick text", has_text="Hindi")).to_have_count(1)
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]").first).to_be_visible()
    expect(page.locator(LIVE).get_by_text("Parallel text: the interface messages", exact=False)).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "language-tax")
