"""BERT's normalizer, as `tokenizers` does it: control characters out, whitespace made spaces,
CJK ideographs set apart by spaces, accents stripped, lowercased.

Its character classes come from the `unicode_categories` crate, older than Python's data: the
tables below are the differences, found by asking `tokenizers` about every code point.

>>> n = BertNormalizer().normalize(Normalized.of("Héllo\\t中文"))
>>> n.text, n.offsets(6, 9)
('hello  中  文 ', (6, 7))
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .base import PartReader
from .normalized import Normalized
from .normalizers_unicode import (
    MARKS_AND_FORMATS,
    WHITE_SPACE,
    CharClass,
    Ranges,
    class_of,
    code_points,
    lowercase,
    normalize_form,
    remove_runs,
    runs,
)

# Format characters (Cf) in Python 3.11 that the crate does not know, so BERT keeps them.
CF_NEW: Ranges = ((0x890, 0x891), (0x8E2, 0x8E2), (0x110CD, 0x110CD), (0x13430, 0x13438))
# Non-spacing marks (Mn) as the crate has them: U+1734 was one, these were not yet.
MN_ADDED: Ranges = ((0x1734, 0x1734),)
MN_REMOVED: Ranges = (
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8E1), (0x9FE, 0x9FE), (0xAFA, 0xAFF), (0xB55, 0xB55),
    (0xC04, 0xC04), (0xC3C, 0xC3C), (0xD00, 0xD00), (0xD3B, 0xD3C), (0xD81, 0xD81), (0xEBA, 0xEBA),
    (0x180F, 0x180F), (0x1885, 0x1886), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFB), (0xA82C, 0xA82C),
    (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF), (0xA9BD, 0xA9BD), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC),
    (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2),
    (0x111C9, 0x111C9), (0x111CF, 0x111CF), (0x1123E, 0x1123E), (0x1133B, 0x1133B), (0x11438, 0x1143F),
    (0x11442, 0x11444), (0x11446, 0x11446), (0x1145E, 0x1145E), (0x1182F, 0x11837), (0x11839, 0x1183A),
    (0x1193B, 0x1193C), (0x1193E, 0x1193E), (0x11943, 0x11943), (0x119D4, 0x119D7), (0x119DA, 0x119DB),
    (0x119E0, 0x119E0), (0x11A01, 0x11A0A), (0x11A33, 0x11A38), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47),
    (0x11A51, 0x11A56), (0x11A59, 0x11A5B), (0x11A8A, 0x11A96), (0x11A98, 0x11A99), (0x11C30, 0x11C36),
    (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F), (0x11C92, 0x11CA7), (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3),
    (0x11CB5, 0x11CB6), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47), (0x11D90, 0x11D91), (0x11D95, 0x11D95), (0x11D97, 0x11D97), (0x11EF3, 0x11EF4),
    (0x16F4F, 0x16F4F), (0x16FE4, 0x16FE4), (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E000, 0x1E006),
    (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A),
)
# The CJK blocks BERT sets apart (U+2B820..U+2B91F, CJK Extension E's start, is not among them).
CHINESE: Ranges = (
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF), (0x2A700, 0x2B81F),
    (0x2B920, 0x2CEAF), (0x2F800, 0x2FA1F),
)
_PRIVATE_USE: Ranges = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))

# Whitespace after the controls are gone (U+000B, U+000C and U+0085 are controls, removed first).
_SPACES = str.maketrans(dict.fromkeys(WHITE_SPACE - {" "}, " "))


@lru_cache(maxsize=1)
def _control_class() -> CharClass:
    """What clean_text removes: NUL, U+FFFD, and "other" characters (Cc but tab and newlines,
    Cf, Co, Cs); unassigned ones (Cn) stay."""
    controls = {cp for cp in (*range(0x20), *range(0x7F, 0xA0)) if cp not in (9, 10, 13)}
    formats = {cp for span in MARKS_AND_FORMATS for cp in span if unicodedata.category(chr(cp)) == "Cf"}
    chars = runs(controls | (formats - code_points(CF_NEW)) | {0xFFFD})
    return CharClass(sorted([*chars, *_PRIVATE_USE, (0xD800, 0xDFFF)]))


@lru_cache(maxsize=1)
def _nonspacing_class() -> CharClass:
    marks = {cp for span in MARKS_AND_FORMATS for cp in span if unicodedata.category(chr(cp)) == "Mn"}
    return class_of((marks - code_points(MN_REMOVED)) | code_points(MN_ADDED))


_CHINESE = CharClass(CHINESE)


def _space_chinese(piece: Normalized) -> Normalized:
    """Each CJK ideograph as " c ", the three characters spanning it."""
    text, spans = piece.text, piece.spans
    chinese = _CHINESE.pattern_for(text)
    if spans is None:
        return Normalized(chinese.sub(lambda m: "".join(f" {c} " for c in m.group()), text), None,
                          at_start=piece.at_start, origin=piece.origin)
    out_text: list[str] = []
    out_spans: list[tuple[int, int]] = []
    done = 0
    for match in chinese.finditer(text):
        start, end = match.span()
        out_text.append(text[done:start])
        out_spans.extend(spans[done:start])
        for i in range(start, end):
            out_text.append(f" {text[i]} ")
            out_spans.extend((spans[i],) * 3)
        done = end
    if not done:
        return Normalized(text, list(spans), at_start=piece.at_start, origin=piece.origin)
    out_text.append(text[done:])
    out_spans.extend(spans[done:])
    return Normalized("".join(out_text), out_spans, at_start=piece.at_start, origin=piece.origin)


@dataclass(frozen=True, kw_only=True)
class BertNormalizer:
    """BERT's normalization; `strip_accents` None means "as `lowercase`" (uncased models strip).

    Steps, in this order: clean_text (controls removed, whitespace made " "), CJK ideographs set
    apart, accents stripped (NFD, then the non-spacing marks removed), lowercased.

    >>> BertNormalizer(lowercase=False).normalize(Normalized.of("Café\\u200d")).text
    'Café'
    """

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    def normalize(self, text: Normalized) -> Normalized:
        if self.clean_text:
            # remove_runs gives a new span list: the translated text may share it.
            text = remove_runs(text, _control_class())
            text = Normalized(text.text.translate(_SPACES), text.spans, at_start=text.at_start, origin=text.origin)
        if self.handle_chinese_chars and not text.text.isascii():
            text = _space_chinese(text)
        if (self.lowercase if self.strip_accents is None else self.strip_accents) and not text.text.isascii():
            text = remove_runs(normalize_form(text, "NFD"), _nonspacing_class())
        if self.lowercase:
            text = lowercase(text)
        return text

    def to_hf(self) -> dict[str, Any]:
        return {"type": "BertNormalizer", "clean_text": self.clean_text,
                "handle_chinese_chars": self.handle_chinese_chars, "strip_accents": self.strip_accents,
                "lowercase": self.lowercase}


def read_bert(data: dict[str, Any], reader: PartReader) -> BertNormalizer:
    what = "normalizer BertNormalizer"
    flags: dict[str, Any] = {}
    for key in ("clean_text", "handle_chinese_chars", "lowercase"):
        if not isinstance(data.get(key), bool):
            reader.fail(what, f"needs {key!r} true or false, not {data.get(key)!r}")
        flags[key] = data[key]
    strip = data.get("strip_accents")
    if strip is not None and not isinstance(strip, bool):
        reader.fail(what, f"'strip_accents' must be true, false or null, not {strip!r}")
    return BertNormalizer(strip_accents=strip, **flags)
