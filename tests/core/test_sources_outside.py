"""Streaming sources, counts files and Dask counting fed with inputs from outside the tests' own
making: pipes, files pandas and pyarrow write the usual way, JSON with lone surrogates, archives,
single-line CJK text, hand-edited counts files, and schedulers that are no Dask scheduler."""
from __future__ import annotations

import asyncio
import io
import os
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.counting import count_sources
from bpe_core.counts_file import read_counts, write_counts
from bpe_core.cuts import CJK_STOPS, byte_cuts, text_cuts
from bpe_core.pretokenize import count_words
from bpe_core.settings import BPEError, Settings
from bpe_core.sources import plan_partitions, read_texts
from tests.conftest import ROOT, require

REGEX_SETTINGS = [
    Settings(mode=mode, pretokenizer=pre, lowercase=lower, normalization=norm)
    for mode in ("text", "bytes")
    for pre in ("gpt2", "gpt4", "o200k", "qwen")
    for lower in (False, True)
    for norm in ("none", "NFKC")
]


def one_line_error(exc: pytest.ExceptionInfo[BPEError]) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


# ---- pipes: /dev/stdin, FIFOs, `<(zcat ...)` -----------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("name, data, field", [
    ("words.fifo", "low lower\nnewest low\n", None),
    ("records.jsonl", '{"text": "low lower"}\n{"text": "newest low"}\n', "text"),
])
def test_a_pipe_is_read_to_its_end(tmp_path: Path, name: str, data: str, field: str | None) -> None:
    # A FIFO's size is 0: it was read as an empty file, so `count /dev/stdin` counted nothing.
    fifo = tmp_path / name
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(data, encoding="utf-8"))
    writer.start()
    try:
        counts = count_sources([str(fifo)], Settings(), text_field=field)
    finally:
        writer.join(timeout=10)
    assert list(counts.items()) == [("low", 2), ("lower", 1), ("newest", 1)]


# ---- files written by pandas and pyarrow ---------------------------------------------------------


def test_a_dictionary_encoded_parquet_column_is_read(tmp_path: Path) -> None:
    # pandas writes its "category" dtype, and pyarrow a dictionary_encode()d column, as a
    # dictionary of strings: both were refused as "not strings".
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    column = pa.array(["low lower", None, "low newest", "low lower"]).dictionary_encode()
    pq.write_table(pa.table({"text": column}), tmp_path / "cat.parquet", row_group_size=2)
    counts = count_sources([str(tmp_path / "cat.parquet")], Settings())
    assert list(counts.items()) == [("low", 3), ("lower", 2), ("newest", 1)]


def test_a_struct_column_gets_a_clear_error(tmp_path: Path) -> None:
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    pq.write_table(pa.table({"meta": pa.array([{"text": "a b"}])}), tmp_path / "nested.parquet")
    with pytest.raises(BPEError) as info:
        plan_partitions([str(tmp_path / "nested.parquet")], text_field="meta.text")
    assert one_line_error(info) == (
        f"{tmp_path / 'nested.parquet'}: column 'meta' is a struct; fields nested inside a column are not read: "
        "write the text as a top-level string column"
    )


# ---- JSON lines: lone surrogates -----------------------------------------------------------------


def test_a_lone_surrogate_in_json_names_the_file_and_line(tmp_path: Path) -> None:
    # json.loads turns "\ud800" into a lone surrogate; the error named neither file nor line and
    # spoke of errors="replace" instead of the option.
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "fine"}\n{"text": "x \\ud800 y \\udfff"}\n{"text": "ok \\ud83d\\ude00"}\n')
    with pytest.raises(BPEError) as info:
        count_sources([str(path)], Settings())
    assert one_line_error(info) == (
        f"{path}: line 2: field 'text' holds a lone surrogate (\\ud800 at character 2), which is no Unicode "
        "character; --errors replace reads it as U+FFFD"
    )
    counts = count_sources([str(path)], Settings(), errors="replace")
    assert list(counts.items()) == [("fine", 1), ("x", 1), ("\ufffd", 2), ("y", 1), ("ok", 1), ("\U0001f600", 1)]


# ---- archives and compressed Parquet -------------------------------------------------------------


@pytest.mark.parametrize("name, message", [
    ("corpus.tar.gz", "an archive is not read; unpack it and give the directory"),
    ("corpus.zip", "an archive is not read; unpack it and give the directory"),
    ("data.parquet.gz", "a compressed Parquet file is not read (Parquet compresses inside); decompress it"),
])
def test_archives_are_refused_by_name(tmp_path: Path, name: str, message: str) -> None:
    # A .tar.gz was read as text and called "a binary file"; a .parquet.gz gave pyarrow's
    # "magic bytes not found in footer".
    path = tmp_path / name
    path.write_bytes(b"\x1f\x8b\x08\x00")
    with pytest.raises(BPEError) as info:
        plan_partitions([str(path)])
    assert one_line_error(info) == f"{path}: {message}"


