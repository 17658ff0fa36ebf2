"""A split pattern's twin in Python's own `re`: the same matches on text of the Basic Multilingual
Plane, found two to three times faster than `regex` finds them.

Pre-tokenizing is most of the time an encoder spends on text it has seen before, and `regex`
spends more of it per match than `re` does. `re` has no Unicode properties (`\\p{L}`), so the
twin spells every class out: each class, property or class escape of the pattern is replaced by
the characters from U+0000 to U+FFFF that `regex` itself matches with it, so the two agree by
construction (whatever Unicode version `regex` has). `re` looks such a class up in a table;
characters above U+FFFF would make it test a list of ranges one by one, so the twin leaves them
out and is used only for text that has none (most text; `regex` runs on the rest).

Text with characters above U+FFFF (emoji) still gets the twin: each such character is replaced
by a stand-in from the plane that every class and letter of the pattern treats alike, so the
twin cuts the stand-in text where `regex` would cut the text, and the pieces are cut from the
text itself at the same places.

Inside a case-insensitive group `(?i:...)` each letter becomes the class of what it matches,
so `re` needs no case rules of its own. A pattern with anything else whose meaning might differ
between the two modules (word boundaries, backreferences, global flags, nested sets) has no
twin, and neither has a pattern `re` cannot compile (possessive repeats need Python 3.11).

>>> twin = FastPattern(regex.compile(r"\\p{L}+|\\p{N}")).twin().rx
>>> twin.findall("été 42"), twin.pattern[:14]
(['été', '4', '2'], '[\\\\u0041-\\\\u005a')
"""
from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate
from typing import Any

import regex

# Text holding any of these characters (above U+FFFF) is split by `regex`.
_OUTSIDE = regex.compile(r"[\U00010000-\U0010FFFF]")
# The twin is made on the first text this long (a short text costs little either way), then used
# for texts of any length.
TWIN_FROM = 2_000
# Flags a pattern may carry: Unicode (the default of str patterns), version 0, full case folding.
_PLAIN_FLAGS = regex.UNICODE | regex.VERSION0 | regex.FULLCASE
_ESCAPE_CLASSES = frozenset("sSdDwW")
_LITERAL_ESCAPES = {"r": "\r", "n": "\n", "t": "\t", "f": "\f", "v": "\v", "a": "\a", "e": "\x1b", "0": "\0"}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>")
_SCOPED_FLAGS = re.compile(r"\(\?([ims]+):")


class FastPattern:
    """A compiled `regex` pattern, and its `re` twin once a long text has asked for it.

    Safe to share between threads: the twin is made from the pattern alone and assigned whole
    (two threads may both make it; they make the same).
    """

    __slots__ = ("rx", "_twin", "_made")

    def __init__(self, rx: regex.Pattern[str]) -> None:
        self.rx = rx
        self._twin: Twin | None = None
        self._made = False

    def twin(self) -> Twin | None:
        """The `re` twin (None when the pattern has none), made on first use."""
        if not self._made:
            self._twin = twin_of(self.rx.pattern, self.rx.flags)
            self._made = True
        return self._twin

    def for_text(self, text: str) -> Any:
        """The compiled pattern to run on `text`: the twin when the text allows it, else `regex`'s.

        Both have the same `findall`, `finditer`, `split` and `groups`.
        """
        twin = self._ready(text)
        if twin is not None and (text.isascii() or _OUTSIDE.search(text) is None):
            return twin.rx
        return self.rx

    def findall(self, text: str) -> list[Any]:
        """`rx.findall(text)`, by the twin wherever it can."""
        twin = self._ready(text)
        if twin is not None:
            if text.isascii() or _OUTSIDE.search(text) is None:
                return twin.rx.findall(text)
            found = twin.findall_beyond(text)
            if found is not None:
                return found
        return self.rx.findall(text)

    def _ready(self, text: str) -> Twin | None:
        """The twin, once made: the first text of `TWIN_FROM` characters makes it."""
        if self._made or len(text) >= TWIN_FROM:
            return self.twin()
        return None


