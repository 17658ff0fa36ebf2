"""Counting over partitions: merge order, the fixed reduction tree, pruning, progress, min_count."""
from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import (
    BPEError,
    CountProgress,
    Settings,
    count_partition,
    count_sources,
    expand_sources,
    merge_counts,
    plan_partitions,
    reduce_counts,
)
from bpe_core.counting import count_block, plan_blocks, prune_counts, reduction_rounds
from bpe_core.pretokenize import count_words
from bpe_core.sources import Partition


def test_merge_keeps_left_order_then_right_new_words() -> None:
    merged = merge_counts(Counter({"b": 1, "a": 2}), Counter({"c": 5, "a": 1}))
    assert list(merged.items()) == [("b", 1), ("a", 3), ("c", 5)]


def test_prune_keeps_the_most_frequent_first_appearance_breaking_ties() -> None:
    counts = Counter({"a": 1, "b": 3, "c": 2, "d": 3, "e": 2})
    assert list(prune_counts(counts, 3).items()) == [("b", 3), ("c", 2), ("d", 3)]
    assert prune_counts(counts, 10) == counts


def _rounds_reference(counters: list[Counter[str]], max_distinct: int | None) -> Counter[str]:
    """The reduction tree written as rounds: pairs (0, 1), (2, 3), ...; an odd one out passes up."""
    level = list(counters)
    if not level:
        return Counter()
    while len(level) > 1:
        nxt = [merge_counts(level[i], level[i + 1], max_distinct=max_distinct) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


words = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])
counters = st.lists(st.lists(st.tuples(words, st.integers(1, 4)), max_size=5), max_size=13).map(
    lambda parts: [Counter(dict(p)) for p in parts]
)


@settings(max_examples=200, deadline=None)
@given(counters, st.one_of(st.none(), st.integers(1, 4)))
def test_the_streamed_tree_is_the_round_by_round_tree(parts: list[Counter[str]], max_distinct: int | None) -> None:
    # With pruning, merging is not associative, so equal results mean the same tree.
    got = reduce_counts(iter(parts), max_distinct=max_distinct)
    assert list(got.items()) == list(_rounds_reference(parts, max_distinct).items())


def test_reduction_rounds_describe_the_tree() -> None:
    assert reduction_rounds(1) == []
    assert reduction_rounds(4) == [[(0, 1), (2, 3)], [(0, 1)]]
    assert reduction_rounds(7) == [[(0, 1), (2, 3), (4, 5)], [(0, 1), (2, 3)], [(0, 1)]]


