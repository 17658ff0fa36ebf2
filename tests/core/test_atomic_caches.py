"""The caches (built-in tables, sample corpora, language-tax numbers) are written whole or not at
all: a full disk or Ctrl-C halfway through leaves the old file byte for byte and no temporary file;
a full disk only skips caching, Ctrl-C goes on (tests/core/test_atomic_writes.py has the faults)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_core.analysis import TextStats
from bpe_core.formats import builtin, builtin_cache
from explorer.data import language_tax_cache
from sample_corpora import catalog
from tests.core.test_atomic_writes import FAULTS, NEW_TEXT, broken_writes, failing, snapshot

RANKS_OLD = {bytes([b]): b for b in range(256)}
RANKS_NEW = {**RANKS_OLD, b"ab": 256}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("at", [1, 2], ids=["table", "sidecar"])
def test_the_builtin_rank_table_cache_keeps_its_old_table_and_sidecar(at, fault, tmp_path):
    path = tmp_path / "builtin" / "llama3.tiktoken"
    builtin._write_cache(path, RANKS_OLD, "1.0")
    before = snapshot(tmp_path)
    assert builtin._read_cache(path, "1.0", len(RANKS_OLD)) is not None

    with broken_writes(FAULTS[fault], at=at) as made, failing(fault, cache=True):
        builtin._write_cache(path, RANKS_NEW, "2.0")
    assert len(made) == at
    assert snapshot(tmp_path) == before
    assert builtin._read_cache(path, "1.0", len(RANKS_OLD))[0] == RANKS_OLD

    builtin._write_cache(path, RANKS_NEW, "2.0")
    assert builtin._read_cache(path, "2.0", len(RANKS_NEW))[0] == RANKS_NEW


@pytest.mark.parametrize("fault", FAULTS)
def test_the_builtin_symbols_cache_keeps_its_old_file(fault, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    builtin_cache.write_symbols("gpt2", "old", {"a": 0, "b": 1})
    before = snapshot(tmp_path)
    with broken_writes(FAULTS[fault]) as made, failing(fault, cache=True):
        builtin_cache.write_symbols("gpt2", "new", {"a": 0, "b": 1, "ab": 2})
    assert made
    assert snapshot(tmp_path) == before
    assert builtin_cache.cached_symbols("gpt2", "old", 2) == {"a": 0, "b": 1}


@pytest.fixture
def sample_cache(tmp_path, monkeypatch) -> Path:
    """An empty sample-corpus cache folder, and a generated corpus that builds in no time."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(folder))
    monkeypatch.setattr(catalog, "build_python", lambda target: NEW_TEXT)
    return folder


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("old", [None, b"\xff\xfe a damaged cache"], ids=["no cache yet", "damaged cache"])
def test_the_sample_corpus_cache_is_never_left_half_written(old, fault, sample_cache):
    catalog.cache_dir()
    cached = sample_cache / catalog._cache_name("python", catalog.DEFAULT_TARGET_BYTES, "build_python")
    if old is not None:
        cached.write_bytes(old)
    before = snapshot(sample_cache)

    served = []
    with broken_writes(FAULTS[fault]) as made, failing(fault, cache=True):
        served.append(catalog.load_corpus("python"))
    assert made and served == ([NEW_TEXT] if fault == "full disk" else [])  # served, only not cached
    assert snapshot(sample_cache) == before

    assert catalog.load_corpus("python") == NEW_TEXT
    assert snapshot(sample_cache) == {cached.name: NEW_TEXT.encode("utf-8")}


@pytest.mark.parametrize("fault", FAULTS)
def test_the_language_tax_cache_keeps_its_old_file(fault, tmp_path):
    path = tmp_path / "language-tax" / "gpt2-0123.json"
    old = {"en": TextStats(bytes=3, characters=3, words=1, tokens=1)}
    language_tax_cache._write(path, old)
    before = snapshot(tmp_path)
    new = {"en": TextStats(bytes=30, characters=30, words=10, tokens=10)}
    with broken_writes(FAULTS[fault]) as made, failing(fault, cache=True):
        language_tax_cache._write(path, new)
    assert made
    assert snapshot(tmp_path) == before
    assert language_tax_cache._read(path, ["en"]) == old
