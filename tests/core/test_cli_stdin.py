"""`encode -` and `decode -`: text and ids piped in, as people pipe them (and `encode | decode`)."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from bpe_core.formats.detect import load_model
from tests.conftest import ROOT
from tests.core.test_cli import json_lines, run


def stdin(monkeypatch: pytest.MonkeyPatch, data: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode("utf-8")), encoding="utf-8"))


def test_encode_dash_reads_standard_input_as_one_text(capsys, monkeypatch):
    stdin(monkeypatch, "hello world\nand more\n")
    status, out, err = run(capsys, "encode", "o200k_base", "before", "-")
    assert status == 0, err
    rows = json_lines(out)
    assert [r["text"] for r in rows] == ["before", "hello world\nand more\n"]
    assert rows[1]["ids"] == load_model("o200k_base").encode_ids("hello world\nand more\n")


@pytest.mark.parametrize("piped", ["15496, 995", "15496 995\n", "[15496, 995]", '{"ids": [15496, 995]}\n'])
def test_decode_dash_reads_ids_in_every_form(capsys, monkeypatch, piped):
    stdin(monkeypatch, piped)
    status, out, err = run(capsys, "decode", "gpt2", "-")
    assert (status, out, err) == (0, "Hello world\n", "")


def test_encode_piped_into_decode_gives_each_text_back(tmp_path):
    texts = ["naïve café, 12345", "second line"]
    encode = subprocess.run([sys.executable, "-m", "bpe_core", "encode", "gpt2", *texts], cwd=ROOT,
                            capture_output=True, check=True, timeout=120)
    decode = subprocess.run([sys.executable, "-m", "bpe_core", "decode", "gpt2", "-"], cwd=ROOT,
                            input=encode.stdout, capture_output=True, timeout=120)
    assert decode.returncode == 0, decode.stderr
    assert decode.stdout.decode("utf-8") == "".join(t + "\n" for t in texts)


@pytest.mark.parametrize(("argv", "piped", "message"), [
    (["decode", "gpt2", "-"], "1 x", "stdin: a token id is a whole number, not 'x'"),
    (["decode", "gpt2", "-"], '{"ids": [1, 2.5]}', "stdin: line 1: a token id is a whole number, not 2.5"),
    (["decode", "gpt2", "-"], '{"ids": [1]', "stdin: line 1 is not JSON"),
    (["decode", "gpt2", "-"], '{"tokens": []}', 'expected a list of ids or an object with "ids"'),
    (["decode", "gpt2", "1", "-"], "", "'-' reads every id from standard input: give it alone"),
    (["decode", "gpt2", "1", "abc"], "", "ID 2: a token id is a whole number, not 'abc'"),
    (["decode", "gpt2", "9" * 30], "", "ID 1: a token id is a whole number"),
    (["encode", "gpt2", "-", "-"], "x", "'-' (standard input) can be given once"),
    (["encode", "gpt2", "-"], "\x00\x01binary", "stdin"),
])
def test_bad_input_is_one_line(capsys, monkeypatch, argv, piped, message):
    stdin(monkeypatch, piped)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert message in err
