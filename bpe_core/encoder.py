"""Applying merges to one word: rank-based (fast), replay (the lessons' loop), steps, dropout.

A *rank table* maps what can merge to its rank. With the `pairs` rule (merge lists: ours, GPT-2,
Hugging Face) its keys are (left, right) pairs; with the `concat` rule (tiktoken rank files) its
keys are the merged token itself, so any two neighbours whose concatenation is a token can merge.
"""
from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .collector import collector_paused

INF = float("inf")
_NO_MERGE = 1 << 62  # the rank of a pair no merge joins: above any real rank, and an int
# Words longer than this use the heap encoder; shorter ones rescan, which is faster for them.
_SHORT = 48


@dataclass(frozen=True)
class RankTable:
    """What may merge, and how early it was learned."""

    ranks: Mapping[Any, int]
    concat: bool = False

    def rank(self, left: str, right: str) -> int | None:
        return self.ranks.get(left + right) if self.concat else self.ranks.get((left, right))


def encode_ranked(symbols: Sequence[str], table: RankTable, *, limit: int | None = None) -> list[str]:
    """Repeatedly merge the neighbours with the lowest rank (leftmost among equals).

    `limit` keeps only merges of rank < limit: the word as it was after that many merges.

    >>> encode_ranked(["l", "o", "w"], RankTable({("l", "o"): 0, ("lo", "w"): 1}))
    ['low']
    """
    parts = list(symbols)
    if len(parts) > _SHORT:
        return _encode_long(parts, table, limit)
    top = _NO_MERGE if limit is None else limit
    get = table.ranks.get
    # pair_ranks[i] is the rank of (parts[i], parts[i + 1]); a merge changes only its neighbours.
    # The last entry, for the last part, which has no right neighbour, never merges: the list is
    # never empty and `min` needs no test. Ranks stay ints (no float infinity): `min` compares
    # them faster.
    if table.concat:
        pair_ranks = [get(a + b, _NO_MERGE) for a, b in zip(parts, parts[1:])]
        pair_ranks.append(_NO_MERGE)
        while True:
            best = min(pair_ranks)
            if best >= top:
                return parts
            i = pair_ranks.index(best)  # the leftmost of equal ranks
            parts[i] += parts.pop(i + 1)
            del pair_ranks[i + 1]
            pair_ranks[i] = get(parts[i] + parts[i + 1], _NO_MERGE) if i + 1 < len(parts) else _NO_MERGE
            if i:
                pair_ranks[i - 1] = get(parts[i - 1] + parts[i], _NO_MERGE)
    pair_ranks = [get(pair, _NO_MERGE) for pair in zip(parts, parts[1:])]
    pair_ranks.append(_NO_MERGE)
    while True:
        best = min(pair_ranks)
        if best >= top:
            return parts
        i = pair_ranks.index(best)
        parts[i] += parts.pop(i + 1)
        del pair_ranks[i + 1]
        pair_ranks[i] = get((parts[i], parts[i + 1]), _NO_MERGE) if i + 1 < len(parts) else _NO_MERGE
        if i:
            pair_ranks[i - 1] = get((parts[i - 1], parts[i]), _NO_MERGE)


def _encode_long(parts: list[str], table: RankTable, limit: int | None) -> list[str]:
    """The same as `encode_ranked`, with a linked list and a heap: O(m log m) for long inputs."""
    top = INF if limit is None else limit
    n = len(parts)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    alive = [True] * n

    def rank_at(i: int) -> int | None:
        j = nxt[i]
        if j < 0:
            return None
        r = table.rank(parts[i], parts[j])
        return r if r is not None and r < top else None

    heap: list[tuple[int, int]] = []
    for i in range(n - 1):
        r = rank_at(i)
        if r is not None:
            heap.append((r, i))
    heapq.heapify(heap)
    while heap:
        r, i = heapq.heappop(heap)
        if not alive[i] or rank_at(i) != r:
            continue
        j = nxt[i]
        parts[i] += parts[j]
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[j] >= 0:
            prv[nxt[j]] = i
        for k in (prv[i], i):
            if k >= 0:
                rk = rank_at(k)
                if rk is not None:
                    heapq.heappush(heap, (rk, k))
    return [p for p, keep in zip(parts, alive) if keep]


