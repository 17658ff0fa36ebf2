"""Reading tokenizer files: which format a file is in, and the checks every reader shares.

`load_any` knows our model JSON, Hugging Face `tokenizer.json`, GPT-2 `vocab.json` (with the
`merges.txt` beside it) and tiktoken rank files. Whatever is wrong with a file becomes one
`BPEError` line that names the file, never a traceback.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..pretokenize import check_text
from ..settings import BPEError

if TYPE_CHECKING:
    from ..model import Tokenizer

_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/]+=*[ \t]+[0-9]+\r?\n?")
_KNOWN = "our model JSON, a Hugging Face tokenizer.json, a GPT-2 vocab.json or a .tiktoken file"


def load_any(path: str | os.PathLike[str]) -> Tokenizer:
    """Load a tokenizer from any file (or directory) this package reads, detecting its format."""
    path = Path(path)
    if path.is_dir():
        return _load_directory(path)
    data = read_bytes(path)
    if path.suffix == ".tiktoken" or _TIKTOKEN_LINE.fullmatch(data.split(b"\n", 1)[0] + b"\n"):
        return _load_tiktoken(path, data)
    text = check_text(data, name=path.name)
    if not text.strip():
        fail(f"{path.name} holds only whitespace, not a tokenizer")
    if text.lstrip().startswith("#version"):
        fail(f"{path.name} is a GPT-2 merges file; load the vocab.json beside it instead")
    if not text.lstrip().startswith(("{", "[")):
        fail(f"{path.name} is not a tokenizer file this tool reads (expected {_KNOWN})")
    return _load_json(path, parse_json(text, name=path.name))


def _load_json(path: Path, data: Any) -> Tokenizer:
    from . import gpt2, huggingface, ours

    name = path.name
    if not isinstance(data, dict) or not data:
        fail(f"{name} is JSON but not a tokenizer (expected {_KNOWN})")
    if "format" in data:
        return ours.from_json_dict(data, name=name)
    if "model" in data:
        return huggingface.from_hf_dict(data, name=name)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
        return gpt2.load_gpt2(path, vocab=data)
    fail(f"{name} is JSON but not a tokenizer (expected {_KNOWN})")


def _load_directory(path: Path) -> Tokenizer:
    """A directory holding tokenizer.json, or vocab.json with merges.txt (as exports write)."""
    for candidate in ("tokenizer.json", "vocab.json"):
        if (path / candidate).is_file():
            return load_any(path / candidate)
    fail(f"{path.name}/ is a directory without tokenizer.json or vocab.json")


def _load_tiktoken(path: Path, data: bytes) -> Tokenizer:
    from .tiktoken import read_tiktoken_ranks, tokenizer_from_ranks

    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        fail(f"{path.name} is not a tiktoken rank file (it is not ASCII text)")
    return tokenizer_from_ranks(read_tiktoken_ranks(text, name=path.name))


# ---- shared checks --------------------------------------------------------------------------


def fail(message: str) -> NoReturn:
    raise BPEError(message)


def require(condition: bool, message: str) -> None:
    """Raise a BPEError with `message` unless `condition` holds."""
    if not condition:
        raise BPEError(message)


def require_str(value: Any, what: str) -> str:
    require(isinstance(value, str), f"{what} must be a string, not {_kind(value)}")
    return value


def require_int(value: Any, what: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    require(ok, f"{what} must be a whole number 0 or more, not {_kind(value)}")
    return value


def require_vocab(raw: Any, what: str) -> dict[str, int]:
    """A {token: id} mapping with whole-number ids, each used once."""
    require(isinstance(raw, dict) and raw, f"{what} must be a non-empty object mapping tokens to ids")
    owner: dict[int, str] = {}
    for token, token_id in raw.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
            require_int(token_id, f"{what}: the id of {token!r}")
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


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return repr(value)
    return {str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


# ---- files ----------------------------------------------------------------------------------


def read_bytes(path: Path) -> bytes:
    """A file's bytes; a missing, unreadable or empty file is a BPEError."""
    try:
        data = path.read_bytes()
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
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{name} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})")
    except RecursionError:
        fail(f"{name} is not a tokenizer (its JSON is nested too deeply)")


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
    """Write UTF-8 text; an unwritable path is a BPEError."""
    path = Path(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
