"""Time every page of the explorer, and the buttons that start work, in a real browser.

    python bench/bench_pages.py                       # english sample, word/text/bytes, 2,000 merges
    python bench/bench_pages.py --modes text --pages common-mistakes,side-by-side
    python bench/bench_pages.py --no-upload --merges 500
    python bench/bench_pages.py --families wordpiece,unigram,superbpe --vocab 2000 --no-upload

Starts its own `python -m explorer` (the README's command) on a free port and drives Debian's Chromium with
Playwright. For each mode a new browser session opens the sample through a link
(`/?corpus=english&family=bpe&mode=...&merges=...&step=1`, or `family=unigram&vocab=...` for a family
trained to a vocabulary size; Watch training is the root), which trains it
(timed, no target), then visits every page through the sidebar's links and presses the buttons that start work. A time
runs from the click to the moment the script has finished (the app's `data-test-script-state`
is back to `notRunning` after a run that began after the click), no element is stale and the
"running" icon is gone; it is kept only if the page is still quiet 0.4 s later (otherwise the
later finish counts). So each figure is what a person waits for: server time plus drawing.

Targets (issue 8): each page and button <= 2 s once the corpus is trained; a 5 MB upload on the
Corpus page to the first frame of the animation <= 5 s. Figures go to stdout and to
bench/results/pages-latest.json.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import _server
from _browser import chromium, new_page, require_chromium
from _common import ROOT, machine_info, table, write_json
from _page_timing import LOADED_JS, QUIET, click, errors_on, nav, open_expander_and_tab, timed

PAGE_TARGET = 2.0
UPLOAD_TARGET = 5.0
DEFAULT_FAMILY = "bpe"

# url_path (explorer/app.py PAGES) -> the sidebar link's title
PAGES = {
    "watch": "Watch training",
    "corpora": "Corpus",
    "unseen-words": "Unseen words",
    "seed-lessons": "Lessons",
    "common-mistakes": "Common mistakes",
    "side-by-side": "Compare tokenizers",
    "vocab-table": "Vocabulary",
    "import-export": "Import and export",
    "bpe-dropout": "BPE-dropout",
    "tokenize": "Tokenize",
    "vocab-overlap": "Vocabulary overlap",
    "language-tax": "Language tax",
    "training-stability": "Training stability",
    "token-audit": "Token audit",
    "families": "Families",
}
# Visit order: the Watch page is opened by the link, so it is timed last (coming back to it);
# the lessons go last because their buttons switch the session to a lesson corpus.
ORDER = ["corpora", "unseen-words", "common-mistakes", "side-by-side", "vocab-table", "import-export",
         "bpe-dropout", "tokenize", "vocab-overlap", "language-tax", "training-stability", "token-audit",
         "families", "watch", "seed-lessons"]

@dataclass
class Row:
    mode: str
    what: str
    seconds: float | None  # None: did not finish within the timeout
    target: float | None
    errors: int = 0
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def met(self) -> str:
        if self.target is None:
            return ""
        return "met" if self.seconds is not None and self.seconds <= self.target else "MISSED"


# ---- the server --------------------------------------------------------------------------------

def start_server(log_path: Path) -> tuple[subprocess.Popen, str]:
    """`python -m explorer` on a free port, as tests/browser/conftest.py starts it."""
    port = _server.free_port()
    command = _server.app_command(port)
    return _server.start(command, port=port, cwd=ROOT, log_path=log_path)


stop_server = _server.stop


# ---- a mode's run ------------------------------------------------------------------------------------

def measure(rows: list[Row], mode: str, what: str, page, act, *, target: float | None = PAGE_TARGET,
            note: str = "", **options) -> float | None:
    """Time `act` (see `timed`) and add a row for it."""
    notes: list[str] = [note] if note else []
    try:
        seconds = timed(page, act, notes=notes, **options)
    except Exception as exc:  # noqa: BLE001 - a control that is missing or moved: report it, go on
        notes.append(f"failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        seconds = None
    rows.append(Row(mode, what, seconds, target, errors_on(page), "; ".join(notes)))
    return seconds


def run_mode(browser, base: str, mode: str, args, rows: list[Row]) -> None:
    context, page = new_page(browser)
    try:
        link = f"{base}/?corpus={args.corpus}&{training_query(mode, args)}&step=1"
        started = time.perf_counter()
        page.goto(link)
        page.wait_for_function(LOADED_JS, timeout=args.train_timeout * 1000, polling=50)
        rows.append(Row(mode, f"open the link: train {amount(mode, args)} and draw", time.perf_counter() - started,
                        None, errors_on(page), "training, no target"))
        for path in [p for p in ORDER if p in args.pages]:
            if path == "seed-lessons":
                lessons(page, mode, args, rows)
                continue
            if measure(rows, mode, f"page {PAGES[path]}", page, nav(page, path), path=path,
                       timeout=args.timeout) is None:
                return  # the session is still busy: the rest of its figures would measure the wait
            if path == "common-mistakes":
                measure(rows, mode, "  button Run the comparison", page, click(page, ".st-key-run_mismatch button"),
                        text="tokens per word with the", timeout=args.timeout,
                        note="kept for the whole server after its first run")
            if path == "side-by-side":
                compare_buttons(page, mode, args, rows)
    finally:
        context.close()


def runs(families: list[str], modes: list[str]) -> list[str]:
    """What to open, one run each, named "bpe word" (a family that takes modes, in one of them)
    or "unigram" (one that does not)."""
    from explorer.families import explorer_family

    return [f"{name} {mode}" if "mode" in explorer_family(name).options else name
            for name in families for mode in (modes if "mode" in explorer_family(name).options else [""])]


def _family_and_mode(run: str) -> tuple[str, str]:
    name, _, mode = run.partition(" ")
    return name, mode


def training_query(run: str, args: argparse.Namespace) -> str:
    """The link's training settings for a run of `runs`."""
    from explorer.families import explorer_family

    name, mode = _family_and_mode(run)
    size = f"merges={args.merges}" if "target" in explorer_family(name).options else f"vocab={args.vocab}"
    return f"family={name}" + (f"&mode={mode}" if mode else "") + f"&{size}"


