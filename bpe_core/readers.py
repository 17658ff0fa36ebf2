"""Reading source files as bytes and text: decompression, UTF-8 decoding with exact offsets.

Errors name the file and, for text, the byte offset (in the decompressed data for a compressed
file). Optional packages (`zstandard` for .zst, `pyarrow` for Parquet) are imported on use.
"""
from __future__ import annotations

import bz2
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from typing import IO, Any, cast

from .settings import BPEError

COMPRESSIONS = {".gz": "gz", ".bz2": "bz2", ".zst": "zst"}
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
COMPRESSION_NAMES = {"gz": "gzip", "bz2": "bzip2", "zst": "zstd"}
# How much of a stream is read at a time.
CHUNK_BYTES = 1 << 20
# Compressed bytes fed to the zstd decompressor at a time: one call inflates them whole, up to
# about 32,768 times (a block of zeros), so 4 KiB never make more than about 128 MiB at once.
ZSTD_FEED_BYTES = 4096
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def classify(path: str) -> tuple[str, str]:
    """(kind, compression) from a file name: "data.jsonl.gz" -> ("jsonl", "gz")."""
    lower = path.lower()
    compression = ""
    for suffix, name in COMPRESSIONS.items():
        if lower.endswith(suffix):
            compression = name
            lower = lower[: -len(suffix)]
            break
    if lower.endswith(PARQUET_SUFFIXES):
        return "parquet", compression
    if lower.endswith(JSONL_SUFFIXES):
        return "jsonl", compression
    return "text", compression


def display_name(path: str) -> str:
    return os.fspath(path)


def import_zstandard() -> Any:
    try:
        import zstandard
    except ImportError:
        raise BPEError("reading .zst files needs the zstandard package: pip install zstandard") from None
    return zstandard


def import_pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise BPEError("reading Parquet files needs the pyarrow package: pip install pyarrow") from None
    return pq


def import_pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise BPEError("reading Parquet files needs the pyarrow package: pip install pyarrow") from None
    return pyarrow


def is_regular(stream: IO[bytes]) -> bool:
    """Whether an opened file is a regular file (its size and seeking mean something), not a
    pipe, FIFO or device."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def special_kind(path: str) -> str | None:
    """What a path is when it is neither a regular file nor a directory ("a FIFO (a named pipe)",
    "a character device", ...), judged by `os.stat` without opening it; None otherwise, or when
    it cannot be looked at (the reader then says why)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return "not a file"


def refuse_special(path: str, *, hint: str = "") -> None:
    """A one-line BPEError for a FIFO, device or socket, before anything opens it: opening a FIFO
    waits for a writer that may never come, and a device such as /dev/zero never ends."""
    kind = special_kind(path)
    if kind is not None:
        raise BPEError(f"{display_name(path)} is {kind}, not a regular file{hint}")


def too_large(name: str, limit: int, *, size: int | None = None, compressed: bool = False,
              what: str = "--max-bytes") -> BPEError:
    """The one-line error of a source over its byte limit (`what` names the limit)."""
    if size is not None:
        return BPEError(f"{display_name(name)} has {size:,} bytes, over {limit:,} ({what})")
    once = " once decompressed" if compressed else ""
    return BPEError(f"{display_name(name)} is over {limit:,} bytes{once} ({what})")


class _Capped:
    """A stream read through a byte budget: past `limit` bytes it stops with `too_large`, so a
    pipe, an endless file or a decompression bomb is never read further than that."""

    def __init__(self, stream: IO[bytes], name: str, limit: int, *, compressed: bool, what: str) -> None:
        self._stream, self._name, self._limit = stream, name, limit
        self._compressed, self._what = compressed, what
        self._read = 0

    def read(self, size: int = -1) -> bytes:
        left = self._limit - self._read + 1  # one byte more than allowed shows the stream is over
        data = self._stream.read(left if size is None or size < 0 else min(size, left))
        self._read += len(data)
        if self._read > self._limit:
            raise too_large(self._name, self._limit, compressed=self._compressed, what=self._what)
        return data

    def fileno(self) -> int:
        return self._stream.fileno()

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> _Capped:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def capped(stream: IO[bytes], name: str, limit: int | None, *, compression: str = "",
           what: str = "--max-bytes") -> IO[bytes]:
    """`stream` limited to `limit` bytes (None: as it is). A regular uncompressed file is judged
    by its size at once and given back as it is (its readers seek in it); anything else (a pipe,
    stdin, decompressed data) is cut off as it is read."""
    if limit is None:
        return stream
    if not compression and is_regular(stream):
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            raise too_large(name, limit, size=size, what=what)
        return stream
    return cast("IO[bytes]", _Capped(stream, name, limit, compressed=bool(compression), what=what))


def read_limited(stream: IO[bytes], name: str, limit: int | None, *, what: str = "--max-bytes") -> bytes:
    """All of a stream's bytes, refused in one line past `limit` bytes, never reading more than
    one byte past it (a regular file over the limit is refused by its size, unread)."""
    source = capped(stream, name, limit, what=what)
    if limit is not None and source is stream:  # a regular file, which may still grow
        source = cast("IO[bytes]", _Capped(stream, name, limit, compressed=False, what=what))
    chunks = []
    while chunk := read_chunk(source, CHUNK_BYTES, name, ""):
        chunks.append(chunk)
    return b"".join(chunks)


