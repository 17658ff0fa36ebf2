"""tiktoken's split patterns, written for the `Split` part, which reads patterns as Oniguruma does.

tiktoken compiles its pattern with Rust's `fancy-regex` (Python's `regex` reads the published
ones alike); Hugging Face `tokenizers`, and our `Split` after it, read Oniguruma's Ruby syntax.
Two constructs of the published patterns mean different things there:

- `X{1,3}+` is possessive in fancy-regex, but a second repeat in Ruby syntax (any number of
  threes): it becomes the atomic group `(?>X{1,3})`;
- `$` and `^` are the ends of the text in fancy-regex, but of any line in Ruby syntax: they
  become `\\z` and `\\A`.

Everything else the published patterns use (classes, `\\p{..}`, `(?i:..)`, `?+ *+ ++`,
lookahead) reads alike in both. Inline flags beyond `i` and `x` are refused: `(?s)` and `(?m)`
mean other things in Ruby syntax.

>>> onig_pattern(r"\\p{N}{1,3}+|\\s++$|[$^]")
'(?>\\\\p{N}{1,3})|\\\\s++\\\\z|[$^]'
"""
from __future__ import annotations

import regex

from ..settings import BPEError

_INTERVAL = regex.compile(r"\{[0-9]*(?:,[0-9]*)?\}")
_FLAGS = regex.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?[:)]")


def check_pattern(pattern: object, *, name: str) -> str:
    """A split pattern tiktoken can use, or a one-line BPEError saying why it is not one.

    >>> check_pattern("(", name="my.tiktoken")
    Traceback (most recent call last):
    ...
    bpe_core.settings.BPEError: my.tiktoken: the split pattern '(' is not a regular expression: missing ) at position 1
    """
    if not isinstance(pattern, str):
        raise BPEError(f"{name}: the split pattern must be a string, not {type(pattern).__name__}")
    shown = repr(pattern[:80])
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "it does not compile"
        raise BPEError(f"{name}: the split pattern {shown} is not a regular expression: {reason}") from None
    if compiled.fullmatch("") is not None:
        # tiktoken itself fails on an empty match; a pattern that has one cuts nowhere sensible.
        raise BPEError(f"{name}: the split pattern {shown} matches the empty string; it must match text")
    onig_pattern(pattern, name=name)
    return pattern


def onig_pattern(pattern: str, *, name: str = "split pattern") -> str:
    """The tiktoken (fancy-regex) pattern rewritten in Oniguruma's syntax, matching the same text."""
    out: list[str] = []
    atom = -1  # where in `out` the last repeatable item starts (-1: none)
    groups: list[int] = []  # where each open group starts in `out`
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            end = _escape_end(pattern, i)
            atom = len(out)
            out.append(pattern[i:end])
            i = end
        elif c == "[":
            end = _class_end(pattern, i)
            atom = len(out)
            out.append(pattern[i:end])
            i = end
        elif c == "(":
            flags = _FLAGS.match(pattern, i)
            if flags is not None and set(flags.group(1) + (flags.group(2) or "")) - set("ix"):
                raise BPEError(
                    f"{name}: the split pattern's flags {flags.group()!r} mean other things in Hugging Face's "
                    "Oniguruma syntax; only i and x can be carried over"
                )
            groups.append(len(out))
            out.append("(")
            atom = -1
            i += 1
        elif c == ")":
            out.append(")")
            atom = groups.pop() if groups else -1
            i += 1
        elif c == "{" and atom >= 0 and (interval := _INTERVAL.match(pattern, i)) is not None:
            i = interval.end()
            if pattern[i : i + 1] == "+":  # possessive: the repeat, once, never given back
                out[atom:] = ["(?>", *out[atom:], interval.group(), ")"]
                i += 1
            else:
                out.append(interval.group())
        elif c == "$":
            out.append("\\z")
            atom = -1
            i += 1
        elif c == "^":
            out.append("\\A")
            atom = -1
            i += 1
        elif c == "|":
            out.append(c)
            atom = -1
            i += 1
        elif c in "*+?":
            out.append(c)
            i += 1
        else:
            atom = len(out)
            out.append(c)
            i += 1
    return "".join(out)


def _escape_end(p: str, i: int) -> int:
    """The index after the escape at p[i] ("\\p{L}", "\\x{41}", "\\n", ...)."""
    if p[i + 1 : i + 2] in ("p", "P", "x", "u") and p[i + 2 : i + 3] == "{":
        close = p.find("}", i + 3)
        return len(p) if close < 0 else close + 1
    return min(i + 2, len(p))


def _class_end(p: str, i: int) -> int:
    """The index after the character class at p[i] == "[" (nested classes and escapes skipped)."""
    depth = 0
    j = i
    while j < len(p):
        c = p[j]
        if c == "\\":
            j = _escape_end(p, j)
            continue
        if c == "[":
            if p.startswith("[:", j) and (close := p.find(":]", j + 2)) > 0:
                j = close + 2
                continue
            depth += 1
            j += 1
            if p[j : j + 1] == "^":
                j += 1
            if p[j : j + 1] == "]":  # a "]" first in a class is the character itself
                j += 1
            continue
        if c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j
