"""Mistral's Tekken JSON (`tekken_240911.json`): tiktoken ranks behind a block of special tokens.

The file holds a `config` (the split `pattern`, `default_vocab_size` counting the special
tokens, `default_num_special_tokens`, a `version` such as "v3"), a `vocab` list of
{rank, token_bytes (base64), token_str} in rank order, and from v7 on a `special_tokens` list
of {rank, token_str, is_control}; image and audio settings beside them are no tokenizer's
business here and are left alone. mistral-common's Tekkenizer numbers the special tokens
0 to n - 1, fills the ones a file leaves out as "<SPECIAL_{id}>", keeps the first
`default_vocab_size - n` ranks and numbers rank r as id r + n. It encodes "<s>" in the text as
text (its special tokens are never cut out of the input) and drops special tokens when decoding.
"""
from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..parts.added import AddedToken
from ..parts.ranks import MergesOf, Ranks
from ..pretokenize import bytes_to_symbols
from ._common import fail, kind_of
from .tiktoken import rank_pipeline
from .tiktoken_pattern import check_pattern

if TYPE_CHECKING:
    from ..parts.pipeline import PartsTokenizer

# The special tokens of files from before v7, which list none (mistral-common's defaults).
LEGACY_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)
FILLER = "<SPECIAL_{id}>"
# Mistral's files reserve 1,000 special ids; every one a file reserves is a token made here (a filler
# when it is not listed), so a crafted count of 10**12 would fill memory before anything else is checked.
MAX_SPECIALS = 100_000
_VERSION = re.compile(r"v([0-9]{1,4})")


@dataclass(frozen=True)
class TekkenConfig:
    """What a Tekken file says besides its ranks: the pattern, the sizes, the special tokens by id."""

    pattern: str
    vocab_size: int  # special tokens included, as `default_vocab_size` counts them
    version: str
    specials: tuple[str, ...]  # by id, fillers included

    @property
    def ranks_kept(self) -> int:
        """How many ranks the tokenizer uses: the first `vocab_size - len(specials)`."""
        return self.vocab_size - len(self.specials)


def looks_like_tekken(parsed: object) -> bool:
    """Whether parsed JSON is a Tekken file: a `config` object beside a `vocab` list.

    (A `tokenizer.json` has a "model"; a GPT-2 vocabulary maps strings to numbers.)

    >>> looks_like_tekken({"config": {"pattern": "."}, "vocab": []}), looks_like_tekken({"model": {}})
    (True, False)
    """
    return isinstance(parsed, dict) and isinstance(parsed.get("config"), dict) and isinstance(parsed.get("vocab"), list)


def read_tekken_config(data: object, *, name: str = "tekken.json") -> TekkenConfig:
    """The config and special tokens of a parsed Tekken file; a one-line BPEError for what is wrong."""
    if not looks_like_tekken(data):
        fail(f"{name} is not a Tekken file: it needs a 'config' object and a 'vocab' list")
    assert isinstance(data, dict)
    config = data["config"]
    for key in ("pattern", "version", "default_vocab_size", "default_num_special_tokens"):
        if key not in config:
            fail(f"{name}: config: '{key}' is missing")
    pattern = config.get("pattern")
    if not isinstance(pattern, str):
        fail(f"{name}: config: 'pattern' must be the split pattern (a string), not {kind_of(pattern)}")
    check_pattern(pattern, name=f"{name}: config")
    version = config.get("version")
    found = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if found is None:
        fail(f"{name}: config: 'version' must be a string such as \"v3\", not {kind_of(version)}")
    count = _whole(config.get("default_num_special_tokens"), f"{name}: config: 'default_num_special_tokens'")
    if count > MAX_SPECIALS:
        fail(f"{name}: config: 'default_num_special_tokens' is {count:,}; a Tekken file reserves at most "
             f"{MAX_SPECIALS:,} special ids here (Mistral's reserve 1,000)")
    size = _whole(config.get("default_vocab_size"), f"{name}: config: 'default_vocab_size'")
    specials = _specials(data.get("special_tokens"), count, int(found.group(1)), name)
    vocab = data["vocab"]
    if not count < size <= len(vocab) + count:
        fail(
            f"{name}: config: 'default_vocab_size' {size:,} must exceed the {count:,} special tokens and be at "
            f"most those plus the {len(vocab):,} vocab entries"
        )
    return TekkenConfig(pattern, size, version, specials)


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        fail(f"{what} must be a whole number 0 or more, not {kind_of(value)}")
    return value


