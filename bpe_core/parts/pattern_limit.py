"""A time limit on the regexes a tokenizer file brings (Split, Replace), for files from strangers.

A pattern such as `(a+)+$` backtracks without bound: on 2,000 letters and a "!" one search takes
about 30 s, and a server that encodes a visitor's uploaded tokenizer in its own process would be
held that long by a short text (`tokenizers` itself panics there: Oniguruma's backtracking limit).
Patterns compiled while `match_time_limit` is in force are `TimedPattern`s: every search they make
stops after its share of time and raises a one-line BPEError. The limit costs about a microsecond
a match, so it is only for tokenizers read from uploads; the built-ins and files a user opens on
the command line match at full speed.

>>> with match_time_limit(1.0):
...     rx = guarded(regex.compile(r"(a+)+$"))
>>> rx.search("a" * 20 + "!") is None
True
"""
from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import regex

from ..settings import BPEError

_LIMIT: contextvars.ContextVar[float | None] = contextvars.ContextVar("match_time_limit", default=None)
# Each search may take the limit plus this much a character of its text: a legitimate pattern over a
# megabyte of text takes a few tenths of a second, four times that with the limit on.
PER_CHARACTER = 5e-6


@contextmanager
def match_time_limit(seconds: float) -> Iterator[None]:
    """Patterns compiled (`guarded`) inside the block stop any search after `seconds` (and its text's share)."""
    token = _LIMIT.set(seconds)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def guarded(rx: regex.Pattern[str], source: str | None = None) -> Any:
    """`rx` itself, or inside `match_time_limit` a `TimedPattern` of it (same methods for the callers
    here); `source` is the pattern as the file wrote it, for the message."""
    seconds = _LIMIT.get()
    return rx if seconds is None else TimedPattern(rx, seconds, source)


class TimedPattern:
    """A compiled pattern whose every search stops after `seconds` (plus `PER_CHARACTER` of its text)."""

    __slots__ = ("rx", "seconds", "source")

    def __init__(self, rx: regex.Pattern[str], seconds: float, source: str | None = None) -> None:
        self.rx, self.seconds, self.source = rx, seconds, rx.pattern if source is None else source

    def __reduce__(self) -> tuple[Any, ...]:  # travels to a worker process with its limit
        return TimedPattern, (self.rx, self.seconds, self.source)

    @property
    def groups(self) -> int:
        return self.rx.groups

    def _stopped(self, text: str) -> BPEError:
        return BPEError(f"the tokenizer's pattern {self.source[:60]!r} searched {len(text):,} characters for "
                        f"more than {self._timeout(text):.0f} s and was stopped: it backtracks without bound on "
                        "text like this")

    def _timeout(self, text: str) -> float:
        return self.seconds + PER_CHARACTER * len(text)

    def search(self, text: str, pos: int = 0) -> Any:
        try:
            return self.rx.search(text, pos, timeout=self._timeout(text))
        except TimeoutError:
            raise self._stopped(text) from None

    def finditer(self, text: str, pos: int = 0) -> Iterator[Any]:
        try:  # the whole walk is timed: the matches are found before any is handed out
            return iter(list(self.rx.finditer(text, pos, timeout=self._timeout(text))))
        except TimeoutError:
            raise self._stopped(text) from None

    def findall(self, text: str) -> list[Any]:
        try:
            return self.rx.findall(text, timeout=self._timeout(text))
        except TimeoutError:
            raise self._stopped(text) from None