def amount(run: str, args: argparse.Namespace) -> str:
    """What a run trains to, in words: "2,000 merges" or "to 2,000 tokens"."""
    from explorer.families import explorer_family

    name, _ = _family_and_mode(run)
    return f"{args.merges:,} merges" if "target" in explorer_family(name).options else f"to {args.vocab:,} tokens"


def compare_buttons(page, mode: str, args, rows: list[Row]) -> None:
    open_expander_and_tab(page, "Add a tokenizer", "Built-in tokenizers")
    measure(rows, mode, "  button Add cl100k_base", page, click(page, ".st-key-cmp_add_cl100k_base button"),
            text="GPT-4 (cl100k_base)", timeout=args.timeout, note="cl100k is loaded once per server")
    open_expander_and_tab(page, "Add a tokenizer", "Train one here")
    measure(rows, mode, "  button Train and add (this corpus, word, 20)", page,
            click(page, '[data-testid=stMain] button:has-text("Train and add")'), text="word mode, 20 merges",
            timeout=args.timeout, note="trains 20 merges on the corpus")


LESSON_BUTTONS = [  # (tab title starts with, button key, what)
    ("low, lower", "open_seed000", "Open in the explorer (low, lower, newest, widest)"),
    ("low, lower", "open_seed000_try", "Try it in the explorer (low, lower, newest, widest)"),
    ("like, love", "open_seed003", "Open in the explorer (like, love, hug)"),
    ("cats and dogs", "open_seed002", "Open in the explorer (cats and dogs)"),
]


def lessons(page, mode: str, args, rows: list[Row]) -> None:
    for n, (tab, key, what) in enumerate(LESSON_BUTTONS):
        what_nav = "page Lessons" if n == 0 else "  (back to Lessons)"
        seconds = measure(rows, mode, what_nav, page, nav(page, "seed-lessons"), path="seed-lessons",
                          timeout=args.timeout)
        if n and seconds is not None:
            rows.pop()  # coming back is the same page again: only a failure is worth a row
        if seconds is None:
            return
        page.get_by_role("tab", name=tab).first.click()
        # The button switches to the animation, which then plays: time it to the first finished run there.
        measure(rows, mode, f"  button {what}", page, click(page, f".st-key-{key} button"), path="watch",
                timeout=args.timeout, quiet=False)
        pause = page.locator('[data-testid=stMain] button:has-text("Pause")')
        if pause.count():  # an animation played by server reruns: pause it, so the next click meets a quiet page
            pause.first.click()


def upload(browser, base: str, mode: str, args, rows: list[Row]) -> None:
    """A new session uploads a 5 MB text file on the Corpus page, then opens the animation."""
    from sample_corpora import load_corpus

    # A first line of its own, so that no cache keyed by the text can know this corpus already.
    head = f"bench upload {mode} {time.time_ns()}\n".encode()
    data = (head + load_corpus(args.corpus).encode("utf-8"))[: int(args.upload_mb * 1_000_000)]
    data = data.decode("utf-8", errors="ignore").encode("utf-8")  # a cut may split a character
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload-{mode}.txt"
        path.write_bytes(data)
        context, page = new_page(browser)
        try:
            page.goto(f"{base}/corpora?{training_query(mode, args)}&step=1")
            page.wait_for_function(LOADED_JS, timeout=120_000, polling=50)
            page.get_by_role("tab", name="Upload files").first.click()
            size = f"{len(data) / 1e6:.1f} MB"
            started = time.perf_counter()
            uploaded = measure(rows, mode, f"upload {size}: read and train {amount(mode, args)}", page,
                               lambda: page.locator(".st-key-w_upload input[type=file]").set_input_files(str(path)),
                               target=None, path="corpora", text="Loaded", timeout=args.train_timeout, retry=False,
                               note="on the Corpus page")
            shown = None
            if uploaded is not None:
                # The page's summary names the corpus it shows: the upload, trained.
                shown = measure(rows, mode, "  then open Watch training", page, nav(page, "watch"), target=None,
                                path="watch", text=path.name, timeout=args.timeout)
            total = time.perf_counter() - started - QUIET * 2 if shown is not None else None  # less the quiet checks
            rows.append(Row(mode, f"upload {size} to its first frame", total, UPLOAD_TARGET, errors_on(page),
                            "upload + training + opening Watch training"))
        finally:
            context.close()


