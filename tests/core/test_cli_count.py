"""`count SOURCES -o counts.tsv`, `train SOURCES` and `train --counts`: the same merges whichever
way the words are counted (this process, the module's Dask cluster, a LocalCluster of the CLI's
own), and bad sources or contradicting settings as one `error:` line with exit status 2."""
from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bpe_core.cli import main
from bpe_core.cli_count import counting_place, parse_size
from bpe_core.counts_file import read_counts
from bpe_core.dask_counting import SCHEDULER_ENV
from bpe_core.pretokenize import count_words
from bpe_core.settings import BPEError, Settings
from tests.conftest import ROOT
from tests.core.dask_fixtures import local_cluster

LESSON = ROOT / "sample_corpora" / "seed000_lesson.txt"
MULTILINGUAL = ROOT / "sample_corpora" / "multilingual.txt"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster() as address:
        yield address


@pytest.fixture(autouse=True)
def no_scheduler_from_the_environment(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)


@pytest.fixture
def corpus(tmp_path: Path) -> list[str]:
    """Several files: the lessons' texts, a gzipped one, an empty one, CRLF line ends."""
    gz = tmp_path / "b.txt.gz"
    gz.write_bytes(gzip.compress(MULTILINGUAL.read_bytes()))
    crlf = tmp_path / "c.txt"
    crlf.write_bytes(LESSON.read_bytes().replace(b"\n", b"\r\n") * 3)
    empty = tmp_path / "d.txt"
    empty.write_bytes(b"")
    return [str(LESSON), str(gz), str(crlf), str(empty), str(MULTILINGUAL)]


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def error_of(capsys, *argv) -> str:
    """The one stderr line of a run that fails with status 2."""
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert out == "" and "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: "), err
    return err


def merges_of(path: Path) -> list:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [data["settings"], data["merges"]]


def test_count_then_train_on_the_counts_equals_train_on_the_files(capsys, tmp_path, corpus, cluster):
    counts = tmp_path / "counts.tsv"
    status, out, err = run(capsys, "count", *corpus, "--mode", "bytes", "--pretokenizer", "gpt4",
                           "--scheduler", cluster, "--partition-size", "300", "-o", counts)
    assert (status, out) == (0, "")
    assert err.startswith("counted ") and "partitions on the Dask cluster" in err and err.endswith(f"-> {counts}\n")
    words, header = read_counts(counts)
    texts = [Path(c).read_bytes().decode("utf-8") for c in corpus if not c.endswith(".gz")]  # CRLF kept
    texts.insert(1, MULTILINGUAL.read_bytes().decode("utf-8"))
    assert list(words.items()) == list(count_words(texts, Settings(mode="bytes", pretokenizer="gpt4")).items())
    assert (header.mode, header.pretokenizer, header.sources) == ("bytes", "gpt4", tuple(corpus))

    from_counts, from_files = tmp_path / "from_counts.json", tmp_path / "from_files.json"
    status, _, err = run(capsys, "train", "--counts", counts, "--merges", "300", "--tie-break", "first",
                         "-o", from_counts)
    assert status == 0, err
    status, _, err = run(capsys, "train", *corpus, "--mode", "bytes", "--pretokenizer", "gpt4", "--merges", "300",
                         "--tie-break", "first", "--workers", "1", "-o", from_files)
    assert status == 0, err
    assert merges_of(from_counts) == merges_of(from_files)
    assert len(merges_of(from_files)[1]) == 300


def test_train_on_sources_counts_on_dask_with_the_same_merges(capsys, tmp_path, corpus, cluster):
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    assert run(capsys, "train", *corpus, "--merges", "200", "-o", here)[0] == 0
    status, out, err = run(capsys, "train", *corpus, "--merges", "200", "--scheduler", cluster,
                           "--partition-size", "256", "-o", there)
    assert (status, out) == (0, "")
    first, last = err.splitlines()
    assert first.startswith("counted ") and first.endswith(" s") and "on the Dask cluster" in first
    assert last.startswith("trained 200 merges")
    assert merges_of(here) == merges_of(there)


def test_the_scheduler_can_come_from_the_environment(capsys, tmp_path, corpus, cluster, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, cluster)
    status, _, err = run(capsys, "count", *corpus, "-o", tmp_path / "c.tsv")
    assert status == 0 and "on the Dask cluster" in err
    # --workers 1 still counts here, whatever the environment says.
    status, _, err = run(capsys, "count", *corpus, "--workers", "1", "-o", tmp_path / "d.tsv")
    assert status == 0 and "in this process" in err
    assert (tmp_path / "c.tsv").read_bytes() == (tmp_path / "d.tsv").read_bytes()


