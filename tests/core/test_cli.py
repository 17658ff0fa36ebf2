"""The command line, run in-process through `main` and once for real as `python -m bpe_core`."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_core.cli import DEFAULT_MERGES, main
from bpe_core.formats import load_any
from tests.conftest import ROOT

LESSON = ROOT / "sample_corpora" / "seed000_lesson.txt"
MULTILINGUAL = ROOT / "sample_corpora" / "multilingual.txt"
SEED000_TRACE = [
    ("w", "e", 9),
    ("t", "</w>", 9),
    ("s", "t</w>", 9),
    ("n", "e", 9),
    ("w", "</w>", 7),
    ("ne", "we", 7),
    ("l", "o", 7),
    ("newe", "st</w>", 6),
    ("lo", "w</w>", 5),
    ("w", "i", 3),
]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one in-process run."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def seed_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    model = tmp_path / "seed000.json"
    status, out, err = run(capsys, "train", LESSON, "--merges", "10", "-o", model)
    assert status == 0 and out == "" and "trained 10 merges" in err
    return model


def test_seed000_trace_and_encode(capsys, seed_model):
    status, out, _ = run(capsys, "trace", seed_model)
    assert status == 0
    rows = json_lines(out)
    assert [(r["left"], r["right"], r["count"]) for r in rows] == SEED000_TRACE
    assert [r["rank"] for r in rows] == list(range(10))
    assert all(set(r) == {"rank", "left", "right", "token", "count"} for r in rows)
    assert all(r["token"] == r["left"] + r["right"] for r in rows)

    status, out, _ = run(capsys, "encode", seed_model, "lowest", "newer wider")
    assert status == 0
    lowest, other = json_lines(out)
    assert lowest["text"] == "lowest" and lowest["tokens"] == ["lo", "we", "st</w>"]
    assert other["tokens"] == ["newe", "r", "</w>", "wi", "d", "e", "r", "</w>"]

    status, out, _ = run(capsys, "decode", seed_model, *map(str, lowest["ids"] + other["ids"]))
    assert (status, out) == (0, "lowest newer wider\n")


def test_train_defaults_and_stdin(capsys, tmp_path, monkeypatch):
    text = MULTILINGUAL.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text), encoding="utf-8"))
    status, out, err = run(capsys, "train", "-", "-o", tmp_path / "m.json")
    assert status == 0 and out == ""
    data = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert data["settings"]["mode"] == "word" and data["settings"]["eow"] == "separate"
    assert data["settings"]["tie_break"] == "count-pair"
    assert data["training"]["requested_merges"] == DEFAULT_MERGES
    assert f"{len(data['merges'])} merges" in err


def test_train_options_reach_the_settings(capsys, tmp_path):
    model = tmp_path / "m.json"
    argv = ["train", MULTILINGUAL, LESSON, "--mode", "bytes", "--vocab-size", "300", "--tie-break", "first"]
    argv += ["--pretokenizer", "gpt4", "--lowercase", "--normalization", "NFKC", "--min-frequency", "2"]
    argv += ["-o", model]
    status, _, err = run(capsys, *argv)
    assert status == 0, err
    data = json.loads(model.read_text(encoding="utf-8"))
    assert data["settings"] == {
        "mode": "bytes",
        "eow": "separate",
        "pretokenizer": "gpt4",
        "tie_break": "first",
        "lowercase": True,
        "normalization": "NFKC",
        "min_frequency": 2,
    }
    assert len(data["base"]) + len(data["merges"]) == 300


def test_early_stop_says_why_on_stderr(capsys, tmp_path):
    status, out, err = run(capsys, "train", LESSON, "--merges", "500", "-o", tmp_path / "m.json")
    assert status == 0 and out == ""
    assert "stopped after 18 of 500 merges: no pair is left to merge" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_and_nothing_on_stdout(capsys, tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["train", str(MULTILINGUAL), "--merges", "250", "-o", str(tmp_path / "m.json")]) == 0
    assert capsys.readouterr().out == ""
    shown = terminal.getvalue()
    # tqdm's bars (counting, then training), each ending on its final state.
    assert "\rcounting:" in shown and "1/1 partitions" in shown
    assert "\rtraining:" in shown and "250/250" in shown
    assert shown.splitlines()[-1].startswith("trained 250 merges")


def test_export_and_use_hf_and_gpt2_files(capsys, tmp_path):
    model = tmp_path / "bytes.json"
    assert run(capsys, "train", MULTILINGUAL, "--mode", "bytes", "--merges", "200", "-o", model)[0] == 0
    texts = ["Le marché ouvre tôt", "今天早上 😀"]
    expected = json_lines(run(capsys, "encode", model, *texts)[1])
    status, out, err = run(capsys, "export", model, "--format", "hf", "-o", tmp_path / "tokenizer.json")
    assert (status, out) == (0, "") and "tokenizer.json" in err
    status, out, err = run(capsys, "export", model, "--format", "gpt2", "-o", tmp_path / "gpt2")
    assert (status, out) == (0, "") and (tmp_path / "gpt2" / "merges.txt").is_file()
    for tokenizer in (tmp_path / "tokenizer.json", tmp_path / "gpt2", tmp_path / "gpt2" / "vocab.json"):
        assert json_lines(run(capsys, "encode", tokenizer, *texts)[1]) == expected
    status, out, _ = run(capsys, "trace", tmp_path / "tokenizer.json")
    assert status == 0 and json_lines(out)[0]["count"] is None


def error_of(capsys, *argv) -> str:
    """The single stderr line of a run that must fail with status 2."""
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert out == "" and "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: ")
    return err


def test_bad_input_exits_2_with_one_line(capsys, tmp_path, seed_model):
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café".encode("latin-1"))
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text(seed_model.read_text(encoding="utf-8")[:200], encoding="utf-8")
    out = tmp_path / "out.json"
    cases = {
        "missing.txt: no such file": ["train", tmp_path / "missing.txt", "-o", out],
        "binary file": ["train", binary, "-o", out],
        "not UTF-8": ["train", latin1, "-o", out],
        "corpus is empty": ["train", empty, "-o", out],
        "--merges must be a whole number, 0 or more, not -3": ["train", LESSON, "--merges", "-3", "-o", out],
        "at most 1,000,000 merges can be trained; 2,000,000 were asked for": [
            "train", LESSON, "--merges", "2000000", "-o", out],
        "--vocab-size must be a whole number of 1 or more, not 0": ["train", LESSON, "--vocab-size", "0", "-o", out],
        "--min-frequency must be at least 1": ["train", LESSON, "--min-frequency", "0", "-o", out],
        "--max-token-length must be 0 (no limit) or more, not -1": [
            "train", LESSON, "--max-token-length", "-1", "-o", out],
        "word mode always splits on whitespace": ["train", LESSON, "--pretokenizer", "gpt2", "-o", out],
        "invalid int value": ["train", LESSON, "--merges", "ten", "-o", out],
        "not allowed with argument": ["train", LESSON, "--merges", "3", "--vocab-size", "9", "-o", out],
        "invalid choice": ["train", LESSON, "--mode", "letters", "-o", out],
        "required: -o": ["train", LESSON],
        "cannot write": ["train", LESSON, "--merges", "2", "-o", tmp_path / "no" / "dir" / "m.json"],
        "broken.json is not valid JSON": ["encode", broken, "low"],
        "image.png looks like a binary file (it contains NUL bytes), not a tokenizer": ["decode", binary, "1"],
        "token id 999 is not in": ["decode", seed_model, "999"],
        "GPT-2 files are byte-level": ["export", seed_model, "--format", "gpt2", "-o", tmp_path / "g"],
        "argument --format: invalid choice": ["export", seed_model, "--format", "sentencepiece", "-o", out],
    }
    for message, argv in cases.items():
        assert message in error_of(capsys, *argv), message
    assert not out.exists()


def test_help_exits_0(capsys):
    status, out, _ = run(capsys, "train", "--help")
    assert status == 0 and f"{DEFAULT_MERGES} merges" in out


def test_python_dash_m_entry_point(tmp_path):
    model = tmp_path / "m.json"
    command = [sys.executable, "-m", "bpe_core"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    trained = subprocess.run(
        [*command, "train", "-", "--merges", "10", "-o", str(model)],
        input=LESSON.read_bytes(),
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert trained.returncode == 0, trained.stderr
    assert trained.stdout == b"" and b"trained 10 merges" in trained.stderr
    encoded = subprocess.run(
        [*command, "encode", str(model), "lowest", "naïve"],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert encoded.returncode == 0, encoded.stderr
    rows = [json.loads(line) for line in encoded.stdout.decode("utf-8").splitlines()]
    assert rows[0]["tokens"] == ["lo", "we", "st</w>"] and rows[1]["text"] == "naïve"
    failed = subprocess.run(
        [*command, "trace", str(tmp_path / "missing.json")],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert failed.returncode == 2 and failed.stdout == b""
    assert failed.stderr.decode().splitlines() == [f"error: {tmp_path / 'missing.json'} does not exist"]


def test_a_vocabulary_below_the_alphabet_is_refused_as_the_app_refuses_it(capsys, tmp_path):
    out = tmp_path / "m.json"
    err = error_of(capsys, "train", LESSON, "--vocab-size", "5", "-o", out)
    assert err == (
        "error: a vocabulary of 5 is smaller than this corpus's alphabet (11 base symbols), "
        "so no merge could be learned; ask for at least 12.\n"
    )
    assert not out.exists()
    status, _, err = run(capsys, "train", LESSON, "--vocab-size", "11", "-o", out)
    assert status == 0 and "trained 0 merges" in err  # the alphabet itself: allowed, nothing to learn


def test_a_nul_byte_anywhere_marks_a_corpus_as_binary(capsys, tmp_path):
    corpus = tmp_path / "late-nul.txt"
    corpus.write_bytes(b"plain words " * 6000 + b"\x00" + b" more words")  # the NUL at byte 72,000
    assert corpus.read_bytes().index(b"\x00") > 65536
    err = error_of(capsys, "train", corpus, "-o", tmp_path / "m.json")
    nul = "it contains NUL bytes, the first at offset 72000"
    assert err == f"error: {corpus} looks like a binary file ({nul}), not text\n"
    assert not (tmp_path / "m.json").exists()


def test_gpt2_files_under_any_names_with_merges_file(capsys, tmp_path):
    model = tmp_path / "bytes.json"
    assert run(capsys, "train", MULTILINGUAL, "--mode", "bytes", "--merges", "100", "-o", model)[0] == 0
    expected = json_lines(run(capsys, "encode", model, "Le marché")[1])
    assert run(capsys, "export", model, "--format", "gpt2", "-o", tmp_path / "out")[0] == 0
    (tmp_path / "out" / "vocab.json").rename(tmp_path / "encoder.json")
    (tmp_path / "out" / "merges.txt").rename(tmp_path / "rules")
    err = error_of(capsys, "encode", tmp_path / "encoder.json", "Le marché")
    assert "encoder.json is a GPT-2 vocabulary, but no merges file (merges.txt or vocab.bpe) is beside it" in err
    status, out, _ = run(capsys, "encode", tmp_path / "encoder.json", "Le marché", "--merges-file", tmp_path / "rules")
    assert status == 0 and json_lines(out) == expected
    (tmp_path / "rules").rename(tmp_path / "vocab.bpe")  # GPT-2's own name for it: found beside
    for tokenizer in (tmp_path / "encoder.json", tmp_path / "vocab.bpe"):
        status, out, _ = run(capsys, "encode", tokenizer, "Le marché")
        assert status == 0 and json_lines(out) == expected


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"Permission is hereby granted, free of charge\n", "licence.txt is plain text, not a tokenizer file"),
        (b"\x7fELF\x02\x01\x01\x00\x00", "licence.txt looks like a binary file (it contains NUL bytes), not a"),
        (b"#version: 0.2\nh e\n", "licence.txt is a GPT-2 merges file, but no vocabulary (vocab.json or encoder.json)"),
    ],
)
def test_a_txt_given_as_tokenizer_is_named_for_what_it_is(capsys, tmp_path, content, message):
    path = tmp_path / "licence.txt"
    path.write_bytes(content)
    assert message in error_of(capsys, "encode", path, "hello")


def test_max_token_length_bounds_every_token_and_says_why_training_stopped(tmp_path):
    corpus = tmp_path / "repeat.txt"
    corpus.write_text("abcabcabcabc abcabcabcabc\n", encoding="utf-8")
    out = tmp_path / "m.json"
    code = main(["train", str(corpus), "--mode", "text", "--merges", "50", "--max-token-length", "4", "-o", str(out)])
    assert code == 0
    tok = load_any(out)
    assert max(len(m.token) for m in tok.trace) == 4
    assert len(tok.trace) == 4
    assert tok.training.stop_reason.startswith("every pair left would make a token longer than 4 characters")
    unlimited = tmp_path / "u.json"
    assert main(["train", str(corpus), "--mode", "text", "--merges", "50", "--max-token-length", "0",
                 "-o", str(unlimited)]) == 0
    assert max(len(m.token) for m in load_any(unlimited).trace) > 4
