"""The slow, obviously correct trainer of the lessons: recount every pair, rewrite every word.

Tests compare the incremental trainer against this one; nothing else should use it.
"""
from __future__ import annotations

from collections.abc import Mapping

from .pretokenize import byte_to_char, word_symbols
from .settings import Settings


def count_pairs(words: list[tuple[list[str], int]]) -> dict[tuple[str, str], int]:
    """Weighted counts of adjacent pairs, in order of first occurrence."""
    pairs: dict[tuple[str, str], int] = {}
    for symbols, n in words:
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + n
    return pairs


def apply_merge(symbols: list[str], pair: tuple[str, str]) -> list[str]:
    """Replace each occurrence of `pair`, scanning left to right without overlaps."""
    a, b = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i < len(symbols) - 1 and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def rank_pairs(
    pairs: dict[tuple[str, str], int], settings: Settings, order: dict[str, int]
) -> list[tuple[str, str]]:
    """All pairs, the one to merge first: highest count, then the tie-break. `pairs` is in order
    of first occurrence and `order` numbers symbols as ids do (base sorted, then by creation)."""
    if settings.tie_break == "count-pair":
        return sorted(pairs, key=lambda p: (pairs[p], p), reverse=True)
    if settings.tie_break == "first":
        return sorted(pairs, key=lambda p: -pairs[p])  # a stable sort keeps the first of equals
    return sorted(pairs, key=lambda p: (-pairs[p], order[p[0]], order[p[1]]))


def reference_steps(
    word_counts: Mapping[str, int], settings: Settings, *, merges: int, max_token_length: int | None = None
) -> list[tuple[list[tuple[str, str, int]], int]]:
    """For each merge: every pair with its count, best first, and the total tokens after it.
    Pairs whose token would be longer than `max_token_length` characters are left out."""
    words = [(word_symbols(w, settings), n) for w, n in word_counts.items() if w and n > 0]
    alphabet = {s for symbols, _ in words for s in symbols}
    if settings.mode == "bytes":
        alphabet.update(byte_to_char())
    order = {s: i for i, s in enumerate(sorted(alphabet))}
    out: list[tuple[list[tuple[str, str, int]], int]] = []
    for _ in range(merges):
        pairs = count_pairs(words)
        if max_token_length is not None:
            pairs = {p: n for p, n in pairs.items() if len(p[0]) + len(p[1]) <= max_token_length}
        if not pairs:
            break
        ranked = rank_pairs(pairs, settings, order)
        best = ranked[0]
        if pairs[best] < settings.min_frequency:
            break
        order.setdefault(best[0] + best[1], len(order))
        words = [(apply_merge(symbols, best), n) for symbols, n in words]
        total = sum(len(symbols) * n for symbols, n in words)
        out.append(([(a, b, pairs[a, b]) for a, b in ranked], total))
    return out


def reference_train(
    word_counts: Mapping[str, int], settings: Settings, *, merges: int, max_token_length: int | None = None
) -> list[tuple[str, str, int, int]]:
    """(left, right, count, total tokens after) for each merge, recomputed from scratch each step."""
    steps = reference_steps(word_counts, settings, merges=merges, max_token_length=max_token_length)
    return [(*ranked[0], total) for ranked, total in steps]
