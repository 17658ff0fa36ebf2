"""Which format a tokenizer file is in, judged by its whole structure, and the reader for it.

A name can mislead (any JSON may be called vocab.json; GPT-2's vocabulary has tokens named
"format" and "model"), so detection looks at what the data is:

- our model JSON: an object whose "format" is "bpe-explorer";
- a Hugging Face `tokenizer.json`: an object whose "model" is an object;
- a GPT-2 vocabulary (`vocab.json`, `encoder.json`): an object mapping strings to whole numbers;
- a GPT-2 merges file (`merges.txt`, `vocab.bpe`): an optional `#version` line, then only lines
  of two space-separated symbols;
- a tiktoken rank file: lines of `base64 rank` (or any file named `.tiktoken`);
- a SentencePiece `.model`: a protobuf whose first field is a piece;
- a Tekken JSON (Mistral's): an object with a `config` holding the pattern and a rank `vocab`.

Anything else is named for what it is (binary, plain text, other JSON) in one `BPEError` line.
`load_bytes` reads a tokenizer from memory (an upload); `load_any` from a path, finding a GPT-2
file's companion beside it, or a built-in tokenizer by its name. Both give a merge-list
`Tokenizer` where it expresses the file exactly, and otherwise a tokenizer of parts
(`parts.PartsTokenizer`: any `tokenizer.json`, SentencePiece, Tekken, a rank file with its own
pattern); our JSON of another family (its "model", see `ours.json_family`) they name for what it
is, and `load_model` reads it with that family's reader.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..collector import collector_paused
from ..model import Tokenizer
from ..pretokenize import check_text
from ..settings import BPEError
from ._common import fail, parse_json, read_bytes
from .builtin import builtin_names, is_builtin, load_builtin
from .gpt2 import companion_names, gpt2_from_data, looks_like_merges, merges_path_for, vocab_path_for
from .huggingface import from_hf_dict
from .ours import family_from_json, from_json_dict, json_family
from .tiktoken import read_tiktoken_ranks, tokenizer_from_ranks

if TYPE_CHECKING:
    from ..parts.pipeline import PartsTokenizer
    from ..tokenizer_model import TokenizerModel

Format = Literal["bpe-explorer", "huggingface", "gpt2-vocab", "gpt2-merges", "tiktoken", "sentencepiece", "tekken"]
OURS: Format = "bpe-explorer"
HUGGING_FACE: Format = "huggingface"
GPT2_VOCAB: Format = "gpt2-vocab"
GPT2_MERGES: Format = "gpt2-merges"
TIKTOKEN: Format = "tiktoken"
SENTENCEPIECE: Format = "sentencepiece"
TEKKEN: Format = "tekken"

_TIKTOKEN_LINE = re.compile(r"[A-Za-z0-9+/]+=*[ \t]+-?[0-9]+")
# Top-level keys only a Hugging Face tokenizer.json has, besides "model".
_HF_KEYS = frozenset({"added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder", "truncation"})
KNOWN = (
    "our model JSON, a Hugging Face tokenizer.json, a GPT-2 vocabulary with its merges file, "
    "a .tiktoken file, a SentencePiece .model or a Tekken JSON"
)


@dataclass(frozen=True)
class _Sniffed:
    """A file's detected format with what detection already decoded (text, parsed JSON)."""

    kind: Format
    name: str
    text: str
    parsed: Any = None
    data: bytes = b""


def detect_format(name: str, data: bytes) -> Format:
    """The tokenizer format of a file's bytes; a BPEError saying what the file is if it is none.

    >>> detect_format("vocab.json", b'{"format": 0, "model": 1, "a": 2}')
    'gpt2-vocab'
    >>> detect_format("notes.txt", b"#version: 0.2\\nh e\\nhe llo\\n")
    'gpt2-merges'
    """
    return _sniff(name, data).kind


def detect_and_parse(name: str, data: bytes) -> tuple[Format, Any]:
    """`detect_format`, with the JSON value detection parsed (None for a file that is not JSON), so
    that a caller reading our JSON need not parse a file of megabytes a second time."""
    sniffed = _sniff(name, data)
    return sniffed.kind, sniffed.parsed


def load_bytes(
    name: str, data: bytes, *, merges: tuple[str, bytes] | None = None, pattern: str | None = None
) -> Tokenizer | PartsTokenizer:
    """A tokenizer from a file's bytes (an upload), its format detected; `name` is only for messages.

    A GPT-2 vocabulary needs its merges file: pass it as `merges=(name, data)`. The two may be
    given either way round. `pattern` is the split regex for a `.tiktoken` file, which holds
    none (GPT-4's by default).
    """
    sniffed = _sniff(name, data)
    companion = _sniff(*merges) if merges is not None else None
    if companion is not None and sniffed.kind == GPT2_MERGES and companion.kind == GPT2_VOCAB:
        sniffed, companion = companion, sniffed
    if companion is not None:
        if sniffed.kind != GPT2_VOCAB:
            fail(f"{companion.name} was given as a merges file, but {name} is {_described(sniffed.kind)}")
        if companion.kind != GPT2_MERGES:
            fail(f"{companion.name} is {_described(companion.kind)}, not the merges file {name} needs")
        return gpt2_from_data(sniffed.parsed, companion.text, name=sniffed.name, merges_name=companion.name)
    if sniffed.kind == GPT2_VOCAB:
        fail(f"{name} is a GPT-2 vocabulary; it needs its merges file ({companion_names(mine=0)}) too")
    if sniffed.kind == GPT2_MERGES:
        fail(f"{name} is a GPT-2 merges file; it needs its vocabulary ({companion_names(mine=1)}) too")
    return _read(sniffed, pattern=pattern)


