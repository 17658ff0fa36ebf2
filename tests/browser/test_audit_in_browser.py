"""Token audit in Chromium: GPT-4o's o200k_base against the 5 MB English sample, run with the button."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from tests.conftest import require

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def metric(page, label: str):
    return page.locator(f"{LIVE} [data-testid=stMetric]").filter(has_text=label)


def choose(page, label: str, typed: str) -> None:
    page.locator("[data-testid=stMain]").get_by_role("combobox", name=label, exact=True).click()
    page.keyboard.type(typed)
    page.keyboard.press("Enter")


def test_audit_of_gpt4o_on_english_prose(page, warm_server):
    require("quicktok")
    page.goto(warm_server + "/token-audit")
    expect(page.get_by_role("heading", level=1, name="Token audit")).to_be_visible()
    expect(metric(page, "Words examined")).to_be_visible(timeout=60_000)  # the lesson: small, run at once

    choose(page, "Tokenizer", "GPT-4o")
    choose(page, "Reference corpus", "English prose")
    expect(page.locator(LIVE).get_by_text("press Run the audit", exact=False)).to_be_visible(timeout=60_000)
    expect(page.locator(LIVE).get_by_text("all 4,999,974 bytes of English prose", exact=False)).to_be_visible()
    page.get_by_role("button", name="Run the audit").click()
    expect(metric(page, "Words examined")).to_contain_text("35,520", timeout=90_000)
    expect(metric(page, "Split more than needed")).to_contain_text("988")
    expect(metric(page, "Extra tokens")).to_contain_text("2,482")
    expect(page.locator(f"{LIVE} .aud-table .bpe-chip").first).to_be_visible()
    expect(page.locator(LIVE).get_by_text("12 tokens that encoding their own text", exact=False)).to_be_visible()
    expect(page.locator(LIVE).get_by_text("The first 2,000 of 174,218 tokens.")).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "audit-gpt4o-english")
