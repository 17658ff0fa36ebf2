"""Catalog of the sample corpora that ship with the BPE explorer.

Two kinds of corpus exist:

* ``file`` corpora are small text files stored next to this module and read
  back byte for byte (line endings included).
* ``generated`` corpora are built on the user's machine from the Python
  standard library that is installed there (its docstrings, or its source),
  then cached on disk so that later loads are fast.  They are never shipped
  as files.

The list of corpora lives in ``index.json`` in this directory.
"""

from __future__ import annotations

import ast
import json
import os
import platform
import re
import sys
import sysconfig
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

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

#: A complete English build must reach at least this many bytes; anything
#: smaller means the standard library sources are missing (for example a
#: Python install that ships only compiled ``.pyc`` files).
MIN_ENGLISH_BYTES = 300_000

# Bump whenever the output of a builder changes, so stale caches are ignored.
_BUILDER_VERSION = 2  # 2: English adds help topics and comments

_HERE = Path(__file__).resolve().parent
_INDEX_PATH = _HERE / "index.json"

_KINDS = ("file", "generated")
_BUILDER_NAMES = ("build_english", "build_python")

# Directory names never descended into when walking the standard library.
_SKIP_DIRS = frozenset(
    {"test", "tests", "idlelib", "lib2to3", "site-packages", "dist-packages", "__pycache__"}
)


@dataclass(frozen=True)
class SampleCorpus:
    """Public description of one sample corpus."""

    id: str
    title: str
    description: str
    source: str
    licence: str
    kind: str  # "file" or "generated"


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
        if kind == "file" and not isinstance(entry.get("file"), str):
            raise ValueError(f"{_INDEX_PATH}: file corpus {corpus_id!r} lacks 'file'")
        if kind == "generated" and entry.get("builder") not in _BUILDER_NAMES:
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
    missing final newline are preserved).  Generated corpora are built from
    the local standard library on first use (``DEFAULT_TARGET_BYTES`` in
    size) and cached; later calls read the cache.

    ``max_bytes`` caps the result at that many UTF-8 bytes, cutting only
    between characters, never inside one.

    Raises ``ValueError`` for an unknown id (the message lists the valid
    ids) and ``RuntimeError`` if a generated corpus cannot be built because
    this Python installation has no standard library ``.py`` sources.
    """
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    entry = _find_entry(corpus_id)
    if entry["kind"] == "file":
        path = _HERE / entry["file"]
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
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
    cached = directory / _cache_name(corpus_id, target_bytes)
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


def _cache_name(corpus_id: str, target_bytes: int) -> str:
    impl = sys.implementation.name
    version = platform.python_version()
    return f"{corpus_id}-{impl}{version}-{target_bytes}-v{_BUILDER_VERSION}.txt"


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
    """Write atomically; on failure skip caching (the next load rebuilds)."""
    tmp_path: str | None = None
    try:
        fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp_path, path)
    except OSError:
        if tmp_path is not None:
            try:
                os.unlink(tmp_path)
            except OSError:
                pass


# --------------------------------------------------------------------------
# Walking the standard library
# --------------------------------------------------------------------------


def _stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def _stdlib_files(root: Path) -> Iterator[tuple[str, str, ast.Module]]:
    """Yield ``(relative posix path, source, tree)`` for each usable .py file.

    Files are visited in sorted order of their relative path; files that are
    not UTF-8 or do not parse are skipped.
    """
    found: list[tuple[tuple[str, ...], Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for filename in filenames:
            # _sysconfigdata*.py is generated build configuration for this
            # particular machine (compiler flags, paths), not library code.
            if filename.endswith(".py") and not filename.startswith("_sysconfigdata"):
                path = Path(dirpath) / filename
                found.append((path.relative_to(root).parts, path))
    found.sort()
    for parts, path in found:
        try:
            source = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        source = source.replace("\r\n", "\n").replace("\r", "\n")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source, filename=str(path))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        yield "/".join(parts), source, tree


def _check_target(target_bytes: int) -> None:
    if not isinstance(target_bytes, int) or isinstance(target_bytes, bool) or target_bytes <= 0:
        raise ValueError(f"target_bytes must be a positive int, got {target_bytes!r}")


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


# --------------------------------------------------------------------------
# English: docstrings as prose
# --------------------------------------------------------------------------

_DOC_NODES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_SPACES = re.compile(r"\s+")
_MIN_WORDS = 4
_MIN_PROSE_RATIO = 0.8


def _docstrings(tree: ast.Module) -> Iterator[str]:
    """Docstrings of the module, classes and functions, in source order."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _DOC_NODES):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield doc
        # Reverse so that popping from the stack visits children in order.
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _prose_ratio(text: str) -> float:
    if not text:
        return 0.0
    good = sum(1 for ch in text if ch.isalpha() or ch == " ")
    return good / len(text)


