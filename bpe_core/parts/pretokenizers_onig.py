"""Oniguruma patterns, as Hugging Face `tokenizers` compiles them, rewritten for Python's `regex`.

tokenizers compiles `Split` patterns with Oniguruma in Ruby syntax. Python's `regex` reads most of
them the same way; `onig_to_python` rewrites what means something else there:

- `X{n,m}+` is `(?:X{n,m})+` in Ruby (a second repeat, not possessive), and `X{n}?` is `(?:X{n})?`;
- `^` and `$` are line anchors; `\\Z` also matches before a final newline, `\\z` only at the end;
- `\\w`, `\\W`, `\\b`, `\\B` and `\\p{Word}` outside a class count the Latin-1 digits ¹ ² ³ ¼ ½ ¾ as
  word characters, and none of them the joiners U+200C/U+200D (inside a class, Oniguruma's \\w
  has neither); POSIX [:punct:] is every P and S, [:digit:] every Nd, [:word:] is that \\w;
- `(?m)` is Python's `(?s)`, and a bare `(?i)` holds to the end of its group (`a(?i)b|c` is
  `a(?i:b|c)`); property escapes like \\p{Lu} outside a class ignore `(?i)`;
- `\\h`, `\\x{...}`, `\\k<name>`, `\\cX`, `\\e`, `\\N`, `\\O`, `\\R` and `(?'name'...)` are spelled out;
- nested classes (`[a[bc]]`) and intersections (`[a-z&&[^aeiou]]`) compile in `regex`'s version 1.

>>> onig_to_python(r"\\p{N}{1,3}+|\\s+$")
'(?:\\\\p{N}{1,3})+|\\\\s+(?m:$)'
"""
from __future__ import annotations

from typing import Any

import regex

from .pattern_limit import guarded

# Oniguruma's word characters inside a class; outside one it adds the Latin-1 digits.
_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
_WORD_OUT = _WORD + r"\xb2\xb3\xb9\xbc-\xbe"
_ESCAPES = {
    "w": f"[{_WORD_OUT}]",
    "W": f"[^{_WORD_OUT}]",
    "b": f"(?:(?<=[{_WORD_OUT}])(?![{_WORD_OUT}])|(?<![{_WORD_OUT}])(?=[{_WORD_OUT}]))",
    "B": f"(?:(?<=[{_WORD_OUT}])(?=[{_WORD_OUT}])|(?<![{_WORD_OUT}])(?![{_WORD_OUT}]))",
    "h": "[0-9a-fA-F]",
    "H": "[^0-9a-fA-F]",
    "Z": r"(?=\n?\Z)",
    "z": r"\Z",
    "N": r"[^\n]",
    "O": r"(?s:.)",
    "R": r"(?>\r\n|[\n\v\f\r\x85\u2028\u2029])",
    "e": r"\x1b",
}
# Python's \W lacks the joiners, which are no word characters to Oniguruma.
_CLASS_ESCAPES = {"w": _WORD, "W": r"\W\u200c\u200d", "h": "0-9a-fA-F", "e": r"\x1b"}
_POSIX = {"punct": r"\p{P}\p{S}", "digit": r"\p{Nd}", "alnum": r"\p{Alphabetic}\p{Nd}", "word": _WORD}
_UNSUPPORTED = {"y": "\\y (text segment boundary)", "Y": "\\Y (text segment boundary)",
                "H": "\\H inside a character class"}
_INTERVAL = regex.compile(r"\{(\d+)?(?:(,)(\d+)?)?\}")
_FLAGS = regex.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_HEX = regex.compile(r"[0-9a-fA-F]{1,8}")


class PatternError(ValueError):
    """A pattern Python's `regex` cannot be made to read as Oniguruma does (a one-line reason)."""


def compile_onig(pattern: str) -> regex.Pattern[str]:
    """`pattern` as tokenizers reads it, compiled with Python's `regex` (PatternError if it cannot be)."""
    rewriter = _Rewriter(pattern)
    try:
        return regex.compile(rewriter.run(), regex.FULLCASE | (regex.V1 if rewriter.sets else 0))
    except regex.error as exc:
        raise PatternError(str(exc).splitlines()[0]) from None


