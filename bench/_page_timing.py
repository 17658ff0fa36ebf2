"""Timing one action in the browser: from a click to the moment the app has finished and is fresh.

The app's root element carries `data-test-script-state`; a MutationObserver installed in the page
counts the script runs that start and finish after a reset, so a time ends only after a run that
the click began (not one that was already under way), with no stale element left and the
"running" icon gone, and (unless asked otherwise) still quiet QUIET seconds later.
"""
from __future__ import annotations

import time

QUIET = 0.4  # seconds the page must stay finished for a time to count

# Installed once per page load: counts script runs that start and finish after `window.__bench.reset()`.
OBSERVER_JS = """() => {
  if (window.__bench) return;
  const app = document.querySelector('[data-testid="stApp"]');
  const b = window.__bench = {started: 0, finished: 0, finishedAt: 0, t0: 0,
    reset() { this.started = 0; this.finished = 0; this.finishedAt = 0; this.t0 = performance.now(); }};
  new MutationObserver(() => {
    const s = app.getAttribute('data-test-script-state');
    if (s === 'running' || s === 'rerunRequested') { if (b.started === b.finished) b.started++; }
    else if (b.started > b.finished) { b.finished = b.started; b.finishedAt = performance.now(); }
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""

# The body of a check: false unless the app runs no script and shows no stale element and no running icon.
_FRESH = """const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"], [data-testid^="stStatusWidgetRunning"]')) return false;"""

# True once a run that began after the reset has finished and the page shows only fresh elements.
DONE_JS = """([path, text]) => {
  const b = window.__bench;
  if (!b || b.finished < 1 || b.started > b.finished) return false;
  """ + _FRESH + """
  if (path && location.pathname !== path) return false;
  const main = document.querySelector('[data-testid="stMain"]');
  if (text && !(main && main.innerText.includes(text))) return false;
  return true;
}"""

# The first load of a link: the page is drawn and nothing runs.
LOADED_JS = """() => {
  """ + _FRESH + """
  return !!document.querySelector('[data-testid="stMain"] h1');
}"""

ERRORS_JS = """() => document.querySelectorAll(
  '[data-testid="stMain"] [data-testid="stException"], [data-testid="stMain"] [data-testid="stAlertContentError"]'
).length"""


def pathname(url_path: str) -> str:
    """The address of a page: the default page (Watch training) lives at the root."""
    return "/" if url_path == "watch" else f"/{url_path}"


STATE_JS = """() => ({state: document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state'),
  bench: window.__bench && [window.__bench.started, window.__bench.finished],
  stale: document.querySelectorAll('[data-stale="true"]').length, path: location.pathname})"""


def timed(page, act, *, path: str = "", text: str = "", timeout: float = 120.0, quiet: bool = True,
          retry: bool = True, notes: list[str] | None = None) -> float | None:
    """Seconds from `act()` until a run it started has finished and the page is fresh (None: timed out).

    `path`: the page's url path the browser must then be on; `text`: what the page must then show.
    A click that starts no run within 5 s was lost (it landed while the page was being replaced):
    it is made again, and the time counts from the first click. What happened goes to `notes`.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    notes = notes if notes is not None else []
    expected = [path and pathname(path), text]
    page.evaluate(OBSERVER_JS)
    page.evaluate("() => window.__bench.reset()")
    act()
    deadline = time.monotonic() + timeout
    retried = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            notes.append(f"timed out: {page.evaluate(STATE_JS)}")
            return None
        try:
            wait = min(left, 5.0) if retry and not retried else left
            page.wait_for_function(DONE_JS, arg=expected, timeout=wait * 1000, polling=25)
        except PlaywrightTimeout:
            if retry and not retried and page.evaluate("() => window.__bench.started") == 0:
                retried = True
                notes.append("click made twice (the first started nothing)")
                act()
            continue
        finished = page.evaluate("() => [window.__bench.finished, window.__bench.finishedAt - window.__bench.t0]")
        if not quiet:
            return finished[1] / 1000
        page.wait_for_timeout(QUIET * 1000)
        again = page.evaluate("() => window.__bench.finished")
        if again == finished[0] and page.evaluate(DONE_JS, expected):
            return finished[1] / 1000
        # Another run began (a rerun or a page switch the first one asked for): wait for that one.


def nav(page, path: str):
    """A click on the sidebar's link to the page at `path` (a page switch within the session)."""
    def act() -> None:
        link = page.locator(f'[data-testid="stSidebarNav"] a[href="{page_base(page)}{pathname(path)}"]')
        if not link.count():
            more = page.locator('[data-testid="stSidebarNavViewButton"]')
            if more.count():
                more.first.click()
        link.first.click()
    return act


def page_base(page) -> str:
    return page.evaluate("() => location.origin")


def click(page, selector: str):
    def act() -> None:
        page.locator(selector).first.click()
    return act


def errors_on(page) -> int:
    return int(page.evaluate(ERRORS_JS))


def open_expander_and_tab(page, expander_text: str, tab_text: str) -> None:
    details = page.locator("[data-testid=stExpander] details").filter(has_text=expander_text).first
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    tab = page.get_by_role("tab", name=tab_text)
    tab.first.wait_for(state="visible", timeout=10_000)
    tab.first.click()


# True once the page is fresh and its main part shows every text in `texts`; notes the first such moment.
SHOWN_JS = """(texts) => {
  """ + _FRESH + """
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = main ? main.innerText : '';
  if (!texts.every((text) => shown.includes(text))) return false;
  window.__shownAt = window.__shownAt || performance.now();
  return true;
}"""


def shown_after(page, act, texts: list[str], *, timeout: float = 120.0, notes: list[str] | None = None) -> float | None:
    """Seconds from `act()` until the page is fresh and shows `texts`, and still does QUIET seconds later
    (None: timed out). For an action whose run may never show on the page: a server that finishes while the
    browser is busy sends a run's start and end together, which `timed` would wait for in vain."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("() => { window.__shownAt = 0; window.__actedAt = performance.now(); }")
    act()
    while True:
        try:
            page.wait_for_function(SHOWN_JS, arg=texts, timeout=timeout * 1000, polling=25)
        except PlaywrightTimeout:
            if notes is not None:
                notes.append(f"not shown within {timeout:g} s: {texts}")
            return None
        page.wait_for_timeout(QUIET * 1000)
        if page.evaluate(SHOWN_JS, texts):
            return page.evaluate("() => (window.__shownAt - window.__actedAt) / 1000")
        page.evaluate("() => { window.__shownAt = 0; }")  # shown, then a run began again: wait for that one
