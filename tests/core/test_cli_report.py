"""`python -m bpe_core report`: one JSON line per tokenizer and text, and one-line errors."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_core.analysis.language_tax import language_stats
from bpe_core.formats.detect import load_model
from bpe_core.report import MEASURES, fairness, report_card, values
from sample_corpora import load_parallel
from tests.conftest import ROOT
from tests.core.test_cli import json_lines, run


@pytest.fixture(scope="module")
def languages(tmp_path_factory) -> Path:
    """The sample set's fifteen languages written by `python -m sample_corpora parallel DIR`, for real."""
    folder = tmp_path_factory.mktemp("parallel")
    done = subprocess.run([sys.executable, "-m", "sample_corpora", "parallel", str(folder)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "" and done.stderr.startswith("wrote 15 languages"), done.stderr
    assert {p.read_text(encoding="utf-8") for p in folder.glob("*.txt")} == set(load_parallel().values())
    return folder


def test_report_lines_hold_every_measure_the_checks_and_the_languages(capsys, tmp_path, languages):
    corpus = tmp_path / "prose.txt"
    text = "The cat sat on the mat in 2024.\nIt sat again, 31415926 times.\n"
    corpus.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "report", "gpt2", "cl100k_base", "--corpus", corpus, "--parallel", languages)
    assert status == 0, err
    rows = json_lines(out)
    assert [(r["tokenizer"], r["corpus"]) for r in rows] == [("gpt2", str(corpus)), ("cl100k_base", str(corpus))]
    for row in rows:
        tok = load_model(row["tokenizer"])
        assert row["measures"] == values(report_card(tok, text, parallel=None)) | {
            "highest_premium": row["measures"]["highest_premium"], "gini": row["measures"]["gini"]}
        assert list(row["measures"]) == [m.key for m in MEASURES]
        assert row["tokens"] == len(tok.encode_ids(text)) and row["vocabulary_size"] == len(tok.vocab)
        assert {c["status"] for c in row["checks"]} <= {"pass", "warn", "fail", "not checked"}
        found = row["languages"]
        assert found["en"]["premium"] == 1.0 and len(found) == 15
        stats = language_stats(tok, load_parallel())
        assert {code: one["tokens"] for code, one in found.items()} == {code: s.tokens for code, s in stats.items()}
        assert row["measures"]["gini"] == pytest.approx(fairness(stats).gini, rel=1e-12)  # files in name order
    assert rows[1]["digits"]["rule"] == "left to right, 3 at a time"
    assert rows[1]["digits"]["groups"]["3141592653"] == ["314", "159", "265", "3"]


def test_without_a_parallel_set_there_are_no_languages_and_no_fairness(capsys, tmp_path):
    corpus = tmp_path / "a.txt"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    status, out, err = run(capsys, "report", "gpt2", "--corpus", corpus, "--alpha", "3",
                           "--min-made", "1", "--residue-share", "0.5")
    assert status == 0, err
    (row,) = json_lines(out)
    assert "languages" not in row and row["measures"]["gini"] is None and row["alpha"] == 3.0
    assert row["residue"]["min_made"] == 1 and row["residue"]["threshold"] == 0.5


@pytest.mark.parametrize(("extra", "message"), [
    (["--alpha", "-1"], "--alpha is between 0 and 100"),
    (["--alpha", "nan"], "--alpha is between 0 and 100"),
    (["--residue-share", "0"], "--residue-share is above 0"),
    (["--min-made", "0"], "--min-made is between 1"),
    (["--max-bytes", "3"], "over --max-bytes 3"),
])
def test_bad_options_are_one_line(capsys, tmp_path, extra, message):
    corpus = tmp_path / "a.txt"
    corpus.write_text("some text\n", encoding="utf-8")
    status, out, err = run(capsys, "report", "gpt2", "--corpus", corpus, *extra)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_special_files_and_missing_files_are_refused(capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path, message in ((fifo, "not a regular file"), (tmp_path, "is a directory"),
                          (tmp_path / "missing.txt", "does not exist"), ("/dev/zero", "not a regular file")):
        status, out, err = run(capsys, "report", "gpt2", "--corpus", path)
        assert status == 2 and out == "" and message in err and err.count("\n") == 1


def test_a_parallel_set_is_a_folder_with_english_in_it(capsys, tmp_path, languages):
    status, out, err = run(capsys, "report", "gpt2", "--parallel", languages)
    (row,) = json_lines(out)
    assert status == 0 and row["corpus"] == "parallel set" and list(row["languages"])[0] == "en"
    assert row["bytes"] == len("\n".join(load_parallel().values()).encode("utf-8"))
    (tmp_path / "fr.txt").write_text("bonjour", encoding="utf-8")
    for argv, message in ((["--parallel", tmp_path], "has no en.txt"),
                          (["--parallel", tmp_path / "fr.txt"], "is not a directory"),
                          ([], "give reference texts with --corpus FILE")):
        status, out, err = run(capsys, "report", "gpt2", *argv)
        assert status == 2 and out == "" and message in err and err.count("\n") == 1
