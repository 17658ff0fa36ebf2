"""Counting words over many files, partition by partition, in bounded memory.

Without `max_distinct`, merging counts (`merge_counts`: the left side's words in their order,
then the right side's new words in theirs, counts added) is associative: any grouping of the
partitions, kept in their order, gives the same counts in the same first-appearance order, which
are the counts of the whole text. So runs of partitions ("blocks", `plan_blocks`) are counted
into one running Counter each (`count_block`), with no merge at all inside a block: a single
process counts everything as one block, and Dask counts a few blocks per worker and merges only
those.

With `max_distinct` merging is no longer associative, so the grouping is fixed: each partition
is counted and pruned on its own (`count_partition`), and the partial counts are merged by a
fixed binary reduction tree (`reduce_counts`): pairs (0, 1), (2, 3), ... in the first round, then
pairs of those results, and so on, an odd one out passing up unchanged. A single process and a
Dask cluster build the same tree, so they give identical counts, in the same order.

Pruning with `max_distinct` (after each partition and after each merge of the tree) keeps the N
most frequent words seen so far (ties: the earlier first appearance). Like the pruning of large
trainers it is approximate: a word that is rare in early partitions and frequent later may be
dropped before it adds up, and a kept word's count can miss occurrences pruned earlier. It is
deterministic: the same sources, settings and partition size always give the same counts.
`min_count` is exact: it drops words seen fewer times after the full reduction.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import add

from .pretokenize import bytes_to_symbols, normalize, split_words
from .settings import BPEError, Settings
from .sources import DEFAULT_PARTITION_BYTES, Partition, expand_sources, plan_partitions, read_texts


@dataclass(frozen=True)
class CountProgress:
    """How far counting has come: bytes of the sources and partitions done, of their totals."""

    bytes_done: int
    bytes_total: int
    partitions_done: int
    partitions_total: int


def _check_limit(value: int | None, what: str, *, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BPEError(f"{what} must be a whole number of 1 or more, not {value!r}")


def prune_counts(counts: Counter[str], max_distinct: int | None) -> Counter[str]:
    """The `max_distinct` most frequent words (ties: first appearance), in first-appearance order.

    >>> prune_counts(Counter({"a": 1, "b": 3, "c": 1, "d": 3}), 3)
    Counter({'b': 3, 'd': 3, 'a': 1})
    """
    if max_distinct is None or len(counts) <= max_distinct:
        return counts
    ranked = sorted(range(len(counts)), key=list(counts.values()).__getitem__, reverse=True)
    keep = set(sorted(ranked[:max_distinct]))  # sorted() is stable: equal counts stay in order
    return Counter({w: n for i, (w, n) in enumerate(counts.items()) if i in keep})


def _count_into(counts: Counter[str], partition: Partition, settings: Settings, errors: str,
                text_field: str | None) -> None:
    """Add the partition's words, as split (bytes mode: not yet in byte symbols), to `counts`."""
    for piece in read_texts(partition, settings, errors=errors, text_field=text_field):
        # `count_words` piece by piece (Counter.update of a list runs in C); the bytes-mode
        # spelling is done once per distinct word at the end instead of once per piece.
        counts.update(split_words(normalize(piece, settings), settings))


def _spelled(counts: Counter[str], settings: Settings) -> Counter[str]:
    """Counted words as `count_words` gives them: bytes mode spells them in byte symbols (a
    one-to-one spelling, so order and merges are unchanged by doing it late)."""
    if settings.mode == "bytes":
        return Counter({bytes_to_symbols(w.encode("utf-8")): n for w, n in counts.items()})
    return counts


def count_partition(
    partition: Partition,
    settings: Settings,
    *,
    errors: str = "strict",
    text_field: str | None = None,
    max_distinct: int | None = None,
) -> Counter[str]:
    """The partition's word counts, exactly as `count_words` gives them (bytes mode: byte symbols),
    in first-appearance order; pruned to `max_distinct` words when given."""
    _check_limit(max_distinct, "max_distinct", optional=True)
    counts: Counter[str] = Counter()
    _count_into(counts, partition, settings, errors, text_field)
    return prune_counts(_spelled(counts, settings), max_distinct)


def count_block(
    partitions: Sequence[Partition],
    settings: Settings,
    *,
    errors: str = "strict",
    text_field: str | None = None,
    done: Callable[[Partition], None] | None = None,
) -> Counter[str]:
    """The word counts of partitions that follow each other in the global order, counted into one
    Counter: exactly `reduce_counts` of their `count_partition`s (no pruning), without merging.
    `done(partition)` is called after each partition."""
    counts: Counter[str] = Counter()
    for partition in partitions:
        _count_into(counts, partition, settings, errors, text_field)
        if done is not None:
            done(partition)
    return _spelled(counts, settings)


