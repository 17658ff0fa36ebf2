"""Many users at once: page times while another session trains, and the server's memory per session.

    python bench/bench_sessions.py                 # all three parts (a few minutes)
    python bench/bench_sessions.py --part pages    # a second session's page times while 50 MB trains
    python bench/bench_sessions.py --part pages --trainers 2  # ... while two sessions each train 50 MB
    python bench/bench_sessions.py --part upload   # peak server RSS of one 50 MB upload and its training
    python bench/bench_sessions.py --part sessions # RSS: 10 sessions open, upload and train, close
    python bench/bench_sessions.py --part link     # the crafted link /?corpus=english&mode=text&merges=1000000
    python bench/bench_sessions.py --part pages --in-thread  # the same, training in the page's thread (as before)

The app runs under `python -m explorer` on a free port, driven by Chromium (/usr/bin/chromium)
through Playwright, as the browser tests do. Memory is the server process's resident set
(VmRSS, sampled every 50 ms); training workers are separate processes, reported apart. The
server is started with a short `server.disconnectedSessionTTL` (Streamlit keeps a closed
session for reconnection that long, 120 s by default) and with a SIGUSR1 handler that runs
`gc.collect()` and `malloc_trim(0)`, for the "after gc" reading.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import _server
from _browser import chromium, new_page, require_chromium
from _common import CORPUS_DIR, RESULTS_DIR, ROOT
from _server import rss_mb

TTL = 5  # seconds Streamlit keeps a disconnected session in this benchmark
PAGES = ("Corpus", "Vocabulary", "Unseen words", "Watch training")
TITLES = {"Corpus": re.compile("^Corpus"), "Vocabulary": re.compile("^Vocabulary"),
          "Unseen words": re.compile("^Unseen words"), "Watch training": re.compile("^Watch")}  # page heading


# ---- the server -------------------------------------------------------------------------------

def serve(port: int) -> None:
    """Run the app (this process becomes the server) with a SIGUSR1 handler that collects garbage."""
    def collect(*_: object) -> None:
        gc.collect()
        # What still holds big texts: strings and bytes over 1 MB that a container refers to.
        seen: set[int] = set()
        big = 0
        for obj in gc.get_objects():
            for ref in gc.get_referents(obj):
                if isinstance(ref, (str, bytes)) and len(ref) > 1_000_000 and id(ref) not in seen:
                    seen.add(id(ref))
                    big += len(ref)
        print(f"bench: {len(seen)} strings or bytes over 1 MB alive, {big / 1e6:.1f} MB", flush=True)
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except OSError:
            pass

    signal.signal(signal.SIGUSR1, collect)
    from explorer.ui.launch import main  # the README's command, `python -m explorer`

    sys.exit(main([*_server.streamlit_options(port), "--server.disconnectedSessionTTL", str(TTL)]))


def start_server(*, in_thread: bool = False) -> tuple[subprocess.Popen, str]:
    port = _server.free_port()
    env = dict(os.environ, EXPLORER_TRAIN_IN_THREAD="1" if in_thread else "0")
    log_path = RESULTS_DIR / "sessions-server.log"
    return _server.start([sys.executable, __file__, "--serve", str(port)], port=port, cwd=ROOT,
                         log_path=log_path, env=env)


stop_server = _server.stop


# ---- memory -----------------------------------------------------------------------------------

def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in f.read().split():
                    out.append(int(child))
                    out.extend(children(int(child)))
    except OSError:
        pass
    return out


class Sampler:
    """The server's RSS (and its workers') every 50 ms, with the peaks since the last reset."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = self.worker_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            workers = [rss_mb(c) for c in children(self.pid)]
            self.worker_peak = max([self.worker_peak, *workers])
            time.sleep(0.05)

    def reset(self) -> float:
        now = rss_mb(self.pid)
        self.peak, self.worker_peak = now, 0.0
        return now

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


# ---- corpora ----------------------------------------------------------------------------------

def corpus_file(name: str, mb: float, *, offset: int = 0) -> Path:
    """A sample corpus repeated (and rotated by `offset` characters, so each file differs) to `mb` MB."""
    from sample_corpora import load_corpus

    path = CORPUS_DIR / f"sessions-{name}-{mb:g}mb-{offset}.txt"
    if not path.exists():
        text = load_corpus(name)
        text = text[offset:] + text[:offset]
        data = text.encode("utf-8")
        target = int(mb * 1_000_000)
        CORPUS_DIR.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            written = 0
            while written < target:
                piece = data[: target - written] if target - written < len(data) else data
                if len(piece) < len(data):  # end on a whole line, so the file stays valid UTF-8
                    piece = piece[: piece.rfind(b"\n") + 1] or data[:0]
                    if not piece:
                        break
                f.write(piece)
                written += len(piece)
    return path


# ---- the browser ------------------------------------------------------------------------------

def wait_idle(page, timeout: float = 120.0) -> None:
    """Wait until the app's script run has finished: no stale element, no 'Running' status."""
    page.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]')"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"] [data-testid=\"stStatusWidgetRunningIcon\"]')"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"]')?.innerText.includes('Running')",
        timeout=timeout * 1000)


