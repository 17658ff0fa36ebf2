"""Counting on Dask equals counting in one process: the same words, counts and order, on every
mode and pre-tokenizer, with pruning too; errors come back as one line naming the file.

One LocalCluster (2 worker processes) serves the module; the tests send it work through its
scheduler address, as a user of a real cluster would (`scheduler=` or BPE_DASK_SCHEDULER).
"""
from __future__ import annotations

import bz2
import gzip
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.counting import count_sources
from bpe_core.dask_counting import MISSING_DASK, SCHEDULER_ENV, count_on_dask
from bpe_core.pretokenize import count_words
from bpe_core.settings import BPEError, Settings
from tests.conftest import require
from tests.core.dask_fixtures import local_cluster

SETTINGS = [
    Settings(),
    Settings(mode="text"),
    *(Settings(mode="text", pretokenizer=p) for p in ("whitespace", "gpt2", "gpt4", "o200k", "qwen")),
    *(Settings(mode="bytes", pretokenizer=p) for p in ("gpt2", "gpt4", "o200k", "qwen", "none")),
    Settings(lowercase=True, normalization="NFKC"),
    Settings(mode="bytes", normalization="NFC"),
]
# Characters that meet the cutting rules' edges: spaces and line ends (CRLF too), tabs, NBSP,
# combining marks, Greek capital sigma (final-sigma lowercasing), Hangul jamo, CJK, emoji.
ALPHABET = "ab  \n\r\t\u00a0\u0301Σσ\u1100\u1161中’'.,9😀ﬁ"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster() as address:
        yield address


def write(folder: Path, texts: list[str], gzipped: set[int] = frozenset()) -> list[str]:
    """The texts as files (some gzipped), names in order."""
    names = []
    for n, text in enumerate(texts):
        data = text.encode("utf-8")
        if n in gzipped:
            path = folder / f"{n:02d}.txt.gz"
            path.write_bytes(gzip.compress(data))
        else:
            path = folder / f"{n:02d}.txt"
            path.write_bytes(data)
        names.append(str(path))
    return names


def items(counts):
    return list(counts.items())


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.text(alphabet=ALPHABET, max_size=60), min_size=1, max_size=4),
    gzipped=st.sets(st.integers(0, 3), max_size=2),
    partition_bytes=st.integers(1, 48),
    settings_index=st.integers(0, len(SETTINGS) - 1),
    max_distinct=st.one_of(st.none(), st.integers(1, 6)),
    min_count=st.integers(1, 3),
)
def test_dask_counts_equal_single_process_counts(
    cluster, texts, gzipped, partition_bytes, settings_index, max_distinct, min_count
):
    words = SETTINGS[settings_index]
    with tempfile.TemporaryDirectory() as folder:
        sources = write(Path(folder), texts, gzipped)
        options = dict(partition_bytes=partition_bytes, max_distinct=max_distinct, min_count=min_count)
        here = count_sources(sources, words, **options)
        on_dask = count_on_dask(sources, words, scheduler=cluster, **options)
    assert items(on_dask) == items(here)
    if max_distinct is None and min_count == 1:  # nothing pruned: exactly the whole texts' counts
        assert items(on_dask) == items(count_words(texts, words))


def test_every_setting_with_crlf_empty_files_and_gzip(cluster, tmp_path):
    texts = ["low lower\r\nnewest  ", "", "widest\r\n\r\nΣίσυφος ΣΊΣΥΦΟΣ 😀 naïve\n", "  ", "low low lower newest"]
    sources = write(tmp_path, texts, {2})
    for words in SETTINGS:
        on_dask = count_on_dask(sources, words, scheduler=cluster, partition_bytes=5)
        assert items(on_dask) == items(count_words(texts, words)), words
    seen = count_on_dask(sources, Settings(), scheduler=cluster, partition_bytes=5)
    assert items(seen)[:4] == [("low", 3), ("lower", 2), ("newest", 2), ("widest", 1)]


def test_pruning_builds_the_same_tree_on_an_odd_number_of_partitions(cluster, tmp_path):
    # 7 files of rising frequencies: max_distinct=2 prunes at every merge, so a different
    # pairing (e.g. folding left to right) would keep different words or counts.
    texts = [" ".join([f"w{n}"] * (n + 1) + ["x", "y"] * (7 - n)) for n in range(7)]
    sources = write(tmp_path, texts)
    here = count_sources(sources, Settings(), max_distinct=2)
    assert items(count_on_dask(sources, Settings(), scheduler=cluster, max_distinct=2)) == items(here)
    assert items(here) == [("x", 22), ("y", 18)]  # a left-to-right fold would give x 28


