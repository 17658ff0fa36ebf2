"""Catalog of the sample corpora that ship with the BPE explorer.

Three kinds of corpus exist:

* ``file`` corpora are small text files stored next to this module and read
  back byte for byte (line endings included).
* ``shipped`` corpora were built from installed packages by a builder
  (``python -m sample_corpora build``) and ship as files in ``data/``
  (``shipped.py``), so the app needs none of those packages.
* ``generated`` corpora are built on the user's machine from the Python
  standard library that is installed there (its source), then cached on disk
  so that later loads are fast.  They are never shipped as files.

The list of corpora lives in ``index.json`` in this directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .builders import build_english, build_python, sources_tag
from .shipped import read_shipped

__all__ = [
    "DEFAULT_TARGET_BYTES",
    "SampleCorpus",
    "build_english",
    "build_python",
    "cache_dir",
    "get_corpus",
    "list_corpora",
    "load_corpus",
]

#: Size, in UTF-8 bytes, that ``load_corpus`` asks the builders for when it
#: builds a generated corpus.  Tests may monkeypatch this to something small.
DEFAULT_TARGET_BYTES: int = 5_000_000

#: Environment variable that overrides where generated corpora are cached.
CACHE_ENV_VAR = "BPE_EXPLORER_CACHE"

# Bump whenever the output of a builder changes, so stale caches are ignored.
_BUILDER_VERSION = 3  # 2: English adds help topics and comments; 3: and package docstrings

_HERE = Path(__file__).resolve().parent
_INDEX_PATH = _HERE / "index.json"

_KINDS = ("file", "shipped", "generated")
_BUILDER_NAMES = ("build_english", "build_python")


@dataclass(frozen=True)
class SampleCorpus:
    """Public description of one sample corpus."""

    id: str
    title: str
    description: str
    source: str
    licence: str
    kind: str  # "file", "shipped" or "generated"


# --------------------------------------------------------------------------
# Index
# --------------------------------------------------------------------------


def _read_index() -> list[dict[str, Any]]:
    with open(_INDEX_PATH, encoding="utf-8") as fh:
        entries = json.load(fh)
    if not isinstance(entries, list):
        raise ValueError(f"{_INDEX_PATH} must contain a JSON list")
    seen: set[str] = set()
    for entry in entries:
        corpus_id = entry.get("id")
        if not isinstance(corpus_id, str) or not corpus_id:
            raise ValueError(f"{_INDEX_PATH}: entry without an id: {entry!r}")
        if corpus_id in seen:
            raise ValueError(f"{_INDEX_PATH}: duplicate id {corpus_id!r}")
        seen.add(corpus_id)
        for field in ("title", "description", "source", "licence", "kind"):
            if not isinstance(entry.get(field), str):
                raise ValueError(f"{_INDEX_PATH}: {corpus_id!r} lacks {field!r}")
        kind = entry["kind"]
        if kind not in _KINDS:
            raise ValueError(f"{_INDEX_PATH}: {corpus_id!r} has unknown kind {kind!r}")
        if kind in ("file", "shipped") and not isinstance(entry.get("file"), str):
            raise ValueError(f"{_INDEX_PATH}: {kind} corpus {corpus_id!r} lacks 'file'")
        if kind != "file" and entry.get("builder") not in _BUILDER_NAMES:
            raise ValueError(
                f"{_INDEX_PATH}: generated corpus {corpus_id!r} needs 'builder' "
                f"set to one of {', '.join(_BUILDER_NAMES)}"
            )
    return entries


def _to_public(entry: dict[str, Any]) -> SampleCorpus:
    return SampleCorpus(
        id=entry["id"],
        title=entry["title"],
        description=entry["description"],
        source=entry["source"],
        licence=entry["licence"],
        kind=entry["kind"],
    )


def list_corpora() -> list[SampleCorpus]:
    """Return every sample corpus, in display order."""
    return [_to_public(entry) for entry in _read_index()]


def _find_entry(corpus_id: str) -> dict[str, Any]:
    entries = _read_index()
    for entry in entries:
        if entry["id"] == corpus_id:
            return entry
    valid = ", ".join(entry["id"] for entry in entries)
    raise ValueError(f"unknown sample corpus {corpus_id!r}; valid ids are: {valid}")


def get_corpus(corpus_id: str) -> SampleCorpus:
    """Return the description of one corpus; ``ValueError`` if the id is unknown."""
    return _to_public(_find_entry(corpus_id))


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load_corpus(corpus_id: str, *, max_bytes: int | None = None) -> str:
    """Return the text of a sample corpus.

    File corpora are returned exactly as stored (CRLF line endings and a
    missing final newline are preserved), shipped ones as built (checked
    against their manifest).  Generated corpora are built from the local
    standard library on first use (``DEFAULT_TARGET_BYTES`` in size) and
    cached; later calls read the cache.

    ``max_bytes`` caps the result at that many UTF-8 bytes, cutting only
    between characters, never inside one.

    Raises ``ValueError`` for an unknown id (the message lists the valid
    ids) and ``RuntimeError`` if a shipped file is missing or damaged, or a
    generated corpus cannot be built because this Python installation has no
    standard library ``.py`` sources.
    """
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    entry = _find_entry(corpus_id)
    if entry["kind"] == "file":
        path = _HERE / entry["file"]
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    elif entry["kind"] == "shipped":
        text = read_shipped(entry["file"])
    else:
        text = _load_generated(corpus_id, entry["builder"], DEFAULT_TARGET_BYTES)
    if max_bytes is not None:
        text = _truncate_utf8(text, max_bytes)
    return text


def _truncate_utf8(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    # The text was valid, so the only undecodable bytes after the cut are the
    # leading bytes of the one character that straddles it; drop them.
    return data[:max_bytes].decode("utf-8", errors="ignore")


def _load_generated(corpus_id: str, builder_name: str, target_bytes: int) -> str:
    directory = cache_dir()
    cached = directory / _cache_name(corpus_id, target_bytes, builder_name)
    try:
        with open(cached, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        pass  # not built yet, or unreadable: build it again
    # Looked up at call time so that tests can monkeypatch the builders.
    builder: Callable[[int], str] = globals()[builder_name]
    text = builder(target_bytes)
    _write_cache(cached, text)
    return text


def _cache_name(corpus_id: str, target_bytes: int, builder_name: str = "") -> str:
    impl = sys.implementation.name
    version = platform.python_version()
    tag = sources_tag(builder_name)
    packages = f"-{tag}" if tag else ""
    return f"{corpus_id}-{impl}{version}-{target_bytes}-v{_BUILDER_VERSION}{packages}.txt"


def _cache_candidates() -> list[Path]:
    """Directories where a cached corpus may live, preferred first."""
    override = os.environ.get(CACHE_ENV_VAR)
    if override:
        primary = Path(override).expanduser()
    else:
        primary = Path.home() / ".cache" / "bpe-explorer"
    fallback = Path(tempfile.gettempdir()) / "bpe-explorer"
    return [primary] if primary == fallback else [primary, fallback]


def cache_dir() -> Path:
    """Return the directory used for cached corpora, creating it if needed.

    ``$BPE_EXPLORER_CACHE`` if set, else ``~/.cache/bpe-explorer``; if that
    cannot be written, a ``bpe-explorer`` folder in the system temp dir.
    """
    candidates = _cache_candidates()
    for directory in candidates:
        if _writable_dir(directory):
            return directory
    return candidates[-1]


def _writable_dir(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-"):
            pass
    except OSError:
        return False
    return True


def _write_cache(path: Path, text: str) -> None:
    """`write_atomically`, where an OSError only skips caching (the next load rebuilds)."""
    with contextlib.suppress(OSError):
        write_atomically(path, text)


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write UTF-8 text (or bytes) atomically: a temporary file beside `path`, written and fsynced, then renamed
    onto it (the steps of `bpe_core.atomic`, which this package may not import). On any failure,
    Ctrl-C too, the temporary file is removed, `path` is left as it was and the error goes on."""
    tmp_path: str | None = None
    try:
        fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            data = memoryview(text.encode("utf-8") if isinstance(text, str) else text)
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp_path, path)
        tmp_path = None
    finally:
        if tmp_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_path)
