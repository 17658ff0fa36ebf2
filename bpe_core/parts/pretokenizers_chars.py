"""The pre-tokenizers that cut by kind of character: whitespace, punctuation, digits, a delimiter,
writing system, or a fixed length (Hugging Face's Whitespace, WhitespaceSplit, BertPreTokenizer,
Punctuation, Digits, CharDelimiterSplit, UnicodeScripts, FixedLength).

tokenizers decides each kind with its own Unicode tables; where Python's differ (punctuation,
scripts), the measured tables of `pretokenizers_tables` stand in.

>>> [p.text for p in BertPreTokenizer().pre_tokenize([Normalized.of("Hi, don't!")])]
['Hi', ',', 'don', "'", 't', '!']
"""
from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from typing import Any

import regex

from .normalized import Normalized
from .pretokenizers_split import BEHAVIORS, behavior_name, char_class, split_piece
from .pretokenizers_tables import PUNCTUATION, SCRIPTS

# tokenizers' Whitespace uses the Rust regex crate, whose \w and \s are Unicode's (UTS #18) as in
# Python's `regex`; its other tests are Rust's char::is_whitespace (White_Space, which is what
# `regex`'s \s is: not U+001C..U+001F, not U+200B) and char::is_numeric (categories Nd, Nl, No).
_WORDS = regex.compile(r"\w+|[^\w\s]+")
_NON_SPACE = regex.compile(r"\S+")
_NUMERIC = regex.compile(r"\p{N}")
_PUNCT = char_class(PUNCTUATION)
_ONE_PUNCT = regex.compile(f"[{_PUNCT}]")
_BERT = regex.compile(rf"[^\s{_PUNCT}]+|[{_PUNCT}]")


def matches_as_pieces(rx: regex.Pattern[str], piece: Normalized) -> list[Normalized]:
    """The matches of `rx` (which has no groups) as pieces; what lies between them is dropped."""
    if piece.spans is None:
        return [Normalized(t, None, at_start=piece.at_start and not k, origin=piece.origin)
                for k, t in enumerate(rx.findall(piece.text))]
    return [piece.slice(*m.span()) for m in rx.finditer(piece.text)]


class Whitespace:
    r"""Runs of word characters and runs of other non-space characters (`\w+|[^\w\s]+`).

    >>> [p.text for p in Whitespace().pre_tokenize([Normalized.of("Hi, don't!")])]
    ['Hi', ',', 'don', "'", 't', '!']
    """

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        return [p for piece in pieces for p in matches_as_pieces(_WORDS, piece)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Whitespace"}


class WhitespaceSplit:
    """Runs of non-whitespace."""

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        return [p for piece in pieces for p in matches_as_pieces(_NON_SPACE, piece)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "WhitespaceSplit"}


class BertPreTokenizer:
    """BERT's: cut at whitespace (dropped) and around each punctuation character (kept alone)."""

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        return [p for piece in pieces for p in matches_as_pieces(_BERT, piece)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "BertPreTokenizer"}


def _behavior(value: str) -> str:
    name = behavior_name(value)
    if name is None:
        raise ValueError(f"behavior must be one of {', '.join(BEHAVIORS)}, not {value!r}")
    return name


class Punctuation:
    """Cut at each punctuation character (BERT's set: ASCII punctuation and symbols, Unicode P*),
    kept as `behavior` says."""

    def __init__(self, *, behavior: str = "Isolated") -> None:
        self.behavior = _behavior(behavior)

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        return [p for piece in pieces for p in split_piece(piece, _ONE_PUNCT, self.behavior)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": self.behavior}


class Digits:
    """Cut around numbers: each digit alone (`individual_digits`) or runs of digits together.

    >>> [p.text for p in Digits().pre_tokenize([Normalized.of("a12b3")])]
    ['a', '12', 'b', '3']
    """

    def __init__(self, *, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        behavior = "Isolated" if self.individual_digits else "Contiguous"
        return [p for piece in pieces for p in split_piece(piece, _NUMERIC, behavior)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class CharDelimiterSplit:
    """Cut at each `delimiter` character, which is dropped."""

    def __init__(self, *, delimiter: str) -> None:
        if len(delimiter) != 1:
            raise ValueError(f"delimiter must be one character, not {delimiter!r}")
        self.delimiter = delimiter
        self._rx = regex.compile(f"[^{regex.escape(delimiter)}]+")

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        return [p for piece in pieces for p in matches_as_pieces(self._rx, piece)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


class _ScriptCodes(dict[int, str]):
    """Code point -> a character standing for its script (NUL: none), for `str.translate`;
    filled in as characters are met."""

    def __init__(self) -> None:
        super().__init__()
        starts: list[tuple[int, int, int]] = []
        for number, ranges in enumerate(SCRIPTS.values(), 1):
            for item in ranges.split():
                lo, _, hi = item.partition("-")
                starts.append((int(lo, 16), int(hi or lo, 16), number))
        starts.sort()
        self._starts = [lo for lo, _, _ in starts]
        self._ranges = starts

    def __missing__(self, code: int) -> str:
        at = bisect_right(self._starts, code) - 1
        found = at >= 0 and code <= self._ranges[at][1]
        self[code] = code_char = chr(self._ranges[at][2]) if found else "\0"
        return code_char


@lru_cache(maxsize=1)
def _script_codes() -> _ScriptCodes:
    return _ScriptCodes()


# In a text spelled in script codes, each stretch from a character of some script over the same
# script and script-less characters: its start is where tokenizers cuts.
_SCRIPT_STRETCH = regex.compile(r"([^\0])(?:\1|\0)*")


class UnicodeScripts:
    """Cut where the writing system changes (Latin, Cyrillic, Han counting kana, Common, ...).

    Characters of no script (space, unassigned and recent ones) join the piece they are in and,
    as in tokenizers, those before the first character of a script are dropped.

    >>> [p.text for p in UnicodeScripts().pre_tokenize([Normalized.of(" Hi мир日本")])]
    ['Hi ', 'мир', '日本']
    """

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        codes = _script_codes()
        out: list[Normalized] = []
        for piece in pieces:
            cuts = [m.start() for m in _SCRIPT_STRETCH.finditer(piece.text.translate(codes))]
            cuts.append(len(piece.text))
            out.extend(piece.slice(a, b) for a, b in zip(cuts, cuts[1:]) if b > a)
        return out

    def to_hf(self) -> dict[str, Any]:
        return {"type": "UnicodeScripts"}


class FixedLength:
    """Pieces of `length` characters (the last one may be shorter)."""

    def __init__(self, *, length: int = 5) -> None:
        if length < 1:
            raise ValueError(f"length must be at least 1, not {length}")
        self.length = length

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        step = self.length
        return [p.slice(a, a + step) for p in pieces for a in range(0, len(p.text), step)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "FixedLength", "length": self.length}