# ---- CJK and Thai text without ASCII spaces ------------------------------------------------------


def test_cjk_punctuation_and_non_ascii_spaces_are_cuts() -> None:
    text = "中文。中文，ไทย ภาษา「x」"
    assert list(text_cuts(text, Settings(mode="bytes", pretokenizer="gpt4"))) == [2, 5, 9, 14, 16]
    assert list(byte_cuts(text.encode(), Settings(mode="bytes", pretokenizer="o200k"), start=0, final=True)) == [
        len(text[:k].encode()) for k in (2, 5, 9, 14, 16)
    ]


ALPHABET = [
    " ", "  ", "\n", "\t", "\u3000", "a", "Z", "1", "'", "'s", ".", "/", "\u4e2d", "\u6587", "\u3042",
    "\u0e01", "\u0e34", "\u0130", "\u212a", "\ufb01", "\uff76", "\uff9e", "\u1100", "\u1161", "\u0301",
    "\u200d", "\U0001f600", "\u00df", "\u03a3", "\ufe70", "\u0600", "\uff07", "\u02bc", "\u3005", "\u30fc",
    "\u2160", "\u00aa", *CJK_STOPS,
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join), st.sampled_from(REGEX_SETTINGS))
def test_every_new_cut_keeps_the_counts(text: str, s: Settings) -> None:
    whole = list(count_words([text], s).items())

    def in_pieces(parts: list[str]) -> list[tuple[str, int]]:
        total = count_words([], s)
        for part in parts:
            total.update(count_words([part], s))
        return list(total.items())

    for cut in text_cuts(text, s):
        assert in_pieces([text[:cut], text[cut:]]) == whole, (text, cut)
    data = text.encode("utf-8")
    for cut in byte_cuts(data, s, start=0, final=True):
        assert in_pieces([data[:cut].decode(), data[cut:].decode()]) == whole, (text, cut)


def test_a_single_line_of_cjk_is_streamed_in_pieces(tmp_path: Path) -> None:
    # Without an ASCII space or a newline before a letter, a whole file was one piece held in
    # memory (a 51 MB line of Chinese peaked at 163 MB); CJK punctuation now cuts it.
    sentence = "我们今天学习分词。它把文字切成小块，然后合并常见的对！"
    text = sentence * 400
    path = tmp_path / "zh.txt"
    path.write_text(text, encoding="utf-8")
    s = Settings(mode="bytes", pretokenizer="gpt4")
    (part,) = plan_partitions([str(path)])
    with mock.patch("bpe_core.sources.PIECE_CHARS", 1000), mock.patch("bpe_core.sources.CHUNK_BYTES", 3000):
        pieces = list(read_texts(part, s))
    assert "".join(pieces) == text
    assert len(pieces) >= 8 and max(len(p) for p in pieces) < 2100
    parts = plan_partitions([str(path)], partition_bytes=4096)
    assert len(parts) > 5
    assert list(count_sources([str(path)], s, partition_bytes=4096).items()) == list(count_words([text], s).items())


# ---- counts files --------------------------------------------------------------------------------


class _Failing(Counter):
    def items(self):  # type: ignore[override]
        yield from list(super().items())[:2]
        raise OSError(28, "No space left on device")


def test_a_failed_write_leaves_the_old_counts_file(tmp_path: Path) -> None:
    target = tmp_path / "counts.tsv"
    write_counts(target, Counter({"low": 2}), Settings(), meta={})
    before = target.read_bytes()
    with pytest.raises(BPEError, match="No space left on device"):  # one line for the CLI to print
        write_counts(target, _Failing({"a": 1, "b": 2, "c": 3}), Settings(), meta={})
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counts.tsv"]


