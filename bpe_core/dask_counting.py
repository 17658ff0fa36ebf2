"""Counting words on Dask: a few blocks of partitions per worker, partial counts merged on the workers.

`count_on_dask` gives exactly what `counting.count_sources` gives, order included. Without
`max_distinct`, merging is associative (see `counting`), so the partitions are cut into runs
(`counting.plan_blocks`, BLOCKS_PER_THREAD per worker thread), each run is counted
into one Counter by one task (`counting.count_block`, no merging inside), and the few block
counts are merged in order by a binary tree. With `max_distinct`, each task counts one partition
and the partial counts are merged by the same fixed tree as in one process
(`counting.reduce_counts`: pairs (0, 1), (2, 3), ... round by round, an odd last one carried up),
whose shape does not depend on which task finishes first, so the pruning prunes the same words.
Only the final Counter travels back to this process; no text ever does. Each task announces every
partition it has counted (a Dask event), so the progress moves partition by partition.

With no scheduler address a `LocalCluster` of worker processes is started on this machine and
shut down before returning. Its workers are started with multiprocessing's "spawn", so a script
that calls this must guard its entry point with `if __name__ == "__main__":` (`python -m
bpe_core` needs nothing). With an address (or BPE_DASK_SCHEDULER set) the job goes to that
cluster: its workers need this package installed and must see the files at the same paths.
"""
from __future__ import annotations

import os
import queue
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .counting import CountProgress, plan_blocks, reduction_rounds
from .dask_cluster import check_interrupted, dask_client, one_line
from .dask_tasks import MISSING_DASK, count_block_task, merge_task, min_count_task
from .settings import BPEError, Settings
from .sources import DEFAULT_PARTITION_BYTES, ERRORS, Partition, expand_sources, plan_partitions

SCHEDULER_ENV = "BPE_DASK_SCHEDULER"
# Blocks of partitions per worker thread. One: each worker counts one run into one Counter and
# the tail after the last block is one merge per tree level (measured on 2 workers at 1 GB: 4 s
# after the last block against 10 s with two per thread). More balance unequal workers better.
BLOCKS_PER_THREAD = 1
MAX_WORKERS = 256


def scheduler_address(scheduler: str | None = None) -> str | None:
    """The scheduler to use: the one given, else BPE_DASK_SCHEDULER, else None (a LocalCluster)."""
    address = scheduler if scheduler is not None else os.environ.get(SCHEDULER_ENV, "")
    return address.strip() or None


