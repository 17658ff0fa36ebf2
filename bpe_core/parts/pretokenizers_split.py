"""How pre-tokenizers cut a piece, as Hugging Face `tokenizers` does: its five delimiter
behaviours, and its way of walking a pattern's matches (Oniguruma's, through the Rust `onig` crate).

>>> behavior_ranges(find_matches(regex.compile("-"), "a-b--c"), "MergedWithPrevious")
[(0, 2), (2, 4), (4, 5), (5, 6)]
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import regex

from ..fast_pattern import FastPattern
from .normalized import Normalized
from .pattern_limit import TimedPattern

# Hugging Face's behaviour names, as tokenizer.json spells them.
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
# The Python binding's spelling ("merged_with_next"), accepted by `behavior_name`.
_SNAKE = {"removed": "Removed", "isolated": "Isolated", "merged_with_previous": "MergedWithPrevious",
          "merged_with_next": "MergedWithNext", "contiguous": "Contiguous"}

Match = tuple[int, int, bool]  # (start, end, is_match): matches and the gaps between them


def behavior_name(value: object) -> str | None:
    """The tokenizer.json name of a delimiter behaviour, or None if `value` names none."""
    if not isinstance(value, str):
        return None
    if value in BEHAVIORS:
        return value
    return _SNAKE.get(value)


def find_matches(rx: regex.Pattern[str], text: str) -> list[Match]:
    """The matches of `rx` in `text` and the gaps between them, covering it in order.

    Matches are walked as the Rust `onig` crate walks them: after a match ending at e, an empty
    match at e is skipped and the search goes on one character further (Python's `finditer`
    would report that empty match and could still find a longer match at e).
    """
    if not text:
        return []
    spans = [m.span() for m in rx.finditer(text)]
    if any(s == e for s, e in spans):
        spans = _onig_spans(rx, text)
    out: list[Match] = []
    prev = 0
    for s, e in spans:
        if s != prev:
            out.append((prev, s, False))
        out.append((s, e, True))
        prev = e
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def _onig_spans(rx: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos, last_end, n = 0, -1, len(text)
    while pos <= n:
        m = rx.search(text, pos)
        if m is None:
            break
        s, e = m.span()
        if s == e == last_end:
            pos += 1  # here pos == e: move one character on and search again
            continue
        spans.append((s, e))
        pos = last_end = e
    return spans


def behavior_ranges(matches: list[Match], behavior: str) -> list[tuple[int, int]]:
    """The ranges a behaviour keeps of `matches` (possibly empty ones: callers drop them).

    Folded exactly as tokenizers folds them, so empty matches and runs of adjacent matches
    (which Contiguous joins and the Merged behaviours keep apart) come out the same.
    """
    if behavior == "Isolated":
        return [(s, e) for s, e, _ in matches]
    if behavior == "Removed":
        return [(s, e) for s, e, is_match in matches if not is_match]
    acc: list[list[int]] = []
    previous = False
    if behavior == "MergedWithNext":
        for s, e, is_match in reversed(matches):
            if is_match and not previous and acc:
                acc[-1][0] = s
            else:
                acc.append([s, e])
            previous = is_match
        acc.reverse()
    else:
        joins_run = behavior == "Contiguous"
        for s, e, is_match in matches:
            joins = is_match == previous if joins_run else is_match and not previous
            if joins and acc:
                acc[-1][1] = e
            else:
                acc.append([s, e])
            previous = is_match
    return [(s, e) for s, e in acc]


def split_piece(piece: Normalized, rx: regex.Pattern[str], behavior: str, *, invert: bool = False) -> list[Normalized]:
    """`piece` cut at the matches of `rx`, kept or merged as `behavior` says."""
    text = piece.text
    if not text:
        return []
    if behavior == "Isolated" and not invert and piece.spans is None:
        # Fast path: most patterns (GPT-2's and its descendants) match every character, so the
        # pieces are just the matches.
        found = rx.findall(text) if rx.groups == 0 else [m.group() for m in rx.finditer(text)]
        if "" not in found and sum(map(len, found)) == len(text):
            return [Normalized(t, None, at_start=piece.at_start and k == 0, origin=piece.origin)
                    for k, t in enumerate(found)]
    matches = find_matches(rx, text)
    if invert:
        matches = [(s, e, not m) for s, e, m in matches]
    return [piece.slice(s, e) for s, e in behavior_ranges(matches, behavior) if e > s]


@dataclass(frozen=True)
class TextStage:
    """One step of a pre-tokenizer on plain strings, for ids-only encoding (no offsets, no
    `Normalized`): `cut` turns a piece into pieces, `change` rewrites a piece (ByteLevel's byte
    characters). A pre-tokenizer that can work so lists its steps in `text_stages()`."""

    cut: Callable[[str], list[str]] | None = None
    change: Callable[[str], str] | None = None


class TextSplitter:
    """A pattern cutting plain strings exactly as `split_piece` cuts an untracked piece, faster.

    When the pieces are the pattern's matches (Isolated where the matches cover the text, as
    GPT-2's pattern and its descendants do; Removed with `invert`) they come from one `findall`,
    run on the pattern's `re` twin where the text allows (`FastPattern`), and a text with no
    match is one piece. Otherwise (some matches, and gaps between them; or an empty match, as
    `tokenizers` walks those its own way) the matches are walked one by one.

    >>> TextSplitter(regex.compile(r"\\d+|\\D+"), "Isolated")("ab12c")
    ['ab', '12', 'c']
    """

    def __init__(self, rx: regex.Pattern[str], behavior: str, *, invert: bool = False) -> None:
        self.rx = rx
        self.behavior = behavior
        self.invert = invert
        # A timed pattern (pattern_limit) has no faster twin: the standard library's `re` cannot be stopped.
        self._fast = rx if isinstance(rx, TimedPattern) else FastPattern(rx)
        self._matches = rx.groups == 0 and (behavior, invert) in (("Isolated", False), ("Removed", True))

    def __call__(self, text: str) -> list[str]:
        if not text:
            return []
        if self._matches:
            found: list[str] = self._fast.findall(text)
            if "" not in found:
                if self.invert or sum(map(len, found)) == len(text):
                    return found
                if not found:  # Isolated, and no match: the text is one piece
                    return [text]
        matches = find_matches(self.rx, text)
        if self.invert:
            matches = [(s, e, not m) for s, e, m in matches]
        return [text[s:e] for s, e in behavior_ranges(matches, self.behavior) if e > s]


def char_class(ranges: str) -> str:
    """A regex character class body from hexadecimal ranges "41-5a 61" (see pretokenizers_tables)."""
    out: list[str] = []
    for item in ranges.split():
        lo, _, hi = item.partition("-")
        out.append(f"\\U{int(lo, 16):08x}" + (f"-\\U{int(hi, 16):08x}" if hi else ""))
    return "".join(out)


def literal(text: str) -> regex.Pattern[str]:
    """A pattern matching `text` itself (Split's {"String": ...})."""
    return regex.compile(regex.escape(text))
