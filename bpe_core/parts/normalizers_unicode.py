"""The Unicode data `tokenizers`' normalizers use, rebuilt on Python's `unicodedata`, and how its
Unicode normalization aligns characters.

`tokenizers` (Rust) normalizes with the `unicode-normalization-alignments` crate, whose tables are
Unicode 9.0; its other predicates come from Rust's standard library (Unicode 16: lowercasing,
White_Space). Python 3.11's `unicodedata` is Unicode 14.0. The tables below name every character
whose data differs, found by asking `tokenizers` about every code point (the tests check every
one again): characters added after 9.0 that decompose, combine or are marks, and the few that
Rust lowercases but Python 3.11 does not know. Other characters newer than Python's Unicode are
unassigned to Python, and left alone (another Python version would need the tables redone).

The crate emits each normalized character with a *change*: 0 replaces the next original
character, -n also swallows the n after it, +1 is new and takes the span of the character
consumed before it. Alignment is positional, so a combining mark moved by canonical ordering
takes the span of the character whose place it took, and a composed character spans only the
first of the characters it stands for (as in `tokenizers`):

>>> n = normalize_form(Normalized.of("e\\u0301x"), "NFC")
>>> n.text, n.spans
('éx', [(0, 1), (2, 3)])
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from .normalized import Normalized

Ranges = tuple[tuple[int, int], ...]
Form = Literal["NFC", "NFD", "NFKC", "NFKD"]

# Characters Python 3.11 decomposes and the crate (Unicode 9.0) does not: all added since 9.0.
DECOMP_NEW: Ranges = (
    (0x32FF, 0x32FF), (0xA7F2, 0xA7F4), (0xAB69, 0xAB69), (0x10781, 0x10785), (0x10787, 0x107B0),
    (0x107B2, 0x107BA), (0x11938, 0x11938), (0x1F16C, 0x1F16C), (0x1FBF0, 0x1FBF9),
)
# Combining marks (canonical combining class > 0) added since 9.0: class 0 for the crate.
CCC_NEW: Ranges = (
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE), (0xC3C, 0xC3C), (0xD3B, 0xD3C),
    (0xEBA, 0xEBA), (0x1715, 0x1715), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFA), (0xA82C, 0xA82C),
    (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070),
    (0x1133B, 0x1133B), (0x1145E, 0x1145E), (0x11839, 0x1183A), (0x1193D, 0x1193E), (0x11943, 0x11943),
    (0x119E0, 0x119E0), (0x11A34, 0x11A34), (0x11A47, 0x11A47), (0x11A99, 0x11A99), (0x11D42, 0x11D42),
    (0x11D44, 0x11D45), (0x11D97, 0x11D97), (0x16FF0, 0x16FF1), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
)
# General_Category=Mark (StripAccents) differs: U+1CF2/3 were marks in 9.0, these were not yet.
MARK_ADDED: Ranges = ((0x1CF2, 0x1CF3),)
MARK_REMOVED: Ranges = (
    (0x7FD, 0x7FD), (0x898, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE), (0xAFA, 0xAFF), (0xB55, 0xB55),
    (0xC04, 0xC04), (0xC3C, 0xC3C), (0xD00, 0xD00), (0xD3B, 0xD3C), (0xD81, 0xD81), (0xEBA, 0xEBA),
    (0x1715, 0x1715), (0x180F, 0x180F), (0x1ABF, 0x1ACE), (0x1CF7, 0x1CF7), (0x1DF6, 0x1DFA),
    (0xA82C, 0xA82C), (0xA8FF, 0xA8FF), (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50),
    (0x10F82, 0x10F85), (0x11070, 0x11070), (0x11073, 0x11074), (0x110C2, 0x110C2), (0x11145, 0x11146),
    (0x111C9, 0x111C9), (0x111CE, 0x111CF), (0x1133B, 0x1133B), (0x1145E, 0x1145E), (0x1182C, 0x1183A),
    (0x11930, 0x11935), (0x11937, 0x11938), (0x1193B, 0x1193E), (0x11940, 0x11940), (0x11942, 0x11943),
    (0x119D1, 0x119D7), (0x119DA, 0x119E0), (0x119E4, 0x119E4), (0x11A01, 0x11A0A), (0x11A33, 0x11A39),
    (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A5B), (0x11A8A, 0x11A99), (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D8A, 0x11D8E),
    (0x11D90, 0x11D91), (0x11D93, 0x11D97), (0x11EF3, 0x11EF6), (0x16F4F, 0x16F4F), (0x16F7F, 0x16F87),
    (0x16FE4, 0x16FE4), (0x16FF0, 0x16FF1), (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF),
)
# Rust lowercases these (Unicode 16), Python 3.11 does not know them: (first, last, shift) runs
# and single characters.
LOWER_NEW_RUNS: tuple[tuple[int, int, int], ...] = ((0x10D50, 0x10D65, 0x20), (0x16EA0, 0x16EB8, 0x1B))
LOWER_NEW_SINGLE: dict[int, int] = {
    0x1C89: 0x1C8A, 0xA7CB: 0x0264, 0xA7CC: 0xA7CD, 0xA7CE: 0xA7CF, 0xA7D2: 0xA7D3, 0xA7D4: 0xA7D5,
    0xA7DA: 0xA7DB, 0xA7DC: 0x019B,
}
# Rust's `char::is_whitespace` (the White_Space property); Python's isspace adds U+001C..U+001F.
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                        "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_L_COUNT, _V_COUNT, _T_COUNT = 19, 21, 28
_N_COUNT = _V_COUNT * _T_COUNT
_S_COUNT = _L_COUNT * _N_COUNT


def code_points(ranges: Iterable[tuple[int, int]]) -> frozenset[int]:
    return frozenset(cp for first, last in ranges for cp in range(first, last + 1))


def runs(cps: Iterable[int]) -> list[tuple[int, int]]:
    """Code points as (first, last) runs."""
    out: list[tuple[int, int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def ranges_regex(ranges: Iterable[tuple[int, int]]) -> re.Pattern[str]:
    """A pattern matching a run of characters from `ranges` ((first, last) code points)."""
    body = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)
    return re.compile(f"[{body}]+" if body else r"(?!)")


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class CharClass:
    """Runs of characters from a set of code points, found fast: `re` tests a class of BMP
    characters in constant time but walks its list of ranges once the class has astral ones, so
    the astral part is only searched in a text that has astral characters."""

    __slots__ = ("bmp", "full")

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        ranges = list(ranges)
        self.full = ranges_regex(ranges)
        self.bmp = ranges_regex((a, min(b, 0xFFFF)) for a, b in ranges if a <= 0xFFFF)

    def pattern_for(self, text: str) -> re.Pattern[str]:
        return self.full if _ASTRAL.search(text) else self.bmp

    def search(self, text: str) -> bool:
        return self.pattern_for(text).search(text) is not None


def class_of(cps: Iterable[int]) -> CharClass:
    return CharClass(runs(cps))


_DECOMP_NEW = code_points(DECOMP_NEW)
_CCC_NEW = code_points(CCC_NEW)


def _lower_new() -> dict[str, str]:
    table = {chr(a): chr(b) for a, b in LOWER_NEW_SINGLE.items()}
    for first, last, shift in LOWER_NEW_RUNS:
        table.update({chr(cp): chr(cp + shift) for cp in range(first, last + 1)})
    return table


_LOWER_NEW = _lower_new()
_LOWER_NEW_CLASS = class_of(ord(c) for c in _LOWER_NEW)


def lower_char(ch: str) -> str:
    """Rust's `char::to_lowercase`: no final-sigma rule ("Σ" is always "σ"), "İ" is "i̇"."""
    return _LOWER_NEW.get(ch) or ch.lower()


