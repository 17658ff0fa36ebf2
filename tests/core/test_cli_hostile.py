"""`python -m bpe_core` fed hostile input (issue 20): each case ends at once with one `error: ...`
line and status 2, never a traceback nor a hang.

Numbers of 5,000 digits and JSON nested 100,000 deep (counts files, JSON lines, tokenizer files),
byte limits on sources and stdin, decompression bombs, `--workers` and `--partition-size` out of
range, Unigram on one huge word: run in this process. Cases that would block or fill memory
if the refusal were lost (FIFOs, /dev/zero, a loop of links under `**`) and Ctrl-C run as a
child process in a session of its own, with a timeout and a memory limit, and are killed with
their whole group afterwards, so a regression fails the test instead of hanging the run.
"""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bpe_core import sources
from bpe_core.cli import main
from bpe_core.dask_counting import default_workers, max_workers
from bpe_core.families.unigram_text import MAX_TRAINING_WORD
from bpe_core.formats.detect import load_model
from tests.conftest import ROOT, require

LESSON = ROOT / "sample_corpora" / "seed000_lesson.txt"
HEADER = ('#bpe-explorer-counts 1\t{"mode": "word", "pretokenizer": "whitespace", "lowercase": false, '
          '"normalization": "none", "max_distinct": null, "min_count": 1, "sources": [], "words": 1, "total": %s%s}\n')
