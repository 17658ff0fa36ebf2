"""SentencePiece's precompiled charsmap, and the `Precompiled` normalizer of `tokenizer.json`.

A charsmap (`precompiled_charsmap`, base64 in a `tokenizer.json`) is a little-endian uint32, the
byte size of a double-array trie (darts-clone's layout) whose keys are UTF-8 strings, then the
trie, then the replacement strings, each ended by a NUL; a key's value is the offset of its
replacement. `CharsMap` walks the trie itself, one character at a time.

`Precompiled` normalizes as `tokenizers` does, which is not quite what sentencepiece does (that
is `sp_text.SentencePieceNormalizer`): the text is cut into grapheme clusters; a cluster shorter
than 6 UTF-8 bytes is replaced whole by the replacement of the *shortest* key it begins with
(so "Ａ" + U+0301 becomes "A", the accent lost), and any other cluster character by character.
Alignment follows `tokenizers`' change list: a replacement's first characters take the spans of
the characters they replace one by one, extra ones the span of the last character consumed, and
a replacement that is shorter consumes the rest; an empty replacement makes the character
*before* it consume it, and at the very start consumes nothing at all.
"""
from __future__ import annotations

import base64
import binascii
import sys
from array import array
from typing import Any

import regex

from ..settings import BPEError
from .base import Builder, PartReader
from .normalized import Normalized

_GRAPHEMES = regex.compile(r"\X")
_LABEL_MASK = 0x800000FF  # a unit's label: its byte, and the high bit that marks leaf units
_HAS_LEAF = 0x100
_VALUE_MASK = 0x7FFFFFFF
_MISSING: Any = object()


def _offset(unit: int) -> int:
    """Where a unit's children start, relative to it (darts-clone packs a shift in bit 9)."""
    return (unit >> 10) << ((unit & 0x200) >> 6)