def lowercase_text(text: str) -> str:
    """`lower_char` of every character, done on the whole string where that is the same."""
    if text.isascii():
        return text.lower()
    if _LOWER_NEW_CLASS.search(text):
        return "".join(map(lower_char, text))
    # str.lower's one context rule is the final sigma; a lone "σ" lowercases to itself.
    return text.replace("Σ", "σ").lower()


def lowercase(piece: Normalized) -> Normalized:
    """`piece` lowercased as Rust does it, each new character spanning the one it comes from."""
    text, spans = piece.text, piece.spans
    lowered = lowercase_text(text)
    if spans is None or len(lowered) == len(text):
        return Normalized(lowered, None if spans is None else list(spans), at_start=piece.at_start, origin=piece.origin)
    if _LOWER_NEW_CLASS.search(text):
        return piece.map_chars(lower_char)
    # Only "İ" lowercases to more than one character ("i" and a combining dot above).
    out_spans: list[tuple[int, int]] = []
    done = 0
    for match in re.finditer("\u0130", text):
        at = match.start()
        out_spans.extend(spans[done:at + 1])
        out_spans.append(spans[at])
        done = at + 1
    out_spans.extend(spans[done:])
    return Normalized(lowered, out_spans, at_start=piece.at_start, origin=piece.origin)


