"""Chromium for the browser benchmarks: Debian's binary driven by Playwright, as the browser tests do."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1440, "height": 1000}


def require_chromium() -> None:
    """Stop with a one-line message where Debian's Chromium is missing."""
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"{CHROMIUM} is missing: install Debian's chromium (scripts/install.sh does)")


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium, closed on the way out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any) -> tuple[Any, Any]:
    """A fresh session (browser context) at the benchmarks' window size, and its page."""
    context = browser.new_context(viewport=VIEWPORT)
    return context, context.new_page()
