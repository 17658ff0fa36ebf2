"""Start-up: what `import bpe_core`, the core names and `python -m bpe_core --help` cost, beside `import tiktoken`;
and with --first-visit, a new install's first visits to the app's pages.

    python bench/bench_startup.py [--repeat 21] [--quick] [--json PATH]
    python bench/bench_startup.py --first-visit [--warm off,on,installed] [--launch explorer,streamlit]
                                  [--pages tokenize,language-tax]

Each case is a fresh interpreter, run `--repeat` times in turn with the others (so a busy moment
hits every case alike). Three figures, each a median in milliseconds:

- process: the wall time of the whole process (`python -c "import tiktoken"`, `python -m bpe_core --help`);
- extra: the process time less that of `python -c pass` in the same round (the interpreter's own start);
- in-process: the case's statement timed inside a fresh interpreter (for --help, `python -m bpe_core
  --help` run by runpy), so the interpreter's start, and its noise, are not in it at all.

Ratios to `import tiktoken`: of process times (never near 0/0, but bare Python's start is in both), of
extras (shown only when tiktoken's extra stands clear of the noise of `python -c pass`; on a busy machine
a 10 ms import is lost in it) and of in-process times. The targets (issue 18) are about what a command
adds to Python's start, as the issue measured it (25 ms for `import tiktoken`, 381 ms for `import
bpe_core`, in-process): `import bpe_core` at most 1.5x, `--help` at most 3x, judged on the in-process ratio.

--first-visit: a new install is a server whose caches (XDG_CACHE_HOME, BPE_EXPLORER_CACHE) are new,
empty folders. Visits are timed on new installs, in Debian's Chromium: a visitor who opens the app
(Watch training) and goes on at once to each page of --pages in turn, through the sidebar; with the
warming on, one who goes on once it has finished (its stamp written: the time since the server
answered is reported); and a visitor whose first visit is a link to one of those pages (a new
install each). `--warm off` turns the server's background warming off (BPE_EXPLORER_WARM=0, as before
it existed); `--warm on` starts it as explorer/app.py does, on the first run of the app; `--warm
installed` has the caches built before the server starts, as the README's install command builds them
(`python -m explorer.data.warm` in scripts/install.sh), which is what a newcomer's first visit meets.
`--launch explorer` (the default) starts each server with the README's command, `python -m explorer`,
which starts the warming and preloads as soon as the server runs (explorer/ui/preload.py); `--launch
streamlit` with `streamlit run explorer/app.py`, whose first run does both; both, to compare them in
one run. Target (issue 21): a first visit <= 3 s.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _server
from _common import ROOT, machine_info, table, write_json

# Each case: the command line a user runs, and the statement the in-process figure times.
CASES = {
    "python -c pass": (["-c", "pass"], "pass"),
    "import tiktoken": (["-c", "import tiktoken"], "import tiktoken"),
    "import bpe_core": (["-c", "import bpe_core"], "import bpe_core"),
    "from bpe_core import train, Tokenizer": (["-c", "from bpe_core import train, Tokenizer"],
                                              "from bpe_core import train, Tokenizer"),
    "python -m bpe_core --help": (["-m", "bpe_core", "--help"],
                                  "sys.argv[1:] = ['--help']\ntry:\n"
                                  "    runpy.run_module('bpe_core', run_name='__main__', alter_sys=True)\n"
                                  "except SystemExit:\n    pass"),
}
BASE, PEER = "python -c pass", "import tiktoken"
# Times the statement after the interpreter has started, and prints the seconds on stderr's last line.
TIMER = ("import runpy, sys, time\n_start = time.perf_counter()\n{}\n"
         "print(time.perf_counter() - _start, file=sys.stderr)\n")
TARGETS = {"import bpe_core": 1.5, "python -m bpe_core --help": 3.0}
FIRST_VISIT_TARGET = 3.0
PAGE_TITLES = {"tokenize": "Tokenize", "language-tax": "Language tax", "report-card": "Report card",
               "side-by-side": "Compare tokenizers", "vocab-table": "Vocabulary", "vocab-overlap": "Vocabulary overlap",
               "token-audit": "Token audit", "import-export": "Import and export", "families": "Families"}
# `streamlit run`, with the warming started by the app's first run: st.set_page_config (the first call
# explorer/app.py makes) starts it first, as the app's own call does (a second call does nothing).
WARM_LAUNCHER = """import sys
import streamlit as st
from streamlit.web import cli
from explorer.data import warm
def set_page_config(*args, _set=st.set_page_config, **kwargs):
    warm.start()
    return _set(*args, **kwargs)
