"""Word counts packed for the trip between processes (Dask sends partial counts between workers).

Pickling a Counter writes each word and count on its own. `PackedCounts` is a Counter that
pickles as two flat values instead: its words joined by NUL into one string and its counts as an
array of 64-bit integers; unpickling splits the string back into the words, in their order. Each
step runs in C, and the worker sending the counts spends a fraction of the time in it (while its
event loop shares the interpreter with a counting task). A word holding NUL itself (JSON can
carry one) makes that Counter pickle as a plain one.
"""
from __future__ import annotations

from array import array
from collections import Counter
from typing import Any

_SEP = "\x00"


class PackedCounts(Counter[str]):
    """A Counter of words that pickles compactly (same words, counts and order)."""

    def __reduce__(self) -> tuple[Any, ...]:
        joined = _SEP.join(self)
        if joined.count(_SEP) != max(0, len(self) - 1):  # a word holds the separator
            return (PackedCounts, (dict(self),))
        return (unpack_counts, (joined, len(self), array("q", self.values()).tobytes()))


def unpack_counts(joined: str, n: int, counts: bytes) -> PackedCounts:
    """The counts `PackedCounts.__reduce__` packed.

    >>> import pickle
    >>> c = packed(Counter({"low": 2, "": 1, "lower": 5}))
    >>> list(pickle.loads(pickle.dumps(c)).items()), pickle.loads(pickle.dumps(packed(Counter())))
    ([('low', 2), ('', 1), ('lower', 5)], PackedCounts())
    """
    out = PackedCounts()
    if n:
        values = array("q")
        values.frombytes(counts)
        dict.update(out, zip(joined.split(_SEP), values))
    return out


def packed(counts: Counter[str]) -> PackedCounts:
    """`counts` as a PackedCounts (a copy in C, unless it already is one)."""
    if isinstance(counts, PackedCounts):
        return counts
    out = PackedCounts()
    dict.update(out, counts)
    return out
