"""The built-in tokenizers' disk cache: tables in byte symbols and derived merges, written atomically.

Everything here is a cache: a missing, stale or damaged file gives None (or is derived again) and
a cache that cannot be written only makes the next load slower.
"""
from __future__ import annotations

import hashlib
import os
import sys
from array import array
from collections.abc import Mapping
from pathlib import Path

from .. import atomic
from ..parts.ranks import derive_merges
from ..pretokenize import bytes_to_symbols
from .tiktoken import read_tiktoken_ranks

_MERGES_LAYOUT = "u32le"  # how the merges cache stores ids (see `cached_merges`)


def cache_dir() -> Path:
    """Where rebuilt rank tables are cached: $XDG_CACHE_HOME/bpe-explorer/builtin, else ~/.cache/..."""
    root = os.environ.get("XDG_CACHE_HOME") or ""
    base = Path(root) if os.path.isabs(root) else Path.home() / ".cache"
    return base / "bpe-explorer" / "builtin"


def cached_symbols(name: str, key: str, size: int) -> dict[str, int] | None:
    """The table in byte symbols ({symbols: id}), kept beside the rank table so a load decodes no
    base64: one symbol string a line in id order (no symbol holds a newline), headed by the ranks'
    digest `key` and the digest of the rest. None when missing, stale, damaged or not `size` long."""
    try:
        head, _, body = (cache_dir() / f"{name}.symbols").read_bytes().partition(b"\n")
        if head.decode("ascii") != f"{key} {hashlib.sha256(body).hexdigest()}":
            return None
        symbols = body.decode("utf-8").split("\n")
    except (OSError, ValueError):  # decoding errors are ValueErrors
        return None
    vocab = dict(zip(symbols, range(len(symbols))))
    return vocab if len(vocab) == len(symbols) == size else None


def write_symbols(name: str, key: str, vocab: Mapping[str, int]) -> None:
    """Write `cached_symbols`'s file, when the ids are 0 to n - 1 (they are, for every built-in)."""
    symbols = sorted(vocab, key=vocab.__getitem__)
    if [vocab[t] for t in symbols] != list(range(len(symbols))):
        return
    body = "\n".join(symbols).encode("utf-8")
    head = f"{key} {hashlib.sha256(body).hexdigest()}\n".encode("ascii")
    write_files([(cache_dir() / f"{name}.symbols", head + body)])


def cached_merges(path: Path, key: str, vocab: dict[str, int]) -> list[tuple[str, str]]:
    """The merges `derive_merges` finds for a rank table, kept on disk beside it as token-id pairs.

    The first line is the ranks' digest `key` and the digest of the rest; the rest is the ids,
    left and right of each merge in order, as 32-bit little-endian numbers (read in one call, not
    parsed as text). Any mismatch, or a file in an older layout, re-derives.
    """
    try:
        head, _, body = path.read_bytes().partition(b"\n")
        if head.decode("ascii") == f"{key} {hashlib.sha256(body).hexdigest()} {_MERGES_LAYOUT}":
            ids = array("I")
            ids.frombytes(body)  # a ValueError unless a whole number of ids
            if sys.byteorder == "big":
                ids.byteswap()
            token = dict(zip(vocab.values(), vocab))
            pieces = list(map(token.__getitem__, ids))
            return list(zip(pieces[0::2], pieces[1::2]))
    except (OSError, ValueError, KeyError):
        pass
    merges = derive_merges(vocab)
    ids = array("I", [vocab[t] for pair in merges for t in pair])
    if sys.byteorder == "big":
        ids.byteswap()
    body = ids.tobytes()
    head = f"{key} {hashlib.sha256(body).hexdigest()} {_MERGES_LAYOUT}\n".encode("ascii")
    write_files([(path, head + body)])
    return merges


def write_files(files: list[tuple[Path, bytes]]) -> None:
    """Write the files as one, atomically (`bpe_core.atomic.write_files`: a rank table and its
    sidecar are both new or both old); an unwritable cache is left alone (only slower)."""
    try:
        for path, _ in files:
            path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_files(files)
    except OSError:
        pass


def rank_file_table(name: str, data: bytes, size: int, *, file_name: str) -> tuple[dict[str, int], str]:
    """A `.tiktoken` file's table in byte symbols and the file's sha256 (the key of the caches
    derived from it): from the symbols cache when it is sound, else read from the file."""
    key = hashlib.sha256(data).hexdigest()
    vocab = cached_symbols(name, key, size)
    if vocab is None:
        ranks = read_tiktoken_ranks(data.decode("ascii", errors="replace"), name=file_name)
        vocab = {bytes_to_symbols(token): rank for token, rank in ranks.items()}
        write_symbols(name, key, vocab)
    return vocab, key
