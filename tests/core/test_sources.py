"""Streaming sources: safe cuts, partitions and pieces give exactly `count_words` of the whole texts."""
from __future__ import annotations

import bz2
import gzip
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, count_sources, cut_pieces, expand_sources, plan_partitions
from bpe_core.cuts import byte_cuts, text_cuts
from bpe_core.pretokenize import count_words
from tests.conftest import require

# Characters chosen to sit on every edge the cut rules reason about: whitespace of several kinds
# (CRLF, NBSP, U+3000, U+2028, U+001C), combining marks, Greek sigma, Hangul jamo that compose
# under NFC, CJK with its full stop, contractions, "/" (o200k's punctuation run), emoji with ZWJ,
# U+FE70 (NFKC: space + mark), U+00A8 (NFKC: space + mark), U+0600 (a grapheme "prepend").
ALPHABET = [
    " ", " ", " ", "\n", "\n", "\r\n", "\r", "\t", "\u00a0", "\u3000", "\u2028", "\x1c",
    "a", "b", "x", "Z", "S", "\u03a3", "\u03c3", "e\u0301", "\u0301", "\u0308", "\u1100", "\u1161",
    "\u11a8", "\u4e2d", "\u3002", "1", "23", "'", "'s", ".", "/", ",", "!", "\U0001f600", "\u200d",
    "\ufe70", "\u00a8", "\u0600", "\u0130", "\u212a", "\ufb01", "low", "lower", "new",
]
SETTINGS = [
    Settings(mode=mode, pretokenizer=pre, lowercase=lower, normalization=norm)
    for mode, pres in (("word", ["whitespace"]), ("text", ["whitespace", "gpt2", "gpt4", "o200k", "qwen", "none"]),
                       ("bytes", ["gpt2", "gpt4", "o200k", "qwen", "none"]))
    for pre in pres
    for lower in (False, True)
    for norm in ("none", "NFC", "NFKC")
]
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)
any_settings = st.sampled_from(SETTINGS)
QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ordered(counts: dict[str, int]) -> list[tuple[str, int]]:
    return list(counts.items())


def counted_in_pieces(pieces: list[str], s: Settings) -> list[tuple[str, int]]:
    total = count_words([], s)
    for piece in pieces:
        total.update(count_words([piece], s))
    return ordered(total)


@QUICK
@given(texts, any_settings)
def test_every_cut_the_rules_allow_keeps_the_counts(text: str, s: Settings) -> None:
    whole = ordered(count_words([text], s))
    for cut in text_cuts(text, s):
        assert counted_in_pieces([text[:cut], text[cut:]], s) == whole, (text, cut)
    data = text.encode("utf-8")
    for cut in byte_cuts(data, s, start=0, final=True):
        parts = [data[:cut].decode("utf-8"), data[cut:].decode("utf-8")]
        assert counted_in_pieces(parts, s) == whole, (text, cut)


def test_the_rules_find_cuts_in_ordinary_text() -> None:
    text = "low lower\nnewest widest\n"
    assert list(text_cuts(text, Settings())) == [3, 10, 16]
    assert list(text_cuts(text, Settings(mode="text", pretokenizer="whitespace"))) == [3, 9, 16, 23]
    assert list(text_cuts(text, Settings(mode="bytes"))) == [3, 10, 16]
    assert list(text_cuts(text, Settings(mode="text"))) == []  # pre-tokenizer none: one word
    # gpt2 keeps " \n" together only at the end of a text: no cut after a space-newline.
    assert list(text_cuts("a \nb", Settings(mode="bytes"))) == [1]


@QUICK
@given(texts, any_settings, st.integers(1, 12))
def test_cut_pieces_count_like_the_whole_text(text: str, s: Settings, piece_chars: int) -> None:
    pieces = list(cut_pieces(text, s, piece_chars=piece_chars))
    assert "".join(pieces) == text
    assert all(pieces)
    assert counted_in_pieces(pieces, s) == ordered(count_words([text], s))


