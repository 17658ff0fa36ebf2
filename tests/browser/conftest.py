"""Real-browser tests: the app served by the README's command (`python -m explorer`), driven by Debian's Chromium.

The server is started once per session on a free port and stopped at the end (only that
process). Without /usr/bin/chromium the tests skip, except under CI (CI set, not "0"/"false"), where they fail.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import Tab, visited

from tests.conftest import stop_process, under_ci

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "screenshots"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
START_TIMEOUT = 90  # seconds; the two cores may be busy with other test runs
SERVER_LOGS: list[Path] = []  # the logs of the servers this worker started, for a failing test's report


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


def _require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: install Debian's chromium (scripts/install.sh does)"
        if under_ci():  # the suite's one rule: CI set to anything but "", "0" or "false"
            pytest.fail(message)
        pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(log_name: str, env: dict[str, str] | None = None):
    """Run `python -m explorer` on a free port (with `env` added to the environment);
    yield (base URL, the server process); stop only that process at the end."""
    _require_chromium()
    port = _free_port()
    SCREENSHOTS.mkdir(exist_ok=True)
    log = open(SCREENSHOTS / log_name, "w")  # noqa: SIM115 - closed at the end
    SERVER_LOGS.append(SCREENSHOTS / log_name)
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"streamlit exited with code {process.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
                    if answer.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not answer on {base} within {START_TIMEOUT} s")
            time.sleep(0.3)
        yield base, process
    finally:
        stop_process(process)
        log.close()


@pytest.fixture(scope="session")
def server():
    """Base URL of a fresh `python -m explorer`."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # each pytest-xdist worker starts its own server
    with serve(f"server{'-' + worker if worker else ''}.log") as (base, _):
        yield base


@pytest.fixture(scope="session")
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def warm_server(browser, server):
    """The server, first visited the way a shared link is: straight to a deep link.

    Fails if the server answers its very first visit with "Page not found" (what Streamlit does
    when the page files sit in a folder named pages/ next to the main script).
    """
    from playwright.sync_api import expect

    context = browser.new_context()
    page = context.new_page()
    page.goto(server + "/unseen-words?step=1")
    expect(page.get_by_role("heading", level=1, name="Unseen words")).to_be_visible(timeout=60_000)
    if page.get_by_text("Page not found").count():
        pytest.fail("the first visit to a deep link showed 'Page not found'")
    context.close()
    return server


@pytest.fixture(autouse=True)
def patient_expectations():
    """Every expectation of every browser test waits up to 30 s for its state (Playwright's own default
    is 5 s): the two cores may be busy with other tests, or with another job."""
    try:
        from playwright.sync_api import expect
    except ImportError:  # the browser fixture says what is missing
        return
    expect.set_options(timeout=30_000)


@pytest.fixture(autouse=True)
def server_log_marks(request):
    """Where each server's log stood when the test began: a failing test reports what was logged since."""
    request.node.server_log_sizes = {path: path.stat().st_size for path in SERVER_LOGS if path.exists()}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test, so that the page fixture knows whether the test failed; a
    failed test's report also carries what the servers logged meanwhile (a page's traceback stays in
    the server's log, never in the browser)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    if report.failed and report.when == "call":
        for path in SERVER_LOGS:
            with contextlib.suppress(OSError), open(path, errors="replace") as log:
                log.seek(getattr(item, "server_log_sizes", {}).get(path, 0))
                logged = log.read()
                if logged.strip():
                    report.sections.append((f"{path.name}, while the test ran (last 8,000 characters)",
                                            logged[-8000:]))
    return report


@pytest.fixture(scope="session")
def tab(browser):
    kept = Tab(browser)
    yield kept
    kept.close()


@pytest.fixture
def page(request, tab, warm_server):
    """The test's browser page at 1440x1100 (see `visited`)."""
    with visited(request, tab, {"width": 1440, "height": 1100}) as opened:
        yield opened
