"""Cut points where segmentations disagree, and tokens shown as a person should see them.

A *cut* is a character offset in the input text where one token ends or another starts.
Byte-level tokens can split a multi-byte character; such a cut counts at that character's start
offset (the engine's spans already give both halves the whole character), and the characters
split this way are reported apart, so "cut before 日" and "cut inside 日" differ.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Encoding, Tokenizer
from ..pretokenize import char_to_byte
from ..settings import BPEError

_SHOWN_WHITESPACE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}

# ---- comparing segmentations ----------------------------------------------------------------


def boundaries(encoding: Encoding) -> set[int]:
    """Character offsets where tokens start or end; a cut inside a character counts at its start.

    >>> boundaries(Encoding(["lo", "w"], [0, 1], [(0, 2), (2, 3)]))
    {0, 2, 3}
    """
    cuts: set[int] = set()
    prev_end: int | None = None
    for start, end in encoding.spans:
        # Spans overlap only where byte-level tokens share a split character; its end is no cut.
        if prev_end is not None and start >= prev_end:
            cuts.add(prev_end)
        cuts.add(start)
        prev_end = end
    if prev_end is not None:
        cuts.add(prev_end)
    return cuts


def split_characters(encoding: Encoding) -> set[int]:
    """Offsets of the characters that byte-level tokens cut inside (neighbouring spans overlap)."""
    out: set[int] = set()
    for (_, prev_end), (start, _) in zip(encoding.spans, encoding.spans[1:]):
        if start < prev_end:
            out.add(start)
    return out


@dataclass(frozen=True)
class ComparedToken:
    """One token of one column: its text, id, input span, and whether a disputed place touches it."""

    token: str
    id: int
    start: int
    end: int
    disputed: bool


@dataclass(frozen=True)
class Column:
    """One tokenizer's segmentation of the text, with its cut points and summary counts."""

    tokens: tuple[ComparedToken, ...]
    cuts: frozenset[int]
    split_chars: frozenset[int]
    chars_per_token: float  # characters of the whole text per token (0.0 for no tokens)
    unshared_cuts: int  # this column's cuts (and split characters) that some other column lacks

    @property
    def token_count(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class Comparison:
    """Several segmentations of one text and the places where their token boundaries disagree."""

    text: str
    columns: tuple[Column, ...]
    disputed_cuts: frozenset[int]  # offsets that are a cut in some columns and not in others
    disputed_chars: frozenset[int]  # characters that some columns split inside and others do not

    @property
    def disagreements(self) -> int:
        """How many places disagree: disputed cuts plus disputed characters."""
        return len(self.disputed_cuts) + len(self.disputed_chars)


def compare_segmentations(
    text: str, encodings: Sequence[Encoding], *, ignore_whitespace: bool = False
) -> Comparison:
    """Line up several encodings of `text` and flag each token that a disputed cut touches.

    A token is disputed when a disputed cut lies within its span, edges included, or it covers
    a disputed character. With `ignore_whitespace`, every cut at the edge of or inside a run of
    whitespace counts at the run's start, so "where does the space go" (word mode drops it,
    byte-level tokens carry it in front) is not reported as a disagreement.
    """
    n = len(text)
    for index, encoding in enumerate(encodings):
        if any(not 0 <= s <= e <= n for s, e in encoding.spans):
            raise BPEError(
                f"encoding {index + 1} has spans outside the text: encode this same text with each tokenizer"
            )
    snap = _whitespace_snap(text) if ignore_whitespace else list(range(n + 1))
    cut_sets = [frozenset(snap[c] for c in boundaries(e)) for e in encodings]
    split_sets = [
        frozenset(c for c in split_characters(e) if not (ignore_whitespace and text[c].isspace()))
        for e in encodings
    ]
    disputed_cuts = _disputed(cut_sets)
    disputed_chars = _disputed(split_sets)
    cut_list, char_list = sorted(disputed_cuts), sorted(disputed_chars)

    columns = []
    for encoding, cuts, splits in zip(encodings, cut_sets, split_sets):
        tokens = tuple(
            ComparedToken(
                token,
                token_id,
                s,
                e,
                _any_between(cut_list, snap[s], snap[e]) or _any_between(char_list, s, e - 1),
            )
            for token, token_id, (s, e) in zip(encoding.tokens, encoding.ids, encoding.spans)
        )
        columns.append(
            Column(
                tokens=tokens,
                cuts=cuts,
                split_chars=splits,
                chars_per_token=n / len(tokens) if tokens else 0.0,
                unshared_cuts=len(cuts & disputed_cuts) + len(splits & disputed_chars),
            )
        )
    return Comparison(text, tuple(columns), disputed_cuts, disputed_chars)


def _disputed(sets: Sequence[frozenset[int]]) -> frozenset[int]:
    """Members of some sets but not of all."""
    if not sets:
        return frozenset()
    return frozenset.union(*sets) - frozenset.intersection(*sets)


def _any_between(sorted_values: list[int], low: int, high: int) -> bool:
    """Whether some value v has low <= v <= high."""
    return low <= high and bisect_right(sorted_values, high) > bisect_left(sorted_values, low)


def _whitespace_snap(text: str) -> list[int]:
    """For each offset 0..len(text), the start of the whitespace run it touches, else itself."""
    snap = list(range(len(text) + 1))
    i = 0
    while i < len(text):
        if text[i].isspace():
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            for c in range(i, j + 1):
                snap[c] = i
            i = j
        else:
            i += 1
    return snap


# ---- showing tokens --------------------------------------------------------------------------


def display_token(tokenizer: Tokenizer, token: str, *, as_bytes: bool = False) -> str:
    """What a person should see for a token: its text, with hex like `<e2 80>` for partial characters.

    Word and text modes show the token itself. Bytes mode decodes the token's bytes as UTF-8 and
    writes the bytes that are no valid UTF-8 as hex. `as_bytes` always shows hex bytes.
    """
    if as_bytes:
        return hex_bytes(token_bytes_of(tokenizer, token))
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    return token if data is None else bytes_text(data)


def bytes_text(data: bytes) -> str:
    """Bytes as text where they are valid UTF-8 and hex `<..>` where not; never U+FFFD.

    A U+FFFD that really is in the bytes is shown as hex too, so it cannot pass for a lost byte.

    >>> bytes_text("é".encode() + b"\\xe6\\x97")
    'é<e6 97>'
    """
    return "".join(p if isinstance(p, str) else hex_bytes(p) for p in _utf8_parts(data))


def _utf8_parts(data: bytes) -> list[str | bytes]:
    """Runs of valid UTF-8 (as str, without U+FFFD) and runs of other bytes (as bytes), in order."""
    parts: list[str | bytes] = []
    i = 0
    while i < len(data):
        try:
            good, bad, i = data[i:].decode("utf-8"), b"", len(data)
        except UnicodeDecodeError as exc:
            bad_start, bad_end = i + exc.start, i + exc.end
            good, bad, i = data[i:bad_start].decode("utf-8"), data[bad_start:bad_end], bad_end
        for n, piece in enumerate(good.split("\ufffd")):
            if n:
                _append_run(parts, "\ufffd".encode())
            _append_run(parts, piece)
        _append_run(parts, bad)
    return parts


def _append_run(parts: list[str | bytes], piece: str | bytes) -> None:
    """Append a run, joining it to the last one when both are text or both are bytes."""
    if not piece:
        return
    if parts and type(parts[-1]) is type(piece):
        parts[-1] += piece  # type: ignore[operator]
    else:
        parts.append(piece)


def hex_bytes(data: bytes) -> str:
    """Bytes as `<6c 6f>`."""
    return "<" + " ".join(f"{b:02x}" for b in data) + ">"


def token_bytes_of(tokenizer: Tokenizer, token: str) -> bytes:
    """The bytes a token stands for; a token that is no byte sequence (a special token) as UTF-8."""
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    return token.encode("utf-8") if data is None else data


def visible_whitespace(s: str) -> str:
    """Make whitespace visible: space ·, newline ↵, tab →, carriage return ␍, others as escapes.

    Hex groups that `bytes_text` writes (`<e8 aa>`) keep their plain spaces.

    >>> visible_whitespace("a b\\n\\u00a0")
    'a·b↵\\\\xa0'
    >>> visible_whitespace(" <e8 aa>")
    '·<e8 aa>'
    """
    return "".join(
        part if _HEX_GROUP.fullmatch(part) else _visible(part) for part in _HEX_GROUP.split(s)
    )


_HEX_GROUP = re.compile(r"(<[0-9a-f]{2}(?: [0-9a-f]{2})*>)")


def _visible(s: str) -> str:
    return "".join(
        _SHOWN_WHITESPACE.get(ch) or (ascii(ch)[1:-1] if ch.isspace() else ch) for ch in s
    )


def _symbol_bytes(token: str) -> bytes | None:
    """A bytes-mode token's bytes, or None for a token that is no byte symbols (a special token)."""
    table = char_to_byte()
    try:
        return bytes(table[ch] for ch in token) if token else None
    except KeyError:
        return None