def _corpus(tmp_path: Path) -> list[str]:
    texts = ["low low lower newest\n" * 40, "widest new newer\n" * 30, "", "hug hugs hugging\n" * 20]
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"{i}.txt"
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_partitions_reduce_to_the_single_text_counts(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    texts = [Path(p).read_text() for p in paths]
    s = Settings(mode="bytes", pretokenizer="gpt4")
    parts = plan_partitions(expand_sources(paths), partition_bytes=50)
    assert len(parts) > 20
    reduced = reduce_counts(count_partition(p, s) for p in parts)
    assert list(reduced.items()) == list(count_words(texts, s).items())


def test_count_sources_reports_progress(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    events: list[CountProgress] = []
    count_sources(paths, Settings(), partition_bytes=300, progress=events.append)
    total = sum(Path(p).stat().st_size for p in paths)
    n = events[-1].partitions_total
    assert events[0] == CountProgress(0, total, 0, n)
    assert events[-1] == CountProgress(total, total, n, n)
    assert [e.partitions_done for e in events] == list(range(n + 1))


def test_min_count_is_exact_and_max_distinct_is_deterministic(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    full = count_sources(paths, Settings())
    assert count_sources(paths, Settings(), min_count=30) == {w: n for w, n in full.items() if n >= 30}
    assert list(count_sources(paths, Settings(), min_count=30)) == ["low", "lower", "newest", "widest", "new", "newer"]
    pruned = [count_sources(paths, Settings(), partition_bytes=64, max_distinct=3) for _ in range(2)]
    assert list(pruned[0].items()) == list(pruned[1].items())
    assert len(pruned[0]) == 3
    # Everything fits: pruning changes nothing.
    assert count_sources(paths, Settings(), partition_bytes=64, max_distinct=100) == full


def test_bad_limits_are_refused(tmp_path: Path) -> None:
    paths = _corpus(tmp_path)
    with pytest.raises(BPEError, match="max_distinct must be a whole number"):
        count_sources(paths, Settings(), max_distinct=0)
    with pytest.raises(BPEError, match="min_count must be a whole number"):
        count_sources(paths, Settings(), min_count=0)
    with pytest.raises(BPEError, match="partition size"):
        count_sources(paths, Settings(), partition_bytes=0)
    with pytest.raises(BPEError, match="unknown errors policy"):
        count_sources(paths, Settings(), errors="ignore")


# ---- blocks: runs of partitions counted into one Counter (no max_distinct) -------------------------

def _cuts(n: int, data: st.DataObject) -> list[int]:
    """Random cut points of range(n) into runs (sorted, without 0 and n)."""
    return sorted(data.draw(st.sets(st.integers(1, max(1, n - 1)), max_size=n)) - {n}) if n > 1 else []


def _runs(items: list, cuts: list[int]) -> list[list]:
    bounds = [0, *cuts, len(items)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


@settings(max_examples=150, deadline=None)
@given(counters, st.data())
def test_without_pruning_any_grouping_in_order_gives_the_tree_result(parts: list[Counter[str]], data) -> None:
    # The ordered merge is associative: runs folded left to right, then the runs' results merged
    # by the fixed tree, equal the tree over all the counters, order included.
    runs = _runs(parts, _cuts(len(parts), data))
    folded = []
    for run in runs:
        acc: Counter[str] = Counter()
        for c in run:
            acc = merge_counts(acc, c)
        folded.append(acc)
    assert list(reduce_counts(folded).items()) == list(reduce_counts(parts).items())


BLOCK_SETTINGS = [Settings(), Settings(mode="bytes", pretokenizer="gpt4"), Settings(mode="text", lowercase=True)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \n\r\u00e9Σσ中😀.", max_size=40), min_size=1, max_size=4),
    st.integers(1, 30),
    st.integers(0, len(BLOCK_SETTINGS) - 1),
    st.data(),
)
def test_blocks_of_random_sizes_give_the_ordered_counts_of_the_whole(texts, partition_bytes, which, data) -> None:
    s = BLOCK_SETTINGS[which]
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, text in enumerate(texts):
            path = Path(folder) / f"{i}.txt"
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        parts = plan_partitions(expand_sources(paths), partition_bytes=partition_bytes)
        seen: list[int] = []
        blocks = [count_block(b, s, done=lambda p: seen.append(p.index))
                  for b in _runs(parts, _cuts(len(parts), data))]
        planned = plan_blocks(parts, data.draw(st.integers(1, 6)))
        by_plan = reduce_counts(count_block(b, s) for b in planned)
    whole = list(count_words(texts, s).items())
    assert list(reduce_counts(blocks).items()) == whole
    assert list(by_plan.items()) == whole
    assert seen == [p.index for p in parts]  # `done` once per partition, in order


def test_plan_blocks_cuts_runs_of_about_equal_work() -> None:
    def part(i: int, size: int, compression: str = "") -> Partition:
        return Partition(f"f{i}", "text", compression, 0, None, None, size, i)

    parts = [part(i, 10) for i in range(8)]
    assert [[p.index for p in b] for b in plan_blocks(parts, 4)] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert plan_blocks(parts, 1) == [parts]
    assert [len(b) for b in plan_blocks(parts, 20)] == [1] * 8  # never an empty block
    # A gzipped partition counts three times its (compressed) bytes.
    mixed = [part(0, 10, "gz"), part(1, 10), part(2, 10), part(3, 10)]
    assert [[p.index for p in b] for b in plan_blocks(mixed, 2)] == [[0], [1, 2, 3]]
    assert plan_blocks([], 3) == []
    with pytest.raises(BPEError, match="number of blocks"):
        plan_blocks(parts, 0)
