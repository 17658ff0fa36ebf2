"""The incremental BPE trainer: pair counts, an index from each pair to where it occurs, a heap.

Every symbol of every distinct word sits in one doubly linked list (word ends break the links).
A merge visits only the positions in its pair's index and updates the counts of the pairs
around each of them, so a merge costs what it changes, not the size of the corpus. A text
trained without pre-tokenization is one long word and gets the same treatment.
"""
from __future__ import annotations

import gc
import heapq
from heapq import heappop, heappush
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .pretokenize import byte_to_char, word_symbols
from .settings import BPEError, Settings

Progress = Callable[[int, int], None]

# A pair of symbol ids packed into one int: left << 32 | right.
_SHIFT = 32
_MASK = (1 << _SHIFT) - 1
MAX_MERGES = 1_000_000


@dataclass(frozen=True)
class Merge:
    """One step of training: `left` + `right` -> `token`, made when the pair occurred `count` times."""

    rank: int
    left: str
    right: str
    token: str
    count: int
    vocab_size: int  # base symbols + merges so far (the <unk> id is not counted)
    total_tokens: int  # tokens in the whole corpus after this merge
    multi_token_words: int  # distinct corpus words still longer than one token


@dataclass
class TrainResult:
    """Everything training produced: base symbols, the merges with their trace, and the top pairs."""

    base: list[str]
    trace: list[Merge]
    top_pairs: list[list[tuple[str, str, int]]]  # for each step, the highest pairs before merging
    initial_tokens: int
    initial_multi_token_words: int
    word_count: int  # words in the corpus, with repeats
    distinct_words: int
    stop_reason: str
    requested_merges: int = 0
    stats: dict[str, float] = field(default_factory=dict)
    final_usage: dict[str, int] = field(default_factory=dict)  # token -> occurrences after training


class _Descending:
    """Wraps a (left, right) string pair so that the heap pops the greatest pair first."""

    __slots__ = ("pair",)

    def __init__(self, pair: tuple[str, str]) -> None:
        self.pair = pair

    def __lt__(self, other: _Descending) -> bool:
        return self.pair > other.pair

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.pair == other.pair


def merges_for_target(*, base_size: int, merges: int | None, vocab_size: int | None) -> int:
    """How many merges a target asks for: a merge count, or a vocabulary size less the base alphabet."""
    if (merges is None) == (vocab_size is None):
        raise BPEError("give either a number of merges or a vocabulary size, not both")
    if merges is not None:
        wanted = merges
    else:
        assert vocab_size is not None
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise BPEError("vocabulary size must be a positive whole number")
        wanted = max(0, vocab_size - base_size)
    if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 0:
        raise BPEError("number of merges must be a whole number, 0 or more")
    if wanted > MAX_MERGES:
        raise BPEError(f"at most {MAX_MERGES:,} merges can be trained; {wanted:,} were asked for")
    return wanted


def train_counts(
    word_counts: Mapping[str, int],
    settings: Settings,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    top_k: int = 10,
    progress: Progress | None = None,
) -> TrainResult:
    """Learn merges from word counts (ordered by first appearance) with the incremental index."""
    # Millions of small, long-lived objects and no cycles: the cyclic collector only costs time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _train(word_counts, settings, merges=merges, vocab_size=vocab_size, top_k=top_k, progress=progress)
    finally:
        if collecting:
            gc.enable()