def load_any(
    path: str | os.PathLike[str], *, merges: str | os.PathLike[str] | None = None, pattern: str | None = None
) -> Tokenizer | PartsTokenizer:
    """Load a tokenizer from a file or directory in any format this package reads.

    A GPT-2 vocabulary's merges file is `merges` if given, else the one beside it (and a merges
    file finds its vocabulary beside it): see `gpt2.merges_path_for`. A built-in's name
    ("o200k_base", see `builtin.builtin_names`) loads that tokenizer when no file has that name.
    Our JSON of another family is refused with a line naming it (see `load_model`).
    """
    return _load(path, merges=merges, families=False, pattern=pattern)  # type: ignore[return-value]


def load_model(
    path: str | os.PathLike[str], *, merges: str | os.PathLike[str] | None = None, pattern: str | None = None
) -> TokenizerModel:
    """As `load_any`, and our JSON of any family gives that family's model."""
    return _load(path, merges=merges, families=True, pattern=pattern)


def _load(
    path: str | os.PathLike[str], *, merges: str | os.PathLike[str] | None, families: bool, pattern: str | None
) -> TokenizerModel:
    given = os.fspath(path)
    missing = not os.path.exists(given)
    if missing and is_builtin(given):
        if merges is not None:
            fail(f"{given} is a built-in tokenizer: it takes no merges file (that goes with a GPT-2 vocab.json)")
        if pattern is not None:
            fail(f"{given} is a built-in tokenizer with its own split pattern: a pattern is for a .tiktoken "
                 "file, which holds none")
        return load_builtin(given)
    bare = os.sep not in given and "/" not in given and not os.path.splitext(given)[1]  # a name, not a path
    if missing and merges is None and bare:
        fail(f"{given} is neither a file nor a built-in tokenizer ({', '.join(builtin_names(parts=True))})")
    path = Path(path)
    if path.is_dir():
        return _load_directory(path, merges)
    data = read_bytes(path)
    if merges is not None:
        merges_path = Path(merges)
        return load_bytes(path.name, data, merges=(merges_path.name, read_bytes(merges_path)))
    sniffed = _sniff(path.name, data)
    if sniffed.kind == GPT2_VOCAB:
        found = merges_path_for(path)
        if found is None:
            fail(
                f"{path.name} is a GPT-2 vocabulary, but no merges file ({companion_names(mine=0)}) "
                f"is beside it in {path.parent}; give the merges file's path too"
            )
        merges_text = check_text(read_bytes(found), name=found.name)
        return gpt2_from_data(sniffed.parsed, merges_text, name=path.name, merges_name=found.name)
    if families and sniffed.kind == OURS:
        chosen = json_family(sniffed.parsed, name=sniffed.name)
        if chosen.model_class is not Tokenizer:
            return family_from_json(sniffed.parsed, chosen, name=sniffed.name)
    if sniffed.kind == GPT2_MERGES:
        found = vocab_path_for(path)
        if found is None:
            fail(
                f"{path.name} is a GPT-2 merges file, but no vocabulary ({companion_names(mine=1)}) "
                f"is beside it in {path.parent}; load the vocabulary with this as its merges file"
            )
        return load_bytes(found.name, read_bytes(found), merges=(path.name, data))
    return _read(sniffed, pattern=pattern)


def _load_directory(path: Path, merges: str | os.PathLike[str] | None) -> Tokenizer | PartsTokenizer:
    """A directory holding tokenizer.json, or a GPT-2 vocabulary with its merges (as exports write)."""
    for candidate in ("tokenizer.json", "vocab.json", "encoder.json"):
        if (path / candidate).is_file():
            return load_any(path / candidate, merges=merges)
    fail(f"{path.name}/ is a directory without tokenizer.json, vocab.json or encoder.json")