class Twin:
    """A pattern's `re` twin, and the atoms it was spelled from: each class, class escape and
    case-insensitive letter, as `regex` source."""

    def __init__(self, rx: re.Pattern[str], atoms: list[str], flags: int) -> None:
        self.rx = rx
        self._atoms = [regex.compile(atom, flags) for atom in dict.fromkeys(atoms)]
        self._standins: dict[str, str | None] = {}  # filled as characters come; entries never change
        self._gaps = False  # set once the matches left gaps in a text (a hint: threads may race on it)

    def standin(self, ch: str) -> str | None:
        """A character up to U+FFFF (not a newline, which `$` reads) that every atom matches
        exactly when it matches `ch`; None if there is none."""
        if ch in self._standins:
            return self._standins[ch]
        wanted = [atom.match(ch) is not None for atom in self._atoms]
        found = next((c for c in _candidates() if [a.match(c) is not None for a in self._atoms] == wanted), None)
        self._standins[ch] = found
        return found

    def findall_beyond(self, text: str) -> list[str] | None:
        """`findall` on text with characters above U+FFFF, when the matches cover it: the twin
        runs on the text with each of them replaced by its stand-in (one character for one, so
        every piece keeps its place), and the pieces that hold one are cut from `text` again.
        None when some character has no stand-in, when they are many (mending the pieces would
        cost more than the twin saves), or when the matches leave gaps."""
        if self.rx.groups or self._gaps:
            return None
        outside = _OUTSIDE.findall(text)
        if len(outside) * 100 > len(text):
            return None
        table = {}
        for ch in set(outside):
            standin = self.standin(ch)
            if standin is None:
                return None
            table[ch] = standin
        found = self.rx.findall(_OUTSIDE.sub(lambda m: table[m.group()], text))
        ends = list(accumulate(map(len, found)))
        if not ends or ends[-1] != len(text):
            self._gaps = True  # a pattern that leaves gaps (\S+) leaves them in other texts too
            return None
        for match in _OUTSIDE.finditer(text):
            k = bisect_right(ends, match.start())
            found[k] = text[ends[k - 1] if k else 0 : ends[k]]
        return found


@lru_cache(maxsize=64)
def twin_of(pattern: str, flags: int) -> Twin | None:
    """`pattern` (as `regex` reads it with `flags`) rewritten for `re`, or None if it cannot be."""
    if flags & ~_PLAIN_FLAGS:
        return None
    writer = _Twin(pattern, flags)
    try:
        spelled = writer.run()
    except _NoTwin:
        return None
    try:
        return Twin(re.compile(spelled), writer.atoms, flags)
    except (re.error, OverflowError, RecursionError):  # Python 3.10 has no possessive repeats
        return None


@lru_cache(maxsize=1)
def _candidates() -> str:
    """Where stand-ins are looked for: the printable ASCII characters first, then the plane."""
    return "".join(map(chr, range(0x20, 0x7F))) + _plane().replace("\n", "")


@lru_cache(maxsize=1)
def _plane() -> str:
    """Every character from U+0000 to U+FFFF, in order (the surrogates too)."""
    return "".join(map(chr, range(0x10000)))


@lru_cache(maxsize=1)
def _multi_folds() -> str:
    """The characters whose full case folding is several characters ("ß" -> "ss")."""
    plane = _plane()
    out: list[str] = []
    for start in range(0, len(plane), 256):  # a block at a time: few blocks hold any
        block = plane[start : start + 256]
        if len(block.casefold()) != len(block):
            out.extend(ch for ch in block if len(ch.casefold()) > 1)
    return "".join(out)


@lru_cache(maxsize=1024)
def spelled_class(atom: str, flags: int) -> str:
    """The characters up to U+FFFF that `atom` (one character's worth of `regex` pattern) matches,
    as an `re` class (one that matches nothing there matches only characters above U+FFFF, which
    the twin never sees).

    >>> spelled_class(r"[\\p{Nd}a]", regex.UNICODE)[:33]
    '[\\\\u0030-\\\\u0039\\\\u0061\\\\u0660-\\\\u0669'
    """
    if atom.startswith("(?i:"):
        # One match at a time: with full case folding "(?i:s)+" would take "ß" as two of them.
        codes = [ord(m.group()) for m in regex.compile(atom, flags).finditer(_plane()) if len(m.group()) == 1]
        runs = _runs(codes)
    else:
        pattern = regex.compile(f"(?:{atom})+", flags)
        runs = [(ord(m.group()[0]), ord(m.group()[-1])) for m in pattern.finditer(_plane())]
    spelled = [f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs]
    return f"[{''.join(spelled)}]" if spelled else "[^\\u0000-\\uffff]"