def combining_class(ch: str) -> int:
    """The canonical combining class, as the crate's Unicode 9.0 tables give it."""
    return 0 if ord(ch) in _CCC_NEW else unicodedata.combining(ch)


@lru_cache(maxsize=65536)
def decompose_char(ch: str, compat: bool) -> str:
    """The full decomposition of one character (canonical, or compatibility too), unsorted."""
    cp = ord(ch)
    if cp < 0x80:
        return ch
    if _S_BASE <= cp < _S_BASE + _S_COUNT:
        index = cp - _S_BASE
        lead, vowel, tail = index // _N_COUNT, index % _N_COUNT // _T_COUNT, index % _T_COUNT
        jamo = chr(_L_BASE + lead) + chr(_V_BASE + vowel)
        return jamo + chr(_T_BASE + tail) if tail else jamo
    mapping = unicodedata.decomposition(ch)
    if not mapping or cp in _DECOMP_NEW:
        return ch
    fields = mapping.split()
    if fields[0].startswith("<"):
        if not compat:
            return ch
        fields = fields[1:]
    return "".join(decompose_char(chr(int(f, 16)), compat) for f in fields)


@lru_cache(maxsize=1)
def _composition_table() -> dict[tuple[str, str], str]:
    """Primary composites by their two-character canonical decomposition (Hangul excluded)."""
    table = {}
    for cp in range(0xC0, 0x30000):
        mapping = unicodedata.decomposition(chr(cp))
        if not mapping or mapping.startswith("<") or cp in _DECOMP_NEW:
            continue
        fields = mapping.split()
        # A composite that NFC leaves decomposed is excluded from composition.
        if len(fields) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp):
            table[chr(int(fields[0], 16)), chr(int(fields[1], 16))] = chr(cp)
    return table


def compose_pair(first: str, second: str) -> str | None:
    a, b = ord(first), ord(second)
    if _L_BASE <= a < _L_BASE + _L_COUNT and _V_BASE <= b < _V_BASE + _V_COUNT:
        return chr(_S_BASE + ((a - _L_BASE) * _V_COUNT + b - _V_BASE) * _T_COUNT)
    if _S_BASE <= a < _S_BASE + _S_COUNT and (a - _S_BASE) % _T_COUNT == 0 and _T_BASE < b < _T_BASE + _T_COUNT:
        return chr(a + b - _T_BASE)
    return _composition_table().get((first, second))


Change = tuple[str, int]


def decompose_changes(text: str, compat: bool) -> list[Change]:
    """The crate's decomposition of `text`: each character's decomposition (its first character
    replacing it, change 0, the others new, +1), then every run of non-starters stably sorted by
    combining class; the changes travel with their characters."""
    out: list[Change] = []
    block: list[tuple[int, str, int]] = []  # the pending (class, char, change) since the last starter
    for ch in text:
        change = 0
        for part in decompose_char(ch, compat):
            cls = combining_class(part)
            if cls == 0 and block:
                block.sort(key=lambda item: item[0])
                out.extend((c, d) for _, c, d in block)
                block.clear()
            block.append((cls, part, change))
            change = 1
    block.sort(key=lambda item: item[0])
    out.extend((c, d) for _, c, d in block)
    return out


def compose_changes(decomposed: list[Change]) -> list[Change]:
    """The crate's canonical composition of a decomposed stream; a composite's change is
    first.change + second.change - 1 (it stands for both)."""
    out: list[Change] = []
    starter: Change | None = None
    last_class: int | None = None  # class of the last character kept back after the starter
    held: list[Change] = []
    for ch, change in decomposed:
        cls = combining_class(ch)
        if starter is None:
            if cls == 0:
                starter = (ch, change)
            else:
                out.append((ch, change))  # a mark with no starter before it
            continue
        blocked = last_class is not None and last_class >= cls
        if not blocked:
            composite = compose_pair(starter[0], ch)
            if composite is not None:
                starter = (composite, starter[1] + change - 1)
                continue
        if cls == 0:
            out.append(starter)
            out.extend(held)
            held.clear()
            starter, last_class = (ch, change), None
        else:
            held.append((ch, change))
            last_class = cls
    if starter is not None:
        out.append(starter)
    out.extend(held)
    return out


def form_changes(text: str, form: Form) -> list[Change]:
    changes = decompose_changes(text, form in ("NFKC", "NFKD"))
    return compose_changes(changes) if form in ("NFC", "NFKC") else changes


