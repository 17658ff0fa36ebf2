"""Presenter mode on a projector's screen: the player's controls and the merge card in the first view."""
from __future__ import annotations

import pytest
from browser_helpers import SCREENSHOTS
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Every sidebar label, its height and one line's height (a label wrapped inside a word, as
# "Vocabular y size" was, is two lines tall where one would do).
LABELS = """() => [...document.querySelectorAll('[data-testid=stSidebar] [data-testid=stWidgetLabel] p')]
  .map(p => ({text: p.innerText, height: p.getBoundingClientRect().height,
              line: parseFloat(getComputedStyle(p).lineHeight)}))"""
CUT = """() => [...document.querySelectorAll('[data-testid=stSidebar] button, [data-testid=stMain] button')]
  .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1).map(b => b.innerText)"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
def test_presenter_mode_fits_the_first_screen(page, server, width, height):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(server + "/?present=1&step=3")
    play = page.locator(".bp-play")
    card = page.locator(".bp-card")
    expect(play).to_be_visible(timeout=60_000)
    expect(card).to_contain_text("+")
    page.wait_for_timeout(1000)  # fonts and the sidebar settle
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"presenter-{width}x{height}.png"))
    for what, box in (("play button", play.bounding_box()), ("merge card", card.bounding_box())):
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (what, box)
    labels = page.evaluate(LABELS)
    assert {label["text"] for label in labels} >= {"Merges", "Vocabulary size", "Minimum pair count", "Mode"}
    wrapped = [label["text"] for label in labels if label["height"] > 1.5 * label["line"]]
    assert wrapped == []
    assert page.evaluate(CUT) == []  # no button's text is cut off