@QUICK
@given(st.lists(texts, min_size=1, max_size=4), any_settings, st.integers(1, 64))
def test_streamed_files_count_like_count_words(files: list[str], s: Settings, partition_bytes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, text in enumerate(files):
            path = os.path.join(folder, f"{i:02d}.txt")
            Path(path).write_bytes(text.encode("utf-8"))
            paths.append(path)
        got = count_sources(paths, s, partition_bytes=partition_bytes)
    assert ordered(got) == ordered(count_words(files, s))


raw_bytes = st.lists(
    st.sampled_from([b"a", b"b ", b" ", b"\n", b"\xc3\xa9", b"\xe4\xb8\xad", b"\xff", b"\xc3", b"\x80", b"\xe2\x80",
                     b"\xf0\x9f\x98\x80", b"\xef\xbb\xbf", b"x\n", b"\xe3\x80\x80"]),
    max_size=30,
).map(b"".join)


@QUICK
@given(raw_bytes, any_settings, st.integers(1, 16))
def test_replace_reads_bad_bytes_as_one_whole_decode(data: bytes, s: Settings, partition_bytes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bad.txt")
        Path(path).write_bytes(data)
        got = count_sources([path], s, partition_bytes=partition_bytes, errors="replace")
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    assert ordered(got) == ordered(count_words([text], s))


def test_crlf_stays_and_a_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes("\ufeffab cd\r\nef\r\n".encode())
    s = Settings(mode="bytes")
    assert ordered(count_sources([str(path)], s, partition_bytes=3)) == ordered(count_words(["ab cd\r\nef\r\n"], s))
    assert "\u010a" in "".join(count_sources([str(path)], s))  # GPT-2's symbol for "\n" (after "\r" = "č")
    assert count_sources([str(path)], Settings()) == {"ab": 1, "cd": 1, "ef": 1}


def test_partitions_are_small_picklable_and_ordered(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x" * 25)
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"y" * 100))
    (tmp_path / "c.txt").write_text("")
    parts = plan_partitions(expand_sources([str(tmp_path)]), partition_bytes=10)
    assert [(Path(p.path).name, p.start, p.end, p.size, p.index) for p in parts] == [
        ("a.txt", 0, 10, 10, 0), ("a.txt", 10, 20, 10, 1), ("a.txt", 20, None, 5, 2),
        ("b.txt.gz", 0, None, (tmp_path / "b.txt.gz").stat().st_size, 3), ("c.txt", 0, None, 0, 4),
    ]
    assert parts[3].compression == "gz" and parts[0].kind == "text"
    assert pickle.loads(pickle.dumps(parts[1])) == parts[1]
    assert len(pickle.dumps(parts[1])) < 400


def test_expand_sources_walks_globs_and_dedups(tmp_path: Path) -> None:
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "sub" / "b.txt").write_text("b")
    (tmp_path / "d" / "a.txt").write_text("a")
    (tmp_path / "d" / ".hidden.txt").write_text("h")
    (tmp_path / "d" / ".git").mkdir()
    (tmp_path / "d" / ".git" / "x.txt").write_text("x")
    (tmp_path / "z.txt").write_text("z")
    d, z = str(tmp_path / "d"), str(tmp_path / "z.txt")
    names = [os.path.relpath(p, tmp_path) for p in expand_sources([z, d, str(tmp_path / "d" / "a.txt")])]
    assert names == ["z.txt", os.path.join("d", "a.txt"), os.path.join("d", "sub", "b.txt")]
    found = expand_sources([str(tmp_path / "**" / "*.txt")])
    assert [os.path.relpath(p, tmp_path) for p in found] == [
        os.path.join("d", "a.txt"), os.path.join("d", "sub", "b.txt"), "z.txt"
    ]
    with pytest.raises(BPEError, match=r"nope\.txt: no such file"):
        expand_sources([str(tmp_path / "nope.txt")])
    with pytest.raises(BPEError, match="no files match this pattern"):
        expand_sources([str(tmp_path / "*.parquet")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(BPEError, match="no files in this directory"):
        expand_sources([str(tmp_path / "empty")])


def test_compressed_files_count_like_their_text(tmp_path: Path) -> None:
    text = "low lower newest\nwidest é 中文\n" * 300
    data = text.encode()
    (tmp_path / "a.gz").write_bytes(gzip.compress(data))
    (tmp_path / "b.bz2").write_bytes(bz2.compress(data))
    zstd = require("zstandard")
    (tmp_path / "c.zst").write_bytes(zstd.ZstdCompressor().compress(data))
    paths = [str(tmp_path / n) for n in ("a.gz", "b.bz2", "c.zst")]
    for s in (Settings(), Settings(mode="bytes", pretokenizer="gpt4")):
        assert ordered(count_sources(paths, s)) == ordered(count_words([text] * 3, s))
    # Several zstd frames read as one stream; a file that stops inside a frame is an error.
    frames = zstd.ZstdCompressor().compress(b"a b\n") + zstd.ZstdCompressor().compress(data)
    (tmp_path / "d.zst").write_bytes(frames)
    got = count_sources([str(tmp_path / "d.zst")], Settings())
    assert ordered(got) == ordered(count_words(["a b\n" + text], Settings()))
    (tmp_path / "cut.zst").write_bytes(frames[:-20])
    assert "truncated or corrupt zstd data" in _one_line_error(tmp_path / "cut.zst")


def _one_line_error(path: Path, **kwargs: object) -> str:
    with pytest.raises(BPEError) as info:
        count_sources([str(path)], kwargs.pop("settings", Settings()), **kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message and path.name in message
    return message


def test_bad_sources_give_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"abc\x00def")
    assert "binary" in _one_line_error(tmp_path / "bin.txt")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 ok\nmore text here\n")
    assert "not UTF-8 text (invalid byte 0xe9 at offset 3)" in _one_line_error(tmp_path / "latin1.txt")
    # In a later partition the offset is still the file's.
    (tmp_path / "late.txt").write_bytes(b"word " * 20 + b"\xff tail\n")
    assert "invalid byte 0xff at offset 100" in _one_line_error(tmp_path / "late.txt", partition_bytes=16)
    good = gzip.compress(b"hello world\n" * 1000)
    (tmp_path / "cut.gz").write_bytes(good[: len(good) // 2])
    assert "truncated or corrupt gzip" in _one_line_error(tmp_path / "cut.gz")
    good = bz2.compress(b"hello world\n" * 1000)
    (tmp_path / "cut.bz2").write_bytes(good[: len(good) // 2])
    assert "truncated or corrupt bzip2" in _one_line_error(tmp_path / "cut.bz2")
    (tmp_path / "junk.gz").write_bytes(b"not gzip at all")
    assert "truncated or corrupt gzip" in _one_line_error(tmp_path / "junk.gz")
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"caf\xe9"))
    assert "at offset 3 of the decompressed data" in _one_line_error(tmp_path / "bad.gz")


def test_pretokenizer_none_reads_each_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("low lower\nnewest widest\n")
    s = Settings(mode="text")
    assert count_sources([str(tmp_path / "a.txt")], s, partition_bytes=2) == {"low lower\nnewest widest\n": 1}
    monkeypatch.setattr("bpe_core.sources.NONE_MAX_BYTES", 10)
    assert "too large for pre-tokenizer none" in _one_line_error(tmp_path / "a.txt", settings=s)


def test_json_lines_count_each_record_as_a_text(tmp_path: Path) -> None:
    records = ["low lower", "newest\nwidest é", "", "a \n", "中文。\n好"]
    lines = [f'{{"id": {i}, "text": {text!r}}}'.replace("'", '"') for i, text in enumerate(records)]
    body = ("\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n{\"text\": null}\n").encode()
    (tmp_path / "a.jsonl").write_bytes("\ufeff".encode() + body)
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(body))
    for s in (Settings(), Settings(mode="bytes"), Settings(mode="text")):
        want = ordered(count_words(records * 2, s))
        for size in (1, 7, 1000):
            got = count_sources([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl.gz")], s, partition_bytes=size)
            assert ordered(got) == want, (s, size)
    (tmp_path / "c.jsonl").write_text('{"body": "x"}\n')
    assert count_sources([str(tmp_path / "c.jsonl")], Settings(), text_field="body") == {"x": 1}


def test_json_lines_errors_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a"}\n' * 5 + "{not json\n")
    assert "line 6: not valid JSON" in _one_line_error(path, partition_bytes=20)
    path.write_text('{"text": "a"}\n{"body": "b", "id": 2}\n')
    assert "line 2: no field 'text' (the record has: body, id)" in _one_line_error(path)
    path.write_text('{"text": 5}\n')
    assert "line 1: field 'text' holds int, not a string" in _one_line_error(path)
    path.write_text('["text"]\n')
    assert "line 1: expected a JSON object" in _one_line_error(path)


def test_parquet_counts_each_row_group_and_names_its_columns(tmp_path: Path) -> None:
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    records = ["low lower", "newest widest", None, "é 中文\nx", "low"]
    table = pa.table({"text": records, "n": list(range(5))})
    path = tmp_path / "a.parquet"
    pq.write_table(table, path, row_group_size=2)
    parts = plan_partitions([str(path)])
    assert [p.row_group for p in parts] == [0, 1, 2]
    s = Settings(mode="bytes")
    assert ordered(count_sources([str(path)], s)) == ordered(count_words([r for r in records if r], s))
    assert "no column 'body' (the file has: text, n)" in _one_line_error(path, text_field="body")
    assert "column 'n' holds int64, not strings" in _one_line_error(path, text_field="n")
    (tmp_path / "no.parquet").write_bytes(b"not parquet at all")
    assert "not a readable Parquet file" in _one_line_error(tmp_path / "no.parquet")


def test_a_missing_optional_package_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.zst").write_bytes(b"\x28\xb5\x2f\xfd")
    (tmp_path / "b.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "zstandard", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(BPEError, match=r"^reading \.zst files needs the zstandard package: pip install zstandard$"):
        count_sources([str(tmp_path / "a.zst")], Settings())
    with pytest.raises(BPEError, match=r"^reading Parquet files needs the pyarrow package: pip install pyarrow$"):
        count_sources([str(tmp_path / "b.parquet")], Settings())


@QUICK
@given(raw_bytes, any_settings, st.integers(1, 40), st.integers(1, 9), st.integers(1, 9))
def test_tiny_reads_and_pieces_change_nothing(data: bytes, s: Settings, partition_bytes: int, chunk: int,
                                              piece: int) -> None:
    # Reads of a few bytes split UTF-8 characters and bad bytes everywhere; pieces of a few characters
    # make every safe cut a piece boundary.
    with tempfile.TemporaryDirectory() as folder, mock.patch("bpe_core.sources.CHUNK_BYTES", chunk), \
            mock.patch("bpe_core.sources.PIECE_CHARS", piece):
        path = os.path.join(folder, "a.txt")
        Path(path).write_bytes(data)
        got = count_sources([path], s, partition_bytes=partition_bytes, errors="replace")
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    assert ordered(got) == ordered(count_words([text], s))


def test_long_stretches_without_a_cut(tmp_path: Path) -> None:
    # Partitions whose start lies in 200 KB without a safe cut read on, block after block, to the
    # next cut; the stretch is counted once, by the partition it starts in.
    text = "é" * 100_000 + " a b\n" + "中" * 70_000 + "\nx y " + "z" * 150_000
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    for s in (Settings(), Settings(mode="bytes"), Settings(mode="text", pretokenizer="whitespace")):
        for size in (1000, 65_536, 10**6):
            got = count_sources([str(tmp_path / "a.txt")], s, partition_bytes=size)
            assert ordered(got) == ordered(count_words([text], s)), (s, size)


@QUICK
@given(st.lists(texts, max_size=6), any_settings, st.integers(1, 64))
def test_json_lines_partitions_count_each_record_once(records: list[str], s: Settings, partition_bytes: int) -> None:
    body = "".join(json.dumps({"text": r, "n": i}, ensure_ascii=i % 2 == 0) + "\n" for i, r in enumerate(records))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "a.jsonl")
        Path(path).write_bytes(body.encode("utf-8"))
        got = count_sources([path], s, partition_bytes=partition_bytes)
    assert ordered(got) == ordered(count_words(records, s))