def plan_blocks(partitions: Sequence[Partition], n_blocks: int) -> list[list[Partition]]:
    """The partitions cut into at most `n_blocks` runs that follow each other, of about equal work.

    Work is estimated from the bytes a partition covers, a compressed one counting three times
    (text compresses about that much, and decompressing costs too).

    >>> from .sources import Partition
    >>> parts = [Partition("f", "text", "", 10 * i, 10 * i + 10, None, 10, i) for i in range(5)]
    >>> [[p.index for p in block] for block in plan_blocks(parts, 2)]
    [[0, 1], [2, 3, 4]]
    """
    if n_blocks < 1:
        raise BPEError(f"the number of blocks must be 1 or more, not {n_blocks!r}")
    weights = [max(1, p.size) * (3 if p.compression else 1) for p in partitions]
    total = sum(weights)
    blocks: list[list[Partition]] = []
    before = 0
    last = -1
    for part, weight in zip(partitions, weights):
        # The block that the middle of this partition's work falls in: never decreasing, so the
        # blocks are runs; a block nothing falls in is skipped.
        block = (2 * before + weight) * n_blocks // (2 * total)
        if block != last:
            blocks.append([])
            last = block
        blocks[-1].append(part)
        before += weight
    return blocks


def merge_counts(left: Counter[str], right: Counter[str], *, max_distinct: int | None = None) -> Counter[str]:
    """`left`'s words in their order, then `right`'s new words in theirs; counts added; pruned to
    `max_distinct` words when given. The inputs are not changed."""
    merged = Counter(left)  # a copy in C (dict.update into an empty Counter)
    add_counts(merged, right)
    return prune_counts(merged, max_distinct)


def add_counts(into: Counter[str], more: Counter[str]) -> None:
    """Add `more`'s counts to `into` in place: a word already there keeps its place, a new one goes
    to the end, in `more`'s order (the ordered merge, without pruning)."""
    # Every word's new count, set by one dict.update over (word, count) pairs, which runs in C
    # (Counter.update would do the same in a Python loop).
    dict.update(into, zip(more, map(add, more.values(), map(into.get, more, repeat(0)))))


def reduce_counts(counters: Iterable[Counter[str]], *, max_distinct: int | None = None) -> Counter[str]:
    """All counters merged by the fixed binary reduction tree (see the module docstring), holding
    at most one counter per level of the tree at a time.

    A stack of (level, counter) works as a binary counter: two counters of the same level merge
    into one of the next level, which is exactly round-by-round pairing; the ones left at the end
    (an odd one out in some rounds) merge from the right, as the rounds would.
    """
    stack: list[tuple[int, Counter[str]]] = []
    for counter in counters:
        level, acc = 0, counter
        while stack and stack[-1][0] == level:
            _, left = stack.pop()
            acc = merge_counts(left, acc, max_distinct=max_distinct)
            level += 1
        stack.append((level, acc))
    if not stack:
        return Counter()
    acc = stack.pop()[1]
    while stack:
        acc = merge_counts(stack.pop()[1], acc, max_distinct=max_distinct)
    return acc


def reduction_rounds(n: int) -> list[list[tuple[int, int]]]:
    """The tree `reduce_counts` builds over n partial counts, as rounds of (left, right) pairs of
    indexes into the previous round's results (for schedulers that build it themselves).

    >>> reduction_rounds(5)
    [[(0, 1), (2, 3)], [(0, 1)], [(0, 1)]]
    """
    rounds: list[list[tuple[int, int]]] = []
    while n > 1:
        rounds.append([(i, i + 1) for i in range(0, n - 1, 2)])
        n = (n + 1) // 2
    return rounds


def count_sources(
    sources: Sequence[str],
    settings: Settings,
    *,
    errors: str = "strict",
    text_field: str | None = None,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    max_distinct: int | None = None,
    min_count: int = 1,
    progress: Callable[[CountProgress], None] | None = None,
    max_bytes: int | None = None,
) -> Counter[str]:
    """Word counts over files, directories and globs in one process, streamed partition by
    partition: equal to `count_words([text of file 1, text of file 2, ...], settings)` (records of
    JSON lines and Parquet files are texts of their own) when nothing is pruned. A file over
    `max_bytes` bytes (decompressed; None: no limit) is a BPEError naming it."""
    _check_limit(max_distinct, "max_distinct", optional=True)
    _check_limit(min_count, "min_count", optional=False)
    parts = plan_partitions(expand_sources(sources), partition_bytes=partition_bytes, text_field=text_field,
                            max_bytes=max_bytes)
    total = sum(p.size for p in parts)
    done_bytes = 0
    done_parts = 0
    if progress is not None:
        progress(CountProgress(0, total, 0, len(parts)))

    def done(part: Partition) -> None:
        nonlocal done_bytes, done_parts
        done_bytes += part.size
        done_parts += 1
        if progress is not None:
            progress(CountProgress(done_bytes, total, done_parts, len(parts)))

    if max_distinct is None:  # one block: every partition into one Counter, no merges
        return apply_min_count(count_block(parts, settings, errors=errors, text_field=text_field, done=done),
                               min_count)

    def counted() -> Iterable[Counter[str]]:
        for part in parts:
            yield count_partition(part, settings, errors=errors, text_field=text_field, max_distinct=max_distinct)
            done(part)

    counts = reduce_counts(counted(), max_distinct=max_distinct)
    return apply_min_count(counts, min_count)


def apply_min_count(counts: Counter[str], min_count: int) -> Counter[str]:
    """The words seen at least `min_count` times, in their order."""
    if min_count <= 1:
        return counts
    return Counter({w: n for w, n in counts.items() if n >= min_count})