def default_workers() -> int:
    """This machine's cores (those this process may run on, where the system says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_workers() -> int:
    """The most worker processes a local cluster may have: 4 per core, at most 256 (more only
    queue for the cores, each costing a Python process's memory and start-up)."""
    return min(MAX_WORKERS, 4 * default_workers())


def count_on_dask(
    sources: Sequence[str],
    settings: Settings,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    errors: str = "strict",
    text_field: str | None = None,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    max_distinct: int | None = None,
    min_count: int = 1,
    progress: Callable[[CountProgress], None] | None = None,
    max_bytes: int | None = None,
) -> Counter[str]:
    """Word counts of the sources, counted on a Dask cluster; equal to `count_sources`'s, order included.

    `scheduler`: a Dask scheduler's address ("tcp://host:8786"); None reads BPE_DASK_SCHEDULER, and
    without it a LocalCluster of `workers` processes (default: this machine's cores, at most one
    per partition) is started here and shut down before returning, whatever happens.
    `progress` is called in this process after each partition is counted.
    A bad source raises a one-line BPEError naming it (the earliest bad partition in source order),
    as does a file over `max_bytes` bytes (decompressed; None: no limit).
    """
    if not isinstance(settings, Settings):
        raise BPEError(f"settings must be a bpe_core.Settings, not {type(settings).__name__}")
    if errors not in ERRORS:
        raise BPEError(f"errors must be one of {', '.join(ERRORS)}, not {errors!r}")
    _check_whole("workers", workers, allow_none=True)
    if workers is not None and workers > max_workers():
        raise BPEError(f"workers must be at most {max_workers()} (4 per core), not {workers}")
    _check_whole("min_count", min_count)
    _check_whole("max_distinct", max_distinct, allow_none=True)
    partitions = plan_partitions(expand_sources(sources), partition_bytes=partition_bytes, text_field=text_field,
                                 max_bytes=max_bytes)
    if not partitions:
        return Counter()
    address = scheduler_address(scheduler)
    n_workers = min(workers or default_workers(), len(partitions))
    with dask_client(address, n_workers) as client:
        return _count(client, partitions, settings, progress, errors=errors, text_field=text_field,
                      max_distinct=max_distinct, min_count=min_count)


def _check_whole(name: str, value: object, *, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BPEError(f"{name} must be a whole number of 1 or more, not {value!r}")


def _count(
    client: Any,
    partitions: list[Partition],
    settings: Settings,
    progress: Callable[[CountProgress], None] | None,
    *,
    errors: str,
    text_field: str | None,
    max_distinct: int | None,
    min_count: int,
) -> Counter[str]:
    try:
        from distributed import wait
    except ImportError:  # the client exists, so this cannot happen; the layout rule wants it said
        raise BPEError(MISSING_DASK) from None

    run = uuid.uuid4().hex[:12]  # keys of one run: never confused with another client's tasks
    topic = f"bpe-count-{run}"  # each counted partition is announced here, for the progress
    if max_distinct is None:
        threads = sum(client.nthreads().values()) or 1
        blocks = plan_blocks(partitions, BLOCKS_PER_THREAD * threads)
    else:
        blocks = [[part] for part in partitions]  # pruning: the fixed tree over the partitions
    events: queue.Queue[tuple[str, int]] = queue.Queue()
    client.subscribe_topic(topic, lambda event: events.put(("partition", event[1])))
    counted = [
        client.submit(
            count_block_task, block, settings, errors=errors, text_field=text_field,
            max_distinct=max_distinct, topic=topic, key=f"bpe-count-{run}-{n}",
        )
        for n, block in enumerate(blocks)
    ]
    final = _reduce_on_cluster(client, counted, run, max_distinct)
    if min_count > 1:
        final = client.submit(min_count_task, final, min_count, key=f"bpe-min-count-{run}")
    # Only blocks still running are held here: a counted one's result is freed as soon as its
    # merge has used it, so the workers' memory does not grow with the number of blocks.
    pending = {n: (block, future) for n, (block, future) in enumerate(zip(blocks, counted))}
    for n, future in enumerate(counted):
        future.add_done_callback(lambda _, n=n: events.put(("block", n)))
    del counted
    future = None
    by_index = {part.index: part for part in partitions}
    seen: set[int] = set()
    total_bytes = sum(part.size for part in partitions)
    done_bytes = 0
    if progress is not None:
        progress(CountProgress(0, total_bytes, 0, len(partitions)))

    def counted_one(index: int) -> None:
        nonlocal done_bytes
        if index in seen or index not in by_index:
            return
        seen.add(index)
        done_bytes += by_index[index].size
        if progress is not None:
            progress(CountProgress(done_bytes, total_bytes, len(seen), len(partitions)))

    error: BPEError | None = None
    counts: Counter[str] = Counter()
    try:
        while pending:
            try:
                check_interrupted()
                kind, n = events.get(timeout=0.25)
            except queue.Empty:  # a lost callback must not hang the run: look at the futures
                kind, n = next((("block", m) for m, (_, f) in pending.items() if f.done()), ("", -1))
            if kind == "partition":
                counted_one(n)
                continue
            if n not in pending:
                continue
            block, future = pending.pop(n)
            if future.status != "finished":
                error = _earliest_error(n, block, future, pending, wait)
                break
            for part in block:  # the announcements may come after the block itself
                counted_one(part.index)
        else:
            try:
                counts = Counter(_result(final))  # a plain Counter, copied in C
            except Exception as exc:  # a merge on a worker failed: say so in one line
                error = BPEError(f"merging the counts on Dask failed: {one_line(exc)}")
    finally:
        # Nothing of this run may go on computing (a remote cluster outlives this call), and no
        # future may outlive it either: a client closed with futures alive makes Dask log errors.
        # Only the root is cancelled: Dask's scheduler fails an assertion (and prints a traceback)
        # when a cancel reaches tasks no client holds, such as the tree's inner merges. Blocks
        # still pending are released instead; once nothing wants them the scheduler forgets them.
        client.unsubscribe_topic(topic)
        client.cancel([final], force=True)
        for _, pending_future in pending.values():
            pending_future.release()
        pending.clear()
        final = future = pending_future = None
    if error is not None:
        raise error
    return counts


def _result(future: Any) -> Any:
    """The future's result, waited for in short steps so that Ctrl-C is seen (`check_interrupted`)."""
    while True:
        check_interrupted()
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            continue


def _reduce_on_cluster(client: Any, level: list[Any], run: str, max_distinct: int | None) -> Any:
    """The future of the whole reduction: `reduce_counts`'s tree (`reduction_rounds`), each merge a task."""
    for depth, pairs in enumerate(reduction_rounds(len(level)), start=1):
        merged = [
            client.submit(merge_task, level[i], level[j], max_distinct=max_distinct,
                          key=f"bpe-merge-{run}-{depth}-{i // 2}")
            for i, j in pairs
        ]
        if len(level) % 2:
            merged.append(level[-1])  # the odd one out passes up unchanged
        level = merged
    return level[0]


def _earliest_error(n: int, block: list[Partition], future: Any, pending: dict[int, Any], wait: Any) -> BPEError:
    """The error of the earliest bad block, so every run names the same file (a block counts its
    partitions in order and stops at the first bad one).

    Blocks before the failed one that are still running are waited for, since one of them may be
    bad too; the caller cancels the rest.
    """
    earlier = sorted(((m, b, f) for m, (b, f) in pending.items() if m < n), key=lambda item: item[0])
    wait([f for _, _, f in earlier])
    for _, bad_block, bad in earlier:
        if bad.status != "finished":
            block, future = bad_block, bad
            break
    return _as_bpe_error(future.exception(), block)


def _as_bpe_error(exc: BaseException | None, block: list[Partition]) -> BPEError:
    if isinstance(exc, BPEError):
        return BPEError(one_line(exc))
    name = type(exc).__name__ if exc is not None else "cancelled"
    where = block[0].path if len({p.path for p in block}) == 1 else f"{block[0].path} (to {block[-1].path})"
    if name == "KilledWorker":
        return BPEError(f"{where}: the Dask worker counting it died (out of memory?)")
    return BPEError(f"{where}: counting failed on Dask: {one_line(exc) if exc else name}")