def compile_file_onig(pattern: str) -> Any:
    """A tokenizer file's own pattern (Split, Replace): `compile_onig`, timed when read under
    `match_time_limit` (an upload's: see pattern_limit)."""
    return guarded(compile_onig(pattern), pattern)


def onig_to_python(pattern: str) -> str:
    """An Oniguruma (Ruby syntax) pattern rewritten so Python's `regex` matches what it matches."""
    return _Rewriter(pattern).run()


class _Rewriter:
    """One left-to-right pass over the pattern, tracking groups and the i and x options."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.out: list[str] = []
        self.atom = -1  # where in `out` the last repeatable item starts (-1: none)
        # Per open group: where it starts in `out`, the bare-option groups opened inside the
        # enclosing one, and the options in force before it.
        self.groups: list[tuple[int, int, str]] = []
        self.bare = 0  # bare "(?i)" groups opened in the current group, closed with it
        self.options = ""  # of "ix": those in force here
        self.sets = False  # whether a class nests classes or intersects (needs regex.V1)

    def emit(self, text: str, *, atom: bool) -> None:
        if atom:
            self.atom = len(self.out)
        self.out.append(text)

    def run(self) -> str:
        p, i = self.p, 0
        while i < len(p):
            c = p[i]
            if "x" in self.options and (c.isspace() or c == "#"):
                end = (p.find("\n", i) + 1 or len(p)) if c == "#" else i + 1
                self.out.append(p[i:end])  # free-spacing layout: kept, repeats nothing
                i = end
            elif c == "\\":
                text, i = self.escape(i, in_class=False)
                self.emit(text, atom=True)
            elif c == "[":
                text, i = self.char_class(i)
                self.emit(text, atom=True)
            elif c == "(":
                i = self.open_group(i)
            elif c == ")":
                self.close_group()
                i += 1
            elif c == "{" and self.atom >= 0 and (interval := _INTERVAL.match(p, i)) is not None:
                i = interval.end()
                if p[i : i + 1] == "+" or (interval.group(2) is None and p[i : i + 1] == "?"):
                    # Ruby reads a quantifier after an interval as a second repeat, not as
                    # possessive (or, after an exact count, lazy).
                    self.out[self.atom :] = ["(?:", *self.out[self.atom :], interval.group(), ")"]
                else:
                    self.out.append(interval.group())
            elif c == "{":
                self.emit("\\{", atom=True)
                i += 1
            elif c in "^$":
                self.emit(f"(?m:{c})", atom=False)
                self.atom = -1
                i += 1
            elif c == "|":
                self.emit("|", atom=False)
                self.atom = -1
                i += 1
            elif c in "*+?":
                self.out.append(c)
                i += 1
            else:
                self.emit(c, atom=True)
                i += 1
        self.out.append(self.closing(self.bare))
        return "".join(self.out)

    def closing(self, count: int) -> str:
        # In free-spacing mode a comment may run to the end: close on a line of its own.
        return ("\n" if count and "x" in self.options else "") + ")" * count

    def open_group(self, i: int) -> int:
        p = self.p
        if p.startswith("(?#", i):
            close = p.find(")", i)
            return len(p) if close < 0 else close + 1
        flags = _FLAGS.match(p, i)
        if flags is None or (flags.group(1) == "" and flags.group(2) is None):
            text, end = "(", i + 1
            if p.startswith("(?'", i):  # (?'name'...) is (?P<name>...)
                close = p.find("'", i + 3)
                if close > 0:
                    text, end = f"(?P<{p[i + 3 : close]}>", close + 1
            self.groups.append((len(self.out), self.bare, self.options))
            self.bare = 0
            self.emit(text, atom=False)
            self.atom = -1
            return end
        on, off = _option_letters(flags.group(1)), _option_letters(flags.group(2) or "")
        options = "".join(o for o in "ix" if (o in self.options or o in on) and o not in off)
        spelled = "(?" + on.replace("m", "s") + (f"-{off.replace('m', 's')}" if off else "")
        if flags.group(3) == ":":
            self.groups.append((len(self.out), self.bare, self.options))
            self.bare = 0
            self.emit(spelled + ":", atom=False)
        elif i == 0 and not off:
            self.emit(spelled + ")", atom=False)  # at the very start: global (full case folding works)
        else:
            self.emit(spelled + ":", atom=False)  # holds to the end of the enclosing group
            self.bare += 1
        self.options = options
        self.atom = -1
        return flags.end()

    def close_group(self) -> None:
        text = self.closing(self.bare) + ")"
        if self.groups:
            start, self.bare, self.options = self.groups.pop()
        else:  # unbalanced: `regex` reports it
            start, self.bare = len(self.out), 0
        self.out.append(text)
        self.atom = start

    def escape(self, i: int, *, in_class: bool) -> tuple[str, int]:
        """The escape at p[i] == "\\" rewritten, and the index after it."""
        p = self.p
        c = p[i + 1 : i + 2]
        if not c:
            return "\\", i + 1  # a trailing backslash: `regex` reports it
        if c in "pP" and p[i + 2 : i + 3] == "{":
            close = p.find("}", i + 2)
            end = len(p) if close < 0 else close + 1
            text = p[i:end]
            if text[3:-1].lstrip("^").lower() == "word":
                negated = (c == "P") != text.startswith("^", 3)
                if in_class:
                    return (_CLASS_ESCAPES["W"] if negated else _WORD), end
                return f"[{'^' if negated else ''}{_WORD_OUT}]", end
            if "i" in self.options and not in_class:
                text = f"(?-i:{text})"  # Oniguruma does not fold \p{Lu} outside a class
            return text, end
        if c == "k" and p[i + 2 : i + 3] in ("<", "'"):
            close = p.find(">" if p[i + 2] == "<" else "'", i + 3)
            end = len(p) if close < 0 else close + 1
            return f"\\g<{p[i + 3 : close]}>", end
        if c == "x" and p[i + 2 : i + 3] == "{":
            close = p.find("}", i + 3)
            if close < 0 or not _HEX.fullmatch(p, i + 3, close):
                raise PatternError(f"bad escape {p[i : close + 1 if close > 0 else len(p)]}")
            return f"\\U{int(p[i + 3 : close], 16):08x}", close + 1
        if c == "c" and i + 2 < len(p):
            return f"\\x{ord(p[i + 2]) & 0x1F:02x}", i + 3
        if c in _UNSUPPORTED and (c != "H" or in_class):
            raise PatternError(f"{_UNSUPPORTED[c]} is not supported")
        if in_class:
            return _CLASS_ESCAPES.get(c, p[i : i + 2]), i + 2
        if c == "N" and p[i + 2 : i + 3] == "{":
            return p[i : i + 2], i + 2
        return _ESCAPES.get(c, p[i : i + 2]), i + 2

    def char_class(self, i: int) -> tuple[str, int]:
        """The character class at p[i] == "[" rewritten, and the index after it."""
        p = self.p
        out = ["["]
        j = i + 1
        if p[j : j + 1] == "^":
            out.append("^")
            j += 1
        if p[j : j + 1] == "]":  # a "]" first in the class is the character itself
            out.append("\\]")
            j += 1
        while j < len(p):
            c = p[j]
            if c == "\\":
                text, j = self.escape(j, in_class=True)
                out.append(text)
            elif p.startswith("[:", j):  # a POSIX bracket such as [:alpha:]
                close = p.find(":]", j + 2)
                end = len(p) if close < 0 else close + 2
                name = p[j + 2 : end - 2]
                out.append(_POSIX.get(name, p[j:end]))
                j = end
            elif c == "[" or p.startswith("&&", j):
                # A nested class or an intersection: Python's `regex` reads them in its version 1.
                self.sets = True
                text, j = self.char_class(j) if c == "[" else ("&&", j + 2)
                out.append(text)
            elif c == "]":
                out.append("]")
                return "".join(out), j + 1
            else:
                out.append(c)
                j += 1
        return "".join(out), j  # unterminated: `regex` reports it


def _option_letters(letters: str) -> str:
    # Ruby syntax knows i, m (dot matches newline: Python's s) and x; tokenizers refuses the others.
    for letter in letters:
        if letter not in "imx":
            raise PatternError(f"(?{letter}) is no Oniguruma option (Ruby syntax knows i, m and x)")
    return letters
