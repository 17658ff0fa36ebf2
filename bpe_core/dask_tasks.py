"""The tasks `dask_counting` sends to Dask workers: count a block of partitions, merge two partial
counts, drop rare words. Their results are `PackedCounts`, which travel between processes
compactly; a task never changes its inputs."""
from __future__ import annotations

from collections import Counter

from .counting import add_counts, apply_min_count, count_block, count_partition, merge_counts
from .packed_counts import PackedCounts, packed
from .settings import BPEError, Settings
from .sources import Partition

MISSING_DASK = "counting on Dask needs the dask[distributed] package (pip install 'dask[distributed]')"


def count_block_task(
    block: list[Partition],
    settings: Settings,
    *,
    errors: str,
    text_field: str | None,
    max_distinct: int | None,
    topic: str | None = None,
) -> PackedCounts:
    """A block's counts as a worker makes them (`counting.count_block`; with `max_distinct`, a
    block of one partition, `count_partition`), each counted partition's index announced under
    `topic`; a file that cannot be read is a BPEError naming it."""
    worker = None
    if topic is not None:
        try:
            from distributed import get_worker
        except ImportError:  # a task runs on a worker, so this cannot happen
            raise BPEError(MISSING_DASK) from None
        worker = get_worker()
    counted = 0

    def done(part: Partition) -> None:
        nonlocal counted
        counted += 1
        if worker is not None and topic is not None:
            worker.log_event(topic, part.index)

    try:
        if max_distinct is None:
            return packed(count_block(block, settings, errors=errors, text_field=text_field, done=done))
        counts = count_partition(block[0], settings, errors=errors, text_field=text_field, max_distinct=max_distinct)
        done(block[0])
        return packed(counts)
    except OSError as exc:
        raise BPEError(f"cannot read {block[min(counted, len(block) - 1)].path}: {exc.strerror or exc}") from None


def merge_task(left: Counter[str], right: Counter[str], *, max_distinct: int | None) -> PackedCounts:
    """`counting.merge_counts` of the two."""
    if max_distinct is not None:
        return packed(merge_counts(left, right, max_distinct=max_distinct))
    merged = PackedCounts()
    dict.update(merged, left)  # a copy: a task never changes its inputs
    add_counts(merged, right)
    return merged


def min_count_task(counts: Counter[str], min_count: int) -> PackedCounts:
    """`counting.apply_min_count` of the counts."""
    return packed(apply_min_count(counts, min_count))
