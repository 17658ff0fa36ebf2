"""Bytecode for the modules the app runs on, written once so that no process compiles them again.

Python compiles a module's source on import and keeps the result in `__pycache__` unless
`PYTHONDONTWRITEBYTECODE` is set (this machine sets it) or the module was installed with
`pip install --no-compile` (the README's start command, which saves 110 MB): then every process
compiles every module it imports, every time. For the app that is the server's first page (Streamlit,
pandas, Plotly: about 5 s instead of 2 s), each training worker and each `python -m bpe_core`.

`write_bytecode()` imports what the app's pages import and writes the missing or stale `.pyc` of
every module that brought in, and of every module of the project's own packages: about 1,000 files,
22 MB, a few seconds, once per install (files already up to date are only checked). The server's
background warming (explorer/data/warm.py) calls it after the caches, so the next server and the
workers find it done. `py_compile` writes each file atomically and whatever the environment says.
"""
from __future__ import annotations

import importlib
import importlib.util
import py_compile
import sys
from collections.abc import Iterable
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("bpe_core", "explorer", "sample_corpora")  # every module of these, imported or not
APP_IMPORTS = ("streamlit", "pandas", "plotly.graph_objects", "PIL.Image", "numpy", "pyarrow", "regex")


def is_fresh(source: Path, cached: Path) -> bool:
    """Whether `cached` is the bytecode of `source` as it is now (the header Python checks on import:
    its magic number, and the source's modification time and size)."""
    try:
        with cached.open("rb") as file:
            header = file.read(16)
        stat = source.stat()
    except OSError:
        return False
    if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER or header[4:8] != bytes(4):
        return False  # another Python's, or a hash-based pyc (left as it is: its check is not by time)
    mtime, size = int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little")
    return mtime == int(stat.st_mtime) & 0xFFFFFFFF and size == stat.st_size & 0xFFFFFFFF


def sources(imports: Iterable[str] = APP_IMPORTS, project: Iterable[str] = PROJECT) -> list[Path]:
    """The source files to compile: every module loaded after importing `imports` (a package that is not
    installed is passed over), and every `.py` file under the project's packages."""
    for name in imports:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a missing or broken package: its modules are not the app's then
            continue
    found = {Path(module.__file__) for module in list(sys.modules.values())
             if isinstance(getattr(module, "__file__", None), str) and module.__file__.endswith(".py")}
    for package in project:
        found.update((_ROOT / package).rglob("*.py"))
    return sorted(found)


def write_bytecode(paths: Iterable[Path] | None = None) -> tuple[int, int]:
    """Write the bytecode of each of `paths` (default: `sources()`) that lacks a fresh one.
    Returns (written, already fresh); a file that cannot be written (a read-only folder) is passed over."""
    written = fresh = 0
    for source in sources() if paths is None else paths:
        cached = Path(importlib.util.cache_from_source(str(source)))
        if is_fresh(source, cached):
            fresh += 1
            continue
        try:
            py_compile.compile(str(source), cfile=str(cached), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
        except (OSError, py_compile.PyCompileError, ValueError):
            continue
        written += 1
    return written, fresh
