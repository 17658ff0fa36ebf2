"""GPT-2 vocabulary + merges: a byte-level vocabulary with ids, and the ordered merges.

The pair goes by two sets of names: `vocab.json` + `merges.txt` (as Hugging Face writes
them, also `NAME-vocab.json` + `NAME-merges.txt`) and `encoder.json` + `vocab.bpe` (as GPT-2
published them). The merges file starts with an optional `#version: 0.2` line, then one
`left right` merge a line, rank order. Byte-level tokens never hold a space (a space byte is
written "Ġ"), so one space separates the two sides. The pair carries no settings: it always
means bytes mode with the GPT-2 split pattern and no normalization, so only such tokenizers
are exported this way.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..model import Tokenizer
from ..pretokenize import check_text
from ..settings import Settings
from ._common import (
    fail,
    parse_json,
    read_bytes,
    read_text_file,
    require,
    require_merges_in_vocab,
    require_vocab,
    write_texts,
)

VERSION_LINE = "#version: 0.2"
VOCAB_FILE = "vocab.json"
MERGES_FILE = "merges.txt"
# (vocabulary, merges) file names, in the order they are looked for beside each other.
FILE_PAIRS = ((VOCAB_FILE, MERGES_FILE), ("encoder.json", "vocab.bpe"))


def merges_path_for(vocab_path: Path) -> Path | None:
    """The merges file beside a vocabulary file, or None if there is none.

    `NAME-vocab.json` pairs with `NAME-merges.txt`, `encoder.json` with `vocab.bpe`; otherwise
    `merges.txt`, then `vocab.bpe`, whichever exists.
    """
    return _companion(vocab_path, mine=0)


def vocab_path_for(merges_path: Path) -> Path | None:
    """The vocabulary file beside a merges file (the mirror of `merges_path_for`), or None."""
    return _companion(merges_path, mine=1)


def _companion(path: Path, *, mine: int) -> Path | None:
    other = 1 - mine
    names = [pair[other] for pair in FILE_PAIRS if pair[mine] == path.name]
    for pair in FILE_PAIRS:
        suffix = "-" + pair[mine]
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            names.insert(0, path.name[: -len(pair[mine])] + pair[other])
    names += [pair[other] for pair in FILE_PAIRS]
    for name in dict.fromkeys(names):
        candidate = path.with_name(name)
        if candidate != path and candidate.is_file():
            return candidate
    return None


def companion_names(*, mine: int) -> str:
    """'merges.txt or vocab.bpe' (mine=0) or 'vocab.json or encoder.json' (mine=1), for messages."""
    return " or ".join(pair[1 - mine] for pair in FILE_PAIRS)


def looks_like_merges(text: str) -> bool:
    """Whether text is a merges file: an optional `#version` line, then only `left right` lines."""
    seen = False
    for _, line in _merge_lines(text):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            return False
        seen = True
    return seen


def _merge_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a merges file's rule lines: no `#version` header, no blank lines."""
    # Split on newlines only: str.splitlines() would also break on U+0085, U+2028 and the like.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line and not (number == 1 and line.startswith("#version")):
            yield number, line


def load_gpt2(
    vocab_path: str | os.PathLike[str],
    merges_path: str | os.PathLike[str] | None = None,
    *,
    vocab: Any = None,
) -> Tokenizer:
    """A bytes-mode tokenizer from a GPT-2 vocabulary/merges pair of files, keeping the file's ids.

    `merges_path` defaults to the merges file beside the vocabulary (see `merges_path_for`);
    `vocab` is the vocabulary file already parsed, when the caller has read it.
    """
    vocab_path = Path(vocab_path)
    name = vocab_path.name
    merges_file = Path(merges_path) if merges_path is not None else merges_path_for(vocab_path)
    if merges_file is None:
        fail(
            f"{name} is a GPT-2 vocabulary, but no merges file ({companion_names(mine=0)}) "
            f"is beside it in {vocab_path.parent}; give the merges file's path too"
        )
    if vocab is None:
        vocab = parse_json(read_text_file(vocab_path), name=name)
    merges_text = check_text(read_bytes(merges_file), name=merges_file.name)
    return gpt2_from_data(vocab, merges_text, name=name, merges_name=merges_file.name)


def gpt2_from_data(vocab: Any, merges_text: str, *, name: str, merges_name: str) -> Tokenizer:
    """A bytes-mode tokenizer from a parsed vocabulary and the merges file's text."""
    vocab = require_vocab(vocab, name)
    merges = read_merges(merges_text, name=merges_name)
    require_merges_in_vocab(merges, vocab, name=merges_name, where=name)
    return Tokenizer(
        settings=Settings(mode="bytes", pretokenizer="gpt2"),
        merges=merges,
        vocab=vocab,
        unk_token=None,
        source="gpt2",
    )


def read_merges(text: str, *, name: str = MERGES_FILE) -> list[tuple[str, str]]:
    """Parse merges.txt: an optional `#version` line, then `left right` lines."""
    merges = []
    for number, line in _merge_lines(text):
        parts = line.split(" ")
        require(
            len(parts) == 2 and all(parts),
            f"{name} line {number}: expected 'left right' (two tokens and one space), got {line[:60]!r}",
        )
        merges.append((parts[0], parts[1]))
    return merges


def dumps_gpt2(tok: Tokenizer) -> tuple[str, str]:
    """The texts of vocab.json and merges.txt for a tokenizer the format can hold."""
    _check_exportable(tok)
    vocab = dict(sorted(tok.vocab.items(), key=lambda item: item[1]))
    lines = [VERSION_LINE, *(f"{a} {b}" for a, b in tok.merges)]
    return json.dumps(vocab, ensure_ascii=False) + "\n", "".join(line + "\n" for line in lines)


def save_gpt2(tok: Tokenizer, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write vocab.json and merges.txt into `directory` (created if missing), both or neither
    (`write_texts`: on any failure both old files are left as they were); return both paths."""
    vocab_text, merges_text = dumps_gpt2(tok)
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        fail(f"{directory} is a file; GPT-2 export writes vocab.json and merges.txt into a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create {directory}: {exc.strerror or exc}")
    vocab_path, merges_path = directory / VOCAB_FILE, directory / MERGES_FILE
    write_texts([(vocab_path, vocab_text), (merges_path, merges_text)])
    return vocab_path, merges_path


def _check_exportable(tok: Tokenizer) -> None:
    """GPT-2 files imply bytes mode, the GPT-2 pattern and no normalization: refuse anything else."""
    settings = tok.settings
    if settings.mode != "bytes":
        fail(
            f"GPT-2 files are byte-level; this tokenizer is in {settings.mode} mode "
            "(a Hugging Face tokenizer.json can hold it)"
        )
    if settings.pretokenizer != "gpt2":
        fail(
            f"GPT-2 files imply the gpt2 pre-tokenizer; this tokenizer uses "
            f"{settings.pretokenizer} (a Hugging Face tokenizer.json can record it)"
        )
    if settings.lowercase or settings.normalization != "none":
        fail("GPT-2 files cannot record lowercasing or Unicode normalization (a Hugging Face tokenizer.json can)")
    if tok.table.concat:
        fail("this tokenizer merges by tiktoken ranks, which GPT-2 merge files cannot express")
