"""Finding the source files: files as named, directories walked, globs expanded, in a fixed order.

Only regular files are read from a directory or a glob. A FIFO found there would stop the run
until something writes to it, and a device such as /dev/zero never ends, so each is refused in one
line naming it, before anything opens it. A file named outright may be a pipe (`count
/dev/stdin` reads to its end) unless the caller asks for regular files only, as the command line
does (it reads stdin as '-').

`**` follows links to folders, as `glob` does, but a link (or mount) that leads back to a folder
it is inside of is a loop, which `glob` would follow until the path is too long, at a cost that
doubles with each link: it is refused in one line naming the link.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Sequence

from .readers import refuse_special
from .settings import BPEError

_FROM_FOLDER = "; only regular files are read from a directory or a pattern"


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def _identity(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _folders(top: str, *, follow_links: bool, source: str) -> Iterator[tuple[str, list[str]]]:
    """(folder, its file names) for `top` and every folder under it, hidden ones skipped; links to
    folders followed only with `follow_links`, and then a loop back to an enclosing folder is a
    BPEError naming the link."""
    stack = [(top, frozenset({_identity(top or os.curdir)}))]
    while stack:
        folder, inside = stack.pop()
        files: list[str] = []
        below = []
        try:
            entries = sorted(os.scandir(folder or os.curdir), key=lambda entry: entry.name)
        except OSError:
            continue  # an unreadable folder has no files to give, as with os.walk and glob
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = os.path.join(folder, entry.name)
            if not entry.is_dir():
                files.append(entry.name)
            elif not entry.is_symlink() or follow_links:
                try:
                    identity = _identity(path)
                except OSError:
                    continue  # gone, or not ours to look into
                if identity in inside:
                    raise BPEError(f"{source}: {path} leads back to a folder it is inside of (a loop of links); "
                                   "remove the link or name the folders")
                below.append((path, inside | {identity}))
        yield folder, files
        stack.extend(reversed(below))


def _walk(directory: str, source: str) -> list[str]:
    """Files under `directory` (links to folders not followed, as os.walk), hidden files and
    folders skipped, sorted by relative path; a special file among them is a BPEError."""
    found = [os.path.join(root, f) for root, files in _folders(directory, follow_links=False, source=source)
             for f in files]
    for path in found:
        refuse_special(path, hint=_FROM_FOLDER)
    return sorted(found, key=lambda p: os.path.relpath(p, directory).split(os.sep))


def _glob(pattern: str) -> list[str]:
    """glob.glob(pattern, recursive=True), with `**` walked by `_folders` (loops refused)."""
    parts = pattern.split(os.sep) if os.sep in pattern else pattern.split("/")
    if "**" not in parts:
        return glob.glob(pattern)
    at = parts.index("**")
    head, rest = os.sep.join(parts[:at]), parts[at + 1 :]
    if parts[:at] == [""]:
        head = os.sep  # an absolute pattern, "/**/x"
    tops = glob.glob(head) if glob.has_magic(head) else [head]
    found: list[str] = []
    for top in tops:
        if top and not os.path.isdir(top):
            continue
        for folder, files in _folders(top, follow_links=True, source=pattern):
            if rest:
                found.extend(_glob(os.path.join(glob.escape(folder), *rest)))
            else:  # a trailing "**": everything below
                found.extend(os.path.join(folder, f) for f in files)
    return found


def expand_sources(sources: Sequence[str], *, regular_only: bool = False) -> list[str]:
    """Files as given, directories walked (sorted, hidden files skipped), globs expanded and sorted.

    The caller's order between arguments is kept and a path met twice is kept once (the first
    time). A missing file, a glob that matches nothing or a directory without files is a BPEError;
    so is a special file (a FIFO, a device, a socket) in a directory or a glob, and, with
    `regular_only`, one named outright.
    """
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Sequence):
        raise BPEError("sources must be a list of file names, directories or globs")
    out: list[str] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            out.append(path)

    for source in sources:
        if isinstance(source, os.PathLike):
            source = os.fspath(source)
        if not isinstance(source, str) or not source:
            raise BPEError(f"a source must be a non-empty file name, not {source!r}")
        if os.path.isdir(source):
            files = _walk(source, source)
            if not files:
                raise BPEError(f"{source}: no files in this directory")
            for f in files:
                add(f)
        elif os.path.exists(source):
            if regular_only:
                refuse_special(source, hint="; to read a pipe, give '-' and pipe it to stdin")
            add(source)
        elif _is_glob(source):
            matches = sorted(p for p in _glob(source) if os.path.isfile(p) or _special(p))
            if not matches:
                raise BPEError(f"{source}: no files match this pattern")
            for f in matches:
                refuse_special(f, hint=_FROM_FOLDER)
                add(f)
        else:
            raise BPEError(f"{source}: no such file")
    return out


def _special(path: str) -> bool:
    return os.path.exists(path) and not os.path.isdir(path)