def _keep_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if stripped.startswith((">>>", "...")):
        return False  # doctest input and continuation lines
    if line.startswith(("    ", "\t")):
        return False  # indented blocks are code samples, tables or listings
    if not stripped.isprintable():
        return False
    return _prose_ratio(stripped) >= 0.6


def _prose_paragraphs(doc: str) -> Iterator[str]:
    paragraph: list[str] = []
    for line in doc.splitlines() + [""]:
        if line.strip():
            paragraph.append(line)
            continue
        if not paragraph:
            continue
        block, paragraph = paragraph, []
        # Everything from the first ">>>" to the end of the block is a doctest:
        # the prompts, their continuations and the expected output.
        for position, item in enumerate(block):
            if item.strip().startswith(">>>"):
                block = block[:position]
                break
        kept = [item.strip() for item in block if _keep_line(item)]
        text = _SPACES.sub(" ", " ".join(kept)).strip()
        if len(text.split(" ")) < _MIN_WORDS or _prose_ratio(text) < _MIN_PROSE_RATIO:
            continue
        try:
            text.encode("utf-8")  # rejects lone surrogates written as escapes
        except UnicodeEncodeError:
            continue
        yield text


def _english_texts(root: Path) -> Iterator[str]:
    """Docstrings of every file, then the help topics, then every file's block comments."""
    for _rel, _source, tree in _stdlib_files(root):
        yield from _docstrings(tree)
    for rel, _source, tree in _stdlib_files(root):
        if rel == "pydoc_data/topics.py":
            yield from _string_values(tree)
    for _rel, source, _tree in _stdlib_files(root):
        yield from _comment_blocks(source)


def _string_values(tree: ast.Module) -> Iterator[str]:
    """The string values of the dict literals in a module (pydoc's help topics)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield value.value


def _comment_blocks(source: str) -> Iterator[str]:
    """Runs of whole-line comments, each as one text; a bare '#' line separates paragraphs."""
    block: list[str] = []
    for line in source.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("#") and not stripped.startswith("#!"):
            block.append(stripped.lstrip("#").strip())
            continue
        if block:
            yield "\n".join(block)
            block = []


def build_english(target_bytes: int, *, stdlib: str | os.PathLike[str] | None = None) -> str:
    """Build English prose from the standard library: docstrings, then help topics, then comments.

    Paragraphs are collected in a fixed order (docstrings of sorted files in source order, then
    the `pydoc_data` help topics, then block comments of sorted files), de-duplicated, and joined
    by blank lines until adding the next one would pass ``target_bytes`` UTF-8 bytes. Docstrings
    alone come to about 1.3 MB, so larger targets use the other two. The result is deterministic
    for a given standard library.
    """
    _check_target(target_bytes)
    root = Path(stdlib) if stdlib is not None else _stdlib_dir()
    parts: list[str] = []
    seen: set[str] = set()
    size = 0
    done = False
    for doc in _english_texts(root):
        for paragraph in _prose_paragraphs(doc):
            if paragraph in seen:
                continue
            cost = _utf8_len(paragraph) + (2 if parts else 0) + 1
            if size + cost > target_bytes:
                done = True
                break
            seen.add(paragraph)
            parts.append(paragraph)
            size += cost - 1
        if done:
            break
    text = "\n\n".join(parts) + "\n" if parts else ""
    if not done and size < min(target_bytes, MIN_ENGLISH_BYTES):
        # The whole library was read and still came up short.
        raise RuntimeError(
            f"could only collect {size} bytes of docstrings from {root}; "
            "the standard library sources (.py files) seem to be missing"
        )
    return text


# --------------------------------------------------------------------------
# Python: the standard library's own source
# --------------------------------------------------------------------------

_SMALLEST_USEFUL_FILE = 200


def build_python(target_bytes: int, *, stdlib: str | os.PathLike[str] | None = None) -> str:
    """Build a Python source corpus from the standard library.

    Whole files are concatenated in sorted order, each introduced by a
    ``# file: relative/path.py`` line.  A file that would not fit in the
    remaining budget is skipped (files are never cut), so the result is at
    most ``target_bytes`` UTF-8 bytes and every section parses on its own.
    """
    _check_target(target_bytes)
    root = Path(stdlib) if stdlib is not None else _stdlib_dir()
    parts: list[str] = []
    size = 0
    for rel, source, _tree in _stdlib_files(root):
        if not source.strip():
            continue
        if not source.endswith("\n"):
            source += "\n"
        section = f"# file: {rel}\n{source}"
        cost = _utf8_len(section)
        if size + cost > target_bytes:
            if target_bytes - size < _SMALLEST_USEFUL_FILE:
                break
            continue
        parts.append(section)
        size += cost
    if not parts:
        raise RuntimeError(
            f"found no usable Python source under {root}; "
            "the standard library sources (.py files) seem to be missing"
        )
    return "".join(parts)