def test_progress_counts_every_partition_and_byte(cluster, tmp_path):
    sources = write(tmp_path, ["a b c " * 20, "d e " * 30, ""])
    seen = []
    count_on_dask(sources, Settings(), scheduler=cluster, partition_bytes=25, progress=seen.append)
    total = sum(Path(s).stat().st_size for s in sources)
    assert seen[0].bytes_done == 0 and seen[0].partitions_done == 0
    assert [p.partitions_done for p in seen] == list(range(len(seen)))
    assert seen[-1].bytes_done == seen[-1].bytes_total == total
    # 120 bytes: 5 partitions, 120 bytes: 5, the empty file: 1
    assert seen[-1].partitions_done == seen[-1].partitions_total == len(seen) - 1 == 11


def test_a_bad_file_is_one_line_naming_the_earliest_bad_one(cluster, tmp_path):
    good = write(tmp_path, ["fine words here " * 40])
    binary = tmp_path / "late.txt"
    binary.write_bytes(b"plain words " * 50 + b"\x00")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café au lait".encode("latin-1"))
    truncated = tmp_path / "cut.txt.gz"
    truncated.write_bytes(gzip.compress(b"some words " * 500)[:-30])
    for bad, message in [
        (binary, "late.txt looks like a binary file (it contains NUL bytes, the first at offset 600)"),
        (latin1, "latin1.txt: not UTF-8 text (invalid byte 0xe9 at offset 3)"),
        (truncated, "cut.txt.gz"),
    ]:
        with pytest.raises(BPEError) as caught:
            count_on_dask([*good, str(bad), *good], Settings(), scheduler=cluster, partition_bytes=64)
        assert message in str(caught.value) and "\n" not in str(caught.value)
    # Two bad files: the one earlier in the sources is named, however the tasks finish.
    for _ in range(3):
        with pytest.raises(BPEError, match="latin1.txt"):
            count_on_dask([*good, str(latin1), *good, str(binary)], Settings(), scheduler=cluster,
                          partition_bytes=64)


def test_the_scheduler_comes_from_the_environment(cluster, tmp_path, monkeypatch):
    distributed = require("distributed")

    def no_local_cluster(*args, **kwargs):
        raise AssertionError("a LocalCluster was started although BPE_DASK_SCHEDULER names a cluster")

    monkeypatch.setattr(distributed, "LocalCluster", no_local_cluster)
    monkeypatch.setenv(SCHEDULER_ENV, cluster)
    sources = write(tmp_path, ["low lower", "newest low"])
    assert items(count_on_dask(sources, Settings(), partition_bytes=4)) == [
        ("low", 2), ("lower", 1), ("newest", 1)]


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    dask = require("dask")
    require("distributed")
    sources = write(tmp_path, ["low lower"])
    unreachable = r"^cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9: "
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), pytest.raises(BPEError, match=unreachable):
        count_on_dask(sources, Settings(), scheduler="tcp://127.0.0.1:9")


def test_its_own_local_cluster_starts_and_is_shut_down(tmp_path):
    psutil = require("psutil")
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    texts = ["low lower newest " * 30, "widest low " * 30, "new newer"]
    sources = write(tmp_path, texts, {1})
    counts = count_on_dask(sources, Settings(), workers=2, partition_bytes=64)
    assert items(counts) == items(count_words(texts, Settings()))
    with pytest.raises(BPEError, match="missing.txt: no such file"):
        count_on_dask([*sources, str(tmp_path / "missing.txt")], Settings(), workers=2)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff")
    with pytest.raises(BPEError, match="bad.txt: not UTF-8"):
        count_on_dask([*sources, str(bad)], Settings(), workers=2, partition_bytes=64)
    _, alive = psutil.wait_procs([p for p in me.children(recursive=True) if p.pid not in before], timeout=10)
    assert alive == []  # every worker process of both clusters is gone


def test_without_dask_a_one_line_error_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    sources = write(tmp_path, ["low lower", "newest"])
    with pytest.raises(BPEError) as caught:
        count_on_dask(sources, Settings(), workers=2)
    assert str(caught.value) == MISSING_DASK
    assert "pip install" in MISSING_DASK and "dask[distributed]" in MISSING_DASK


def test_bz2_and_a_directory_are_sources_too(cluster, tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("low lower\n", encoding="utf-8")
    (tmp_path / "corpus" / "b.txt.bz2").write_bytes(bz2.compress(b"newest low\n"))
    counts = count_on_dask([str(tmp_path / "corpus")], Settings(), scheduler=cluster, partition_bytes=3)
    assert items(counts) == [("low", 2), ("lower", 1), ("newest", 1)]
