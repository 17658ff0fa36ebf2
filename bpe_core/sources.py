"""Streaming sources: files, directories and globs, cut into partitions and read as pieces of text.

Counting each piece on its own gives exactly the counts of the whole text (pieces are cut only at
the safe cuts of `cuts.py`), so a corpus far larger than memory is counted piece by piece, and
partitions of one file can be counted on different machines. "First appearance" for sharded input
is file order, then position; each file is one text (as `train` counts a list of texts), and in
JSON lines and Parquet each record is one text.

A byte-range partition of an uncompressed text file covers the text from the first safe cut at or
after its start byte to the first safe cut at or after the next partition's start byte, so
neighbouring partitions meet exactly (a partition may come out empty). Compressed files are one
partition each (a stream cannot be entered in the middle); Parquet files one per row group.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO

from .cuts import byte_cuts, cut_kind, last_text_cut, text_cuts
from .pretokenize import require_str
from .readers import (
    CHUNK_BYTES,
    capped,
    classify,
    complete_prefix,
    decode_bytes,
    display_name,
    is_regular,
    open_binary,
    read_chunk,
    too_large,
)
from .records import jsonl_texts, parquet_row_groups, parquet_texts
from .settings import BPEError, Settings
from .source_files import expand_sources as expand_sources  # finding the files: there

DEFAULT_PARTITION_BYTES = 64 * 1024 * 1024
# Pieces handed to the counter hold about this many characters (more when no safe cut comes).
PIECE_CHARS = 1_000_000
# With pre-tokenizer "none" a whole file (or record) is one word and is read whole: refuse larger.
NONE_MAX_BYTES = 100_000_000
# The most partitions files are cut into (a tiny partition size on a large file would otherwise
# fill memory with the plan alone); a file that is one partition does not count.
MAX_CUT_PARTITIONS = 1_000_000
ERRORS = ("strict", "replace")
_ARCHIVE_SUFFIXES = (".tar", ".tgz", ".tbz2", ".zip", ".tar.gz", ".tar.bz2", ".tar.zst")


@dataclass(frozen=True)
class Partition:
    """A part of one source file that one worker counts (small and picklable: the worker opens the
    file itself)."""

    path: str
    kind: str  # "text" | "jsonl" | "parquet"
    compression: str  # "" | "gz" | "bz2" | "zst"
    start: int  # byte range of an uncompressed text/jsonl file ...
    end: int | None  # ... None: to the end of the file
    row_group: int | None  # Parquet
    size: int  # bytes it covers, for progress
    index: int  # its place in the global order: file order, then position
    max_bytes: int | None = None  # a stream (compressed, a pipe) is refused past this many bytes


# ---- planning partitions -------------------------------------------------------------------------


def plan_partitions(
    paths: Sequence[str], *, partition_bytes: int = DEFAULT_PARTITION_BYTES, text_field: str | None = None,
    max_bytes: int | None = None,
) -> list[Partition]:
    """The partitions of `paths`, in the global order (file order, then position). With
    `max_bytes`, a file larger than that is refused here, and a stream (compressed, a pipe) when
    reading it passes that many bytes (decompressed)."""
    if isinstance(partition_bytes, bool) or not isinstance(partition_bytes, int) or partition_bytes < 1:
        raise BPEError(f"partition size must be a whole number of bytes, 1 or more, not {partition_bytes!r}")
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1):
        raise BPEError(f"the byte limit must be a whole number of bytes, 1 or more, not {max_bytes!r}")
    if text_field is not None and paths and all(classify(p)[0] == "text" for p in paths):
        raise BPEError(
            f"{display_name(paths[0])}: --text-field applies to JSON lines (.jsonl, .json) and Parquet files, "
            "and every source is read as plain text; name the files by their format"
        )
    parts: list[Partition] = []
    cut = 0  # partitions of files cut into more than one
    for path in paths:
        kind, compression = classify(path)
        _refuse_archives(path, kind, compression)
        try:
            size = os.path.getsize(path)
        except FileNotFoundError:
            raise BPEError(f"{display_name(path)}: no such file") from None
        except OSError as exc:
            raise BPEError(f"{display_name(path)}: cannot be read ({exc.strerror})") from None
        if max_bytes is not None and size > max_bytes:  # compressed: larger still once decompressed
            raise too_large(path, max_bytes, size=size)
        if kind == "parquet":
            for group, group_size in parquet_row_groups(path, text_field or "text"):
                parts.append(Partition(path, kind, compression, 0, None, group, group_size, len(parts), max_bytes))
        elif compression or size <= partition_bytes:
            parts.append(Partition(path, kind, compression, 0, None, None, size, len(parts), max_bytes))
        else:
            cut += -(-size // partition_bytes)
            if cut > MAX_CUT_PARTITIONS:
                raise BPEError(
                    f"{display_name(path)}: partitions of {partition_bytes:,} bytes cut the sources into more than "
                    f"{MAX_CUT_PARTITIONS:,} partitions; choose a larger partition size"
                )
            for start in range(0, size, partition_bytes):
                end = start + partition_bytes
                last = end >= size
                parts.append(
                    Partition(path, kind, compression, start, None if last else end, None,
                              min(end, size) - start, len(parts), max_bytes)
                )
    return parts


def _refuse_archives(path: str, kind: str, compression: str) -> None:
    """Tar and zip archives and compressed Parquet files are refused by name, before any reading."""
    lower = path.lower()
    if lower.endswith(_ARCHIVE_SUFFIXES):
        raise BPEError(f"{display_name(path)}: an archive is not read; unpack it and give the directory")
    if kind == "parquet" and compression:
        raise BPEError(
            f"{display_name(path)}: a compressed Parquet file is not read (Parquet compresses inside); decompress it"
        )


# ---- reading text --------------------------------------------------------------------------------


def _check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise BPEError(f"unknown errors policy {errors!r}; choose one of: strict, replace")


def find_cut(stream: IO[bytes], pos: int, size: int, settings: Settings) -> int:
    """The first safe cut at or after byte `pos` of a seekable file of `size` bytes (0 and the end
    of the file always count as cuts)."""
    if pos <= 0:
        return 0
    if pos >= size or cut_kind(settings) == "none":
        return size
    base = max(0, pos - 16)
    stream.seek(base)
    data = stream.read(64 * 1024)
    scan_from = pos
    while True:
        final = base + len(data) >= size
        for cut in byte_cuts(data, settings, start=scan_from - base, final=final):
            return base + cut
        if final:
            return size
        end = base + len(data)
        scan_from = max(pos, end - 4)
        more = stream.read(64 * 1024)
        if not more:
            return size
        base = end - 16
        data = data[-16:] + more


def _decoded_chunks(
    stream: IO[bytes], path: str, compression: str, *, begin: int, end: int | None, errors: str
) -> Iterator[str]:
    """The text of bytes [begin, end) of the stream (positioned at `begin`), chunk by chunk, never
    splitting a UTF-8 character; a BOM at the start of the file is dropped."""
    offset = begin
    carry = b""
    pos = begin
    at_start = begin == 0
    while True:
        want = CHUNK_BYTES if end is None else min(CHUNK_BYTES, end - pos)
        chunk = read_chunk(stream, want, path, compression) if want > 0 else b""
        pos += len(chunk)
        done = not chunk
        data = carry + chunk
        split = len(data) if done else complete_prefix(data)
        text = decode_bytes(data[:split], offset=offset, path=path, errors=errors, compressed=bool(compression))
        carry = data[split:]
        offset += split
        if at_start and text:
            at_start = False
            text = text.removeprefix("\ufeff")
        if text:
            yield text
        if done:
            return


def _pieces_of_chunks(chunks: Iterator[str], settings: Settings, piece_chars: int) -> Iterator[str]:
    """Chunks of one text regrouped into pieces cut at safe cuts only (a stretch without a safe
    cut stays whole, however long: with pre-tokenizer "none" that is the whole text)."""
    if cut_kind(settings) == "none":
        whole = "".join(chunks)
        if whole:
            yield whole
        return
    pending = ""
    scan_from = 0
    for text in chunks:
        pending += text
        if len(pending) < piece_chars:
            continue
        cut = last_text_cut(pending, settings, start=max(1, scan_from))
        if cut is None:
            scan_from = max(0, len(pending) - 2)
            continue
        yield pending[:cut]
        pending = pending[cut:]
        scan_from = 0
    if pending:
        yield pending


def stream_pieces(stream: IO[bytes], name: str, settings: Settings, *, errors: str = "strict",
                  max_bytes: int | None = None) -> Iterator[str]:
    """The text of a binary stream read to its end (stdin), as pieces cut only at safe cuts, so
    that counting the pieces one by one gives the counts of the whole text; errors name `name`,
    and a stream longer than `max_bytes` bytes is one (None: no limit)."""
    _check_errors(errors)
    stream = capped(stream, name, max_bytes)
    chunks = _decoded_chunks(stream, name, "", begin=0, end=None, errors=errors)
    if cut_kind(settings) == "none":
        chunks = _limited(chunks, name)
    yield from _pieces_of_chunks(chunks, settings, PIECE_CHARS)


def _text_file_pieces(partition: Partition, settings: Settings, errors: str) -> Iterator[str]:
    path, compression = partition.path, partition.compression
    none_limit = cut_kind(settings) == "none"
    with open_binary(path, compression, max_bytes=partition.max_bytes) as stream:
        if compression or not is_regular(stream):
            # A compressed stream, or a pipe (/dev/stdin, a FIFO, `<(zcat ...)`) whose size says
            # nothing: read to its end.
            chunks = _decoded_chunks(stream, path, compression, begin=0, end=None, errors=errors)
        else:
            size = os.fstat(stream.fileno()).st_size
            if none_limit and size > NONE_MAX_BYTES:
                raise _too_big(path)
            begin = find_cut(stream, partition.start, size, settings)
            end = size if partition.end is None else find_cut(stream, partition.end, size, settings)
            if begin >= end:
                return
            stream.seek(begin)
            chunks = _decoded_chunks(stream, path, compression, begin=begin, end=end, errors=errors)
        if none_limit:
            chunks = _limited(chunks, path)
        yield from _pieces_of_chunks(chunks, settings, PIECE_CHARS)


def _too_big(path: str) -> BPEError:
    return BPEError(
        f"{display_name(path)}: too large for pre-tokenizer none (the whole text is one word; "
        f"the limit is {NONE_MAX_BYTES:,} bytes); choose a pre-tokenizer"
    )


def _limited(chunks: Iterator[str], path: str) -> Iterator[str]:
    total = 0
    for text in chunks:
        total += len(text) if text.isascii() else len(text.encode("utf-8"))
        if total > NONE_MAX_BYTES:
            raise _too_big(path)
        yield text


def read_texts(
    partition: Partition, settings: Settings, *, errors: str = "strict", text_field: str | None = None
) -> Iterator[str]:
    """The partition's text as pieces of bounded size (longer only where no safe cut comes), such
    that counting each piece on its own gives exactly the counts of the whole."""
    _check_errors(errors)
    if partition.kind == "text":
        yield from _text_file_pieces(partition, settings, errors)
        return
    field = "text" if text_field is None else text_field
    if partition.kind == "jsonl":
        records = jsonl_texts(
            partition.path, partition.compression, start=partition.start, end=partition.end,
            errors=errors, text_field=field, max_bytes=partition.max_bytes,
        )
    elif partition.kind == "parquet":
        records = parquet_texts(partition.path, partition.row_group or 0, text_field=field)
    else:
        raise BPEError(f"unknown partition kind {partition.kind!r}")
    none = cut_kind(settings) == "none"
    for record in records:
        if none and len(record) > NONE_MAX_BYTES:
            raise _too_big(partition.path)
        yield from cut_pieces(record, settings)


def cut_pieces(text: str, settings: Settings, *, piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """`text` cut into pieces of about `piece_chars` characters at safe cuts: counting the pieces
    one by one, in order, gives exactly `count_words([text], settings)`, order included.

    >>> list(cut_pieces("low lower newest", Settings(), piece_chars=4))
    ['low lower', ' newest']
    """
    require_str(text)
    if isinstance(piece_chars, bool) or not isinstance(piece_chars, int) or piece_chars < 1:
        raise BPEError(f"piece size must be a whole number of characters, 1 or more, not {piece_chars!r}")
    pos = 0
    n = len(text)
    while n - pos > piece_chars:
        cut = next(text_cuts(text, settings, start=pos + piece_chars), None)
        if cut is None:
            break
        yield text[pos:cut]
        pos = cut
    if pos < n:
        yield text[pos:]