def _runs(codes: list[int]) -> list[tuple[int, int]]:
    """Sorted code points as (first, last) runs of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return runs


class _NoTwin(Exception):
    """The pattern holds something the twin does not spell out."""


class _Twin:
    """One left-to-right pass over a `regex` pattern, writing its `re` twin."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.p = pattern
        self.flags = flags
        self.out: list[str] = []
        self.atoms: list[str] = []  # each class and case-insensitive letter, as `regex` source
        self.caseless: list[bool] = []  # per open group: whether it is case-insensitive
        # Case-insensitive letters side by side (a class stands as ""): with full case folding one
        # character may match several of them ("ß" matches "ss"), which `_check_folds` rules out.
        self.run_items: list[str] = []
        self.runs: list[list[str]] = []

    def run(self) -> str:
        p, i = self.p, 0
        while i < len(p):
            ch = p[i]
            items = len(self.run_items)
            if ch == "\\":
                i = self._escape(i)
            elif ch == "[":
                end = _class_end(p, i)
                self._atom(p[i:end])
                i = end
            elif ch == "(":
                i = self._open(i)
            elif ch == ")":
                if not self.caseless:
                    raise _NoTwin
                self.caseless.pop()
                self.out.append(ch)
                i += 1
            elif ch == ".":
                self._atom(ch)
                i += 1
            elif ch in "|*+?{}^$":  # structure: the same in both modules
                if ch in "*+?{" and self._ignorecase and self.flags & regex.FULLCASE:
                    raise _NoTwin  # a repeated letter may match what folds to several ("s+" and "ß")
                self.out.append(ch)
                i += 1
            else:
                self._literal(ch)
                i += 1
            if len(self.run_items) == items:  # this step added no case-insensitive item: a run ends
                self._end_run()
        self._end_run()
        if self.flags & regex.FULLCASE:
            self._check_folds()
        return "".join(self.out)

    @property
    def _ignorecase(self) -> bool:
        return bool(self.caseless) and self.caseless[-1]

    def _atom(self, atom: str) -> None:
        """A class or class escape: spelled out, under the case rule in force here."""
        if self._ignorecase:
            if _has_non_ascii(spelled_class(atom, self.flags)):
                raise _NoTwin  # a case-insensitive class of non-ASCII letters may fold in ways `re` does not
            atom = f"(?i:{atom})"
            self.run_items.append("")
        self.atoms.append(atom)
        self.out.append(spelled_class(atom, self.flags))

    def _literal(self, ch: str) -> None:
        if not self._ignorecase:
            self.atoms.append(regex.escape(ch))
            self.out.append(re.escape(ch))
        elif not ch.isascii():
            raise _NoTwin
        else:
            atom = f"(?i:{regex.escape(ch)})"
            self.atoms.append(atom)
            self.run_items.append(ch)
            self.out.append(spelled_class(atom, self.flags))

    def _end_run(self) -> None:
        if len(self.run_items) > 1:
            self.runs.append(self.run_items)
        self.run_items = []

    def _check_folds(self) -> None:
        """No character whose full case folding is several letters ("ß" -> "ss", "ﬃ" -> "ffi")
        may fit neighbouring case-insensitive items (a class fits any letter): classes of single
        characters could not say that one character matches several of them."""
        folds = [ch.casefold() for ch in _multi_folds()]
        for run in self.runs:
            for folded in folds:
                for k in range(len(run) - len(folded) + 1):
                    window = run[k : k + len(folded)]
                    if all(not item or item.casefold() == letter for item, letter in zip(window, folded)):
                        raise _NoTwin

    def _escape(self, i: int) -> int:
        p = self.p
        if i + 1 >= len(p):
            raise _NoTwin
        kind = p[i + 1]
        if kind in "pP":
            if p[i + 2 : i + 3] != "{":
                raise _NoTwin
            end = p.index("}", i) + 1
            self._atom(p[i:end])
            return end
        if kind in _ESCAPE_CLASSES:
            self._atom(p[i : i + 2])
            return i + 2
        if kind in _LITERAL_ESCAPES:
            self._literal(_LITERAL_ESCAPES[kind])
            return i + 2
        if kind in _HEX_DIGITS:
            size = _HEX_DIGITS[kind]
            digits = p[i + 2 : i + 2 + size]
            if len(digits) != size or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise _NoTwin
            self._literal(chr(int(digits, 16)))
            return i + 2 + size
        if kind in "AZ":  # the start and the very end of the text, in both modules
            self.out.append(p[i : i + 2])
            return i + 2
        if kind.isascii() and not kind.isalnum():  # an escaped punctuation mark: itself
            self._literal(kind)
            return i + 2
        raise _NoTwin  # \b, \B, backreferences, \X, \G, \N{...} and the like

    def _open(self, i: int) -> int:
        p = self.p
        for opener in _GROUP_OPENERS:
            if p.startswith(opener, i):
                self.caseless.append(self._ignorecase)
                self.out.append(opener)
                return i + len(opener)
        found = _SCOPED_FLAGS.match(p, i)
        if found is not None:
            letters = found.group(1)
            if "s" in letters:
                raise _NoTwin  # it changes what "." means: not followed here
            self.caseless.append(self._ignorecase or "i" in letters)
            self.out.append("(?m:" if "m" in letters else "(?:")
            return found.end()
        if p.startswith("(?", i):
            raise _NoTwin  # global flags, named groups, comments, conditionals
        self.caseless.append(self._ignorecase)
        self.out.append("(")
        return i + 1


def _class_end(p: str, i: int) -> int:
    """Where the character class opened at `p[i]` ends (one past its "]")."""
    j = i + 1
    if p[j : j + 1] == "^":
        j += 1
    if p[j : j + 1] == "]":  # a "]" first is a literal
        j += 1
    while j < len(p):
        ch = p[j]
        if ch == "\\":
            j += 2
        elif ch == "[":
            raise _NoTwin  # a nested set or a POSIX class
        elif ch == "]":
            return j + 1
        else:
            j += 1
    raise _NoTwin


def _has_non_ascii(spelled: str) -> bool:
    return any(int(code, 16) > 0x7F for code in re.findall(r"\\u([0-9a-f]{4})", spelled))
