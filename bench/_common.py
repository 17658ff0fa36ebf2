"""Helpers shared by the benchmark scripts: corpora, memory readings, tables, JSON results.

The scripts are run as files (``python bench/bench_train.py``): Python puts bench/ on the path,
so they import these modules by their names; ``bpe_core`` and ``sample_corpora`` come from the
editable install (requirements.txt).
"""
from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

RESULTS_DIR = ROOT / "bench" / "results"  # git-ignored
CORPUS_DIR = RESULTS_DIR / "corpora"

QUICK_BYTES = 500_000
CORPORA = ("english", "python")


# ---- corpora ---------------------------------------------------------------------------------


def corpus_path(name: str, target_bytes: int) -> Path:
    """The benchmark's cached copy of a generated corpus, built on first use.

    ``sample_corpora`` builds the text from this machine's standard library; the copy is kept
    under ``bench/results/corpora`` (keyed by size, Python version and the builder's version)
    so that each benchmark worker process can read it back quickly.
    """
    from sample_corpora import catalog

    builder = {"english": catalog.build_english, "python": catalog.build_python}[name]
    version = getattr(catalog, "_BUILDER_VERSION", 0)
    tag = catalog.sources_tag(builder.__name__)
    filename = f"{name}-{target_bytes}-py{platform.python_version()}-v{version}{'-' + tag if tag else ''}.txt"
    fallback = Path(tempfile.gettempdir()) / "bpe-bench-corpora"
    for directory in (CORPUS_DIR, fallback):
        if (directory / filename).is_file():
            return directory / filename
    text = builder(target_bytes)
    for directory in (CORPUS_DIR, fallback):  # the second if the work tree is read-only
        path = directory / filename
        tmp = directory / f".{filename}.{os.getpid()}.tmp"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8", newline="")
            os.replace(tmp, path)  # atomic: parallel runs may build the same file
            return path
        except OSError:
            continue
    raise OSError(f"cannot write the benchmark corpus {filename} to {CORPUS_DIR} or {fallback}")


def read_text(path: str | Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def mb(n_bytes: int) -> float:
    return n_bytes / 1_000_000


# ---- memory ----------------------------------------------------------------------------------


def proc_status() -> dict[str, int]:
    """VmRSS and VmHWM (peak resident set) of this process, in KiB, from /proc/self/status.

    Unlike tracemalloc this counts every allocation, Rust's included. Falls back to
    ``ru_maxrss`` where /proc is missing.
    """
    out: dict[str, int] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(rest.split()[0])
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = {"VmRSS": peak, "VmHWM": peak}
    return out


# ---- output ----------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str = "") -> str:
    """A plain-text table; `align` has one letter per column, 'l' or 'r' (default: 'l' then 'r')."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(row: Sequence[str]) -> str:
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, align)]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    try:
        info["loadavg"] = list(os.getloadavg())
    except OSError:
        pass
    for name in ("tokenizers", "tiktoken", "regex"):
        try:
            info[name] = __import__(name).__version__
        except Exception:  # pragma: no cover - informational only
            info[name] = None
    try:
        from importlib.metadata import version

        info["subword-nmt"] = version("subword-nmt")
    except Exception:  # pragma: no cover
        info["subword-nmt"] = None
    return info


def write_json(kind: str, data: dict[str, Any], path: str | None) -> Path:
    """Write results to `path`, or to bench/results/<kind>-<timestamp>.json and <kind>-latest.json."""
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if path:
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        return out
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(text, encoding="utf-8")
    (RESULTS_DIR / f"{kind}-latest.json").write_text(text, encoding="utf-8")
    return out


# ---- the training cases -----------------------------------------------------------------------

CASES: dict[str, dict[str, Any]] = {
    "word": {
        "label": "(i) word, eow=none, tie=hf",
        "ours": {"mode": "word", "eow": "none", "tie_break": "hf"},
        "peer": "hf-whitespace",
    },
    "bytes": {
        "label": "(ii) bytes, gpt2, tie=hf",
        "ours": {"mode": "bytes", "pretokenizer": "gpt2", "tie_break": "hf"},
        "peer": "hf-bytelevel",
    },
    "suffix": {
        "label": "(iii) word, eow=suffix, tie=count-pair",
        "ours": {"mode": "word", "eow": "suffix", "tie_break": "count-pair"},
        "peer": "subword-nmt",
    },
}


def no_tqdm(iterable: Any, *args: Any, **kwargs: Any) -> Any:
    """Stands in for tqdm so that subword-nmt prints no progress bar."""
    return iterable