def open_page(page, url: str, title) -> float:
    from playwright.sync_api import expect

    started = time.perf_counter()
    page.goto(url)
    expect(page.get_by_role("heading", level=1, name=title)).to_be_visible(timeout=120_000)
    wait_idle(page)
    return time.perf_counter() - started


def visit(page, link: str) -> float:
    """Click a page in the sidebar; seconds until its title shows and its run has ended."""
    from playwright.sync_api import expect

    started = time.perf_counter()
    page.get_by_role("link", name=link, exact=True).click()
    expect(page.get_by_role("heading", level=1, name=TITLES[link])).to_be_visible(timeout=120_000)
    wait_idle(page)
    return time.perf_counter() - started


def upload(page, base: str, path: Path, *, wait: bool = True) -> None:
    """Upload a corpus on the Corpus page; with `wait`, until it is loaded and trained."""
    open_page(page, base + "/corpora?step=1", TITLES["Corpus"])
    page.get_by_role("tab", name="Upload files").click()
    page.locator("input[type=file]").set_input_files(str(path))
    if wait:
        wait_trained(page, path)


def in_use(page, path: Path):
    # The Corpus page draws its heading after training (training comes first in each run).
    return page.get_by_role("heading", name=re.compile(r"In use: Uploaded:\W*" + re.escape(path.name)))


def wait_trained(page, path: Path, timeout: float = 300.0) -> None:
    from playwright.sync_api import expect

    expect(in_use(page, path)).to_be_visible(timeout=timeout * 1000)
    wait_idle(page, timeout)


def summary(times: list[float], what: str = "page visits") -> str:
    if not times:
        return f"no {what}"
    slowest = max(range(len(times)), key=times.__getitem__)
    which = f" ({PAGES[slowest % len(PAGES)]})" if what == "page visits" else ""
    return f"median {statistics.median(times):.2f} s, max {max(times):.2f} s{which} over {len(times)} {what}"


# ---- the parts --------------------------------------------------------------------------------

def small_training(page, base: str, n: int) -> float:
    """Session B pastes a small text (about 5 kB, different each time) and trains it: seconds until the
    Corpus page says it is in use, trained."""
    from playwright.sync_api import expect

    open_page(page, base + "/corpora?step=1", TITLES["Corpus"])
    page.get_by_role("tab", name="Paste text").click()
    page.get_by_label("Paste text to train on").fill(f"round {n}: " + "lower newest widest low " * 200)
    started = time.perf_counter()
    page.get_by_role("button", name="Use this text").click()
    expect(page.get_by_role("heading", name=re.compile(r"^In use: Pasted"))).to_be_visible(timeout=300_000)
    wait_idle(page, 300)
    seconds = time.perf_counter() - started
    open_page(page, base + "/?step=1", TITLES["Watch training"])
    return seconds


def part_pages_and_upload(browser, base: str, sampler: Sampler, mb: float, trainers: int = 1) -> None:
    paths = [corpus_file("english", mb, offset=i) for i in range(trainers)]  # each a different corpus
    print(f"corpora for {trainers} session(s) A: {', '.join(p.name for p in paths)}, "
          f"{paths[0].stat().st_size / 1e6:.1f} MB each")
    b_context, b = new_page(browser)
    open_page(b, base + "/?step=1", TITLES["Watch training"])
    for link in PAGES:  # once unmeasured: each page's first visit imports its modules
        visit(b, link)
    quiet = [visit(b, link) for _ in range(2) for link in PAGES]
    print(f"session B alone: {summary(quiet)}")
    quiet_small = [small_training(b, base, n) for n in range(3)]
    print(f"session B's small training alone: {summary(quiet_small, 'trainings')}")

    baseline = sampler.reset()
    started = time.perf_counter()
    trainers_pages = []
    for path in paths:
        context, a = new_page(browser)
        upload(a, base, path, wait=False)
        trainers_pages.append((context, a, path))
    # The sessions A now read their uploads and train (their pages show the progress); B moves between
    # pages and trains small texts meanwhile.
    busy: list[float] = []
    busy_small: list[float] = []
    while len(busy) < 60 and not all(in_use(a, path).count() for _, a, path in trainers_pages):
        if len(busy) % len(PAGES) == 0:  # a small training, then each page in turn
            busy_small.append(small_training(b, base, 10 + len(busy)))
        busy.append(visit(b, PAGES[len(busy) % len(PAGES)]))
    for _, a, path in trainers_pages:
        wait_trained(a, path, timeout=900)
    trained = time.perf_counter() - started
    print(f"sessions A: {trainers} x {mb:g} MB uploaded and trained {trained:.1f} s after the files were chosen")
    print(f"session B while they upload and train: pages {summary(busy)}; "
          f"small trainings {summary(busy_small, 'trainings')} (target: <= 2x B alone)")
    print(f"server RSS: baseline {baseline:.0f} MB, peak during the uploads and trainings "
          f"{sampler.peak:.0f} MB (+{sampler.peak - baseline:.0f} MB; target <= 400 MB per session), "
          f"training worker peak {sampler.worker_peak:.0f} MB (a separate process)")
    for context, _, _ in trainers_pages:
        context.close()
    b_context.close()