def apply_changes(
    spans: list[tuple[int, int]], at: int, changes: Iterable[Change], origin: int,
    out_text: list[str], out_spans: list[tuple[int, int]],
) -> None:
    """Append the characters of `changes`, which replace the characters from `at` on, with
    their spans as `tokenizers` assigns them."""
    for ch, change in changes:
        out_text.append(ch)
        if change > 0:
            # New: the span of the character consumed before it; (0, 0) at the very start.
            out_spans.append(spans[at - 1] if at > 0 else (origin, origin))
        else:
            out_spans.append(spans[at])
            at += 1 - change


# Characters whose normalization data the crate lacks, and the parts of the one composition
# added since 9.0 (U+11935 U+11930 -> U+11938): where none occurs, unicodedata's result is the crate's.
_UNKNOWN = _DECOMP_NEW | _CCC_NEW | {0x11935, 0x11930}
_UNKNOWN_CLASS = class_of(_UNKNOWN)
# A character after which decomposition and composition start afresh is ASCII (class 0, never
# decomposed, never the second of a pair): each run of other characters, with the ASCII one
# before it, normalizes on its own.
_SEGMENT = re.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")


def normalize_form(piece: Normalized, form: Form) -> Normalized:
    """`piece` in Unicode normalization form `form` ("NFC", "NFD", "NFKC", "NFKD"), aligned as
    `tokenizers` aligns it."""
    text, spans = piece.text, piece.spans
    unknown = not text.isascii() and _UNKNOWN_CLASS.search(text)
    if text.isascii() or (not unknown and unicodedata.is_normalized(form, text)):
        return Normalized(text, None if spans is None else list(spans), at_start=piece.at_start, origin=piece.origin)
    if spans is None and not unknown:
        return Normalized(unicodedata.normalize(form, text), None, at_start=piece.at_start, origin=piece.origin)
    # Segment by segment: unicodedata's result where it is the crate's, the crate's changes where
    # the spans are needed or the crate's older data matters.
    out_text: list[str] = []
    out_spans: list[tuple[int, int]] = []
    done = 0
    for match in _SEGMENT.finditer(text):
        start, end = match.span()
        segment = match.group()
        out_text.append(text[done:start])
        if spans is not None:
            out_spans.extend(spans[done:start])
        done = end
        plain = not _UNKNOWN_CLASS.search(segment)
        if plain and unicodedata.is_normalized(form, segment):
            out_text.append(segment)
            if spans is not None:
                out_spans.extend(spans[start:end])
        elif spans is not None:
            apply_changes(spans, start, form_changes(segment, form), piece.origin, out_text, out_spans)
        elif plain:
            out_text.append(unicodedata.normalize(form, segment))
        else:
            out_text.extend(ch for ch, _ in form_changes(segment, form))
    out_text.append(text[done:])
    if spans is not None:
        out_spans.extend(spans[done:])
    return Normalized("".join(out_text), None if spans is None else out_spans, at_start=piece.at_start,
                      origin=piece.origin)


# Where marks and format characters are (planes 2 and 3 hold only ideographs): ranges, not a
# tuple of their 131,328 numbers, which would take 5 MB in every process that imports this.
MARKS_AND_FORMATS = (range(0xAD, 0x20000), range(0xE0000, 0xE0200))


@lru_cache(maxsize=1)
def mark_class() -> CharClass:
    """Runs of General_Category=Mark characters as the crate's Unicode 9.0 tables have them."""
    marks = {cp for span in MARKS_AND_FORMATS for cp in span if unicodedata.category(chr(cp))[0] == "M"}
    return class_of((marks - code_points(MARK_REMOVED)) | code_points(MARK_ADDED))


def remove_runs(piece: Normalized, chars: CharClass | re.Pattern[str]) -> Normalized:
    """`piece` without the characters of `chars`; the others keep their spans."""
    text = piece.text
    pattern = chars.pattern_for(text) if isinstance(chars, CharClass) else chars
    spans = piece.spans
    if spans is None:
        return Normalized(pattern.sub("", text), None, at_start=piece.at_start, origin=piece.origin)
    out_text: list[str] = []
    out_spans: list[tuple[int, int]] = []
    done = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        out_text.append(text[done:start])
        out_spans.extend(spans[done:start])
        done = end
    if not done:
        return Normalized(text, list(spans), at_start=piece.at_start, origin=piece.origin)
    out_text.append(text[done:])
    out_spans.extend(spans[done:])
    return Normalized("".join(out_text), out_spans, at_start=piece.at_start, origin=piece.origin)
