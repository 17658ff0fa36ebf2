"""GPT-2 `vocab.json` + `merges.txt`: a byte-level vocabulary with ids and the ordered merges.

`merges.txt` starts with a `#version: 0.2` line, then one `left right` merge a line, rank
order. Byte-level tokens never hold a space (a space byte is written "Ġ"), so one space
separates the two sides. The pair carries no settings: it always means bytes mode with the
GPT-2 split pattern and no normalization, so only such tokenizers are exported this way.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..model import Tokenizer
from ..settings import Settings
from .detect import (
    fail,
    read_json_file,
    read_text_file,
    require,
    require_merges_in_vocab,
    require_vocab,
    write_text,
)

VERSION_LINE = "#version: 0.2"
VOCAB_FILE = "vocab.json"
MERGES_FILE = "merges.txt"


def merges_path_for(vocab_path: Path) -> Path:
    """The merges file beside a vocab file: `merges.txt`, or `NAME-merges.txt` for `NAME-vocab.json`."""
    stem = vocab_path.name
    if stem.endswith("-" + VOCAB_FILE):
        prefixed = vocab_path.with_name(stem[: -len(VOCAB_FILE)] + MERGES_FILE)
        if prefixed.exists():
            return prefixed
    return vocab_path.with_name(MERGES_FILE)


def load_gpt2(
    vocab_path: str | os.PathLike[str],
    merges_path: str | os.PathLike[str] | None = None,
    *,
    vocab: Any = None,
) -> Tokenizer:
    """A bytes-mode tokenizer from a GPT-2 vocab/merges pair, keeping the file's ids.

    `merges_path` defaults to the merges file beside the vocab; `vocab` is the vocab file
    already parsed, when the caller has read it.
    """
    vocab_path = Path(vocab_path)
    name = vocab_path.name
    merges_file = Path(merges_path) if merges_path is not None else merges_path_for(vocab_path)
    if not merges_file.is_file():
        fail(f"{name} looks like a GPT-2 vocabulary, but {merges_file.name} is not beside it ({merges_file})")
    if vocab is None:
        vocab = read_json_file(vocab_path)
    vocab = require_vocab(vocab, name)
    merges = read_merges(read_text_file(merges_file), name=merges_file.name)
    require_merges_in_vocab(merges, vocab, name=merges_file.name, where=name)
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
    # Split on newlines only: str.splitlines() would also break on U+0085, U+2028 and the like.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if number == 1 and line.startswith("#version"):
            continue
        if not line:
            continue
        parts = line.split(" ")
        require(
            len(parts) == 2 and all(parts),
            f"{name} line {number}: expected 'left right' (two tokens and one space), got {line[:60]!r}",
        )
        merges.append((parts[0], parts[1]))
    return merges


def save_gpt2(tok: Tokenizer, directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write vocab.json and merges.txt into `directory` (created if missing); return both paths."""
    _check_exportable(tok)
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        fail(f"{directory} is a file; GPT-2 export writes vocab.json and merges.txt into a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create {directory}: {exc.strerror or exc}")
    vocab = dict(sorted(tok.vocab.items(), key=lambda item: item[1]))
    vocab_path, merges_path = directory / VOCAB_FILE, directory / MERGES_FILE
    write_text(vocab_path, json.dumps(vocab, ensure_ascii=False) + "\n")
    lines = [VERSION_LINE, *(f"{a} {b}" for a, b in tok.merges)]
    write_text(merges_path, "".join(line + "\n" for line in lines))
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