DIGITS = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000
TOO_DEEP = "(more than 100 levels, the limit)"
SECONDS = 20  # a child that takes longer is hung: it fails the test


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one in-process run."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    """The one error line of a run that must fail with status 2 and print nothing on stdout."""
    status, out, err = run(capsys, *argv)
    assert (status, out, err.count("\n")) == (2, "", 1), err
    return err


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a lost limit fails fast, not the machine


def child(*argv: str | Path, cwd: Path, memory: bool = True) -> subprocess.Popen[bytes]:
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    return subprocess.Popen([sys.executable, "-m", "bpe_core", *map(str, argv)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_limit_memory if memory else None)


def finish(process: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    """(status, stdout, stderr) of a child; one still running after SECONDS fails the test. Its
    whole group is killed either way, so nothing is left blocked on a FIFO."""
    try:
        out, err = process.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        out, err = b"", b""
        pytest.fail(f"hung for {SECONDS} s: {process.args}")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.communicate()
    return process.returncode, out.decode(), err.decode()


def refused_apart(*argv: str | Path, cwd: Path) -> str:
    status, out, err = finish(child(*argv, cwd=cwd))
    assert (status, out, err.count("\n")) == (2, "", 1), err
    return err


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "m.json"
    assert main(["train", str(LESSON), "--merges", "5", "-o", str(path)]) == 0
    return path


# ---- numbers of 5,000 digits -----------------------------------------------------------------------


def test_a_counts_header_with_a_5000_digit_number(capsys, tmp_path):
    counts = tmp_path / "c.tsv"
    counts.write_text(HEADER % (DIGITS, "") + "low\t3\n", encoding="utf-8")
    err = refused(capsys, "train", "--counts", counts, "-o", tmp_path / "m.json")
    assert err == f"error: {counts}: line 1: a number with more than 4,300 digits (the limit)\n"


def test_a_count_of_5000_digits(capsys, tmp_path):
    counts = tmp_path / "c.tsv"
    counts.write_text(HEADER % (3, "") + f"low\t{DIGITS}\n", encoding="utf-8")
    err = refused(capsys, "train", "--counts", counts, "-o", tmp_path / "m.json")
    assert err == f"error: {counts}: line 2: the count has 5,000 digits; a count has at most 20\n"


def test_a_json_lines_record_with_a_5000_digit_number(capsys, tmp_path):
    records = tmp_path / "r.jsonl"
    records.write_text('{"text": "low lower"}\n' + '{"text": "low", "n": %s}\n' % DIGITS, encoding="utf-8")
    err = refused(capsys, "count", records, "-o", tmp_path / "c.tsv")
    assert err == f"error: {records}: line 2: a number with more than 4,300 digits (the limit)\n"


def test_a_tokenizer_file_with_a_5000_digit_number(capsys, tmp_path):
    path = tmp_path / "big.json"
    path.write_text('{"format": "bpe-explorer", "version": %s}' % DIGITS, encoding="utf-8")
    err = refused(capsys, "encode", path, "low")
    assert err == "error: big.json: a number with more than 4,300 digits (the limit)\n"


# ---- JSON nested deeply ----------------------------------------------------------------------------


@pytest.mark.parametrize("nesting", [DEEP, "[" * 101 + "]" * 101], ids=["100000", "101"])
def test_deeply_nested_json_in_a_counts_header(capsys, tmp_path, nesting):
    counts = tmp_path / "c.tsv"
    counts.write_text(HEADER % (3, ', "x": ' + nesting) + "low\t3\n", encoding="utf-8")
    err = refused(capsys, "train", "--counts", counts, "-o", tmp_path / "m.json")
    assert err == f"error: {counts}: line 1: JSON nested too deeply {TOO_DEEP}\n"


def test_deeply_nested_json_lines_and_the_depth_allowed(capsys, tmp_path):
    records = tmp_path / "r.jsonl"
    allowed = '{"text": "low low", "x": %s}\n' % ("[" * 99 + "]" * 99)  # 100 levels with the record
    records.write_text(allowed + '{"text": "low", "x": %s}\n' % DEEP, encoding="utf-8")
    err = refused(capsys, "train", records, "-o", tmp_path / "m.json")
    assert err == f"error: {records}: line 2: JSON nested too deeply {TOO_DEEP}\n"
    records.write_text(allowed, encoding="utf-8")
    assert run(capsys, "count", records, "-o", tmp_path / "c.tsv")[0] == 0


def test_a_deeply_nested_tokenizer_file(capsys, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "bpe-explorer", "x": %s}' % DEEP, encoding="utf-8")
    assert refused(capsys, "encode", path, "low") == f"error: deep.json: JSON nested too deeply {TOO_DEEP}\n"


# ---- byte limits: --max-bytes, decompression bombs -------------------------------------------------


def test_max_bytes_refuses_a_larger_file_before_reading_it(capsys, tmp_path, model):
    size = LESSON.stat().st_size
    for argv in (["count", LESSON, "-o", tmp_path / "c.tsv"], ["stats", model, LESSON],
                 ["stability", LESSON], ["train", LESSON, "--model", "unigram", "--vocab-size", "30", "-o",
                                         tmp_path / "u.json"]):
        err = refused(capsys, *argv, "--max-bytes", "100")
        assert err == f"error: {LESSON} has {size:,} bytes, over 100 (--max-bytes)\n"
    assert run(capsys, "stats", model, LESSON, "--max-bytes", str(size))[0] == 0


def test_max_bytes_cuts_stdin_off(capsys, tmp_path, model, monkeypatch):
    for argv in (["stats", model, "-"], ["count", "-", "-o", tmp_path / "c.tsv"]):
        reader, writer = os.pipe()
        os.write(writer, b"low lower " * 200)  # 2,000 bytes
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": pipe})())
            assert refused(capsys, *argv, "--max-bytes", "1KB") == "error: stdin is over 1,000 bytes (--max-bytes)\n"


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_a_decompression_bomb_stops_at_max_bytes(capsys, tmp_path, kind):
    data = b"low lower " * 400_000  # 4 MB that compress to a few kilobytes
    bomb = tmp_path / f"bomb.txt.{kind}"
    if kind == "gz":
        bomb.write_bytes(gzip.compress(data))
    else:
        bomb.write_bytes(require("zstandard").ZstdCompressor(level=19).compress(data))
    assert bomb.stat().st_size < 100_000
    err = refused(capsys, "count", bomb, "--max-bytes", "1MB", "-o", tmp_path / "c.tsv")
    assert err == f"error: {bomb} is over 1,000,000 bytes once decompressed (--max-bytes)\n"


def test_max_bytes_takes_a_size_and_is_refused_with_counts(capsys, tmp_path):
    assert refused(capsys, "count", LESSON, "--max-bytes", "0", "-o", tmp_path / "c.tsv") == (
        "error: --max-bytes must be at least 1 byte, not '0'\n")
    assert run(capsys, "count", LESSON, "--max-bytes", "1MiB", "-o", tmp_path / "c.tsv")[0] == 0
    err = refused(capsys, "train", "--counts", tmp_path / "c.tsv", "--max-bytes", "1MB", "-o", tmp_path / "m.json")
    assert err == f"error: --max-bytes applies to counting; {tmp_path / 'c.tsv'} is already counted (see its header)\n"


# ---- --workers, --partition-size ---------------------------------------------------------------------


def test_workers_are_bounded(capsys, tmp_path):
    err = refused(capsys, "count", LESSON, "--workers", "100000", "-o", tmp_path / "c.tsv")
    assert err == (f"error: --workers must be at most {max_workers()} (4 per core of this machine's "
                   f"{default_workers()}, 256 at most), not 100000\n")
    assert max_workers() == min(256, 4 * default_workers())


@pytest.mark.parametrize("size", ["99999999999999999999", "9" * 400, "2000TB"])
def test_a_partition_size_past_a_pebibyte(capsys, tmp_path, size):
    shown = repr(size) if len(size) <= 40 else repr(size[:40]) + f"... ({len(size):,} characters)"
    err = refused(capsys, "count", LESSON, "--partition-size", size, "-o", tmp_path / "c.tsv")
    assert err == f"error: --partition-size must be at most 1PiB (1,125,899,906,842,624 bytes), not {shown}\n"


def test_a_partition_size_that_would_make_too_many_partitions(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_CUT_PARTITIONS", 10)
    err = refused(capsys, "count", LESSON, "--partition-size", "5", "-o", tmp_path / "c.tsv")
    assert err == (f"error: {LESSON}: partitions of 5 bytes cut the sources into more than 10 partitions; "
                   "choose a larger partition size\n")


# ---- Unigram and one huge word ---------------------------------------------------------------------


def test_unigram_trains_a_megabyte_without_a_space_as_runs_of_its_characters(capsys, tmp_path):
    """One 1,000,000-character word (no space, no line break) is trained on as runs of
    MAX_TRAINING_WORD characters, at once and in one line of summary, not EM over one huge lattice."""
    one_word = tmp_path / "word.txt"
    one_word.write_text("y" * 1_000_000, encoding="utf-8")
    model = tmp_path / "u.json"
    status, out, err = run(capsys, "train", one_word, "--model", "unigram", "--vocab-size", "10", "-o", model)
    assert (status, out) == (0, "") and err.startswith("trained Unigram: "), err
    runs = -(-1_000_001 // MAX_TRAINING_WORD)  # the word is "▁" and the million letters
    assert f" on {runs:,} words (3 distinct); " in err  # "▁y…y", "y…y" and the last, shorter run
    assert load_model(model).encode_tokens("yyy") != ["<unk>"]


# ---- FIFOs, devices, loops of links: refused before anything opens them ----------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("low lower\n", encoding="utf-8")
    path = folder / "b.txt"
    os.mkfifo(path)
    yield path


PIPE_HINT = "; to read a pipe, give '-' and pipe it to stdin"
FOLDER_HINT = "; only regular files are read from a directory or a pattern"


def test_fifos_are_refused_unopened(tmp_path, fifo, model):
    name = f"{fifo} is a FIFO (a named pipe), not a regular file"
    cases = [
        (["train", fifo, "-o", "m.json"], name + PIPE_HINT),
        (["count", fifo.parent, "-o", "c.tsv"], name + FOLDER_HINT),
        (["train", fifo.parent / "*.txt", "--model", "superbpe", "--vocab-size", "300", "-o", "m.json"],
         name + FOLDER_HINT),
        (["train", "--counts", fifo, "-o", "m.json"], name),
        (["encode", fifo, "low"], name),
        (["stats", model, fifo], name + PIPE_HINT),
    ]
    for argv, message in cases:
        assert refused_apart(*argv, cwd=tmp_path) == f"error: {message}\n", argv


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_unopened(tmp_path, model):
    message = f"error: /dev/zero is a character device, not a regular file{PIPE_HINT}\n"
    for argv in (["stats", model, "/dev/zero"], ["stability", "/dev/zero"], ["train", "/dev/zero", "-o", "m.json"],
                 ["count", "/dev/zero", "-o", "c.tsv"]):
        assert refused_apart(*argv, cwd=tmp_path) == message, argv
    assert refused_apart("encode", "/dev/zero", "low", cwd=tmp_path) == (
        "error: /dev/zero is a character device, not a regular file\n")


def test_a_loop_of_links_under_double_star_is_refused(tmp_path):
    # Two links back up: glob followed them until the paths were too long, 2^40 of them.
    inner = tmp_path / "corpus" / "inner"
    inner.mkdir(parents=True)
    (inner / "a.txt").write_text("low lower\n", encoding="utf-8")
    (inner / "up").symlink_to("..")
    (inner / "again").symlink_to("..")
    err = refused_apart("count", "corpus/**/*.txt", "-o", "c.tsv", cwd=tmp_path)
    assert err == ("error: corpus/**/*.txt: corpus/inner/again leads back to a folder it is inside of (a loop of "
                   "links); remove the link or name the folders\n")
    # A folder given as such does not follow links to folders: the loop is not walked at all.
    status, _, err = finish(child("count", "corpus", "-o", "c.tsv", cwd=tmp_path))
    assert status == 0 and err.startswith("counted 2 words (2 distinct) from 1 partition"), err


# ---- Ctrl-C while a local Dask cluster starts --------------------------------------------------------


def _a_worker_is_importing(pid: int) -> bool:
    """Whether a multiprocessing worker `pid` spawned (not its resource tracker) has begun loading
    the extension modules of installed packages: it is importing Dask, before its preload runs."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        for worker in (task / "children").read_text().split():
            try:
                spawned = b"spawn_main" in Path(f"/proc/{worker}/cmdline").read_bytes()
                if spawned and "site-packages" in Path(f"/proc/{worker}/maps").read_text():
                    return True
            except OSError:
                continue
    return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc to see the workers start")
