"""Files written whole or not at all: every file the engine writes goes through here.

A file's new content goes to a temporary file beside it (hidden: `.NAME.XXXXXXXX.tmp`), which is
flushed and fsynced, then moved onto the name with `os.replace`: whatever stops the write (a full
disk, Ctrl-C, a kill), the name holds the old file or the whole new one, never part of one. When
the write fails in this process the temporary file is removed, the old file is left byte for byte
as it was and the error (an OSError, KeyboardInterrupt, anything) goes on to the caller; a killed
process can leave its hidden temporary file behind, never anything under the name itself. That
file's name holds its writer's host and process id (`.NAME.HOST-PID-XXXXXXXX.tmp`, HOST a digest of
the machine's name and process-id namespace): the next write beside it from the same host removes it
once no process has that id (POSIX only). A long NAME is cut so that these names fit in 255 bytes.

A new file gets the permission bits the umask gives (as `open` gives them); a replaced file keeps
its own. A symbolic link is written through (the file it names is replaced, the link stays). A
name that is no regular file (a pipe, /dev/stdout) is written directly: there is nothing to keep.
An OSError names the file whose write failed (its `filename` is the name the caller gave).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import stat
import zlib
from collections.abc import Iterator, Sequence
from typing import IO, Any

StrPath = str | os.PathLike[str]

_TEMP_TRIES = 100  # random names tried before giving up (only ever more than one by a clash)


def write_file(path: StrPath, data: bytes) -> None:
    """Write `data` as the whole content of the file `path`, atomically."""
    write_files([(path, data)])


def write_files(files: Sequence[tuple[StrPath, bytes]]) -> None:
    """Write several files as one: every file's temporary file is written first, then each is moved
    into place, the old files kept aside (a hard link, else a rename) until all are in place. If
    anything fails before then, the files already placed are put back as they were (a file that was
    not there is removed again), so the files are all new or all old."""
    pending: list[_Pending] = []
    try:
        for path, data in files:
            with _named(os.fspath(path)):
                pending.append(one := _Pending(path))
                with one.writing() as stream:
                    stream.write(data)
        _place_all(pending)
    finally:
        for one in pending:
            one.discard()


@contextlib.contextmanager
def replacing(path: StrPath) -> Iterator[IO[str]]:
    """A UTF-8 text stream ("\\n" line ends) whose text becomes the file `path` when the block ends
    without an error; if it raises, `path` is left as it was. For a file written as it is made."""
    with _named(os.fspath(path)):
        one = _Pending(path)
    try:
        with one.writing() as binary:
            text = io.TextIOWrapper(binary, encoding="utf-8", newline="")
            yield text
            text.flush()
        _place_all([one])
    finally:
        one.discard()


def _place_all(pending: list[_Pending]) -> None:
    """Move every temporary file onto its name; when there are several, keep each old file aside
    until all are in place, and on a failure put back every file already moved."""
    several = len(pending) > 1
    try:
        for one in pending:
            with _named(one.name):
                one.place(keep_old=several)
    except BaseException:
        for one in reversed(pending):
            one.undo()
        raise
    for folder in {os.path.dirname(one.target) for one in pending}:
        _sync_folder(folder)


class _Pending:
    """One file on its way to its name: the name (`target`, a link's own file), its temporary file
    and, while other files are still to be placed, the old file kept aside."""

    def __init__(self, path: StrPath) -> None:
        self.name = os.fspath(path)
        self.target = os.path.realpath(path) if os.path.islink(path) else os.path.abspath(path)
        self.temp: str | None = None
        self.aside: str | None = None
        self.placed = False
        try:
            self.old: os.stat_result | None = os.stat(self.target)
        except FileNotFoundError:
            self.old = None

    @contextlib.contextmanager
    def writing(self) -> Iterator[IO[bytes]]:
        """The stream to write the new content into: a temporary file, flushed and fsynced when the
        block ends (what is still buffered is dropped when it raises); or the name itself, when
        it is no regular file."""
        if self.old is not None and not stat.S_ISREG(self.old.st_mode):
            with _named(self.name), open(self.target, "wb") as direct:
                yield direct
            return
        with _named(self.name):
            self.temp, fd = _create_beside(self.target)
            if self.old is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, stat.S_IMODE(self.old.st_mode))
        raw = _SyncedFile(fd, self.name)
        stream = io.BufferedWriter(raw, buffer_size=1 << 16)
        try:
            yield stream
        except BaseException:
            raw.dropped = True
            stream.close()
            raise
        stream.close()

    def place(self, *, keep_old: bool) -> None:
        """Move the temporary file onto the name; with `keep_old`, keep the old file aside first."""
        if self.temp is None:  # written directly
            return
        if keep_old and self.old is not None:
            self.aside = _keep_aside(self.target)
        self.placed = True  # first: `undo` is right whether or not the replace below happened
        os.replace(self.temp, self.target)
        self.temp = None

    def undo(self) -> None:
        """Put the old file back under the name (or remove a new file where none was); best effort."""
        with contextlib.suppress(OSError):
            if self.aside is not None:
                os.replace(self.aside, self.target)  # `discard` removes a hard link left behind
            elif self.placed and self.old is None:
                os.unlink(self.target)
            self.placed = False

    def discard(self) -> None:
        """Remove what is left of the temporary file and of the old file kept aside."""
        for leftover in (self.temp, self.aside):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
        self.temp = self.aside = None


class _SyncedFile(io.RawIOBase):
    """A file descriptor opened for writing, as a raw stream: each write is one `os.write`, and
    `close` fsyncs it before closing it (a BufferedWriter flushes into it first). Once `dropped`,
    writes are thrown away and `close` only closes. Its OSErrors name the file `name`."""

    def __init__(self, fd: int, name: str) -> None:
        super().__init__()
        self.fd, self.name, self.dropped = fd, name, False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data: Any) -> int:  # any buffer, as `os.write` takes
        if self.dropped:
            return memoryview(data).nbytes
        with _named(self.name):
            return os.write(self.fd, data)

    def close(self) -> None:
        if self.closed:
            return
        try:
            super().close()
            if not self.dropped:
                with _named(self.name):
                    os.fsync(self.fd)
        finally:
            os.close(self.fd)


def _host_tag() -> str:
    """Eight hex digits of this machine's name and process-id namespace: a temporary file written on
    another host, or in another container sharing the folder, is not ours to judge."""
    uname = getattr(os, "uname", None)
    where = uname().nodename if uname is not None else os.environ.get("COMPUTERNAME", "")
    with contextlib.suppress(OSError):
        where += "\0" + os.readlink("/proc/self/ns/pid")
    return f"{zlib.crc32(where.encode('utf-8', 'replace')):08x}"


def _process_gone(pid: int) -> bool:
    """Whether no process has the id `pid` now (a process of another user counts as there, and so does
    an id no process can have)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return False


def _fitted(name: str, suffix_len: int) -> str:
    """`name` cut, at a character's end, so that a hidden name made of it and `suffix_len` more bytes
    stays within the 255 bytes a file name may take."""
    room = 255 - 1 - suffix_len
    cut = name[:room]
    while len(os.fsencode(cut)) > room:
        cut = cut[:-1]
    return cut


def _sweep_dead(folder: str, name: str, tag: str) -> None:
    """Remove the temporary files of `name` (cut as `_create_beside` cuts it) left in `folder` by killed
    writers of this host: one look through the folder per write."""
    if os.name != "posix":  # os.kill(pid, 0) would end the process elsewhere, not probe it
        return
    pattern = re.compile(rf"\.{re.escape(name)}\.{tag}-([0-9]{{1,10}})-[0-9a-f]{{8}}\.tmp")
    with contextlib.suppress(OSError), os.scandir(folder or ".") as entries:
        for entry in entries:
            found = pattern.fullmatch(entry.name)
            if found and _process_gone(int(found[1])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _create_beside(target: str) -> tuple[str, int]:
    """A new hidden file in `target`'s folder, opened for writing, with the mode a new file gets;
    what killed writers left there for the same name is removed first."""
    folder, name = os.path.split(target)
    tag, pid = _host_tag(), os.getpid()
    name = _fitted(name, len(f".{tag}-{'9' * 10}-01234567.tmp"))  # the same cut whatever the writer's id
    _sweep_dead(folder, name, tag)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(_TEMP_TRIES):
        temp = os.path.join(folder, f".{name}.{tag}-{pid}-{secrets.token_hex(4)}.tmp")
        try:
            return temp, os.open(temp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


def _keep_aside(target: str) -> str:
    """A second name for the file `target` (a hard link, else the file itself renamed to it)."""
    folder, name = os.path.split(target)
    name = _fitted(name, len(".01234567.old"))
    for _ in range(_TEMP_TRIES):
        aside = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.old")
        try:
            os.link(target, aside)
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links
            if os.path.lexists(aside):
                continue
            os.rename(target, aside)
        return aside
    raise FileExistsError(f"no free temporary name beside {target}")


def _sync_folder(folder: str) -> None:
    """Make the renames in `folder` durable where the system allows it (not on Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _named(name: str) -> Iterator[None]:
    """Let an OSError from the block name `name`, the file the caller asked for."""
    try:
        yield
    except OSError as exc:
        exc.filename, exc.filename2 = name, None
        raise