def test_counts_are_refused_before_counting_when_they_cannot_be_written(tmp_path: Path) -> None:
    corpus = tmp_path / "a.txt"
    corpus.write_text("low lower\n")
    result = subprocess.run(
        [sys.executable, "-m", "bpe_core", "count", str(corpus), "-o", str(tmp_path / "no" / "c.tsv")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == f"error: {tmp_path / 'no' / 'c.tsv'}: cannot be written (no folder {tmp_path / 'no'})\n"


def test_a_blank_line_in_a_hand_edited_counts_file_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    write_counts(path, Counter({"low": 2, "new": 1}), Settings(), meta={})
    path.write_text(path.read_text() + "\n")
    counts, _ = read_counts(path)
    assert list(counts.items()) == [("low", 2), ("new", 1)]


# ---- Dask schedulers that do not answer ----------------------------------------------------------


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never answers (an HTTP server waiting for a request)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_server_that_never_answers_fails_within_the_connect_timeout(tmp_path: Path, silent_server: str) -> None:
    # Dask's Client waited forever for the handshake (pointing --scheduler at the dashboard's
    # HTTP port does this).
    dask = require("dask")
    require("distributed")
    from bpe_core.dask_counting import count_on_dask

    corpus = tmp_path / "a.txt"
    corpus.write_text("low lower\n")
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), pytest.raises(BPEError) as info:
        count_on_dask([str(corpus)], Settings(), scheduler=silent_server)
    assert one_line_error(info) == f"cannot reach the Dask scheduler at {silent_server}: no answer within 2 s"


def test_a_silent_server_is_refused_also_from_a_thread_that_runs_an_event_loop(
    silent_server: str, tmp_path: Path
) -> None:
    # The probe used to step aside when the calling thread ran an event loop (a notebook, or this
    # test session once Playwright had driven a browser in it), and the Client then waited forever.
    dask = require("dask")
    require("distributed")
    from bpe_core.dask_counting import count_on_dask

    corpus = tmp_path / "a.txt"
    corpus.write_text("low lower\n")

    async def inside_a_loop() -> str:
        with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), pytest.raises(BPEError) as info:
            count_on_dask([str(corpus)], Settings(), scheduler=silent_server)
        return one_line_error(info)

    # A thread of its own, since this test session's thread may itself run a loop already.
    answers: list[str] = []
    runner = threading.Thread(target=lambda: answers.append(asyncio.run(inside_a_loop())))
    runner.start()
    runner.join(60)
    assert answers == [f"cannot reach the Dask scheduler at {silent_server}: no answer within 2 s"]


def test_a_bad_file_on_a_local_cluster_prints_one_line(tmp_path: Path) -> None:
    # Cancelling the pending partitions made Dask's scheduler fail an assertion and print a
    # "Task exception was never retrieved" traceback after the error line.
    require("distributed")
    for i in range(3):
        (tmp_path / f"{i}.txt").write_text("low lower newest widest\n" * 2000)
    (tmp_path / "1.txt").write_bytes((tmp_path / "1.txt").read_bytes() + b"\xff\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("BPE_DASK_SCHEDULER", None)
    result = subprocess.run(
        [sys.executable, "-m", "bpe_core", "count", str(tmp_path), "--workers", "2", "--partition-size", "4KB",
         "-o", str(tmp_path / "c.tsv")],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=300,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {tmp_path / '1.txt'}: not UTF-8 text (invalid byte 0xff at offset 48000); "
        "--errors replace reads it with U+FFFD\n"
    )
    assert not (tmp_path / "c.tsv").exists()


# ---- files named for another format --------------------------------------------------------------


def test_text_field_on_files_read_as_text_is_refused(tmp_path: Path) -> None:
    # Spark and Hadoop name their JSON lines output part-00000: it was counted as plain text,
    # braces, quotes and field names included, though --text-field said the user expected records.
    path = tmp_path / "part-00000"
    path.write_text('{"text": "low lower"}\n')
    with pytest.raises(BPEError) as info:
        count_sources([str(path)], Settings(), text_field="text")
    assert one_line_error(info) == (
        f"{path}: --text-field applies to JSON lines (.jsonl, .json) and Parquet files, and every source is "
        "read as plain text; name the files by their format"
    )


def test_a_json_document_is_told_apart_from_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('[\n  {"text": "low lower"}\n]\n')
    with pytest.raises(BPEError) as info:
        count_sources([str(path)], Settings())
    assert one_line_error(info) == (
        f"{path}: line 1: not valid JSON (Expecting value); JSON lines hold one whole JSON object a line, "
        "not a JSON document spread over lines"
    )


def test_a_cluster_without_workers_fails_within_the_connect_timeout(tmp_path: Path) -> None:
    # The job was taken and never run: the command waited forever.
    dask = require("dask")
    distributed = require("distributed")
    from bpe_core.dask_counting import count_on_dask

    corpus = tmp_path / "a.txt"
    corpus.write_text("low lower\n")
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                  silence_logs=50) as empty:
        address = empty.scheduler_address
        with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), pytest.raises(BPEError) as info:
            count_on_dask([str(corpus)], Settings(), scheduler=address)
    assert one_line_error(info) == (
        f"the Dask scheduler at {address} has no workers (none joined within 2 s): start some with "
        f"`dask worker {address}`"
    )


# ---- stdin ---------------------------------------------------------------------------------------


class _NoWholeReads(io.BytesIO):
    def read(self, size: int | None = -1) -> bytes:
        assert size is not None and size >= 0, "stdin was read whole"
        return super().read(size)


def test_stdin_is_counted_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `zcat big.gz | python -m bpe_core count -` read all of stdin into memory first.
    from bpe_core.cli import main

    text = "low lower\r\nnewest, widest 中文。中文\n" * 3000
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(_NoWholeReads(text.encode("utf-8")), encoding="utf-8"))
    out = tmp_path / "c.tsv"
    assert main(["count", "-", "--mode", "bytes", "--pretokenizer", "o200k", "-o", str(out)]) == 0
    counts, _ = read_counts(out)
    assert list(counts.items()) == list(count_words([text], Settings(mode="bytes", pretokenizer="o200k")).items())