def open_binary(path: str, compression: str, *, max_bytes: int | None = None) -> IO[bytes]:
    """The file's (decompressed) bytes as a stream, refused past `max_bytes` bytes (None: no
    limit); a missing file is a one-line BPEError."""
    stream = _open_binary(path, compression)
    try:
        return capped(stream, path, max_bytes, compression=compression)
    except BaseException:
        stream.close()
        raise


def _open_binary(path: str, compression: str) -> IO[bytes]:
    """The file's (decompressed) bytes as a stream; a missing file is a one-line BPEError."""
    name = display_name(path)
    try:
        if compression == "gz":
            return cast("IO[bytes]", gzip.open(path, "rb"))
        if compression == "bz2":
            return cast("IO[bytes]", bz2.open(path, "rb"))
        if compression == "zst":
            zstd = import_zstandard()
            raw = open(path, "rb")  # noqa: SIM115  # closed with the reader that takes it
            return cast("IO[bytes]", io.BufferedReader(_ZstdFrames(raw, zstd), buffer_size=CHUNK_BYTES))
        return open(path, "rb")
    except FileNotFoundError:
        raise BPEError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise BPEError(f"{name}: is a directory, not a file") from None
    except PermissionError:
        raise BPEError(f"{name}: permission denied") from None


class _ZstdFrames(io.RawIOBase):
    """Decompressed bytes of every zstd frame in a file; a file that stops inside a frame is an
    error (zstandard's own stream reader returns what it has without saying so)."""

    def __init__(self, raw: IO[bytes], zstd: Any) -> None:
        self._raw = raw
        self._zstd = zstd
        self._dobj = zstd.ZstdDecompressor().decompressobj()
        self._started = False
        self._pending = b""  # decompressed, not yet given out from `_at` on
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._at >= len(self._pending):
            data = self._raw.read(ZSTD_FEED_BYTES)
            if not data:
                if self._started and not self._dobj.eof:
                    raise EOFError("the file ends inside a zstd frame")
                return 0
            out = []
            while data:
                if self._dobj.eof:
                    self._dobj = self._zstd.ZstdDecompressor().decompressobj()
                self._started = True
                out.append(self._dobj.decompress(data))
                data = self._dobj.unused_data if self._dobj.eof else b""
            self._pending, self._at = b"".join(out), 0
        n = min(len(buffer), len(self._pending) - self._at)
        buffer[:n] = self._pending[self._at : self._at + n]
        self._at += n
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def read_chunk(stream: IO[bytes], size: int, path: str, compression: str) -> bytes:
    """Up to `size` bytes; a truncated or corrupt compressed stream is a one-line BPEError."""
    try:
        return stream.read(size)
    except (EOFError, OSError, zlib.error) as exc:
        if compression:
            kind = COMPRESSION_NAMES[compression]
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise BPEError(f"{display_name(path)}: truncated or corrupt {kind} data ({detail})") from None
        raise BPEError(f"{display_name(path)}: cannot be read ({exc})") from None
    except Exception as exc:  # zstandard.ZstdError and other decompressor errors
        if compression and type(exc).__name__.lower().startswith("zstd"):
            raise BPEError(f"{display_name(path)}: truncated or corrupt zstd data ({exc})") from None
        raise


def complete_prefix(data: bytes) -> int:
    """Where `data` can be split so that no UTF-8 sequence is cut: before its last lead byte
    (when one is among the last 4 bytes), else at the end.

    Decoding from a lead byte never depends on what came before, so decoding the two sides
    separately gives the same characters (and the same U+FFFD for bad bytes) as decoding the whole.
    """
    n = len(data)
    for k in range(n - 1, max(-1, n - 5), -1):
        if not 0x80 <= data[k] < 0xC0:
            return k if data[k] >= 0x80 else n
    return n


def decode_bytes(data: bytes, *, offset: int, path: str, errors: str, compressed: bool) -> str:
    """UTF-8 text of `data`, which sits at byte `offset` of the (decompressed) file."""
    nul = data.find(b"\x00")
    if nul >= 0:
        where = "of the decompressed data" if compressed else ""
        raise BPEError(
            f"{display_name(path)} looks like a binary file (it contains NUL bytes, the first at offset "
            f"{offset + nul}{' ' + where if where else ''}), not text"
        )
    try:
        return data.decode("utf-8", errors="strict" if errors == "strict" else "replace")
    except UnicodeDecodeError as exc:
        where = " of the decompressed data" if compressed else ""
        raise BPEError(
            f"{display_name(path)}: not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset "
            f"{offset + exc.start}{where}); --errors replace reads it with U+FFFD"
        ) from None


def iter_lines(stream: IO[bytes], path: str, compression: str, *, start: int, end: int | None) -> Iterator[
    tuple[int, bytes]
]:
    """(offset, line) for each line that starts in [start, end), the newline kept.

    `stream` is positioned at `start`, which is a line start. A long line is gathered in a list
    of chunks and joined once, so a line of gigabytes costs its length, not its length squared.
    """
    offset = start
    parts: list[bytes] = []  # the line begun in earlier chunks
    while end is None or offset < end:
        chunk = read_chunk(stream, CHUNK_BYTES, path, compression)
        if not chunk:
            break
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            if nl < 0:
                break
            if end is not None and offset >= end:
                return
            line = b"".join([*parts, chunk[pos : nl + 1]]) if parts else chunk[pos : nl + 1]
            parts.clear()
            yield offset, line
            offset += len(line)
            pos = nl + 1
        if pos < len(chunk):
            parts.append(chunk[pos:])
    if parts and (end is None or offset < end):
        yield offset, b"".join(parts)
