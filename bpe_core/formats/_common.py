"""What every tokenizer reader and writer shares: one-line errors, value checks, file I/O, JSON.

Every reader module imports from here and from nowhere else in this package, so `detect`
can import all the readers at the top without a cycle.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..atomic import write_files
from ..json_limits import load_json
from ..pretokenize import check_text
from ..readers import read_limited, refuse_special
from ..settings import BPEError

# Hugging Face's `tokenizers` keeps ids as unsigned 32-bit numbers and refuses larger ones.
MAX_TOKEN_ID = 2**32 - 1
# The largest tokenizer file read: the largest shipped are a few tens of megabytes.
MAX_FILE_BYTES = 1_000_000_000


def fail(message: str) -> NoReturn:
    raise BPEError(message)


def require(condition: bool, message: str) -> None:
    """Raise a BPEError with `message` unless `condition` holds."""
    if not condition:
        raise BPEError(message)


def require_str(value: Any, what: str) -> str:
    require(isinstance(value, str), f"{what} must be a string, not {kind_of(value)}")
    return value


def require_int(value: Any, what: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    require(ok, f"{what} must be a whole number 0 or more, not {kind_of(value)}")
    return value


def require_id(value: Any, what: str) -> int:
    """A token id: a whole number from 0 to MAX_TOKEN_ID."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_ID
    require(ok, f"{what} must be a whole number from 0 to {MAX_TOKEN_ID:,}, not {kind_of(value)}")
    return value


def require_vocab(raw: Any, what: str) -> dict[str, int]:
    """A {token: id} mapping with whole-number ids (0 to MAX_TOKEN_ID), each used once."""
    require(isinstance(raw, dict) and bool(raw), f"{what} must be a non-empty object mapping tokens to ids")
    owner: dict[int, str] = {}
    for token, token_id in raw.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool) or not 0 <= token_id <= MAX_TOKEN_ID:
            require_id(token_id, f"{what}: the id of {token!r}")
        other = owner.setdefault(token_id, token)
        if other != token:
            fail(f"{what}: id {token_id} is given to both {other!r} and {token!r}")
    return dict(raw)


def require_merges_in_vocab(
    merges: list[tuple[str, str]], vocab: dict[str, int], *, name: str, where: str = "the vocabulary"
) -> None:
    """Each merge's two sides and its result must be tokens, as `tokenizers` also insists."""
    for rank, (a, b) in enumerate(merges):
        for token in (a, b, a + b):
            if token not in vocab:
                fail(f"{name}: merge {rank} ({a!r}, {b!r}) needs {token!r}, which is not in {where}")


def kind_of(value: Any) -> str:
    """A short description of a JSON value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return repr(value)
    names: dict[type, str] = {str: "a string", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


# ---- files ----------------------------------------------------------------------------------


def read_bytes(path: Path) -> bytes:
    """A file's bytes; a missing, unreadable, empty or special file (a FIFO, a device), or one over
    MAX_FILE_BYTES, is a BPEError."""
    refuse_special(str(path))
    try:
        with open(path, "rb") as stream:
            data = read_limited(stream, str(path), MAX_FILE_BYTES, what="the limit for a tokenizer file")
    except FileNotFoundError:
        fail(f"{path} does not exist")
    except IsADirectoryError:
        fail(f"{path} is a directory, not a file")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    if not data:
        fail(f"{path.name} is empty")
    return data


def read_text_file(path: Path) -> str:
    """A file's UTF-8 text; binary or non-UTF-8 files are a BPEError."""
    return check_text(read_bytes(path), name=path.name)


def parse_json(text: str, *, name: str) -> Any:
    """JSON under the limits of `bpe_core.json_limits` (nesting, digits); errors name `name`."""
    try:
        return load_json(text, where=name)
    except json.JSONDecodeError as exc:
        fail(f"{name} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})")


def read_json_file(path: Path) -> Any:
    return parse_json(read_text_file(path), name=path.name)


def dump_json(value: Any, *, indent: str = "") -> str:
    """JSON text a person can read: objects over several lines, each item of a list of lists on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value and (_holds_containers(value.values()) or len(_compact(value)) > 100):
        items = [f"{inner}{_compact(k)}: {dump_json(v, indent=inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and value and all(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(inner + _compact(v) for v in value) + "\n" + indent + "]"
    return _compact(value)


def _holds_containers(values: Any) -> bool:
    return any(isinstance(v, (dict, list)) for v in values)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _compact(value: Any) -> str:
    return _ENCODER.encode(value)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 text atomically (`write_texts`); an unwritable path is a BPEError."""
    write_texts([(path, text)])


def write_texts(files: Sequence[tuple[str | os.PathLike[str], str]]) -> None:
    """Write several UTF-8 files as one (`bpe_core.atomic.write_files`): all new, or on any failure
    all as they were. An OSError (a full disk, a missing folder) is a one-line BPEError naming the file."""
    try:
        write_files([(path, text.encode("utf-8")) for path, text in files])
    except OSError as exc:
        fail(f"cannot write {exc.filename}: {exc.strerror or exc}")