st.set_page_config = set_page_config
sys.argv = ["streamlit", "run", *sys.argv[1:]]
sys.exit(cli.main())
"""


def _once(args: list[str]) -> float:
    """The wall time of one fresh process, in seconds (its byte-code written on the first run, as for a user)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _inside(statement: str) -> float:
    """The seconds `statement` takes inside a fresh interpreter, once it has started."""
    done = subprocess.run([sys.executable, "-c", TIMER.format(statement)], cwd=ROOT, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return float(done.stderr.strip().splitlines()[-1])


def ratio(value: float, peer: float, *, floor: float = 0.0) -> float | None:
    """value / peer, or None when peer is not above `floor` (a ratio to ~0 means nothing).

    >>> ratio(30.0, 10.0), ratio(5.0, 0.0), ratio(5.0, 0.4, floor=1.0)
    (3.0, None, None)
    """
    return value / peer if peer > floor and peer > 0 else None


def summarize(times: dict[str, list[float]], inside: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per case, medians in ms: "process", "extra" (less `python -c pass` in the same round) and "inside".

    >>> row = summarize({BASE: [0.1, 0.2], "x": [0.15, 0.25]}, {BASE: [0.0, 0.0], "x": [0.04, 0.06]})["x"]
    >>> {k: round(v, 6) for k, v in row.items()}
    {'process': 200.0, 'extra': 50.0, 'inside': 50.0}
    """
    base = times[BASE]
    return {name: {"process": statistics.median(t) * 1000,
                   "extra": statistics.median(a - b for a, b in zip(t, base)) * 1000,
                   "inside": statistics.median(inside[name]) * 1000} for name, t in times.items()}


def noise_ms(times: list[float]) -> float:
    """The spread of one case's process times: their median absolute deviation, in ms.

    >>> round(noise_ms([0.100, 0.110, 0.130]), 6)
    10.0
    """
    middle = statistics.median(times)
    return statistics.median(abs(t - middle) for t in times) * 1000


def _cache_env(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(home / "xdg"), "BPE_EXPLORER_CACHE": str(home / "bpe-explorer")}


def _installed_caches(into: Path) -> float:
    """Build the caches as scripts/install.sh does (`python -m explorer.data.warm`) under `into`; its seconds."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explorer.data.warm"], cwd=ROOT, env=_cache_env(into), check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def _restamp(home: Path) -> None:
    """Write the warming's stamp for the caches copied into `home`: it names their folders, and a stamp
    naming other folders would have the server warm again."""
    subprocess.run([sys.executable, "-c", "from explorer.data import warm; warm._write_stamp(); "
                    "assert warm.already_warm(), 'the copied caches are not seen as warm'"],
                   cwd=ROOT, env=_cache_env(home), check=True)


def _new_install(warm: str, launch: str, log_path: Path, home: Path) -> tuple[subprocess.Popen, str]:
    """A server on a free port whose caches are folders under `home` (new and empty, or for `warm`
    "installed" copies of the caches an install built); warming as `warm` says ("installed" starts it
    too: it finds the caches built and does nothing). `launch` "explorer" is the README's command,
    `python -m explorer`; "streamlit" is `streamlit run explorer/app.py`, which starts the warming at
    the first run and preloads nothing."""
    env = {**_cache_env(home), "BPE_EXPLORER_WARM": "0" if warm == "off" else "1"}
    port = _server.free_port()
    if launch == "explorer":
        command = _server.app_command(port)
    else:
        start = ["-c", WARM_LAUNCHER] if warm != "off" else ["-m", "streamlit", "run"]
        command = [sys.executable, *start, "explorer/app.py", *_server.streamlit_options(port)]
    return _server.start(command, port=port, cwd=ROOT, log_path=log_path, env=env)


def _first_visit_rows(warm: str, launch: str, pages: list[str], timeout: float) -> list[list[str]]:
    rows: list[list[str]] = []
    installed = None
    if warm == "installed":  # the caches as the README's install leaves them, built once and copied
        installed = Path(tempfile.mkdtemp(prefix="bench-installed-caches-"))
    try:
        if installed is not None:
            took = _installed_caches(installed)
            rows.append([launch, warm, f"  (caches built as install.sh builds them, in {took:.1f} s)", "", "", ""])
        _visits(warm, launch, pages, timeout, rows, installed)
    finally:
        if installed is not None:
            shutil.rmtree(installed, ignore_errors=True)
    return rows


def _visits(warm: str, launch: str, pages: list[str], timeout: float, rows: list[list[str]],
            installed: Path | None) -> None:
    """Each visit on a new install of its own, its row added to `rows`."""
    from _browser import chromium, new_page
    from _page_timing import LOADED_JS, errors_on, nav, timed

    def row(what: str, seconds: float | None, errors: int) -> None:
        met = "" if seconds is None else ("met" if seconds <= FIRST_VISIT_TARGET else "MISSED")
        rows.append([launch, warm, what, "timeout" if seconds is None else f"{seconds:.2f}", met, str(errors or "")])

    def open_link(page, path: str) -> float | None:
        began = time.perf_counter()
        try:
            page.goto(f"{base}/{path}")
            page.wait_for_function(LOADED_JS, timeout=timeout * 1000, polling=50)
        except Exception:  # noqa: BLE001 - a timeout: reported as such
            return None
        return time.perf_counter() - began

    def warmed(home: Path, since: float) -> None:
        stamp = home / "xdg" / "bpe-explorer" / "builtin" / "warmed.json"
        deadline = time.monotonic() + timeout
        while not stamp.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        took = f"{time.perf_counter() - since:.1f} s after the server answered" if stamp.exists() else "timed out"
        rows.append([launch, warm, f"  (the warming finished, {took})", "", "", ""])

    with chromium() as browser:
        # (opened by link, wait for the warming, then visited in turn)
        visits = [("", False, pages)] + ([("", True, pages)] if warm == "on" else []) + [(p, False, []) for p in pages]
        for opened, wait, then in visits:
            with tempfile.TemporaryDirectory(prefix="bench-first-visit-") as home:
                if installed is not None:
                    for folder in ("xdg", "bpe-explorer"):
                        if (installed / folder).exists():
                            shutil.copytree(installed / folder, Path(home) / folder)
                    _restamp(Path(home))
                process, base = _new_install(warm, launch, Path(home) / "server.log", Path(home))
                answered = time.perf_counter()
                try:
                    context, page = new_page(browser)
                    seconds = open_link(page, opened)
                    title = PAGE_TITLES.get(opened, "Watch training")
                    row(f"link to {title} (the server's first visit)", seconds, errors_on(page))
                    if wait:
                        warmed(Path(home), answered)
                    for path in then if seconds is not None else []:
                        row(f"  then {PAGE_TITLES[path]} from the sidebar",
                            timed(page, nav(page, path), path=path, timeout=timeout), errors_on(page))
                    context.close()
                finally:
                    _server.stop(process)


def first_visits(args: argparse.Namespace) -> None:
    from _browser import require_chromium

    require_chromium()
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    unknown = [p for p in pages if p not in PAGE_TITLES]
    if unknown:
        raise SystemExit(f"unknown page {', '.join(unknown)}; choose from {', '.join(PAGE_TITLES)}")
    rows = []
    modes = [w.strip() for w in args.warm.split(",") if w.strip()]
    if set(modes) - {"off", "on", "installed"}:
        raise SystemExit(f"--warm takes off, on and installed, not {args.warm}")
    launches = [w.strip() for w in args.launch.split(",") if w.strip()]
    if set(launches) - {"explorer", "streamlit"}:
        raise SystemExit(f"--launch takes explorer and streamlit, not {args.launch}")
    for warm in modes:
        for launch in launches:
            print(f"warming {warm}, {launch} ...", file=sys.stderr, flush=True)
            rows += _first_visit_rows(warm, launch, pages, args.timeout)
    info = machine_info()
    print(info)
    print("First visits on a new install (empty caches, or as installed), seconds until the page is drawn and idle")
    print(table(["launch", "warming", "visit", "seconds", f"<= {FIRST_VISIT_TARGET:g} s", "errors"], rows,
                align="lllrll"))
    results = [dict(zip(("launch", "warming", "visit", "seconds", "met", "errors"), r)) for r in rows]
    write_json("first-visit", {"machine": info, "target_s": FIRST_VISIT_TARGET, "visits": results}, args.json)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="5 runs a case")
    parser.add_argument("--json", help="where to write the results")
    parser.add_argument("--first-visit", action="store_true", help="time a new install's first visits instead")
    parser.add_argument("--warm", default="off,on", help="with --first-visit, comma-separated: off, on, installed "
                        "(the caches built first, as the README's install builds them)")
    parser.add_argument("--launch", default="explorer",
                        help="with --first-visit, comma-separated: explorer (`python -m explorer`, the README's "
                             "command), streamlit (`streamlit run explorer/app.py`)")
    parser.add_argument("--pages", default="tokenize,language-tax",
                        help=f"with --first-visit, comma-separated: {', '.join(PAGE_TITLES)}")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one visit")
    args = parser.parse_args()
    if args.first_visit:
        first_visits(args)
        return
    repeat = 5 if args.quick else args.repeat
    for argv, statement in CASES.values():  # warm the file cache and write the byte-code of every case
        _once(argv)
        _inside(statement)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    inside: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(repeat):
        for name, (argv, statement) in CASES.items():
            times[name].append(_once(argv))
            inside[name].append(_inside(statement))
    cost = summarize(times, inside)
    noise = noise_ms(times[BASE])
    peer = cost[PEER]
    rows = []
    results = []
    for name in CASES:
        one = cost[name]
        ratios = {"process": ratio(one["process"], peer["process"]),
                  "extra": ratio(one["extra"], peer["extra"], floor=2 * noise),
                  "inside": ratio(one["inside"], peer["inside"])}
        if name in (BASE, PEER):
            ratios = dict.fromkeys(ratios)
        target = TARGETS.get(name)
        met = None if target is None or ratios["inside"] is None else ratios["inside"] <= target
        rows.append([name, f"{one['process']:.1f}", f"{one['extra']:.1f}", f"{one['inside']:.1f}",
                     *("-" if r is None else f"{r:.2f}x" for r in ratios.values()),
                     "-" if target is None else f"<= {target}x", "-" if met is None else ("yes" if met else "NO")])
        results.append({"case": name, "process_ms": round(one["process"], 2), "extra_ms": round(one["extra"], 2),
                        "inside_ms": round(one["inside"], 2), "ratios_to_tiktoken": ratios, "target": target,
                        "target_ratio": "inside", "met": met})
    info = machine_info()
    print(info)
    print(f"{repeat} runs a case, interleaved; medians in ms. extra: less `python -c pass` in the same round "
          f"(its spread: {noise:.1f} ms; an extra ratio is shown only when tiktoken's extra is over twice that). "
          "The target is judged on the in-process ratio.")
    print(table(["case", "process", "extra", "in-process", "process ratio", "extra ratio", "in-process ratio",
                 "target", "met"], rows))
    print("AGREEMENT: True")  # nothing to agree on: every case ran and exited 0
    write_json("startup", {"machine": info, "repeat": repeat, "noise_ms": noise, "cases": results}, args.json)

if __name__ == "__main__":
    main()