def _train(
    word_counts: Mapping[str, int],
    settings: Settings,
    *,
    merges: int | None,
    vocab_size: int | None,
    top_k: int,
    progress: Progress | None,
) -> TrainResult:
    words = [(word_symbols(w, settings), n) for w, n in word_counts.items() if w and n > 0]
    seen = {s for symbols, _ in words for s in symbols}
    if settings.mode == "bytes":
        seen.update(byte_to_char())  # every byte is in the alphabet: nothing is ever unknown
    base = sorted(seen)
    wanted = merges_for_target(base_size=len(base), merges=merges, vocab_size=vocab_size)
    tokens: list[str] = list(base)
    ids = {s: i for i, s in enumerate(base)}

    # The linked list of all positions, distinct words laid out in order of first appearance.
    sym: list[int] = []
    nxt: list[int] = []
    prv: list[int] = []
    owner: list[int] = []  # position -> index of its word
    weights: list[int] = []
    lengths: list[int] = []
    counts: dict[int, int] = {}
    where: dict[int, set[int]] = {}
    for w_index, (symbols, n) in enumerate(words):
        start = len(sym)
        m = len(symbols)
        word_ids = [ids[s] for s in symbols]
        sym += word_ids
        prv += range(start - 1, start + m - 1)
        prv[start] = -1
        nxt += range(start + 1, start + m + 1)
        nxt[-1] = -1
        owner += [w_index] * m
        weights.append(n)
        lengths.append(m)
        p = start
        for key in [a << _SHIFT | b for a, b in zip(word_ids, word_ids[1:])]:
            counts[key] = counts.get(key, 0) + n
            bucket = where.get(key)
            if bucket is None:
                where[key] = {p}
            else:
                bucket.add(p)
            p += 1

    tie_break = settings.tie_break
    track_first = tie_break == "first"
    first_pos: dict[int, int] = {}  # `first` only: cached earliest position, absent when stale

    def earliest(key: int) -> int:
        p = first_pos.get(key)
        if p is None:
            p = first_pos[key] = min(where[key])
        return p

    descending: dict[int, _Descending] = {}  # `count-pair` only: each pair's tie key, made once

    def heap_entry(key: int) -> tuple:
        if tie_break == "count-pair":
            tie = descending.get(key)
            if tie is None:
                tie = descending[key] = _Descending((tokens[key >> _SHIFT], tokens[key & _MASK]))
            return (-counts[key], tie, key)
        if tie_break == "hf":
            return (-counts[key], key, key)  # smaller ids first, as the packed key orders them
        return (-counts[key], earliest(key), key)

    def is_current(entry: tuple) -> bool:
        key = entry[2]
        if counts.get(key) != -entry[0]:
            return False
        return tie_break != "first" or entry[1] == earliest(key)

    heap = [heap_entry(key) for key in counts]
    heapq.heapify(heap)

    total = sum(lengths[i] * weights[i] for i in range(len(words)))
    multi = sum(1 for m in lengths if m > 1)
    initial_tokens, initial_multi = total, multi
    trace: list[Merge] = []
    top_pairs: list[list[tuple[str, str, int]]] = []
    stop_reason = "reached the requested number of merges"
    if vocab_size is not None and wanted == 0:
        stop_reason = (
            f"a vocabulary of {vocab_size:,} is not larger than the base alphabet "
            f"({len(base):,} symbols), so no merge was asked for"
        )
    visited = 0  # positions looked at by all merges: what makes training incremental

    def pop_current() -> tuple | None:
        while heap:
            entry = heapq.heappop(heap)
            if is_current(entry):
                return entry
        return None

    while len(trace) < wanted:
        best = pop_current()
        if best is None:
            stop_reason = "no pair is left to merge: every word is a single token"
            break
        count = -best[0]
        if count < settings.min_frequency:
            stop_reason = f"no pair occurs at least {settings.min_frequency} times"
            break
        # The runners-up, for the bar chart of this step: pop them, note them, push them back.
        # (Written out rather than calling pop_current: this runs top_k - 1 times a merge.)
        runners: list[tuple] = []
        seen = {best[2]}
        while heap and len(runners) < top_k - 1:
            entry = heappop(heap)
            pair = entry[2]
            if counts.get(pair) != -entry[0] or pair in seen:
                continue  # stale, or a second entry for a pair already noted
            if track_first and entry[1] != earliest(pair):
                continue
            seen.add(pair)
            runners.append(entry)
        for entry in runners:
            heappush(heap, entry)
        top_pairs.append(
            [(tokens[e[2] >> _SHIFT], tokens[e[2] & _MASK], -e[0]) for e in [best, *runners]]
        )

        key = best[2]
        a, b = key >> _SHIFT, key & _MASK
        # Two different merges can spell the same token ("a" + "bc", "ab" + "c"): one symbol.
        merged = tokens[a] + tokens[b]
        new = ids.get(merged, len(tokens))
        if new == len(tokens):
            tokens.append(merged)
            ids[merged] = new
        positions = sorted(where.pop(key))
        visited += len(positions)
        del counts[key]
        first_pos.pop(key, None)
        touched: set[int] = set()
        # The updates below are written out in the loop: it is the trainer's hot path.
        for p in positions:
            q = nxt[p]
            # An earlier merge in this pass may have used p or q already ("a a a" merging a + a).
            if sym[p] != a or q == -1 or sym[q] != b:
                continue
            w_index = owner[p]
            n = weights[w_index]
            before, after = prv[p], nxt[q]
            if before != -1:
                # For "x a b": x + a loses an occurrence at `before`, x + ab gains one there.
                left = sym[before]
                old = left << _SHIFT | a
                if old != key:  # the pair being merged is dropped whole
                    counts[old] -= n
                    where[old].discard(before)
                    touched.add(old)
                    if track_first and first_pos.get(old) == before:
                        del first_pos[old]
                pair = left << _SHIFT | new
                counts[pair] = counts.get(pair, 0) + n
                bucket = where.get(pair)
                if bucket is None:
                    where[pair] = {before}
                else:
                    bucket.add(before)
                touched.add(pair)
                if track_first:
                    cached = first_pos.get(pair)
                    if cached is not None and before < cached:
                        first_pos[pair] = before
            if after != -1:
                # For "a b y": b + y loses an occurrence at q, ab + y gains one at p.
                right = sym[after]
                old = b << _SHIFT | right
                if old != key:
                    counts[old] -= n
                    where[old].discard(q)
                    touched.add(old)
                    if track_first and first_pos.get(old) == q:
                        del first_pos[old]
                pair = new << _SHIFT | right
                counts[pair] = counts.get(pair, 0) + n
                bucket = where.get(pair)
                if bucket is None:
                    where[pair] = {p}
                else:
                    bucket.add(p)
                touched.add(pair)
                if track_first:
                    cached = first_pos.get(pair)
                    if cached is not None and p < cached:
                        first_pos[pair] = p
                prv[after] = p
            sym[p] = new
            sym[q] = -1
            nxt[p] = after
            total -= n
            lengths[w_index] -= 1
            if lengths[w_index] == 1:
                multi -= 1

        for pair in touched:
            if counts.get(pair, 0) > 0:
                heapq.heappush(heap, heap_entry(pair))
            elif pair in counts:
                del counts[pair]
                del where[pair]
                first_pos.pop(pair, None)

        trace.append(
            Merge(
                rank=len(trace),
                left=tokens[a],
                right=tokens[b],
                token=tokens[new],
                count=count,
                vocab_size=len(tokens),
                total_tokens=total,
                multi_token_words=multi,
            )
        )
        if progress is not None and (len(trace) % 100 == 0 or len(trace) == wanted):
            progress(len(trace), wanted)

    usage: dict[int, int] = {}
    for p, s in enumerate(sym):
        if s >= 0:
            usage[s] = usage.get(s, 0) + weights[owner[p]]

    return TrainResult(
        base=base,
        trace=trace,
        top_pairs=top_pairs,
        initial_tokens=initial_tokens,
        initial_multi_token_words=initial_multi,
        word_count=sum(n for _, n in words),
        distinct_words=len(words),
        stop_reason=stop_reason,
        requested_merges=wanted,
        stats={"positions": len(sym), "positions_visited": visited},
        final_usage={tokens[s]: n for s, n in sorted(usage.items())},
    )
