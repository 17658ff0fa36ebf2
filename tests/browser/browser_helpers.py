"""Helpers for the browser tests."""
from __future__ import annotations

import contextlib
import os
import re
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


def again_until(act, shown, attempts: int = 3) -> None:
    """`act` (a click), then wait for `shown` (an expectation); a click that lands while a rerun
    replaces the page can be lost with the element it hit: then, as a person would, act again
    (`act` itself skips what is already done, such as closing an open expander)."""
    for attempt in range(attempts):
        act()
        try:
            shown()
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise


def open_expander(page, label, inside) -> None:
    """Open an expander and wait until `inside` (a locator within it) shows, clicking again if the
    click was lost (only while the expander is still closed, or the click would close it)."""
    from playwright.sync_api import expect

    details = page.locator("[data-testid=stExpander] details").filter(has=page.get_by_text(label)).first

    def click() -> None:
        if details.get_attribute("open") is None:
            page.get_by_text(label).first.click()

    again_until(click, lambda: expect(inside).to_be_visible(timeout=5_000))


def go_to(page, link: str) -> None:
    """Follow a sidebar link and wait until the address is that page's. A click that lands while a
    rerun replaces the sidebar can be lost (with both cores busy it was): then click it again."""
    import re

    from playwright.sync_api import expect

    target = page.get_by_role("link", name=link, exact=True)
    path = re.sub(r"^https?://[^/]+", "", target.get_attribute("href") or "").split("?")[0].rstrip("/")
    address = re.compile(r"^https?://[^/]+" + re.escape(path) + r"/?(\?.*)?$")
    again_until(target.click, lambda: expect(page).to_have_url(address, timeout=10_000))


class Tab:
    """One tab kept open for a worker's tests. Each test still opens the app by its own link, as a new
    visitor does (a new Streamlit session), but in a tab that has loaded the app before: Chromium then
    reuses the scripts it has compiled, and a load costs it about half the processor time of a load in
    a new browser context (about 2 s less; about 100 loads a run)."""

    def __init__(self, browser) -> None:
        self.browser, self.context, self.page = browser, None, None
        self.crashed = False

    def open(self, viewport: dict[str, int]):
        if self.page is not None and not (self.crashed or self.page.is_closed()):
            try:
                self.page.set_viewport_size(viewport)
                return self.page
            except Exception:  # noqa: BLE001 - a tab that no longer answers: a new one below
                pass
        self.close()
        self.context = self.browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.crashed = False
        self.page.on("crash", self._crash)
        return self.page

    def _crash(self, page) -> None:
        self.crashed = True

    def leave(self) -> None:
        """End the test's session (its websocket closes; each wait bounded) and forget what the app kept in
        the browser: its storage, its cookies, any other tab the test opened. A tab that does not answer is
        closed: the next test gets a new one."""
        page = self.page
        try:
            if page.url.startswith("http"):
                page.wait_for_function("() => { localStorage.clear(); sessionStorage.clear(); return true; }",
                                       timeout=10_000)
            page.goto("about:blank", timeout=30_000)
            for other in self.context.pages:
                if other is not page:
                    other.close()
            self.context.clear_cookies()
            page.mouse.move(0, 0)  # where a new tab's pointer is: no hover left over the next test's page
        except Exception:  # noqa: BLE001 - crashed, stuck or closed: the next test gets a new tab
            self.close()

    def close(self) -> None:
        if self.context is not None:
            with contextlib.suppress(Exception):
                self.context.close()
        self.context = self.page = None


@contextlib.contextmanager
def visited(request, tab: Tab, viewport: dict[str, int]):
    """The test's page: the worker's tab, or a new browser context of its own for a test marked `own_tab`
    (one that changes what the whole context does, such as Playwright's clock). Fails the test if the app
    opens any dialog (an injected alert); a test that failed leaves a screenshot of what the page showed
    then: screenshots/failed-<test>.png."""
    own = request.node.get_closest_marker("own_tab") is not None
    if own:
        context = tab.browser.new_context(viewport=viewport)
        page = context.new_page()
    else:
        page = tab.open(viewport)
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        yield page
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            SCREENSHOTS.mkdir(exist_ok=True)
            name = re.sub(r"[^\w.-]+", "-", request.node.name)[:120]
            with contextlib.suppress(Exception):  # a page that crashed: the test's own failure says enough
                page.screenshot(path=str(SCREENSHOTS / f"failed-{name}.png"))
        with contextlib.suppress(Exception):
            page.remove_listener("dialog", on_dialog)
        if own:
            context.close()
        else:
            tab.leave()
    assert not dialogs, f"the page opened dialogs: {dialogs}"


@contextlib.contextmanager
def requests_to(page, host: str):
    """The addresses of the page's requests to `host` while the block runs (the listener goes with it:
    the tab outlives the test)."""
    import urllib.parse

    seen: list[str] = []

    def on_request(request) -> None:
        if urllib.parse.urlsplit(request.url).hostname == host:
            seen.append(request.url)

    page.on("request", on_request)
    try:
        yield seen
    finally:
        page.remove_listener("request", on_request)