class CharsMap:
    """A parsed precompiled charsmap: exact, shortest-prefix and longest-prefix lookups.

    Only keys that end on a character boundary are found (every key sentencepiece builds is
    whole characters). Walks are remembered per (trie node, character).
    """

    __slots__ = ("data", "_units", "_blob", "_root", "_steps", "_strings", "_single", "_window")

    def __init__(self, data: bytes, *, strict: bool = False) -> None:
        if len(data) <= 4:
            raise BPEError(f"the precompiled charsmap is {len(data)} bytes, too short to hold a trie")
        size = int.from_bytes(data[:4], "little")
        # The replacements must follow the trie (sentencepiece refuses a trie that fills the
        # blob; `tokenizers` would panic on the first lookup).
        if size >= len(data) - 4 or size % 4 or size == 0:
            raise BPEError(f"the precompiled charsmap's trie size {size:,} does not fit its {len(data):,} bytes")
        if strict and (size < 1024 or size % 1024):
            raise BPEError(f"the precompiled charsmap's trie size {size:,} is not a multiple of 1,024 bytes")
        units = array("I")
        if units.itemsize != 4:  # pragma: no cover - every platform Python runs on has 4-byte "I"
            units = array("L")
        units.frombytes(data[4:4 + size])
        if sys.byteorder == "big":  # pragma: no cover
            units.byteswap()
        self.data = bytes(data)
        self._units = units
        self._blob = data[4 + size:]
        self._root = _offset(units[0])
        self._steps: dict[tuple[int, str], tuple[int, int]] = {}
        self._strings: dict[int, str] = {}
        self._single: dict[str, str | None] = {}
        self._window: dict[str, tuple[int, str] | None] = {}
        if strict and not self._valid():
            raise BPEError("the precompiled charsmap's trie is broken (a node points outside it)")

    def _valid(self) -> bool:
        """darts-clone's own check, which sentencepiece runs on a model's charsmap."""
        units, size, limit = self._units, len(self._units), len(self._blob)
        root = units[0]
        if root & _LABEL_MASK or root & _HAS_LEAF or _offset(root) == 0 or (_offset(root) | 0xFF) >= size:
            return False
        for i in range(1, size):
            unit = units[i]
            if unit & _LABEL_MASK <= 0xFF:
                if ((i ^ _offset(unit)) | 0xFF) >= size:
                    return False
                if unit & _HAS_LEAF and units[i ^ _offset(unit)] & _LABEL_MASK <= 0xFF:
                    return False
            elif unit & _VALUE_MASK >= limit:
                return False
        return True

    def _step(self, pos: int, ch: str) -> tuple[int, int]:
        """From trie node `pos`, the node after `ch`'s bytes and its value (-1: none), or (-1, -1)."""
        key = (pos, ch)
        found = self._steps.get(key)
        if found is not None:
            return found
        units = self._units
        size = len(units)
        unit = 0
        result = (-1, -1)
        for byte in ch.encode("utf-8", "surrogatepass"):
            pos ^= byte
            if pos >= size:
                break
            unit = units[pos]
            if unit & _LABEL_MASK != byte:
                break
            pos ^= _offset(unit)
        else:
            # A leaf found only after the character's last byte: keys are whole characters.
            value = units[pos] & _VALUE_MASK if unit & _HAS_LEAF and pos < size else -1
            result = (pos, value)
        if len(self._steps) < 1_000_000:
            self._steps[key] = result
        return result

    def _string(self, value: int) -> str:
        found = self._strings.get(value)
        if found is None:
            blob = self._blob
            end = blob.find(b"\0", value)
            # A broken offset gives what sentencepiece would read there: up to the blob's end.
            found = blob[value:end if end >= 0 else len(blob)].decode("utf-8", "replace")
            self._strings[value] = found
        return found

    def lookup(self, key: str) -> str | None:
        """The replacement of exactly `key`, or None.

        >>> nfkc = CharsMap(_TINY)
        >>> nfkc.lookup("ﬁ"), nfkc.lookup("f")
        ('fi', None)
        """
        if len(key) == 1 and key in self._single:
            return self._single[key]
        pos, value = self._root, -1
        for ch in key:
            pos, value = self._step(pos, ch)
            if pos < 0:
                break
        found = self._string(value) if value >= 0 else None
        if len(key) == 1:
            self._single[key] = found
        return found

    def first_prefix(self, text: str) -> tuple[int, str] | None:
        """(characters, replacement) of the shortest key `text` begins with, or None."""
        pos = self._root
        for length, ch in enumerate(text, 1):
            pos, value = self._step(pos, ch)
            if pos < 0:
                return None
            if value >= 0:
                return length, self._string(value)
        return None

    def longest_prefix(self, text: str, start: int) -> tuple[int, str] | None:
        """(characters, replacement) of the longest key `text[start:]` begins with, or None.

        Remembered by the two characters at `start` whenever the search looked no further.
        """
        window = text[start:start + 2]
        found = self._window.get(window, _MISSING)
        if found is not _MISSING:
            return found
        pos = self._root
        best: tuple[int, int] | None = None
        step = self._step
        reach = start
        for reach in range(start, len(text)):
            pos, value = step(pos, text[reach])
            if pos < 0:
                break
            if value >= 0:
                best = (reach + 1 - start, value)
        else:
            reach = len(text)
        found = None if best is None else (best[0], self._string(best[1]))
        if reach < start + 2 and len(self._window) < 1_000_000:
            self._window[window] = found
        return found