def _specials(raw: Any, count: int, version: int, name: str) -> tuple[str, ...]:
    """The special tokens by id: the file's (or the legacy ones), then fillers up to `count`."""
    if raw is None:
        if version > 7:
            fail(f"{name}: a Tekken file of version v{version} must list its 'special_tokens'")
        listed = list(LEGACY_SPECIALS)
    elif not isinstance(raw, list):
        fail(f"{name}: 'special_tokens' must be a list, not {kind_of(raw)}")
    else:
        listed = []
        for i, entry in enumerate(raw):
            text = entry.get("token_str") if isinstance(entry, dict) else None
            if not isinstance(text, str) or not text:
                fail(f"{name}: special token {i} needs a non-empty string 'token_str'")
            rank = entry.get("rank")
            if rank != i or isinstance(rank, bool):
                fail(f"{name}: special token {text!r} has rank {rank!r}; the list gives ranks 0, 1, 2, ... in order")
            listed.append(text)
    if len(listed) > count:
        fail(f"{name}: {len(listed):,} special tokens are listed but config says there are {count:,}")
    if len(set(listed)) != len(listed):
        twice = next(t for t in listed if listed.count(t) > 1)
        fail(f"{name}: the special token {twice!r} is listed twice")
    fillers = [FILLER.format(id=i) for i in range(len(listed), count)]
    clash = set(fillers) & set(listed)
    if clash:
        fail(f"{name}: the special token {min(clash)!r} is also the name of a filler mistral-common adds")
    return (*listed, *fillers)


def read_tekken_ranks(data: dict[str, Any], config: TekkenConfig, *, name: str = "tekken.json") -> dict[bytes, int]:
    """The ranks the tokenizer keeps, {token bytes: rank}, each entry checked (rank = its index,
    the first 256 the single bytes in order, no token twice)."""
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(data["vocab"][: config.ranks_kept]):
        if not isinstance(entry, dict) or entry.get("rank") != i or isinstance(entry.get("rank"), bool):
            found = entry.get("rank") if isinstance(entry, dict) else entry
            fail(f"{name}: vocab entry {i} must be an object with rank {i}, not {kind_of(found)}")
        raw = entry.get("token_bytes")
        try:
            token = base64.b64decode(raw, validate=True) if isinstance(raw, str) else None
        except (binascii.Error, ValueError):
            token = None
        if not token:
            fail(f"{name}: vocab entry {i}: 'token_bytes' must be the token's bytes in base64, not {kind_of(raw)}")
        if i < 256 and token != bytes([i]):
            fail(f"{name}: vocab entry {i} must be the single byte {i:#04x}, not {token!r}")
        if ranks.setdefault(token, i) != i:
            fail(f"{name}: vocab entry {i}: token {token!r} already has rank {ranks[token]}")
    return ranks


def tekken_from_dict(
    data: object,
    *,
    name: str = "tekken.json",
    symbols: Mapping[str, int] | None = None,
    merges: MergesOf | None = None,
) -> PartsTokenizer:
    """A parsed Tekken file as a tokenizer of parts with mistral-common's ids.

    `symbols` is the kept ranks already in byte characters ({token: rank}, the built-in's disk
    cache), which skips decoding the vocab; `merges` computes the merge list (see `Ranks`).
    """
    config = read_tekken_config(data, name=name)
    assert isinstance(data, dict)
    if symbols is None:
        ranks = read_tekken_ranks(data, config, name=name)
        symbols = {bytes_to_symbols(t): r for t, r in ranks.items()}
    offset = len(config.specials)
    model = Ranks(symbols, offset=offset, size=config.ranks_kept, merges=merges, reserved=config.specials)
    # Never cut out of the text (split_added=False), so matching options do not matter; normalized=False
    # is what a tokenizer.json written from this one should say of them.
    added = [AddedToken(text, i, special=True, normalized=False) for i, text in enumerate(config.specials)]
    return rank_pipeline(
        model, pattern=config.pattern, name=name, added_tokens=added, split_added=False, source="tekken"
    )
