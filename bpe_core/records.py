"""Record sources: JSON lines and Parquet, where each record's text field is one text.

JSON lines: one JSON object a line; blank lines are skipped; a record whose field is null is
skipped; anything else that is not a string is an error naming the file and line. Parquet: the
text column must hold strings (nulls skipped); one partition per row group.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from .json_limits import load_json
from .readers import (
    CHUNK_BYTES,
    decode_bytes,
    display_name,
    import_pyarrow,
    import_pyarrow_parquet,
    is_regular,
    iter_lines,
    open_binary,
)
from .settings import BPEError

_SURROGATE = re.compile("[\ud800-\udfff]")


def _line_start_at_or_after(path: str, pos: int, size: int) -> int:
    """The first line start at or after byte `pos` (0 and the end of the file count)."""
    if pos <= 0:
        return 0
    if pos >= size:
        return size
    with open(path, "rb") as f:
        f.seek(pos - 1)
        offset = pos - 1
        while True:
            block = f.read(64 * 1024)
            if not block:
                return size
            nl = block.find(b"\n")
            if nl >= 0:
                return offset + nl + 1
            offset += len(block)


def _lines_before(path: str, pos: int) -> int:
    """How many lines start before byte `pos` of an uncompressed file (for error messages)."""
    count = 0
    with open(path, "rb") as f:
        left = pos
        while left > 0:
            block = f.read(min(CHUNK_BYTES, left))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def jsonl_texts(
    path: str, compression: str, *, start: int, end: int | None, errors: str, text_field: str,
    max_bytes: int | None = None,
) -> Iterator[str]:
    """The text field of each record of the JSON lines in bytes [start, end) of a file, in order
    (a line belongs to the range its first byte is in; compressed files are read whole), the file
    refused past `max_bytes` bytes (decompressed; None: no limit)."""
    name = display_name(path)
    with open_binary(path, compression, max_bytes=max_bytes) as stream:
        if compression or not is_regular(stream):
            begin, end = 0, None  # a compressed stream or a pipe: read whole
        else:
            size = os.fstat(stream.fileno()).st_size
            begin = _line_start_at_or_after(path, start, size)
            end = size if end is None else _line_start_at_or_after(path, end, size)
            if begin >= end:
                return
            stream.seek(begin)
        base_line: int | None = 1 if begin == 0 else None

        def where(index: int) -> str:  # "name: line N", the lines before counted only for a message
            first = base_line if base_line is not None else _lines_before(path, begin) + 1
            return f"{name}: line {first + index}"

        for index, (offset, raw) in enumerate(iter_lines(stream, path, compression, start=begin, end=end)):
            text = decode_bytes(raw, offset=offset, path=path, errors=errors, compressed=bool(compression))
            if offset == 0:
                text = text.removeprefix("\ufeff")
            if not text.strip():
                continue
            try:
                record = load_json(text, where=partial(where, index))
            except json.JSONDecodeError as exc:
                if base_line is None:
                    base_line = _lines_before(path, begin) + 1
                hint = ""
                if text.strip() in ("[", "{") or text.lstrip().startswith('"'):
                    hint = "; JSON lines hold one whole JSON object a line, not a JSON document spread over lines"
                raise BPEError(f"{name}: line {base_line + index}: not valid JSON ({exc.msg}){hint}") from None
            value = _field(record, text_field)
            if isinstance(value, str):
                bad = _lone_surrogate(value)
                if bad < 0:
                    yield value
                    continue
                if errors == "replace":
                    yield _SURROGATE.sub("\ufffd", value)
                    continue
                if base_line is None:
                    base_line = _lines_before(path, begin) + 1
                raise BPEError(
                    f"{name}: line {base_line + index}: field {text_field!r} holds a lone surrogate "
                    f"(\\u{ord(value[bad]):04x} at character {bad}), which is no Unicode character; "
                    "--errors replace reads it as U+FFFD"
                )
            if value is None and isinstance(record, dict) and text_field in record:
                continue
            if base_line is None:
                base_line = _lines_before(path, begin) + 1
            line = base_line + index
            if not isinstance(record, dict):
                raise BPEError(f"{name}: line {line}: expected a JSON object, found {type(record).__name__}")
            if text_field not in record:
                fields = ", ".join(str(k) for k in record) or "none"
                raise BPEError(f"{name}: line {line}: no field {text_field!r} (the record has: {fields})")
            raise BPEError(
                f"{name}: line {line}: field {text_field!r} holds {type(value).__name__}, not a string"
            )


def _lone_surrogate(text: str) -> int:
    """Where the first lone surrogate (a JSON "\\ud800" escape without its pair) is, or -1."""
    if text.isascii():
        return -1
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return -1


def _field(record: Any, field: str) -> Any:
    return record.get(field) if isinstance(record, dict) else None


def _open_parquet(path: str) -> Any:
    pq = import_pyarrow_parquet()
    name = display_name(path)
    if not os.path.exists(path):
        raise BPEError(f"{name}: no such file")
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for what is no Parquet file
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BPEError(f"{name}: not a readable Parquet file ({detail})") from None


def _check_column(parquet: Any, path: str, field: str) -> None:
    pa = import_pyarrow()
    schema = parquet.schema_arrow
    names = list(schema.names)
    if field not in names:
        head = field.split(".")[0]
        if head in names and pa.types.is_struct(schema.field(head).type):
            raise BPEError(
                f"{display_name(path)}: column {head!r} is a struct; fields nested inside a column are not "
                f"read: write the text as a top-level string column"
            )
        raise BPEError(f"{display_name(path)}: no column {field!r} (the file has: {', '.join(names) or 'none'})")
    kind = schema.field(field).type
    if pa.types.is_dictionary(kind):  # pandas' category dtype, and dictionary-encoded columns
        kind = kind.value_type
    is_view = getattr(pa.types, "is_string_view", lambda _t: False)(kind)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_view):
        raise BPEError(
            f"{display_name(path)}: column {field!r} holds {kind}, not strings "
            f"(the file has: {', '.join(names)})"
        )


def parquet_row_groups(path: str, text_field: str) -> list[tuple[int, int]]:
    """(row group, its size in the file in bytes) for each row group; checks the text column."""
    parquet = _open_parquet(path)
    _check_column(parquet, path, text_field)
    meta = parquet.metadata
    groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
    return [
        (i, sum(int(g.column(j).total_compressed_size) for j in range(g.num_columns))) for i, g in enumerate(groups)
    ]


def parquet_texts(path: str, group: int, *, text_field: str) -> Iterator[str]:
    """The text column of one row group, value by value (nulls skipped)."""
    parquet = _open_parquet(path)
    _check_column(parquet, path, text_field)
    for batch in parquet.iter_batches(batch_size=1024, row_groups=[group], columns=[text_field]):
        for value in batch.column(0).to_pylist():
            if value is not None:
                yield value