def part_link(browser, base: str, sampler: Sampler) -> None:
    """Session A opens a link asking for a million merges in text mode; B moves between pages meanwhile."""
    link = "/?corpus=english&mode=text&merges=1000000"
    b_context, b = new_page(browser)
    open_page(b, base + "/?step=1", TITLES["Watch training"])
    for name in PAGES:
        visit(b, name)
    baseline = sampler.reset()
    a_context, a = new_page(browser)
    started = time.perf_counter()
    a.goto(base + link)
    outcome = a.get_by_text(re.compile(r"merges learned|Could not train"))
    busy: list[float] = []
    while not outcome.count() and time.perf_counter() - started < 400:
        busy.append(visit(b, PAGES[len(busy) % len(PAGES)]))
    a.wait_for_timeout(1000)
    said = " / ".join(t.strip()[:160] for t in outcome.all_inner_texts()) or "nothing yet"
    print(f"session A, {link}: after {time.perf_counter() - started:.0f} s the page says: {said}")
    print(f"session B meanwhile: {summary(busy)} (target < 2 s)")
    print(f"server RSS: baseline {baseline:.0f} MB, peak {sampler.peak:.0f} MB; "
          f"training worker peak {sampler.worker_peak:.0f} MB (limit 3 GB of address space)")
    a_context.close()
    b_context.close()


def settle(browser, base: str, pid: int) -> float:
    """Let closed sessions expire, then collect garbage in the server; its RSS after that."""
    time.sleep(TTL + 2)
    # Streamlit forgets expired sessions when it next stores one: open and close one more.
    context = browser.new_context()
    open_page(context.new_page(), base + "/?step=1", TITLES["Watch training"])
    context.close()
    time.sleep(3)
    os.kill(pid, signal.SIGUSR1)
    time.sleep(3)
    return rss_mb(pid)


def part_sessions(browser, base: str, sampler: Sampler, pid: int, n: int, mb: float) -> None:
    # Warm-up: one session uploads a small corpus and closes, so that every module the pages
    # import (pandas, pyarrow for the tables...) is loaded before the baseline is read.
    context, page = new_page(browser)
    upload(page, base, corpus_file("english", 0.2, offset=7))
    context.close()
    baseline = settle(browser, base, pid)
    sampler.reset()
    contexts = []
    for i in range(n):
        name = ("english", "python")[i % 2]
        path = corpus_file(name, mb, offset=1000 * (i + 1))
        context, page = new_page(browser)
        upload(page, base, path)
        contexts.append(context)
        print(f"  session {i + 1}: {path.name} uploaded and trained; server RSS {rss_mb(pid):.0f} MB")
    opened = rss_mb(pid)
    peak = sampler.peak
    for context in contexts:
        context.close()
    time.sleep(TTL + 2)
    after_close = rss_mb(pid)
    after_gc = settle(browser, base, pid)
    print(f"{n} sessions, each uploading a {mb:g} MB corpus and training it:")
    print(
        f"  server RSS baseline (after a warm-up session and gc) {baseline:.0f} MB, "
        f"all open {opened:.0f} MB, peak {peak:.0f} MB, "
        f"after close {after_close:.0f} MB, after gc {after_gc:.0f} MB "
        f"(after gc - baseline: {after_gc - baseline:+.0f} MB)"
    )
    log = (RESULTS_DIR / "sessions-server.log").read_text(errors="replace")
    probes = [line for line in log.splitlines() if line.startswith("bench: ")]
    if probes:
        print(f"  after gc, in the server: {probes[-1].removeprefix('bench: ')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("all", "pages", "upload", "sessions", "link"), default="all")
    parser.add_argument("--mb", type=float, default=50.0, help="size of session A's upload")
    parser.add_argument("--trainers", type=int, default=1, help="sessions A training at once (each its own corpus)")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--session-mb", type=float, default=5.0, help="size of each session's upload")
    parser.add_argument(
        "--in-thread", action="store_true", help="train in the page's thread, as the app did before the worker pool"
    )
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    require_chromium()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    process, base = start_server(in_thread=args.in_thread)
    print("training in the page's thread (--in-thread)" if args.in_thread else "training in worker processes")
    sampler = Sampler(process.pid)
    try:
        with chromium() as browser:
            warm = browser.new_context()
            open_page(warm.new_page(), base + "/?step=1", TITLES["Watch training"])
            warm.close()
            print(f"server started, RSS {rss_mb(process.pid):.0f} MB")
            if args.part in ("all", "pages", "upload"):
                part_pages_and_upload(browser, base, sampler, args.mb, args.trainers)
            if args.part in ("all", "link"):
                part_link(browser, base, sampler)
            if args.part in ("all", "sessions"):
                part_sessions(browser, base, sampler, process.pid, args.sessions, args.session_mb)
    finally:
        sampler.stop()
        stop_server(process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
