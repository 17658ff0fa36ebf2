"""Reading one field of a part's `tokenizer.json` object, with a one-line error naming the part.

`default=None` makes a field required. Shared by the decoders and the post-processors.
"""
from __future__ import annotations

from typing import Any

from .base import PartReader


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def flag(data: dict[str, Any], key: str, default: bool | None, reader: PartReader, what: str) -> bool:
    """A true/false field."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        reader.fail(what, f"{key!r} must be true or false, not {_kind(value)}")
    return value


def text(data: dict[str, Any], key: str, default: str | None, reader: PartReader, what: str) -> str:
    """A string field."""
    value = data.get(key, default)
    if not isinstance(value, str):
        reader.fail(what, f"{key!r} must be a string, not {_kind(value)}")
    return value


def one_char(data: dict[str, Any], key: str, default: str | None, reader: PartReader, what: str) -> str:
    """A field of exactly one character."""
    value = text(data, key, default, reader, what)
    if len(value) != 1:
        reader.fail(what, f"{key!r} must be one character, not {value!r}")
    return value


def number(data: dict[str, Any], key: str, default: int | None, reader: PartReader, what: str) -> int:
    """A count: an integer, 0 or more."""
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        reader.fail(what, f"{key!r} must be an integer, 0 or more, not {value!r}")
    return value
