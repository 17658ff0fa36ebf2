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


def open_binary(path: str, compression: str) -> IO[bytes]:
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
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            data = self._raw.read(64 * 1024)  # compressed: small, as one read may inflate a lot
            if not data:
                if self._started and not self._dobj.eof:
                    raise EOFError("the file ends inside a zstd frame")
                return 0
            while data:
                if self._dobj.eof:
                    self._dobj = self._zstd.ZstdDecompressor().decompressobj()
                self._started = True
                self._pending += self._dobj.decompress(data)
                data = self._dobj.unused_data if self._dobj.eof else b""
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
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

    `stream` is positioned at `start`, which is a line start.
    """
    offset = start
    rest = b""
    while end is None or offset < end:
        chunk = read_chunk(stream, CHUNK_BYTES, path, compression)
        if not chunk:
            break
        rest += chunk
        pos = 0
        while True:
            nl = rest.find(b"\n", pos)
            if nl < 0:
                break
            if end is not None and offset >= end:
                return
            line = rest[pos : nl + 1]
            yield offset, line
            offset += len(line)
            pos = nl + 1
        rest = rest[pos:]
    if rest and (end is None or offset < end):
        yield offset, rest
