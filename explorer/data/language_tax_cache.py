"""The language-tax numbers of the built-in tokenizers, kept on disk between servers.

A built-in and the parallel sample set only change with their packages, and counting all fifteen
languages through five built-ins takes seconds, so each built-in's numbers are written once under
the sample cache (`sample_corpora.catalog.cache_dir`) and read back by every later server. The file
name holds a digest of the built-in's name, its package version and the texts counted: a new package
or a new sample set is counted afresh. An unreadable or unwritable cache only costs the counting.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import defaultdict
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bpe_core.analysis import TextStats
from bpe_core.analysis.language_tax import language_stats
from bpe_core.atomic import write_file
from bpe_core.builtin import builtin_info, load_builtin
from sample_corpora.catalog import cache_dir

FORMAT = 1  # bump when what is stored changes

# One count of a built-in at a time in this process: a page that asks while the server's warming
# (`explorer.data.warm`) counts the same built-in waits for its file instead of counting again.
_locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
_locks_lock = threading.Lock()


def builtin_identity(name: str) -> list:
    """What a built-in's cached numbers depend on: its name, its package's version ("?" when the package
    is not installed) and its vocabulary size; a cache file's name holds a digest of it."""
    info = builtin_info(name)
    try:
        package = version(info.package)
    except PackageNotFoundError:
        package = "?"
    return [name, package, info.vocab_size]


def _path(name: str, texts: Mapping[str, str]) -> Path:
    digest = hashlib.sha256(json.dumps([FORMAT, *builtin_identity(name)], sort_keys=True).encode())
    for code, text in texts.items():
        digest.update(code.encode("utf-8") + b"\0" + text.encode("utf-8", errors="surrogatepass") + b"\0")
    return cache_dir() / "language-tax" / f"{name}-{digest.hexdigest()[:16]}.json"


def _read(path: Path, codes: list[str]) -> dict[str, TextStats] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            stored = json.load(fh)
        stats = {code: TextStats(**{field: int(stored[code][field]) for field in ("bytes", "characters", "words",
                                                                                 "tokens")}) for code in codes}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return stats


def _write(path: Path, stats: Mapping[str, TextStats]) -> None:
    """Write the numbers atomically (`bpe_core.atomic.write_file`); an unwritable cache is skipped."""
    data = {code: {"bytes": s.bytes, "characters": s.characters, "words": s.words, "tokens": s.tokens}
            for code, s in stats.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, json.dumps(data).encode("utf-8"))
    except OSError:
        pass


def builtin_language_stats(name: str, texts: Mapping[str, str]) -> dict[str, TextStats]:
    """`language_stats(load_builtin(name), texts)`, counted once per machine and then read from disk."""
    path = _path(name, texts)
    with _locks_lock:
        lock = _locks[name]
    with lock:
        stats = _read(path, list(texts))
        if stats is None:
            stats = language_stats(load_builtin(name), texts)
            _write(path, stats)
    return stats
