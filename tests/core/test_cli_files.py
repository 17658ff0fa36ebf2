"""`encode --file` and `decode --file`: files read as `stats` reads its FILEs ('-' is standard
input), with one-line errors for a missing file, a directory or bytes that are not UTF-8 text."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_core.formats.detect import load_model
from tests.conftest import ROOT
from tests.core.test_cli import json_lines, run
from tests.core.test_cli_stdin import stdin

NOTES = "Notes on the river.\nThe miller's wheel turned; naïve café, 東京 😀\n"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_bytes(NOTES.encode("utf-8"))
    return path


def one_line_error(result: tuple[int, str, str]) -> str:
    status, out, err = result
    assert (status, out) == (2, ""), err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_encode_file_encodes_the_files_utf8_text(capsys, notes):
    status, out, err = run(capsys, "encode", "o200k_base", "--file", notes)
    assert (status, err) == (0, "")
    tok = load_model("o200k_base")
    assert json_lines(out) == [{"file": str(notes), "text": NOTES, "tokens": tok.encode(NOTES).tokens,
                                "ids": tok.encode_ids(NOTES)}]


def test_encode_file_takes_several_files_and_stdin_in_order_with_offsets(capsys, monkeypatch, notes):
    other = notes.parent / "other.txt"
    other.write_text("second file", encoding="utf-8")
    stdin(monkeypatch, "piped in\n")
    status, out, err = run(capsys, "encode", "gpt2", other, "-", notes, "--file", "--offsets")
    assert (status, err) == (0, "")
    rows = json_lines(out)
    assert [(r["file"], r["text"]) for r in rows] == [(str(other), "second file"), ("-", "piped in\n"),
                                                      (str(notes), NOTES)]
    assert all(len(r["offsets"]) == len(r["tokens"]) == len(r["ids"]) for r in rows)


def test_without_file_a_path_is_a_text_and_dash_still_reads_stdin(capsys, monkeypatch, notes):
    stdin(monkeypatch, NOTES)
    status, out, err = run(capsys, "encode", "gpt2", notes, "-")
    assert (status, err) == (0, "")
    assert [(r["text"], "file" in r) for r in json_lines(out)] == [(str(notes), False), (NOTES, False)]


@pytest.mark.parametrize(("name", "data", "message"), [
    ("missing.txt", None, "missing.txt does not exist"),
    ("folder", "dir", "folder is a directory, not a text file"),
    ("latin1.txt", "café".encode("latin-1"), "latin1.txt is not UTF-8 text (invalid byte 0xe9 at offset 3)"),
    ("binary.bin", b"\x00\x01\x02", "binary.bin looks like a binary file"),
])
@pytest.mark.parametrize("command", ["encode", "decode"])
def test_a_file_that_cannot_be_read_as_text_is_one_line(capsys, tmp_path, notes, name, data, message, command):
    path = tmp_path / name
    if data == "dir":
        path.mkdir()
    elif data is not None:
        path.write_bytes(data)
    good = notes if command == "encode" else tmp_path / "ids.txt"
    good.write_text(NOTES if command == "encode" else "15496 995", encoding="utf-8")
    # Every file is read first: the good one before it prints nothing.
    err = one_line_error(run(capsys, command, "gpt2", "--file", good, path))
    assert message in err


def test_encode_file_refuses_a_file_over_max_bytes(capsys, notes):
    err = one_line_error(run(capsys, "encode", "gpt2", "--file", notes, "--max-bytes", "10"))
    assert f"{notes} has {len(NOTES.encode('utf-8'))} bytes, over 10 (--max-bytes)" in err


def test_the_real_command_line_reads_a_file_and_names_a_missing_one(tmp_path, notes):
    command = [sys.executable, "-m", "bpe_core", "encode", "o200k_base", "--file"]
    done = subprocess.run([*command, notes], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ids"] == load_model("o200k_base").encode_ids(NOTES)
    missing = subprocess.run([*command, tmp_path / "nope.txt"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == f"error: {tmp_path / 'nope.txt'} does not exist\n"


def test_decode_file_reads_encodes_lines_back_to_each_text(capsys, notes):
    encoded = notes.parent / "encoded.jsonl"
    status, out, _ = run(capsys, "encode", "gpt2", "--file", notes, notes)
    encoded.write_text(out, encoding="utf-8")
    ids = notes.parent / "ids.txt"
    ids.write_text("15496, 995\n", encoding="utf-8")
    status, out, err = run(capsys, "decode", "gpt2", "--file", encoded, ids)
    assert (status, err) == (0, "")
    assert out == f"{NOTES}\n{NOTES}\nHello world\n"


def test_decode_file_names_the_file_in_its_errors(capsys, tmp_path):
    path = tmp_path / "ids.jsonl"
    path.write_text('{"ids": [1]\n', encoding="utf-8")
    err = one_line_error(run(capsys, "decode", "gpt2", "--file", path))
    assert f"{path}: line 1 is not JSON" in err
