"""What a first visit would otherwise build, prepared once per server by a background process.

On a new install nothing is cached: the built-in tokenizers' rank tables are rebuilt from their
packages, the merges derived from them, and Language tax counts fifteen languages through each
built-in, so a first visit to Language tax took 15 s and to Tokenize 10 s. `start()` (called by
explorer/app.py on each run; only the first starts anything) runs `python -m explorer.data.warm`
beside the server, which builds those disk caches while the visitor reads the first page, in the
order the pages need them: each merge-list built-in's table and merges (what Tokenize, Language
tax and Report card show by default), their language counts, their vocabulary checks (Report
card), then the tokenizers of parts'. A process of its own, at a lower priority, so it takes the
other core and never the server's interpreter lock; it keeps nothing in the server's memory, and
stops when the server does. Later servers on the same machine find the caches: a run that finished
every step leaves a stamp (`stamp()`: the built-ins' package versions, where the caches are, the
texts counted), and with it in place a later server's warming skips them. Last, once the caches
are ready (its "ready:" line), it writes the bytecode of the modules the app runs on where Python
would not keep it (explorer/data/bytecode.py), for the next server and the workers.

Tokenize, Language tax and Report card do not build what the warming is about to write:
`waiting_for(name, until=...)` holds such a built-in back (until the step the page needs), and the
page draws without it, says it is coming and at which step, and shows it once the step is done
(`explorer/ui/warming.py`). Any other page that needs a cache before the warming has written it
builds it as before, under its own spinner. A step that fails (a missing package) is said and
skipped. scripts/install.sh runs the same steps in the foreground,
so a test run starts with the caches built.

Nothing is started where BPE_EXPLORER_WARM is "0", "false" or "no" (a benchmark of a cold first
visit), nor inside a test (pytest's PYTEST_CURRENT_TEST set): a test that points the caches at its
own folder must not race a process writing them.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bpe_core import BPEError
from bpe_core.builtin import builtin_info, builtin_names
from bpe_core.builtin import cache_dir as builtin_cache_dir
from bpe_core.formats.builtin import build_caches
from explorer.data.bytecode import write_bytecode
from explorer.data.language_tax_cache import FORMAT as TAX_FORMAT
from explorer.data.language_tax_cache import builtin_language_stats
from explorer.data.vocabulary_checks_cache import FORMAT as CHECKS_FORMAT
from explorer.data.vocabulary_checks_cache import builtin_vocabulary_checks
from sample_corpora import load_parallel
from sample_corpora.catalog import cache_dir as sample_cache_dir

log = logging.getLogger("explorer")

ENV_VAR = "BPE_EXPLORER_WARM"
_OFF = ("0", "false", "no")
_ROOT = Path(__file__).resolve().parents[2]
_STEP_LINE = re.compile(r"\[(\d+)/(\d+)\] (.*)")  # what the process prints before each step
_NICENESS = 10
# A merge-list built-in's steps, in order; a page waits for the one it needs (`waiting_for`).
TABLE, COUNTING, CHECKING = "its table and merges", "counting fifteen languages", "checking its vocabulary"


@dataclass(frozen=True)
class Step:
    """One piece of warming: what it prepares, in words, and the call that does it."""

    what: str
    run: Callable[[], object]


@dataclass(frozen=True)
class Progress:
    """How far the warming has got: `done` of `total` steps, `now` the one under way ("" when none)."""

    done: int
    total: int
    now: str = ""
    failed: tuple[str, ...] = ()  # one line per step that failed
    ended: bool = False  # the warming stopped (finished, or its process ended early)

    @property
    def finished(self) -> bool:
        return self.ended and self.done == self.total

    def sentence(self) -> str:
        """One line for a page to show while warming runs; "" before it starts and once it has ended.

        >>> Progress(2, 9, "GPT-4o (o200k_base)").sentence()
        'Preparing the built-in tokenizers in the background (step 3 of 9: GPT-4o (o200k_base))…'
        """
        if self.total == 0 or self.ended:
            return ""
        step = f"step {self.done + 1} of {self.total}: {self.now}"
        return f"Preparing the built-in tokenizers in the background ({step})…"


def default_steps() -> list[Step]:
    """Each merge-list built-in's table and merges, their language counts and vocabulary checks, then every
    other built-in's caches."""
    merge_lists = builtin_names()
    steps = [Step(f"{builtin_info(name).title}: {TABLE}", lambda name=name: build_caches(name))
             for name in merge_lists]
    steps += [Step(f"{builtin_info(name).title}: {COUNTING}",
                   lambda name=name: builtin_language_stats(name, load_parallel())) for name in merge_lists]
    steps += [Step(f"{builtin_info(name).title}: {CHECKING}",
                   lambda name=name: builtin_vocabulary_checks(name)) for name in merge_lists]
    steps += [Step(f"{builtin_info(name).title}: its files", lambda name=name: build_caches(name))
              for name in builtin_names(parts=True) if name not in merge_lists]
    return steps