def test_ctrl_c_while_the_local_cluster_starts_is_one_line(tmp_path):
    require("distributed")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(4):
        (corpus / f"{n}.txt").write_text("low lower newest widest\n" * 200, encoding="utf-8")
    process = child("count", corpus, "--partition-size", "1KB", "--workers", "2", "-o", "c.tsv", cwd=tmp_path,
                    memory=False)
    deadline = time.monotonic() + SECONDS
    while not _a_worker_is_importing(process.pid) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert process.poll() is None, "the run ended before any worker started"
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole group, workers still importing
    status, out, err = finish(process)
    assert (status, out, err) == (130, "", "\nerror: interrupted\n")


@pytest.mark.parametrize(("extra", "says"), [
    (["--merges-file", str(LESSON)],
     "cl100k_base is a built-in tokenizer: it takes no merges file (that goes with a GPT-2 vocab.json)"),
    (["--pattern", r"\w+"],
     "cl100k_base is a built-in tokenizer with its own split pattern: a pattern is for a .tiktoken file, which "
     "holds none"),
])
def test_a_builtins_name_with_a_files_option_is_one_line_not_ignored(capsys, extra, says):
    """Before: a merges file made 'cl100k_base does not exist'; a pattern was dropped without a word."""
    assert refused(capsys, "encode", "cl100k_base", *extra, "hello world") == f"error: {says}\n"
