"""Training stability in Chromium: the 5 MB English sample in bytes mode, 2,000 merges, after the button."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def test_large_corpus_trains_its_prefixes_on_a_button_press(page, warm_server):
    page.goto(warm_server + "/training-stability?corpus=english&mode=bytes&merges=2000")
    expect(page.get_by_role("heading", level=1, name="Training stability")).to_be_visible()
    button = page.locator(LIVE).get_by_role("button", name="Train on 1%, 10% and 50% of English prose")
    expect(button).to_be_visible(timeout=120_000)  # after the sidebar's own training of 5 MB
    expect(page.locator(f"{LIVE} .js-plotly-plot")).to_have_count(0)  # nothing trained before the press
    button.click()
    expect(page.locator(f"{LIVE} .js-plotly-plot")).to_be_visible(timeout=120_000)
    # Measured (bpe_core.analysis.stability on the same text): 10% and 50% agree on the first 4 merges.
    tenth = page.locator(f"{LIVE} .bpe-stab").filter(has_text="10% diverges at step 5")
    expect(tenth).to_contain_text("the first 4 merges agree")
    expect(tenth.locator(".bpe-chip")).to_have_count(6)
    expect(page.locator(f"{LIVE} .bpe-stab").filter(has_text="1% diverges at step 1")).to_be_visible()
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]")).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "training-stability-english-bytes")
