"""Pre-tokenizers: they cut normalized text into pieces (words), as Hugging Face `tokenizers` does.

Each part takes and gives a list of `Normalized` pieces, so every character keeps its span of the
original text; merges never cross from one piece into the next. `HF_TYPES` reads them from a
tokenizer.json. Here are ByteLevel, Split, Metaspace and Sequence; the parts that cut by kind of
character are in `pretokenizers_chars`, how a pattern cuts (the five behaviours) in
`pretokenizers_split`, and how tokenizers' Oniguruma patterns are read in `pretokenizers_onig`.

>>> [p.text for p in ByteLevel(add_prefix_space=False).pre_tokenize([Normalized.of("Hi  there!")])]
['Hi', 'Ġ', 'Ġthere', '!']
>>> [(p.text, p.offsets(0, len(p))) for p in Metaspace().pre_tokenize([Normalized.of("a b")])]
[('▁a', (0, 1)), ('▁b', (1, 3))]
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import regex

from ..pretokenize import GPT2_PATTERN, bytes_to_symbols
from .base import Builder, PartReader, PreTokenizer
from .normalized import Normalized
from .part_fields import flag, number, one_char
from .pretokenizers_chars import (
    BertPreTokenizer,
    CharDelimiterSplit,
    Digits,
    FixedLength,
    Punctuation,
    UnicodeScripts,
    Whitespace,
    WhitespaceSplit,
)
from .pretokenizers_onig import PatternError, compile_file_onig, compile_onig
from .pretokenizers_split import BEHAVIORS, TextSplitter, TextStage, behavior_name, literal, split_piece

__all__ = [
    "HF_TYPES", "BertPreTokenizer", "ByteLevel", "CharDelimiterSplit", "Digits", "FixedLength", "Metaspace",
    "Punctuation", "Sequence", "Split", "UnicodeScripts", "Whitespace", "WhitespaceSplit",
]


def _prepend(piece: Normalized, text: str) -> Normalized:
    """`text` + piece, the new characters aligned with the first one (as tokenizers' prepend)."""
    if piece.spans is None:
        return Normalized(text + piece.text, None, at_start=piece.at_start, origin=piece.origin)
    return Normalized(text + piece.text, [piece.spans[0]] * len(text) + piece.spans,
                      at_start=piece.at_start, origin=piece.origin)


def _starts_text(piece: Normalized) -> bool:
    """Whether the piece begins where the original text begins (Metaspace's `first` scheme).

    tokenizers asks whether the piece's first character comes from original offset 0, so a
    piece after an added token, or after characters the normalizer removed (Strip), is not at
    the start, while one after characters a normalizer inserted (Prepend) is. Untracked pieces
    only know `at_start`.
    """
    if piece.spans:
        return piece.spans[0][0] == 0
    return piece.at_start


def _cut_before(piece: Normalized, ch: str) -> list[Normalized]:
    """Cut before every `ch` (a one-character delimiter merged with what follows it)."""
    text = piece.text
    cuts = [0]
    at = text.find(ch, 1)
    while at > 0:
        cuts.append(at)
        at = text.find(ch, at + 1)
    cuts.append(len(text))
    return [piece.slice(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _cut_text_before(text: str, ch: str) -> list[str]:
    """`_cut_before` on a plain string."""
    cuts = [0]
    at = text.find(ch, 1)
    while at > 0:
        cuts.append(at)
        at = text.find(ch, at + 1)
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


class ByteLevel:
    """GPT-2's: optionally split on its pattern, then spell every UTF-8 byte as a printable character.

    Each byte character keeps the span of the character it came from. `add_prefix_space` adds a
    space to every piece not already starting with one (the space takes the first character's
    span); `trim_offsets` matters only to the post-processor and is kept for `to_hf`.
    """

    def __init__(self, *, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        rx = _gpt2()
        out: list[Normalized] = []
        for piece in pieces:
            if not piece.text:
                continue
            if self.add_prefix_space and not piece.text.startswith(" "):
                piece = _prepend(piece, " ")
            parts = split_piece(piece, rx, "Isolated") if self.use_regex else [piece]
            out.extend(map(_to_bytes, parts))
        return out

    def text_stages(self) -> list[TextStage]:
        """What `pre_tokenize` does, on plain strings: the space, GPT-2's cut, the byte characters."""
        stages = [TextStage(change=_with_space)] if self.add_prefix_space else []
        if self.use_regex:
            stages.append(TextStage(cut=_gpt2_splitter()))
        return [*stages, TextStage(change=byte_characters)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space,
                "trim_offsets": self.trim_offsets, "use_regex": self.use_regex}


@lru_cache(maxsize=1)
def _gpt2() -> regex.Pattern[str]:
    return compile_onig(GPT2_PATTERN)


@lru_cache(maxsize=1)
def _gpt2_splitter() -> TextSplitter:
    return TextSplitter(_gpt2(), "Isolated")


def _with_space(text: str) -> str:
    return text if text.startswith(" ") else " " + text


def byte_characters(text: str) -> str:
    """`text`'s UTF-8 bytes as GPT-2's byte characters (what ByteLevel makes of a piece)."""
    return bytes_to_symbols(text.encode("utf-8"))


def _to_bytes(piece: Normalized) -> Normalized:
    text = piece.text
    symbols = byte_characters(text)
    spans = piece.spans
    if spans is not None and not text.isascii():
        spans = [span for ch, span in zip(text, spans) for _ in range(len(ch.encode("utf-8")))]
    return Normalized(symbols, spans, at_start=piece.at_start, origin=piece.origin)


class Split:
    """Cut at a pattern's matches (a literal string, or an Oniguruma regex as tokenizers reads it).

    `behavior` says what becomes of each match: Removed, Isolated (its own piece),
    MergedWithPrevious, MergedWithNext, or Contiguous (runs of matches make one piece);
    `invert` cuts at what does not match instead.

    >>> [p.text for p in Split(pattern="-", behavior="MergedWithNext").pre_tokenize([Normalized.of("a-b--c")])]
    ['a', '-b', '-', '-c']
    """

    def __init__(
        self, *, pattern: str, is_regex: bool = False, behavior: str = "Isolated", invert: bool = False
    ) -> None:
        name = behavior_name(behavior)
        if name is None:
            raise ValueError(f"behavior must be one of {', '.join(BEHAVIORS)}, not {behavior!r}")
        self.pattern = pattern
        self.is_regex = is_regex
        self.behavior = name
        self.invert = invert
        self._rx = compile_file_onig(pattern) if is_regex else literal(pattern)
        self._splitter = TextSplitter(self._rx, self.behavior, invert=invert)

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        out: list[Normalized] = []
        for piece in pieces:
            out.extend(split_piece(piece, self._rx, self.behavior, invert=self.invert))
        return out

    def text_stages(self) -> list[TextStage]:
        return [TextStage(cut=self._splitter)]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Split", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "behavior": self.behavior, "invert": self.invert}


PREPEND_SCHEMES = ("always", "first", "never")


class Metaspace:
    """SentencePiece's: spaces become `replacement` ("▁"), one is prepended, and pieces are cut
    before each replacement character.

    `prepend_scheme`: "always" prepends to every piece not starting with the replacement,
    "first" only to a piece whose first character comes from the start of the original text
    (not after an added token), "never" not at all.
    """

    def __init__(self, *, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        if len(replacement) != 1:
            raise ValueError(f"replacement must be one character, not {replacement!r}")
        if prepend_scheme not in PREPEND_SCHEMES:
            raise ValueError(f"prepend_scheme must be always, first or never, not {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split

    @property
    def needs_offsets(self) -> bool:
        """Whether it reads the pieces' original offsets: "first" asks whether a piece begins at
        the original's offset 0, which only tracked offsets tell once a normalizer removed or
        inserted characters (see `_starts_text`)."""
        return self.prepend_scheme == "first"

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        rep, scheme = self.replacement, self.prepend_scheme
        out: list[Normalized] = []
        for piece in pieces:
            if not piece.text:
                continue
            # One character for one: the spans stay as they are.
            new = Normalized(piece.text.replace(" ", rep), piece.spans, at_start=piece.at_start, origin=piece.origin)
            if scheme != "never" and not new.text.startswith(rep) and (scheme == "always" or _starts_text(piece)):
                new = _prepend(new, rep)
            out.extend(_cut_before(new, rep) if self.split else [new])
        return out

    def text_stages(self) -> list[TextStage] | None:
        """What `pre_tokenize` does, on plain strings; none for "first", which asks where a piece
        began in the original text."""
        if self.prepend_scheme == "first":
            return None
        rep = self.replacement
        stages = [TextStage(change=lambda text: text.replace(" ", rep))]
        if self.prepend_scheme == "always":
            stages.append(TextStage(change=lambda text: text if text.startswith(rep) else rep + text))
        if self.split:
            stages.append(TextStage(cut=lambda text: _cut_text_before(text, rep)))
        return stages

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split}


class Sequence:
    """Several pre-tokenizers, each cutting the pieces of the one before."""

    def __init__(self, parts: Iterable[PreTokenizer]) -> None:
        self.parts = list(parts)

    @property
    def needs_offsets(self) -> bool:
        return any(getattr(part, "needs_offsets", False) for part in self.parts)

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]:
        for part in self.parts:
            pieces = part.pre_tokenize(pieces)
        return pieces

    def text_stages(self) -> list[TextStage] | None:
        """Each part's steps in turn; none when a part has none."""
        stages: list[TextStage] = []
        for part in self.parts:
            found = text_stages(part)
            if found is None:
                return None
            stages.extend(found)
        return stages

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [part.to_hf() for part in self.parts]}


def text_stages(part: PreTokenizer) -> list[TextStage] | None:
    """The part's steps on plain strings (`TextStage`), or None when it has none."""
    stages = getattr(part, "text_stages", None)
    return stages() if stages is not None else None


# ---- reading tokenizer.json -------------------------------------------------------------------
# Fields tokenizers requires are required here too (a file we read is one it reads), except that
# Metaspace's older `add_prefix_space` is read without `prepend_scheme`.


def _what(data: dict[str, Any]) -> str:
    return f"pre-tokenizer {data.get('type')}"


def _flag(data: dict[str, Any], key: str, reader: PartReader, default: bool | None = None) -> bool:
    return flag(data, key, default, reader, _what(data))


def _char(data: dict[str, Any], key: str, reader: PartReader) -> str:
    return one_char(data, key, None, reader, _what(data))


def _behavior(data: dict[str, Any], reader: PartReader, default: str | None = None) -> str:
    value = data.get("behavior", default)
    if value not in BEHAVIORS:
        reader.fail(_what(data), f"'behavior' must be one of {', '.join(BEHAVIORS)}, not {value!r}")
    return str(value)


def _read_byte_level(data: dict[str, Any], reader: PartReader) -> ByteLevel:
    return ByteLevel(add_prefix_space=_flag(data, "add_prefix_space", reader),
                     trim_offsets=_flag(data, "trim_offsets", reader),
                     use_regex=_flag(data, "use_regex", reader, True))


def _read_split(data: dict[str, Any], reader: PartReader) -> Split:
    pattern = data.get("pattern")
    if not (isinstance(pattern, dict) and len(pattern) == 1 and next(iter(pattern)) in ("String", "Regex")
            and isinstance(next(iter(pattern.values())), str)):
        shape = '{"String": text} or {"Regex": pattern}'
        reader.fail(_what(data), f"'pattern' must be {shape}, not {pattern!r}")
    ((kind, text),) = pattern.items()
    behavior = _behavior(data, reader)
    invert = _flag(data, "invert", reader)
    try:
        return Split(pattern=text, is_regex=kind == "Regex", behavior=behavior, invert=invert)
    except PatternError as exc:
        reader.fail(_what(data), f"Python's regex module cannot compile the pattern {text!r}: {exc}")


def _read_metaspace(data: dict[str, Any], reader: PartReader) -> Metaspace:
    replacement = _char(data, "replacement", reader)
    add_prefix_space = _flag(data, "add_prefix_space", reader, True)
    if "prepend_scheme" in data:
        scheme = data["prepend_scheme"]
        if scheme not in PREPEND_SCHEMES:
            reader.fail(_what(data), f"'prepend_scheme' must be always, first or never, not {scheme!r}")
        if not add_prefix_space and scheme != "never":
            reader.fail(_what(data), f"'add_prefix_space' false contradicts 'prepend_scheme' {scheme!r}")
    else:  # files written before tokenizers 0.14 say only add_prefix_space
        scheme = "always" if add_prefix_space else "never"
    return Metaspace(replacement=replacement, prepend_scheme=scheme, split=_flag(data, "split", reader, True))


def _read_digits(data: dict[str, Any], reader: PartReader) -> Digits:
    return Digits(individual_digits=_flag(data, "individual_digits", reader))


def _read_fixed_length(data: dict[str, Any], reader: PartReader) -> FixedLength:
    length = number(data, "length", 5, reader, _what(data))
    if length < 1:
        reader.fail(_what(data), "'length' must be at least 1")
    return FixedLength(length=length)


def _read_sequence(data: dict[str, Any], reader: PartReader) -> Sequence:
    raw = data.get("pretokenizers")
    if not isinstance(raw, list):
        reader.fail(_what(data), f"'pretokenizers' must be a list, not {type(raw).__name__}")
    parts: list[PreTokenizer] = []
    for k, item in enumerate(raw):
        part = reader.pre_tokenizer(item)
        if part is None:
            reader.fail(_what(data), f"pretokenizers[{k}] is null")
        parts.append(part)
    return Sequence(parts)


HF_TYPES: dict[str, Builder] = {
    "ByteLevel": _read_byte_level,
    "Split": _read_split,
    "Metaspace": _read_metaspace,
    "Whitespace": lambda data, reader: Whitespace(),
    "WhitespaceSplit": lambda data, reader: WhitespaceSplit(),
    "BertPreTokenizer": lambda data, reader: BertPreTokenizer(),
    "Punctuation": lambda data, reader: Punctuation(behavior=_behavior(data, reader, "Isolated")),
    "Digits": _read_digits,
    "CharDelimiterSplit": lambda data, reader: CharDelimiterSplit(delimiter=_char(data, "delimiter", reader)),
    "UnicodeScripts": lambda data, reader: UnicodeScripts(),
    "FixedLength": _read_fixed_length,
    "Sequence": _read_sequence,
}