def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="word,text,bytes", help="comma-separated: word, text, bytes")
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--families", default=DEFAULT_FAMILY,
                        help="comma-separated families to train (default bpe; all: every one the app trains); "
                             "a family without modes is trained once, to --vocab tokens")
    parser.add_argument("--vocab", type=int, default=2000, help="vocabulary size for the families without merges")
    parser.add_argument("--corpus", default="english", help="a sample corpus id (default: english, 5 MB)")
    parser.add_argument("--pages", default="all", help=f"comma-separated url paths, or all: {', '.join(PAGES)}")
    parser.add_argument("--upload-mb", type=float, default=5.0)
    parser.add_argument("--no-upload", action="store_true", help="skip the upload measurement")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for one page or button")
    parser.add_argument("--train-timeout", type=float, default=300.0)
    parser.add_argument("--json", default=None, help="where to write the results (default bench/results/)")
    args = parser.parse_args(argv)
    args.pages = list(PAGES) if args.pages == "all" else [p.strip() for p in args.pages.split(",") if p.strip()]
    unknown = [p for p in args.pages if p not in PAGES]
    if unknown:
        parser.error(f"unknown page {', '.join(unknown)}; choose from {', '.join(PAGES)}")
    from explorer.families import trainable

    asked = [f.strip() for f in args.families.split(",") if f.strip()]
    families = list(trainable()) if asked == ["all"] else asked
    wrong = [f for f in families if f not in trainable()]
    if wrong:
        parser.error(f"unknown family {', '.join(wrong)}; choose from {', '.join(trainable())} or all")
    modes = runs(families, [m.strip() for m in args.modes.split(",") if m.strip()])
    require_chromium()
    rows: list[Row] = []
    log_path = Path(tempfile.gettempdir()) / f"bench-pages-server-{os.getpid()}.log"
    began = time.perf_counter()
    load_start = _load()
    process, base = start_server(log_path)
    rss: dict[str, float | None] = {"start": _server.rss_mb(process.pid)}
    try:
        with chromium() as browser:
            for mode in modes:
                steps = [("pages", run_mode)] + ([] if args.no_upload else [("upload", upload)])
                for name, step in steps:
                    print(f"{mode}: {name} ...", file=sys.stderr, flush=True)
                    try:
                        step(browser, base, mode, args, rows)
                    except Exception as exc:  # noqa: BLE001 - report it and go on with the next
                        first = str(exc).splitlines()[0] if str(exc) else ""
                        rows.append(Row(mode, f"{name}: stopped", None, None, 0, f"{type(exc).__name__}: {first}"))
                rss[mode] = _server.rss_mb(process.pid)
    finally:
        stop_server(process)

    def fmt(value: float | None) -> str:
        return "timeout" if value is None else f"{value:.2f}"

    print(f"Pages of the explorer in Chromium: corpus {args.corpus}, {args.merges:,} merges or {args.vocab:,} "
          f"tokens, runs {', '.join(modes)} (seconds from click to a finished, fresh page)")
    print(table(["run", "what", "seconds", "target", "", "errors", "note"],
                [[r.mode, r.what, fmt(r.seconds), "" if r.target is None else f"<= {r.target:g}", r.met,
                  r.errors or "", r.note] for r in rows], align="llrrlrl"))
    judged = [r for r in rows if r.target is not None]
    missed = [r for r in judged if r.met != "met"]
    print(f"\ntargets met: {len(judged) - len(missed)} of {len(judged)}"
          + (f"; missed: {', '.join(f'{r.mode} {r.what.strip()}' for r in missed)}" if missed else ""))
    print("server RSS (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in rss.items() if v is not None))
    print(f"load average (1, 5, 15 min) at the start {load_start} and the end {_load()} on {os.cpu_count()} cores; "
          "other work on the machine slows every figure")
    print(f"whole run {time.perf_counter() - began:.0f} s; server log {log_path}")
    out = write_json("pages", {"machine": machine_info(), "corpus": args.corpus, "merges": args.merges,
                               "vocab": args.vocab,
                               "rows": [r.__dict__ | {"met": r.met} for r in rows], "rss_mb": rss}, args.json)
    print(f"results: {out}")
    return 1 if any(r.errors for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
