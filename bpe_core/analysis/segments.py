"""Cut points where segmentations disagree, and tokens shown as a person should see them.

A *cut* is a character offset in the input text where one token ends or another starts.
Byte-level tokens can split a multi-byte character; such a cut counts at that character's start
offset (the engine's spans already give both halves the whole character), and the characters
split this way are reported apart, so "cut before 日" and "cut inside 日" differ.

How a token is shown, everywhere a person reads one (chips, tables, charts, titles, previews):

* a space is `·`, a newline `↵`, a tab `→`, a carriage return `␍`;
* any other whitespace or invisible character (no-break space, ideographic space, control and
  format characters such as the zero-width joiner, private use, and U+FFFD itself) is named:
  `⟨U+00A0⟩`;
* bytes-mode tokens are decoded: GPT-2's byte letters (`Ġ` for a space, `Ċ` for a newline) are
  how files store the bytes, not what a reader sees. Bytes that are no whole UTF-8 character
  (a token can hold part of 日 or of an emoji) are a hex group, `<e6 97>`: a hex group keeps
  plain spaces, every space of the text is a `·`, so the two never look alike;
* the end-of-word marker stays as written (`</w>`), as a part of its own so it can be styled;
* a token that starts with a combining mark gets a dotted circle first: `◌्`.

`token_segments` gives the parts (for HTML, which styles each kind), `token_text` the plain text;
`display_token` does the same for a token of a given tokenizer. Nothing here escapes HTML.
"""
from __future__ import annotations

import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Encoding, Tokenizer
from ..pretokenize import char_to_byte
from ..settings import EOW, BPEError

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

Segment = tuple[str, str]  # (kind, shown); kind is "text", "ws", "hex" or "marker"

SHOWN_WHITESPACE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}
DOTTED_CIRCLE = "◌"  # before a token that starts with a combining mark, as dictionaries write ◌́
# Control and format characters (U+200D, the zero-width joiner, included), surrogates, private use
# and unassigned code points: nothing a reader can see or tell apart, so they are named instead.
_NAMED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def char_segment(ch: str) -> Segment:
    """One character as shown: a symbol for common whitespace, `⟨U+XXXX⟩` for the invisible ones.

    U+FFFD is named too: as a glyph it could pass for bytes that were lost in decoding.

    >>> [char_segment(c) for c in " \\u00a0é"]
    [('ws', '·'), ('ws', '⟨U+00A0⟩'), ('text', 'é')]
    """
    symbol = SHOWN_WHITESPACE.get(ch)
    if symbol is not None:
        return ("ws", symbol)
    if ch.isspace() or ch == "\ufffd" or unicodedata.category(ch) in _NAMED_CATEGORIES:
        return ("ws", f"⟨U+{ord(ch):04X}⟩")
    return ("text", ch)


def bytes_segments(data: bytes) -> list[Segment]:
    """Bytes as characters where they are whole UTF-8 characters, as hex groups `<e2 80>` where not.

    Neighbouring bytes that are no whole character form one group. A U+FFFD that really is in
    the bytes is shown as its bytes, `<ef bf bd>`, so it cannot pass for a lost byte.

    >>> bytes_segments("é".encode()[:1] + b" a")
    [('hex', '<c3>'), ('ws', '·'), ('text', 'a')]
    """
    out: list[Segment] = []
    for part in _utf8_parts(data):
        if isinstance(part, bytes):
            out.append(("hex", hex_bytes(part)))
        else:
            out.extend(char_segment(ch) for ch in part)
    return out


def token_segments(token: str, *, byte_level: bool = False, marker: str = EOW) -> list[Segment]:
    """A token split into the parts that are drawn apart: text, shown whitespace, hex groups, marker.

    `byte_level`: the token is written in GPT-2's byte symbols (`Ġ` for a space, a file format
    detail); its bytes are decoded. A token that is no byte symbols (a special token such as
    `<|endoftext|>`) is shown as its characters. `marker`: an end-of-word marker at the end of
    the token is a part of its own.

    >>> token_segments("Ġthe", byte_level=True)
    [('ws', '·'), ('text', 't'), ('text', 'h'), ('text', 'e')]
    >>> token_segments("st</w>")
    [('text', 's'), ('text', 't'), ('marker', '</w>')]
    """
    data = _symbol_bytes(token) if byte_level else None
    if data is not None:
        out = bytes_segments(data)
    else:
        ends = bool(marker) and token.endswith(marker)
        out = [char_segment(ch) for ch in (token[: -len(marker)] if ends else token)]
        if ends:
            out.append(("marker", marker))
    if out and out[0][0] == "text" and unicodedata.category(out[0][1][0]).startswith("M"):
        # A token that starts with a mark (a Tamil virama, a Devanagari vowel sign, an accent)
        # would draw it on the chip's edge or on the character before the chip.
        out.insert(0, ("ws", DOTTED_CIRCLE))
    return out


def token_text(token: str, *, byte_level: bool = False, marker: str = EOW) -> str:
    """A token as plain text in the shown form (`token_segments` joined). Not escaped for HTML.

    >>> token_text("Ġl\\u00e6", byte_level=True), token_text("a\\tb</w>")
    ('·l<e6>', 'a→b</w>')
    """
    return "".join(shown for _, shown in token_segments(token, byte_level=byte_level, marker=marker))


def display_token(tokenizer: Tokenizer, token: str, *, as_bytes: bool = False) -> str:
    """A token of `tokenizer` as `token_text` shows it; `as_bytes`: all its bytes in hex, `<6c 6f>`.

    Bytes mode decodes the token's bytes; the other modes show the token's characters, the
    tokenizer's end-of-word marker included.
    """
    if as_bytes:
        return hex_bytes(token_bytes_of(tokenizer, token))
    settings = tokenizer.settings
    return token_text(token, byte_level=settings.mode == "bytes", marker=settings.marker)


def bytes_text(data: bytes) -> str:
    """Bytes in the shown form: characters, shown whitespace, hex groups; never U+FFFD.

    >>> bytes_text("é ".encode() + b"\\xe6\\x97")
    'é·<e6 97>'
    """
    return "".join(shown for _, shown in bytes_segments(data))


def visible_whitespace(text: str) -> str:
    """Text (not bytes) with whitespace and invisible characters shown as `char_segment` shows them.

    >>> visible_whitespace("a b\\n\\u00a0")
    'a·b↵⟨U+00A0⟩'
    """
    return "".join(char_segment(ch)[1] for ch in text)


def hex_bytes(data: bytes) -> str:
    """Bytes as `<6c 6f>`."""
    return "<" + " ".join(f"{b:02x}" for b in data) + ">"


def token_bytes_of(tokenizer: Tokenizer, token: str) -> bytes:
    """The bytes a token stands for; a token that is no byte sequence (a special token) as UTF-8."""
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    return token.encode("utf-8") if data is None else data


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


def _symbol_bytes(token: str) -> bytes | None:
    """A bytes-mode token's bytes, or None for a token that is no byte symbols (a special token)."""
    table = char_to_byte()
    try:
        return bytes(table[ch] for ch in token) if token else None
    except KeyError:
        return None
