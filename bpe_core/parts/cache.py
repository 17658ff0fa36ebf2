"""What a part remembers of the pieces it has encoded: a bounded map, safe for many threads.

Text repeats its words, so each model (and the pipeline's ids path) keeps a piece's result. The
map is never emptied in place: when full, or cleared, a new dictionary replaces it, so a thread
that holds the old one still finds what it put there. Long pieces (a whole text without a
pre-tokenizer) are not kept: they rarely repeat and would only fill it.

>>> cache = PieceCache(limit=2)
>>> cache.put("ab", (1,)); cache.get("ab")
(1,)
>>> cache.put("cd", (2,)); cache.put("ef", (3,)); cache.get("ab") is None
True
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

T = TypeVar("T")

CACHE_LIMIT = 200_000  # pieces kept before the map starts anew
LONGEST_PIECE = 256  # characters: longer pieces are encoded again each time


class PieceCache(Generic[T]):
    """piece -> result, at most `limit` pieces of at most `longest` characters."""

    __slots__ = ("_map", "limit", "longest")

    def __init__(self, *, limit: int = CACHE_LIMIT, longest: int = LONGEST_PIECE) -> None:
        self._map: dict[str, T] = {}
        self.limit = limit
        self.longest = longest

    def get(self, piece: str) -> T | None:
        return self._map.get(piece)

    @property
    def table(self) -> dict[str, T]:
        """The map as it is now, to read many pieces at once (it is replaced, never emptied)."""
        return self._map

    def put_all(self, fresh: Mapping[str, T], *, in_use: Mapping[str, T]) -> None:
        """Keep the `fresh` pieces (the short ones). When that would overflow the limit, the new
        map starts from `in_use` (every piece of the text in hand, with its result), so a text
        with more new pieces than room does not empty the cache of its own pieces."""
        kept = self._map
        if len(kept) + len(fresh) > self.limit:
            self._map = kept = {p: v for p, v in in_use.items() if len(p) <= self.longest}
        else:
            kept.update((p, v) for p, v in fresh.items() if len(p) <= self.longest)

    def put(self, piece: str, value: T) -> None:
        if len(piece) > self.longest:
            return
        kept = self._map
        if len(kept) >= self.limit:
            self._map = kept = {}  # a new dictionary: other threads may be reading the old one
        kept[piece] = value

    def clear(self) -> None:
        self._map = {}

    def __len__(self) -> int:
        return len(self._map)
