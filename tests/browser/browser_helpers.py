"""Helpers for the browser tests."""
from __future__ import annotations

import os
from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
# Whole-page screenshots are for a person to look at: BPE_SCREENSHOTS=1 writes them (each costs about
# 2 s of a busy machine, a minute of the suite). A failing browser test is always photographed (conftest).
SCREENSHOTS_WANTED = os.environ.get("BPE_SCREENSHOTS", "").strip().lower() not in ("", "0", "false")

# Elements of the current run: while a rerun is under way Streamlit keeps the previous run's
# elements on screen, faded and marked stale, until the new ones arrive.
LIVE = '[data-testid=stElementContainer][data-stale="false"]'


# The app has finished its run and shows only fresh elements: the script state is back to notRunning,
# nothing is stale and the "running" icon is gone.
FINISHED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  return !document.querySelector('[data-stale="true"], [data-testid^="stStatusWidgetRunning"]');
}"""


def settle(page, quiet_ms: int = 400, timeout_ms: int = 60_000) -> None:
    """Wait for a state, not a time: the app has finished its run and is still finished `quiet_ms` later
    (a rerun the last one asked for, or a fragment's, would have started by then)."""
    page.wait_for_function(FINISHED, timeout=timeout_ms)
    page.wait_for_timeout(quiet_ms)
    page.wait_for_function(FINISHED, timeout=timeout_ms)


MEASURE = (
    "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
    " const b = document.querySelector('[data-testid=\"stMainBlockContainer\"]');"
    " return Math.max(m ? m.scrollHeight : 0, b ? b.scrollHeight : 0, document.body.scrollHeight); }"
)


def shoot(page, name: str) -> Path | None:
    """With BPE_SCREENSHOTS=1, save a screenshot of the whole app (the main area scrolls, so the viewport
    grows to fit it) and return its path; otherwise leave the page alone and return None."""
    if not SCREENSHOTS_WANTED:
        return None
    SCREENSHOTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1440, "height": 900})
    height, previous = 0, -1
    for _ in range(8):  # the page may still be streaming in: wait until its height settles
        height = int(page.evaluate(MEASURE))
        if height == previous:
            break
        previous = height
        page.set_viewport_size({"width": 1440, "height": max(900, min(height + 40, 6000))})
        page.wait_for_timeout(250)  # then measure again: the loop ends once two readings agree
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def open_expander(page, label, inside) -> None:
    """Open an expander and wait until `inside` (a locator within it) shows. A click that lands
    while a rerun replaces the page can be lost with the element it hit: then, as a person
    would, click again (only while the expander is still closed, or the click would close it)."""
    from playwright.sync_api import expect

    details = page.locator("[data-testid=stExpander] details").filter(has=page.get_by_text(label)).first
    for attempt in range(3):
        if details.get_attribute("open") is None:
            page.get_by_text(label).first.click()
        try:
            expect(inside).to_be_visible(timeout=5_000)
            return
        except AssertionError:
            if attempt == 2:
                raise


def go_to(page, link: str) -> None:
    """Follow a sidebar link and wait until the address is that page's. A click that lands while a
    rerun replaces the sidebar can be lost (with both cores busy it was): then click it again."""
    import re

    from playwright.sync_api import expect

    target = page.get_by_role("link", name=link, exact=True)
    path = re.sub(r"^https?://[^/]+", "", target.get_attribute("href") or "").split("?")[0].rstrip("/")
    address = re.compile(r"^https?://[^/]+" + re.escape(path) + r"/?(\?.*)?$")
    for attempt in range(3):
        target.click()
        try:
            expect(page).to_have_url(address, timeout=10_000)
            return
        except AssertionError:
            if attempt == 2:
                raise
