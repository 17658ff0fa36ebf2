"""Corpora built from Python sources: English prose and code.

The code is built on the user's machine from the local standard library. The prose is the
standard library's documentation, then the docstrings of a few installed packages that
requirements-dev.txt pins (the standard library alone has about 2.4 MB of prose); it is built
once by ``python -m sample_corpora build`` and ships in ``data/`` (``build.py``), so the app
needs none of those packages. Everything is read in a fixed order, so a build is deterministic
for a given Python and set of installed versions.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import sysconfig
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

#: A complete English build must reach at least this many bytes; anything
#: smaller means the standard library sources are missing (for example a
#: Python install that ships only compiled ``.pyc`` files).
MIN_ENGLISH_BYTES = 300_000

#: Installed packages whose docstrings follow the standard library's prose in the English
#: corpus, in this order: (import name, distribution name). requirements-dev.txt pins them all.
ENGLISH_PACKAGES = (
    ("pandas", "pandas"),
    ("numpy", "numpy"),
    ("streamlit", "streamlit"),
    ("hypothesis", "hypothesis"),
    ("_pytest", "pytest"),
)

# Directory names never descended into when walking the standard library (or a package).
_SKIP_DIRS = frozenset(
    {"test", "tests", "idlelib", "lib2to3", "site-packages", "dist-packages", "__pycache__"}
)


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
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)
_SPACES = re.compile(r"\s+")
_MIN_WORDS = 4
_MIN_PROSE_RATIO = 0.8


def _docstrings(tree: ast.Module) -> Iterator[str]:
    """Docstrings of the module, classes and functions, in source order.

    A definition is a statement, so only statements (and the handlers and match cases that hold
    them) are visited: the expressions, most of a tree, hold no docstring.
    """
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _DOC_NODES):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield doc
        inner = [item for field in node._fields if isinstance(value := getattr(node, field, None), list)
                 for item in value if isinstance(item, _STATEMENT_HOLDERS)]
        stack.extend(reversed(inner))  # popped from the end: children in source order


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


def english_packages() -> list[tuple[str, str, Path]]:
    """(distribution, version, source folder) of each of ENGLISH_PACKAGES that is installed."""
    found = []
    for module, distribution in ENGLISH_PACKAGES:
        try:
            spec = importlib.util.find_spec(module)
            version = importlib.metadata.version(distribution)
        except (ImportError, ValueError, importlib.metadata.PackageNotFoundError):
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        found.append((distribution, version, Path(next(iter(spec.submodule_search_locations)))))
    return found


def sources_tag(builder_name: str) -> str:
    """A short tag for what a builder reads besides the standard library (empty if nothing), so
    that a cached corpus is rebuilt when those installed packages change."""
    if builder_name != "build_english":
        return ""
    pins = ",".join(f"{name}=={version}" for name, version, _ in english_packages())
    return hashlib.sha256(pins.encode("utf-8")).hexdigest()[:8]


def _english_texts(root: Path, packages: Sequence[Path]) -> Iterator[str]:
    """Docstrings of every standard library file, then the help topics, then every file's block
    comments, then the docstrings of each package."""
    sources, topics = [], []
    for rel, source, tree in _stdlib_files(root):  # each file parsed once, for all three
        yield from _docstrings(tree)
        sources.append(source)
        if rel == "pydoc_data/topics.py":
            topics = list(_string_values(tree))
    yield from topics
    for source in sources:
        yield from _comment_blocks(source)
    for package in packages:
        for _rel, _source, tree in _stdlib_files(package):
            yield from _docstrings(tree)


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


def build_english(
    target_bytes: int,
    *,
    stdlib: str | os.PathLike[str] | None = None,
    packages: Sequence[str | os.PathLike[str]] | None = None,
) -> str:
    """Build English prose from Python documentation: the standard library's docstrings, help
    topics and comments, then the docstrings of `packages` (default: the installed
    ENGLISH_PACKAGES).

    Paragraphs are collected in that fixed order (files sorted, each in source order),
    de-duplicated, and joined by blank lines until adding the next one would pass
    ``target_bytes`` UTF-8 bytes. The standard library gives about 2.4 MB (its docstrings alone
    1.3 MB); a 5 MB target also reads pandas, NumPy and Streamlit. The result is deterministic
    for a given set of installed versions.
    """
    _check_target(target_bytes)
    root = Path(stdlib) if stdlib is not None else _stdlib_dir()
    if packages is None:
        folders = [folder for _, _, folder in english_packages()]
    else:
        folders = [Path(p) for p in packages]
    parts: list[str] = []
    seen: set[str] = set()
    size = 0
    done = False
    for doc in _english_texts(root, folders):
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
