"""counts.tsv: any word round-trips, the header names the settings, bad files and settings are refused."""
from __future__ import annotations

import io
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import (
    BPEError,
    Settings,
    check_compatible,
    count_sources,
    read_counts,
    train,
    train_from_counts,
    write_counts,
)
from bpe_core.counts_file import escape_word, unescape_word

EDGES = st.sampled_from("\t\n\r\\ \x00\x1f\x85\u2028\u2029\ufeffab")
word_text = st.text(
    alphabet=st.one_of(EDGES, st.characters(exclude_categories=["Cs"])),
    min_size=1,
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(word_text, st.integers(1, 10**12), max_size=20))
def test_any_words_round_trip_in_order(counts: dict[str, int]) -> None:
    s = Settings(mode="text", pretokenizer="gpt2", lowercase=True, normalization="NFKC")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "counts.tsv"
        write_counts(path, Counter(counts), s, meta={"sources": ["a.txt"], "min_count": 1, "max_distinct": None})
        lines = path.read_bytes().split(b"\n")
        assert len(lines) == len(counts) + 2 and lines[-1] == b""  # one line a word, nothing raw inside
        got, header = read_counts(path)
    assert list(got.items()) == list(counts.items())
    assert (header.mode, header.pretokenizer, header.lowercase, header.normalization) == ("text", "gpt2", True, "NFKC")
    assert (header.words, header.total, header.sources) == (len(counts), sum(counts.values()), ("a.txt",))


def test_the_file_reads_as_documented() -> None:
    stream = io.StringIO()
    write_counts(stream, Counter({"low": 5, "a\tb\\": 2}), Settings(), meta={"sources": ["c.txt"], "max_distinct": 10})
    assert stream.getvalue() == (
        '#bpe-explorer-counts 1\t{"mode": "word", "pretokenizer": "whitespace", "lowercase": false, '
        '"normalization": "none", "max_distinct": 10, "min_count": 1, "sources": ["c.txt"], "words": 2, '
        '"total": 7}\nlow\t5\na\\tb\\\\\t2\n'
    )
    assert escape_word("\u2028\x00") == "\\u2028\\u0000"
    assert unescape_word("\\u2028\\u0000\\n") == "\u2028\x00\n"


def _error(tmp_path: Path, body: str) -> str:
    path = tmp_path / "c.tsv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(BPEError) as info:
        read_counts(path)
    assert "\n" not in str(info.value) and "c.tsv" in str(info.value)
    return str(info.value)


HEADER = ('#bpe-explorer-counts 1\t{"mode": "word", "pretokenizer": "whitespace", "lowercase": false, '
          '"normalization": "none", "max_distinct": null, "min_count": 1, "sources": [], "words": 2, "total": 3}\n')


def test_bad_files_name_the_line(tmp_path: Path) -> None:
    assert "not a counts file" in _error(tmp_path, "low\t5\n")
    assert "version '2' is not supported" in _error(tmp_path, HEADER.replace(" 1\t", " 2\t"))
    assert "line 3: expected word<TAB>count" in _error(tmp_path, HEADER + "a\t1\nb 2\n")
    assert "line 3: the count must be a whole number" in _error(tmp_path, HEADER + "a\t1\nb\t-2\n")
    assert "line 3: unknown escape \\q" in _error(tmp_path, HEADER + "a\t1\nb\\q\t2\n")
    assert "line 3: the word 'a' is listed twice" in _error(tmp_path, HEADER + "a\t1\na\t2\n")
    assert "is it cut short?" in _error(tmp_path, HEADER + "a\t1\n")
    assert "the header has no 'total'" in _error(tmp_path, HEADER.replace(', "total": 3', ""))
    assert "no such file" in str(pytest.raises(BPEError, read_counts, tmp_path / "missing.tsv").value)


def test_incompatible_settings_are_refused() -> None:
    stream = io.StringIO()
    write_counts(stream, Counter({"x": 1}), Settings(mode="bytes"), meta={})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.tsv"
        path.write_text(stream.getvalue(), encoding="utf-8")
        _, header = read_counts(path)
    check_compatible(header, Settings(mode="bytes", tie_break="first", eow="none"))  # training-only settings differ
    with pytest.raises(BPEError, match="made with mode 'bytes' but training asks for 'text'"):
        check_compatible(header, Settings(mode="text", pretokenizer="gpt2"))
    with pytest.raises(BPEError, match="made with pretokenizer 'gpt2' but training asks for 'gpt4'"):
        check_compatible(header, Settings(mode="bytes", pretokenizer="gpt4"))
    with pytest.raises(BPEError, match="made with lowercase False but training asks for True"):
        check_compatible(header, Settings(mode="bytes", lowercase=True))


@pytest.mark.parametrize(
    "s",
    [Settings(tie_break="first"), Settings(mode="bytes", pretokenizer="gpt4", tie_break="first"),
     Settings(mode="text", pretokenizer="whitespace", lowercase=True, normalization="NFKC")],
)
def test_training_from_counts_file_equals_training_on_the_text(tmp_path: Path, s: Settings) -> None:
    texts = ["low low lower newest newest\r\nWidest ﬁne\n" * 7, "", "hug hugs Σίσυφος\nnewer\n" * 5]
    paths = []
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.txt").write_bytes(text.encode())
        paths.append(str(tmp_path / f"{i}.txt"))
    write_counts(tmp_path / "c.tsv", count_sources(paths, s, partition_bytes=16), s, meta={"sources": paths})
    counts, header = read_counts(tmp_path / "c.tsv")
    check_compatible(header, s)
    assert train_from_counts(counts, s, merges=40).merges == train(texts, s, merges=40).merges