def test_where_counting_runs():
    mib = 2**20
    # One partition, or sources that fit in one: here; a cluster would only add its start-up.
    assert counting_place(1, 10**9, workers=None, scheduler=None, partition_bytes=64 * mib) == ("here", 1)
    assert counting_place(5, 3 * mib, workers=4, scheduler=None, partition_bytes=64 * mib) == ("here", 1)
    # Several partitions: a local cluster, at most one worker per partition.
    assert counting_place(3, 10**9, workers=8, scheduler=None, partition_bytes=64 * mib) == ("local", 3)
    assert counting_place(30, 10**9, workers=2, scheduler=None, partition_bytes=64 * mib) == ("local", 2)
    # A scheduler wins over size; --workers 1 wins over everything.
    assert counting_place(1, 10, workers=None, scheduler="tcp://h:8786", partition_bytes=64 * mib) == ("remote", 0)
    assert counting_place(30, 10**9, workers=1, scheduler="tcp://h:8786", partition_bytes=64 * mib) == ("here", 1)


def test_partition_sizes():
    assert parse_size("64MiB") == 64 * 2**20 and parse_size("64MB") == 64 * 10**6
    assert parse_size("1.5GB") == 1_500_000_000 and parse_size("4096") == 4096 and parse_size("2 kib") == 2048
    for bad in ("64 parsecs", "-1MB", "0", "MB", ""):
        with pytest.raises(BPEError, match="--partition-size"):
            parse_size(bad)


def test_count_to_stdout_with_pruning_and_a_jsonl_field(capsys, tmp_path):
    records = tmp_path / "r.jsonl"
    lines = [{"id": n, "body": text} for n, text in enumerate(["low low lower", "newest low", "widest newest"])]
    records.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, out, _ = run(capsys, "count", records, "--text-field", "body", "--min-count", "2", "-o", "-")
    assert status == 0
    header, *rows = out.splitlines()
    assert rows == ["low\t3", "newest\t2"]
    assert json.loads(header.partition("\t")[2])["min_count"] == 2
    status, out, _ = run(capsys, "count", records, "--text-field", "body", "--max-distinct", "1", "-o", "-")
    assert status == 0 and out.splitlines()[1:] == ["low\t3"]


def test_stdin_beside_files_is_one_text_among_them(capsys, tmp_path, monkeypatch):
    stdin = "newest widest\nlow"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8"))
    model = tmp_path / "m.json"
    status, _, err = run(capsys, "train", LESSON, "-", "--merges", "30", "-o", model)
    assert status == 0, err
    data = json.loads(model.read_text(encoding="utf-8"))
    expected = count_words([LESSON.read_text(encoding="utf-8"), stdin], Settings())
    assert data["training"]["distinct_words"] == len(expected)
    assert data["training"]["word_count"] == sum(expected.values())


def test_progress_bars_only_when_asked_or_on_a_terminal(capsys, tmp_path, corpus):
    status, _, err = run(capsys, "train", *corpus, "--merges", "50", "-o", tmp_path / "a.json")
    assert status == 0 and err.count("\n") == 1 and "\r" not in err  # piped: the summary only
    status, _, err = run(capsys, "train", *corpus, "--merges", "50", "--progress", "-o", tmp_path / "b.json")
    assert status == 0 and "\rcounting:" in err and "5/5 partitions" in err and "\rtraining:" in err
    assert err.splitlines()[-1].startswith("trained 50 merges")


def test_counts_made_with_other_settings_are_refused(capsys, tmp_path):
    counts = tmp_path / "c.tsv"
    assert run(capsys, "count", LESSON, "--mode", "bytes", "--lowercase", "-o", counts)[0] == 0
    out = tmp_path / "m.json"
    cases = {
        "the counts were made with mode 'bytes' but training asks for 'word'": ["--mode", "word"],
        "the counts were made with mode 'bytes' but training asks for 'text'": ["--mode", "text"],
        "the counts were made with pretokenizer 'gpt2' but training asks for 'gpt4'": ["--pretokenizer", "gpt4"],
        "the counts were made with normalization 'none' but training asks for 'NFC'": ["--normalization", "NFC"],
        "--text-field applies to counting; ": ["--text-field", "body"],
        "--min-count applies to counting; ": ["--min-count", "2"],
        "--workers applies to counting; ": ["--workers", "2"],
        "give either SOURCES or --counts, not both": [LESSON],
    }
    for message, extra in cases.items():
        assert message in error_of(capsys, "train", "--counts", counts, *extra, "-o", out), message
    unlowered = tmp_path / "u.tsv"
    assert run(capsys, "count", LESSON, "-o", unlowered)[0] == 0
    err = error_of(capsys, "train", "--counts", unlowered, "--lowercase", "-o", out)
    assert "the counts were made with lowercase False but training asks for True" in err
    assert not out.exists()
    # Options that agree with the file, and training options, are fine.
    status, _, err = run(capsys, "train", "--counts", counts, "--mode", "bytes", "--lowercase", "--merges", "5",
                         "--tie-break", "hf", "-o", out)
    assert status == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["settings"]["lowercase"] is True


