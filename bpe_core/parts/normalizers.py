"""Normalizers: the text changed before it is cut, each character keeping its original span, as
Hugging Face `tokenizers` does it; and the reading table `HF_TYPES`.

Every normalizer gives the same text as `tokenizers` and aligns each new character as its Rust
`NormalizedString` does: a character replaced keeps the span of the one it replaces, a removed one
is gone, an inserted one takes the span of the character before it. (`Precompiled`, SentencePiece's
charsmap, is in `precompiled`; `BertNormalizer` in `normalizers_bert`; the Unicode data and the
alignment of NFC and friends in `normalizers_unicode`.)

>>> n = Sequence([NFKC(), Lowercase(), Replace(pattern=" ", content="▁")]).normalize(Normalized.of("Ａﬁ Ｂ"))
>>> n.text, [n.offsets(i, i + 1) for i in range(len(n.text))]
('afi▁b', [(0, 1), (1, 2), (1, 2), (2, 3), (3, 4)])
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

import regex

from ..pretokenize import bytes_to_symbols
from .base import Builder, Normalizer, PartReader
from .normalized import Normalized
from .normalizers_bert import BertNormalizer, read_bert
from .normalizers_unicode import WHITE_SPACE, Form, lowercase, mark_class, normalize_form, remove_runs
from .pretokenizers_onig import PatternError, compile_file_onig
from .pretokenizers_split import find_matches, literal

__all__ = [
    "HF_TYPES", "BertNormalizer", "ByteLevel", "Lowercase", "Nmt", "Prepend", "Replace", "Sequence", "Strip",
    "StripAccents", "UnicodeForm",
]

FORMS: tuple[Form, ...] = ("NFC", "NFD", "NFKC", "NFKD")


def _like(piece: Normalized, text: str, spans: list[tuple[int, int]] | None) -> Normalized:
    return Normalized(text, spans, at_start=piece.at_start, origin=piece.origin)


def _same_length(piece: Normalized, text: str) -> Normalized:
    """`piece` with each character replaced by one other (its span kept)."""
    return _like(piece, text, None if piece.spans is None else list(piece.spans))


@dataclass(frozen=True)
class UnicodeForm:
    """Unicode normalization (NFC, NFD, NFKC or NFKD), with the crate's Unicode 9.0 data.

    >>> n = UnicodeForm("NFKD").normalize(Normalized.of("ﬁé"))
    >>> n.text == "fie\\u0301", n.spans
    (True, [(0, 1), (0, 1), (1, 2), (1, 2)])
    """

    form: Form

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"unknown normalization form {self.form!r} (use one of {', '.join(FORMS)})")

    def normalize(self, text: Normalized) -> Normalized:
        return normalize_form(text, self.form)

    def to_hf(self) -> dict[str, Any]:
        return {"type": self.form}


def NFC() -> UnicodeForm:
    """`tokenizers.normalizers.NFC()`."""
    return UnicodeForm("NFC")


def NFD() -> UnicodeForm:
    """`tokenizers.normalizers.NFD()`."""
    return UnicodeForm("NFD")


def NFKC() -> UnicodeForm:
    """`tokenizers.normalizers.NFKC()`."""
    return UnicodeForm("NFKC")


def NFKD() -> UnicodeForm:
    """`tokenizers.normalizers.NFKD()`."""
    return UnicodeForm("NFKD")


@dataclass(frozen=True)
class Lowercase:
    """Rust's per-character lowercasing: "Σ" is always "σ" (no final sigma), "İ" becomes "i̇"
    (two characters, both spanning the "İ").

    >>> Lowercase().normalize(Normalized.of("ΟΔΟΣ")).text
    'οδοσ'
    """

    def normalize(self, text: Normalized) -> Normalized:
        return lowercase(text)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Lowercase"}


@dataclass(frozen=True, kw_only=True)
class Strip:
    """White_Space (Rust's `char::is_whitespace`, so not U+001C..U+001F) removed from either end.

    >>> Strip(strip_right=False).normalize(Normalized.of("\\u3000 hi ")).text
    'hi '
    """

    strip_left: bool = True
    strip_right: bool = True

    def normalize(self, text: Normalized) -> Normalized:
        s = text.text
        start, end = 0, len(s)
        if self.strip_left:
            while start < end and s[start] in WHITE_SPACE:
                start += 1
        if self.strip_right:
            while end > start and s[end - 1] in WHITE_SPACE:
                end -= 1
        # Stripped at the start, the text no longer begins at the original's start, so Metaspace's
        # "first" scheme prepends nothing (tokenizers looks at the first character's offset).
        return Normalized(s[start:end], None if text.spans is None else text.spans[start:end],
                          at_start=text.at_start and start == 0, origin=text.origin)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.strip_left, "strip_right": self.strip_right}


@dataclass(frozen=True)
class StripAccents:
    """Every combining mark (General_Category=Mark: Mn, Mc and Me, as of Unicode 9.0) removed;
    usually after NFD/NFKD, which split accents off their letters.

    >>> StripAccents().normalize(Normalized.of("e\\u0301te\\u0301")).text
    'ete'
    """

    def normalize(self, text: Normalized) -> Normalized:
        if text.text.isascii():
            return _same_length(text, text.text)
        return remove_runs(text, mark_class())

    def to_hf(self) -> dict[str, Any]:
        return {"type": "StripAccents"}


@dataclass(frozen=True, kw_only=True)
class Replace:
    """Every match of a literal string (or an Oniguruma regex, `is_regex`) replaced by `content`.

    Matches are found as Oniguruma finds them (an empty match right after a match is skipped; an
    empty pattern matches between all characters). Every character of `content` gets the span of
    the *last* character it replaces; for an empty match, that of the character before it.

    >>> n = Replace(pattern=" ", content="▁").normalize(Normalized.of("a b"))
    >>> n.text, Replace(pattern=r"\\s+", content=" ", is_regex=True).normalize(Normalized.of("a \\n b")).text
    ('a▁b', 'a b')
    """

    pattern: str
    content: str
    is_regex: bool = False
    _compiled: regex.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = compile_file_onig(self.pattern) if self.is_regex else literal(self.pattern)
        object.__setattr__(self, "_compiled", compiled)

    def normalize(self, text: Normalized) -> Normalized:
        s = text.text
        if not self.is_regex and not self.pattern:
            return self._between_all(text)
        literal_fast = not self.is_regex
        if text.spans is None:
            if literal_fast:
                return _like(text, s.replace(self.pattern, self.content), None)
            pieces = [self.content if is_match else s[a:b] for a, b, is_match in find_matches(self._compiled, s)]
            return _like(text, "".join(pieces), None)
        if literal_fast and self.pattern not in s:
            return _same_length(text, s)
        spans = text.spans
        out_text: list[str] = []
        out_spans: list[tuple[int, int]] = []
        content, size = self.content, len(self.content)
        for start, end, is_match in find_matches(self._compiled, s):
            if not is_match:
                out_text.append(s[start:end])
                out_spans.extend(spans[start:end])
            elif size:
                out_text.append(content)
                if end > start:
                    span = spans[end - 1]
                else:
                    span = spans[start - 1] if start > 0 else (text.origin, text.origin)
                out_spans.extend([span] * size)
        return _like(text, "".join(out_text), out_spans)

    def _between_all(self, text: Normalized) -> Normalized:
        """An empty literal matches before every character and at the end (not in an empty text)."""
        s, content, spans = text.text, self.content, text.spans
        if not s or not content:
            return _same_length(text, s)
        if spans is None:
            return _like(text, "".join((content, content.join(s), content)), None)
        out_spans = [(text.origin, text.origin)] * len(content)
        for span in spans:
            out_spans.append(span)
            out_spans.extend([span] * len(content))
        return _like(text, "".join((content, content.join(s), content)), out_spans)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "content": self.content}


@dataclass(frozen=True, kw_only=True)
class Prepend:
    """`prepend` put before a non-empty text, spanning its first character (empty text stays empty).

    >>> n = Prepend(prepend="▁").normalize(Normalized.of("hi"))
    >>> n.text, n.spans
    ('▁hi', [(0, 1), (0, 1), (1, 2)])
    """

    prepend: str

    def normalize(self, text: Normalized) -> Normalized:
        if not text.text:
            return _same_length(text, "")
        spans = None if text.spans is None else [text.spans[0]] * len(self.prepend) + text.spans
        return _like(text, self.prepend + text.text, spans)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}


# Nmt (from Google's NMT text normalization): control characters removed, some spaces unified.
_NMT_REMOVE = re.compile("[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]+")
_NMT_SPACE = str.maketrans(dict.fromkeys("\t\n\x0c\r\u1680\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u2581"
                                         "\ufeff\ufffd", " "))


@dataclass(frozen=True)
class Nmt:
    """U+0001..U+0008, U+000B, U+000E..U+001F, U+007F, U+008F, U+009F removed; tab, newlines,
    form feed, U+1680, U+200B..U+200F, U+2028/9, "▁", BOM and U+FFFD made spaces.

    >>> Nmt().normalize(Normalized.of("a\\tb\\x07c\\u200bd")).text
    'a bc d'
    """

    def normalize(self, text: Normalized) -> Normalized:
        kept = remove_runs(text, _NMT_REMOVE)
        return _same_length(kept, kept.text.translate(_NMT_SPACE))

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Nmt"}


@dataclass(frozen=True)
class ByteLevel:
    """Each character as its UTF-8 bytes, each byte as GPT-2's printable stand-in; all the
    bytes of a character span that character.

    >>> ByteLevel().normalize(Normalized.of("é ")).text
    'Ã©Ġ'
    """

    def normalize(self, text: Normalized) -> Normalized:
        s = text.text
        if s.isascii():  # one byte per character: the spans stay
            return _same_length(text, bytes_to_symbols(s.encode("ascii")))
        if text.spans is None:
            return _like(text, bytes_to_symbols(s.encode("utf-8", "surrogatepass")), None)
        return text.map_chars(_char_symbols)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteLevel"}


def _char_symbols(ch: str) -> str:
    return bytes_to_symbols(ch.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Sequence:
    """Normalizers applied one after the other.

    >>> Sequence([Strip(), Lowercase()]).normalize(Normalized.of(" Hi ")).text
    'hi'
    """

    normalizers: tuple[Normalizer, ...]

    def __init__(self, normalizers: list[Normalizer] | tuple[Normalizer, ...]) -> None:
        object.__setattr__(self, "normalizers", tuple(normalizers))

    def normalize(self, text: Normalized) -> Normalized:
        for normalizer in self.normalizers:
            text = normalizer.normalize(text)
        return text

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [n.to_hf() for n in self.normalizers]}


def _field(data: dict[str, Any], key: str, kind: type, reader: PartReader, what: str) -> Any:
    """A required field of type `kind` (tokenizers refuses a file that lacks it)."""
    if key not in data:
        reader.fail(what, f"needs a {key!r} field")
    value = data[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        reader.fail(what, f"{key!r} must be {'true or false' if kind is bool else 'a string'}, not {value!r}")
    return value


def _read_form(data: dict[str, Any], reader: PartReader) -> UnicodeForm:
    return UnicodeForm(cast(Form, data["type"]))


def _read_strip(data: dict[str, Any], reader: PartReader) -> Strip:
    what = "normalizer Strip"
    return Strip(strip_left=_field(data, "strip_left", bool, reader, what),
                 strip_right=_field(data, "strip_right", bool, reader, what))


def _read_replace(data: dict[str, Any], reader: PartReader) -> Replace:
    what = "normalizer Replace"
    pattern = data.get("pattern")
    if not (isinstance(pattern, dict) and len(pattern) == 1 and set(pattern) <= {"String", "Regex"}
            and isinstance(next(iter(pattern.values())), str)):
        reader.fail(what, f'pattern must be {{"String": "..."}} or {{"Regex": "..."}}, not {pattern!r}')
    content = _field(data, "content", str, reader, what)
    kind, source = next(iter(pattern.items()))
    try:
        return Replace(pattern=source, content=content, is_regex=kind == "Regex")
    except PatternError as exc:
        reader.fail(what, f"cannot read the regex {source!r}: {exc}")


def _read_prepend(data: dict[str, Any], reader: PartReader) -> Prepend:
    return Prepend(prepend=_field(data, "prepend", str, reader, "normalizer Prepend"))


def _read_sequence(data: dict[str, Any], reader: PartReader) -> Sequence:
    members = data.get("normalizers")
    if not isinstance(members, list):
        reader.fail("normalizer Sequence", f"'normalizers' must be a list, not {members!r}"[:120])
    parts = [reader.normalizer(raw) for raw in members]
    if any(part is None for part in parts):
        reader.fail("normalizer Sequence", "a member of 'normalizers' is null")
    return Sequence([part for part in parts if part is not None])


HF_TYPES: dict[str, Builder] = {
    **dict.fromkeys(FORMS, _read_form),
    "Lowercase": lambda data, reader: Lowercase(),
    "Strip": _read_strip,
    "StripAccents": lambda data, reader: StripAccents(),
    "Replace": _read_replace,
    "Prepend": _read_prepend,
    "BertNormalizer": read_bert,
    "Bert": read_bert,  # tokenizers also reads this short name
    "Nmt": lambda data, reader: Nmt(),
    "ByteLevel": lambda data, reader: ByteLevel(),
    "Sequence": _read_sequence,
}