class Precompiled:
    """`tokenizers`' Precompiled normalizer (the charsmap None: the text unchanged).

    >>> out = Precompiled(_TINY).normalize(Normalized.of("xﬁ"))
    >>> out.text, out.spans
    ('xfi', [(0, 1), (1, 2), (1, 2)])
    """

    def __init__(self, charsmap: bytes | None) -> None:
        self.charsmap = CharsMap(charsmap) if charsmap else None

    def normalize(self, text: Normalized) -> Normalized:
        charsmap = self.charsmap
        if charsmap is None or not text.text:
            return text
        # (character, change) as `tokenizers` lists them: 0 replaces one character, 1 is an
        # insertion, -n replaces one and removes n more.
        changes: list[list[Any]] = []
        modified = False
        lookup = charsmap.lookup
        for cluster in _GRAPHEMES.findall(text.text):
            if len(cluster) > 1 and len(cluster.encode("utf-8", "surrogatepass")) < 6:
                found = charsmap.first_prefix(cluster)
                if found is not None:
                    _replace(changes, len(cluster), found[1])
                    modified = True
                    continue
            for ch in cluster:
                new = lookup(ch)
                if new is None:
                    changes.append([ch, 0])
                else:
                    _replace(changes, 1, new)
                    modified = True
        if not modified:
            return text
        new_text = "".join(change[0] for change in changes)
        old = text.spans
        if old is None:
            return Normalized(new_text, None, at_start=text.at_start, origin=text.origin)
        spans: list[tuple[int, int]] = []
        at = 0  # the next old character to consume
        for _ch, change in changes:
            if change > 0:
                spans.append(old[at - 1] if at > 0 else text.insert_span(0))
            else:
                spans.append(old[at])
                at += 1 - change
        return Normalized(new_text, spans, at_start=text.at_start, origin=text.origin)

    def to_hf(self) -> dict[str, Any]:
        if self.charsmap is None:
            # `tokenizers` refuses an empty or null charsmap; an empty Sequence does nothing too.
            return {"type": "Sequence", "normalizers": []}
        encoded = base64.b64encode(self.charsmap.data).decode("ascii")
        return {"type": "Precompiled", "precompiled_charsmap": encoded}


def _replace(changes: list[list[Any]], old_count: int, new: str) -> None:
    """Append the changes for `old_count` characters becoming `new`, as `tokenizers` does."""
    changes.extend([ch, 0] for ch in new)
    diff = len(new) - old_count
    if diff > 0:
        for change in changes[-diff:]:
            change[1] = 1
    elif diff < 0 and changes:
        # Shorter: the last character consumes the rest; with nothing of its own that is the
        # character before (at the very start, nothing: the removed ones stay unconsumed).
        changes[-1][1] += diff


def _build(data: dict[str, Any], reader: PartReader) -> Precompiled:
    what = "normalizer Precompiled"
    raw = data.get("precompiled_charsmap")
    if raw is None or raw == "":
        return Precompiled(None)
    if not isinstance(raw, str):
        reader.fail(what, f"'precompiled_charsmap' must be a base64 string, not {type(raw).__name__}")
    try:
        charsmap = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        reader.fail(what, f"'precompiled_charsmap' is not valid base64 ({exc})")
    try:
        return Precompiled(charsmap)
    except BPEError as exc:
        reader.fail(what, str(exc))


HF_TYPES: dict[str, Builder] = {"Precompiled": _build}


def tiny_charsmap(rules: dict[str, str]) -> bytes:
    """A charsmap holding `rules` (key -> replacement), built here for examples and tests.

    Keys are placed greedily in a double array (no packed offsets, so up to 2**21 units), padded
    to whole blocks of 256 units as sentencepiece requires.

    >>> CharsMap(tiny_charsmap({"ab": "x", "a": "y"})).longest_prefix("abc", 0)
    (2, 'x')
    """
    strings = bytearray()
    values: dict[bytes, int] = {}
    for key, new in sorted(rules.items()):
        values[key.encode("utf-8")] = len(strings)
        strings += new.encode("utf-8") + b"\0"
    units: list[int] = [0]
    used = {0}
    bases: set[int] = set()  # each node needs its own base, or one node's children pass for another's

    def place(node: int, prefix: bytes) -> None:
        children = sorted({k[len(prefix)] for k in values if k.startswith(prefix) and len(k) > len(prefix)})
        leaf = prefix in values
        labels = ([0] if leaf else []) + children
        base = 1
        while base in bases or any((base ^ c) in used for c in labels):
            base += 1
        bases.add(base)
        for c in labels:
            used.add(base ^ c)
        units.extend([0] * (max(base ^ c for c in labels) + 1 - len(units)))
        units[node] |= (base ^ node) << 10 | (_HAS_LEAF if leaf else 0)
        if leaf:
            units[base] = 0x80000000 | values[prefix]
        for c in children:
            units[base ^ c] = c
            place(base ^ c, prefix + bytes([c]))

    place(0, b"")
    units.extend([0] * (-len(units) % 256))  # sentencepiece wants whole blocks of 256 units
    trie = b"".join(u.to_bytes(4, "little") for u in units)
    return len(trie).to_bytes(4, "little") + trie + bytes(strings)


_TINY = tiny_charsmap({"ﬁ": "fi", "Ａ": "A"})