def run_steps(steps: Sequence[Step], *, report: Callable[[Progress], object],
              keep_going: Callable[[], bool] = lambda: True) -> Progress:
    """Every step in turn while `keep_going()`; `report` is told the progress before each and at the end."""
    failed: list[str] = []
    done = 0
    for done, step in enumerate(steps):
        if not keep_going():
            break
        report(Progress(done, len(steps), step.what, tuple(failed)))
        try:
            step.run()
        except (BPEError, OSError, RuntimeError) as exc:  # a missing package, an unreadable file
            failed.append(f"{step.what}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a bug here must not stop the other steps
            failed.append(f"{step.what}: {type(exc).__name__}: {exc}")
    else:
        done = len(steps)
    final = Progress(done, len(steps), "", tuple(failed), ended=True)
    report(final)
    return final


def stamp() -> str:
    """What a finished warming was for: the built-ins' packages and versions, the caches' folders and
    the texts counted; a new package, folder or sample set makes the next server warm again."""
    packages = {}
    for name in builtin_names(parts=True):
        package = builtin_info(name).package
        try:
            packages[package] = version(package)
        except PackageNotFoundError:
            packages[package] = None
    texts = hashlib.sha256(json.dumps(load_parallel(), sort_keys=True).encode("utf-8")).hexdigest()
    return json.dumps({"packages": packages, "builtin": str(builtin_cache_dir()), "samples": str(sample_cache_dir()),
                       "language tax": TAX_FORMAT, "vocabulary checks": CHECKS_FORMAT, "texts": texts}, sort_keys=True)


def _stamp_path() -> Path:
    return builtin_cache_dir() / "warmed.json"


def already_warm() -> bool:
    try:
        return _stamp_path().read_text(encoding="utf-8") == stamp()
    except (OSError, RuntimeError):  # no stamp; a sample file that cannot be read
        return False


def _write_stamp() -> None:
    try:
        _stamp_path().parent.mkdir(parents=True, exist_ok=True)
        _stamp_path().write_text(stamp(), encoding="utf-8")
    except (OSError, RuntimeError):
        pass  # the next server warms again: only slower


# ---- the server's side: one process per server, its progress read from its output ---------------

_lock = threading.Lock()
_progress: Progress | None = None  # None: not started in this process


def enabled() -> bool:
    """Whether `start` may start the warming here (see the module's docstring)."""
    if os.environ.get(ENV_VAR, "").strip().lower() in _OFF:
        return False
    return "PYTEST_CURRENT_TEST" not in os.environ


def start(command: Sequence[str] | None = None) -> bool:
    """Start the warming process, once per server process; True if this call started it.
    `command` replaces `python -m explorer.data.warm --parent PID` (a test's stand-in)."""
    global _progress
    with _lock:
        if _progress is not None or not enabled():
            return False
        _progress = Progress(0, 0)
    if command is None and already_warm():  # the caches are all there (the process only checks the bytecode):
        _set(Progress(0, 0, ended=True))  # no page holds a built-in back, not even until its first line
    argv = list(command or [sys.executable, "-m", "explorer.data.warm", "--parent", str(os.getpid())])
    try:
        process = subprocess.Popen(argv, cwd=_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace")
    except OSError as exc:
        log.warning("the built-in tokenizers' caches are not prepared in the background: %s", exc)
        _set(Progress(0, 0, ended=True))
        return True
    threading.Thread(target=_follow, args=(process,), name="bpe-explorer-warm", daemon=True).start()
    return True


def _set(found: Progress) -> None:
    global _progress
    with _lock:
        _progress = found


def _follow(process: subprocess.Popen) -> None:
    """Read the process's step lines into `progress()` until it ends (then reap it)."""
    assert process.stdout is not None
    now = Progress(0, 0)
    for line in (raw.rstrip("\n") for raw in process.stdout):
        step = _STEP_LINE.fullmatch(line)
        if step is not None:
            now = Progress(int(step.group(1)) - 1, int(step.group(2)), step.group(3), now.failed)
        elif line.startswith("  skipped: "):
            now = replace(now, failed=(*now.failed, line.removeprefix("  skipped: ")))
        elif line.startswith("ready: "):  # the caches are written (the process goes on to the bytecode)
            now = replace(now, done=now.total, now="", ended=True)
        _set(now)
    process.wait()
    _set(replace(now, ended=True))
    if not now.finished and now.done < now.total:
        log.warning("the warming of the built-in tokenizers' caches stopped at %s", now.now or "its start")


def progress() -> Progress:
    """The warming's progress as this server sees it (0 of 0 when it was not started)."""
    with _lock:
        return _progress if _progress is not None else Progress(0, 0)


def waiting_for(name: str, *, until: str | None = None) -> str:
    """"" when a page may load built-in `name` now; else, while this server's warming is still to write
    its caches (its first step; with `until`, its step of that name: `COUNTING`, `CHECKING`), the line
    to show meanwhile. Loading it in the page instead would repeat the warming's work beside it, on
    the same two cores: seconds where the warming, a step or two on, has it ready.

    A warming not started here, ended (finished, failed or gone) or past the step answers "".
    """
    with _lock:
        now = _progress
    if now is None or now.ended:
        return ""
    title = f"{builtin_info(name).title}: "
    steps = [step.what for step in default_steps()]
    ours = [i for i, step in enumerate(steps) if step.startswith(title)]  # its caches, its counts, its checks
    if until is not None:
        ours = [i for i in ours if steps[i] == title + until]
    last = ours[0] if ours else None
    if last is None or (now.total and now.done > last):
        return ""
    return now.sentence() or "Preparing the built-in tokenizers in the background…"


# ---- the warming process: python -m explorer.data.warm ---------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Run the steps here and now, a line a step on standard output; a failed step is said and skipped
    (exit 0: the caches only make the app quicker)."""
    parser = argparse.ArgumentParser(prog="python -m explorer.data.warm", description=__doc__.splitlines()[0])
    parser.add_argument("--parent", type=int, help="stop when this process (the server) has gone")
    args = parser.parse_args(argv)
    if args.parent is not None and hasattr(os, "nice"):  # not on Windows
        try:
            os.nice(_NICENESS)  # the server's own work comes first where both cores are busy
        except OSError:
            pass

    def report(now: Progress) -> None:
        if not now.ended:
            print(f"[{now.done + 1}/{now.total}] {now.now}", flush=True)
            return
        for line in now.failed:
            print(f"  skipped: {line}", flush=True)
        seconds = time.perf_counter() - began
        if now.total == 0:
            print("ready: the built-in tokenizers' caches were built before", flush=True)
        elif now.done == now.total:
            print(f"ready: the built-in tokenizers' caches ({now.total} steps, {seconds:.1f} s)", flush=True)
        else:
            print(f"stopped after {now.done} of {now.total} steps: the server has gone", flush=True)

    began = time.perf_counter()
    steps = [] if already_warm() else default_steps()
    def keep_going() -> bool:
        return args.parent is None or os.getppid() == args.parent

    final = run_steps(steps, report=report, keep_going=keep_going)
    if steps and final.done == final.total and not final.failed:
        _write_stamp()
    if keep_going():  # then, with the caches ready, the bytecode the next processes would compile
        began = time.perf_counter()
        written, fresh = write_bytecode()
        print(f"bytecode: {written:,} modules compiled, {fresh:,} up to date ({time.perf_counter() - began:.1f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