def _read(sniffed: _Sniffed, *, pattern: str | None = None) -> Tokenizer | PartsTokenizer:
    """Read a file detected as one of the single-file formats (`pattern`: a rank file's split)."""
    if sniffed.kind == OURS:
        chosen = json_family(sniffed.parsed, name=sniffed.name)
        if chosen.model_class is not Tokenizer:
            fail(
                f"{sniffed.name} is our {chosen.title} model, not a BPE tokenizer; only "
                "the command line (python -m bpe_core encode, decode, trace, export) reads it so far"
            )
        return from_json_dict(sniffed.parsed, name=sniffed.name)
    if sniffed.kind == HUGGING_FACE:
        return _read_hf(sniffed.parsed, sniffed.name)
    if sniffed.kind == SENTENCEPIECE:
        from .sentencepiece import sentencepiece_from_bytes

        return sentencepiece_from_bytes(sniffed.data, name=sniffed.name)
    if sniffed.kind == TEKKEN:
        from .tekken import tekken_from_dict

        return tekken_from_dict(sniffed.parsed, name=sniffed.name)
    assert sniffed.kind == TIKTOKEN, sniffed.kind
    ranks = read_tiktoken_ranks(sniffed.text, name=sniffed.name)
    if pattern is not None:
        from .tiktoken import parts_from_ranks

        return parts_from_ranks(ranks, pattern=pattern, name=sniffed.name)
    return tokenizer_from_ranks(ranks)


def _read_hf(data: Any, name: str) -> Tokenizer | PartsTokenizer:
    """A `tokenizer.json`: the merge-list `Tokenizer` when the file is one of the shapes it reads
    exactly (our exports, plain byte-level or suffix BPE without added tokens), else parts.

    The merge-list tokenizer carries the merge views (trees, steps) the explorer draws; a
    tokenizer of parts reads every other file, added tokens cut out as `tokenizers` does.
    """
    if isinstance(data, dict) and not data.get("added_tokens") and not data.get("post_processor"):
        try:
            return from_hf_dict(data, name=name)
        except BPEError:
            pass
    from ..parts.hf_parts import read_hf_tokenizer

    return read_hf_tokenizer(data, name=name)


# ---- detection ------------------------------------------------------------------------------


def _sniff(name: str, data: bytes) -> _Sniffed:
    if not data:
        fail(f"{name} is empty")
    if _looks_like_sentencepiece(data):
        return _Sniffed(SENTENCEPIECE, name, "", data=data)
    if b"\x00" in data:
        fail(f"{name} looks like a binary file (it contains NUL bytes), not a tokenizer")
    if name.endswith(".tiktoken"):
        try:
            return _Sniffed(TIKTOKEN, name, data.decode("ascii"))
        except UnicodeDecodeError:
            fail(f"{name} is not a tiktoken rank file (it is not ASCII text)")
    text = check_text(data, name=name)
    stripped = text.strip()
    if not stripped:
        fail(f"{name} holds only whitespace, not a tokenizer")
    if stripped.isascii() and _TIKTOKEN_LINE.fullmatch(stripped.split("\n", 1)[0].strip()):
        return _Sniffed(TIKTOKEN, name, text)
    if stripped.startswith(("{", "[")):
        with collector_paused():  # a tokenizer file's tens of thousands of lists and strings, none of them garbage
            parsed = parse_json(text, name=name)
        return _Sniffed(_json_kind(parsed, name), name, text, parsed)
    if looks_like_merges(text):
        return _Sniffed(GPT2_MERGES, name, text)
    fail(f"{name} is plain text, not a tokenizer file (expected {KNOWN})")


def _json_kind(data: Any, name: str) -> Format:
    """Which tokenizer a parsed JSON value is, by its structure rather than by any one key."""
    if isinstance(data, dict) and data:
        values = list(data.values())
        if all(type(v) is int for v in values):
            return GPT2_VOCAB
        if isinstance(data.get("format"), str):
            return OURS  # our reader names a "format" other than FORMAT in its message
        if isinstance(data.get("model"), dict) or ("model" in data and _HF_KEYS & data.keys()):
            return HUGGING_FACE
        from .tekken import looks_like_tekken

        if looks_like_tekken(data):
            return TEKKEN
        scalars = not any(isinstance(v, (dict, list)) for v in values)
        if scalars and sum(type(v) is int for v in values) * 10 >= len(values) * 9:
            return GPT2_VOCAB  # nearly all ids: a vocabulary with a few bad entries, reported as such
    fail(f"{name} is JSON but not a tokenizer (expected {KNOWN})")


def _described(kind: Format) -> str:
    return {
        OURS: "our model JSON",
        HUGGING_FACE: "a Hugging Face tokenizer.json",
        GPT2_VOCAB: "a GPT-2 vocabulary",
        GPT2_MERGES: "a GPT-2 merges file",
        TIKTOKEN: "a tiktoken rank file",
        SENTENCEPIECE: "a SentencePiece model",
        TEKKEN: "a Tekken tokenizer",
    }[kind]


def _looks_like_sentencepiece(data: bytes) -> bool:
    """A SentencePiece `.model` is a protobuf whose first field is a piece: tag 1 (bytes 0x0A),
    a length, and inside it the piece's own field 1 (0x0A again) with its text's length."""
    if len(data) < 4 or data[0] != 0x0A:
        return False
    at = 1
    length = 0
    for shift in range(0, 35, 7):  # the message's length, a varint
        if at >= len(data):
            return False
        byte = data[at]
        at += 1
        length |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
    else:
        return False
    return 2 <= length <= len(data) - at and data[at] == 0x0A and data[at + 1] < length