def test_bad_sources_and_options_exit_2_with_one_line(capsys, tmp_path, cluster):
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    truncated = tmp_path / "cut.txt.gz"
    truncated.write_bytes(gzip.compress(b"some words " * 500)[:-30])
    records = tmp_path / "r.jsonl"
    records.write_text('{"text": "low"}\n', encoding="utf-8")
    out = tmp_path / "c.tsv"
    remote = ["--scheduler", cluster, "--partition-size", "16"]
    cases = {
        f"{tmp_path / 'missing.txt'}: no such file": ["count", LESSON, tmp_path / "missing.txt", "-o", out],
        "image.png looks like a binary file": ["count", LESSON, binary, *remote, "-o", out],
        "cut.txt.gz: truncated or corrupt gzip data": ["count", LESSON, truncated, LESSON, *remote, "-o", out],
        "r.jsonl: line 1: no field 'body'": ["count", records, "--text-field", "body", "-o", out],
        "--workers must be at least 1, not 0": ["count", LESSON, "--workers", "0", "-o", out],
        "--max-distinct must be at least 1, not 0": ["count", LESSON, "--max-distinct", "0", "-o", out],
        "--workers sets the size of a local cluster": ["count", LESSON, *remote, "--workers", "2", "-o", out],
        "--partition-size takes a size such as 64MB": ["count", LESSON, "--partition-size", "big", "-o", out],
        "give the SOURCES to train on, or --counts counts.tsv": ["train", "-o", tmp_path / "m.json"],
        f"{tmp_path / 'none.tsv'}: no such file": [
            "train", "--counts", tmp_path / "none.tsv", "-o", tmp_path / "m.json"],
    }
    for message, argv in cases.items():
        assert message in error_of(capsys, *argv), message
    assert not out.exists()


def _python_m(*argv: str | Path, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    command = [sys.executable, "-m", "bpe_core", *map(str, argv)]
    return subprocess.run(command, capture_output=True, cwd=cwd, env=env, timeout=120)


def test_python_dash_m_starts_its_own_cluster_and_fails_without_a_traceback(tmp_path, corpus, cluster):
    # The real entry point: the LocalCluster's worker processes are spawned from `python -m bpe_core`.
    counted = _python_m("count", *corpus, "--partition-size", "1KB", "--workers", "2", "-o", "c.tsv", cwd=tmp_path)
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout == b""
    assert counted.stderr.decode().startswith("counted ") and b"on a local Dask cluster of 2 workers" in counted.stderr
    words, _ = read_counts(tmp_path / "c.tsv")
    assert list(words.items())[:3] == [("low", 5 + 15), ("lower", 2 + 6), ("newest", 6 + 18)]

    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"plain words " * 200 + "café".encode("latin-1"))
    failed = _python_m("train", *corpus, str(latin1), "--partition-size", "1KB", "--scheduler", cluster,
                       "-o", "m.json", cwd=tmp_path)
    assert failed.returncode == 2 and failed.stdout == b""
    assert failed.stderr.decode().splitlines() == [
        f"error: {latin1}: not UTF-8 text (invalid byte 0xe9 at offset 2403); --errors replace reads it with U+FFFD"
    ]
    assert not (tmp_path / "m.json").exists()


def test_without_dask_counting_stays_here_unless_a_scheduler_is_asked_for(capsys, tmp_path, corpus, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    status, _, err = run(capsys, "count", *corpus, "--partition-size", "300", "-o", tmp_path / "c.tsv")
    assert status == 0 and "partitions in this process" in err
    err = error_of(capsys, "count", *corpus, "--scheduler", "tcp://127.0.0.1:8786", "-o", tmp_path / "d.tsv")
    assert err == "error: counting on Dask needs the dask[distributed] package (pip install 'dask[distributed]')\n"