def encode_replay(symbols: Sequence[str], merges: Sequence[tuple[str, str]]) -> list[str]:
    """The lessons' encoder: apply every merge in the order it was learned, left to right."""
    parts = list(symbols)
    for a, b in merges:
        i = 0
        while i < len(parts) - 1:
            if parts[i] == a and parts[i + 1] == b:
                parts[i : i + 2] = [a + b]
            else:
                i += 1
    return parts


@dataclass(frozen=True)
class MergeStep:
    """One merge applied while encoding a word: which rule, where, and the pieces after it."""

    rank: int
    position: int
    left: str
    right: str
    pieces: tuple[str, ...]


def merge_steps(
    symbols: Sequence[str], table: RankTable, *, limit: int | None = None
) -> list[MergeStep]:
    """The merges that fire on a word, in the order they fire, with the pieces after each."""
    parts = list(symbols)
    top = INF if limit is None else limit
    steps: list[MergeStep] = []
    while len(parts) > 1:
        best, at = top, -1
        for i in range(len(parts) - 1):
            r = table.rank(parts[i], parts[i + 1])
            if r is not None and r < best:
                best, at = r, i
        if at < 0:
            break
        left, right = parts[at], parts[at + 1]
        parts[at : at + 2] = [left + right]
        steps.append(MergeStep(int(best), at, left, right, tuple(parts)))
    return steps


def encode_dropout(
    symbols: Sequence[str], table: RankTable, *, p: float, rng: random.Random
) -> list[str]:
    """BPE-dropout: at each step every applicable merge is skipped with probability p."""
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability must be between 0 and 1")
    parts = list(symbols)
    while len(parts) > 1:
        best, at = INF, -1
        for i in range(len(parts) - 1):
            r = table.rank(parts[i], parts[i + 1])
            if r is not None and r < best and rng.random() >= p:
                best, at = r, i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts


def token_spans(word: str, tokens: Sequence[str], *, byte_level: bool, marker: str) -> tuple[tuple[int, int], ...]:
    """Each token's character span within the word its merges made it from.

    A byte-level token spans every character one of its bytes belongs to; a token that ends in the
    end-of-word marker spans the word's last characters, the marker none.

    >>> token_spans("low", ["lo", "w</w>"], byte_level=False, marker="</w>")
    ((0, 2), (2, 3))
    >>> token_spans("é!", ["Ã", "©!"], byte_level=True, marker="")
    ((0, 1), (0, 2))
    """
    out = []
    pos = 0
    if byte_level:
        char_at: list[int] = []
        for i, ch in enumerate(word):
            char_at.extend([i] * len(ch.encode("utf-8")))
        for t in tokens:
            out.append((char_at[pos], char_at[pos + len(t) - 1] + 1))
            pos += len(t)
        return tuple(out)
    for t in tokens:
        n = len(t)
        if marker and t.endswith(marker) and pos + n > len(word):
            n -= len(marker)
        out.append((pos, pos + n))
        pos += n
    return tuple(out)


def merge_births(merges: Iterable[tuple[str, str]], vocab: Iterable[str] = ()) -> dict[str, int]:
    """Each token a merge makes -> the rank of the first merge that makes it, in rank order.

    A made token is a new string equal to a vocabulary's own, so the map is keyed by `vocab`'s
    strings where it holds them: for o200k the copies alone would take 15 MB for as long as it is loaded.

    >>> vocab = ["l", "o", "w", "".join(["l", "o"]), "low"]
    >>> births = merge_births([("l", "o"), ("lo", "w"), ("l", "o")], vocab)
    >>> births, next(iter(births)) is vocab[3]
    ({'lo': 0, 'low': 1}, True)
    """
    with collector_paused():  # 100,000s of strings
        made = [left + right for left, right in merges]
        own = dict(zip(vocab, vocab))
        made = list(map(own.get, made, made))
        del own
        out = dict(zip(made, range(len(made))))
        if len(out) < len(made):  # some token is made twice: its first merge counts
            out = {}
            for rank, token in enumerate(made):
                out.setdefault(token, rank)
    return out
