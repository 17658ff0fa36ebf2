"""load_any and load_bytes: detecting the format by structure, broken files in one line, uploads from memory."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_core import BPEError, Tokenizer, train
from bpe_core.formats import (
    detect_format,
    dumps_gpt2,
    dumps_hf,
    dumps_tokenizer,
    load_any,
    load_bytes,
    save_gpt2,
    save_hf,
    save_tokenizer,
)
from tests.conftest import SEED000
from tests.core.formats_common import assert_same_encodings, trained_by_mode, write_tiktoken


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    return trained_by_mode()


# ---- load_any: detection and broken files ---------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"   \n\n", "only whitespace"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"caf\xe9 au lait", "not UTF-8"),
        (b"{\"format\": \"bpe-explorer\", \"version\": 1, \"merges\": [", "not valid JSON"),
        (b"{\"a\": 1,}", "not valid JSON .* line 1, column 9"),
        (b"[1, 2, 3]", "JSON but not a tokenizer"),
        (b"{}", "JSON but not a tokenizer"),
        (b"{\"hello\": \"world\"}", "JSON but not a tokenizer"),
        (b"{\"format\": \"sentencepiece\"}", "not a bpe-explorer model file"),
        (b"just some words\n", "broken.json is plain text, not a tokenizer file"),
        (b"#version: 0.2\na b\n", "broken.json is a GPT-2 merges file, but no vocabulary"),
        (b"IQ== 0\nIg== one\n", "line 2"),
        (b"IQ== 0\n", "lacks 255 of the 256 single-byte tokens"),
        (b"[" * 100_000, "nested too deeply|not valid JSON"),
    ],
)
def test_load_any_rejects_broken_files_in_one_line(tmp_path, content, message):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(BPEError, match=message) as caught:
        load_any(path)
    assert "\n" not in str(caught.value)


def test_load_any_rejects_a_truncated_model(tmp_path):
    save_tokenizer(train(SEED000, merges=10), tmp_path / "model.json")
    whole = (tmp_path / "model.json").read_bytes()
    (tmp_path / "cut.json").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(BPEError, match="cut.json is not valid JSON"):
        load_any(tmp_path / "cut.json")


def test_load_any_reports_missing_paths_and_bare_directories(tmp_path):
    with pytest.raises(BPEError, match="does not exist"):
        load_any(tmp_path / "nowhere.json")
    with pytest.raises(BPEError, match="without tokenizer.json, vocab.json or encoder.json"):
        load_any(tmp_path)


def test_load_any_detects_every_format(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    save_tokenizer(tok, tmp_path / "ours.json")
    save_hf(tok, tmp_path / "hf.json")
    vocab_path, _ = save_gpt2(tok, tmp_path / "gpt2")
    write_tiktoken(tok, tmp_path / "ranks.tiktoken")
    (tmp_path / "ranks.txt").write_bytes((tmp_path / "ranks.tiktoken").read_bytes())
    paths = [tmp_path / "ours.json", tmp_path / "hf.json", vocab_path, tmp_path / "ranks.tiktoken"]
    sources = {path.name: load_any(path).source for path in [*paths, tmp_path / "ranks.txt"]}
    assert sources == {
        "ours.json": "trained",
        "hf.json": "huggingface",
        "vocab.json": "gpt2",
        "ranks.tiktoken": "tiktoken",
        "ranks.txt": "tiktoken",
    }


# ---- detection by structure, not by key names ---------------------------------------------


def gpt2_export_with_tokens_named_like_keys(tok: Tokenizer, directory: Path) -> Path:
    """A GPT-2 export whose vocabulary also holds tokens spelt "format", "model" and "version"."""
    vocab_path, _ = save_gpt2(tok, directory)
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    next_id = max(vocab.values()) + 1
    for offset, token in enumerate(("format", "model", "version")):
        vocab.setdefault(token, next_id + offset)
    vocab_path.write_text(json.dumps(vocab), encoding="utf-8")
    return vocab_path


def test_a_gpt2_vocabulary_with_tokens_named_format_and_model_is_still_a_vocabulary(trained, tmp_path):
    vocab_path = gpt2_export_with_tokens_named_like_keys(trained["bytes-gpt2"], tmp_path)
    assert detect_format("vocab.json", vocab_path.read_bytes()) == "gpt2-vocab"
    loaded = load_any(vocab_path)
    assert loaded.source == "gpt2" and loaded.vocab["format"] == len(trained["bytes-gpt2"].vocab)
    assert_same_encodings(trained["bytes-gpt2"], loaded)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b'{"format": "bpe-explorer", "version": 1}', "bpe-explorer"),
        (b'{"format": "sentencepiece"}', "bpe-explorer"),  # our reader names the foreign format
        (b'{"model": {"type": "BPE"}}', "huggingface"),
        (b'{"model": "BPE", "pre_tokenizer": null}', "huggingface"),
        (b'{"format": 3, "model": 4, "version": 5}', "gpt2-vocab"),
        (b"#version: 0.2\n\xc4\xa0 t\nh e\n", "gpt2-merges"),
        (b"h e\r\nhe llo\r\n", "gpt2-merges"),
        (b"IQ== 0\nIg== 1\n", "tiktoken"),
        (b"IQ== -1\n", "tiktoken"),  # detected, then refused by the reader with the line
    ],
)
def test_detect_format_judges_the_whole_structure(data, kind):
    assert detect_format("upload.txt", data) == kind


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"Permission is hereby granted, free of charge,\nto any person obtaining a copy\n", "plain text, not a"),
        (b"#version: 0.2\nthree words here\n", "plain text, not a tokenizer"),
        (b"#version: 0.2\n", "plain text, not a tokenizer"),
        (b"a  b\n", "plain text, not a tokenizer"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "upload.txt looks like a binary file .* not a tokenizer"),
        (b"\xff\xd8\xff\xe0 JFIF", "upload.txt is not UTF-8 text"),
        (b'{"vocab": {"a": 0}}', "JSON but not a tokenizer"),
        (b"[[\"a\", \"b\"]]", "JSON but not a tokenizer"),
    ],
)
def test_a_txt_that_is_no_tokenizer_is_called_what_it_is(data, message):
    with pytest.raises(BPEError, match=message) as caught:
        detect_format("upload.txt", data)
    assert "\n" not in str(caught.value) and "GPT-2 merges" not in str(caught.value)


# ---- load_bytes: tokenizers from memory (uploads) ---------------------------------------------


def test_load_bytes_reads_every_format_without_touching_the_disk(trained, tmp_path, monkeypatch):
    tok = trained["bytes-gpt2"]
    vocab_text, merges_text = dumps_gpt2(tok)
    write_tiktoken(tok, tmp_path / "ranks.tiktoken")
    ranks = (tmp_path / "ranks.tiktoken").read_bytes()
    monkeypatch.setattr(Path, "write_bytes", None)  # nothing may be written to read an upload
    monkeypatch.setattr(Path, "write_text", None)
    long_name = "語" * 100 + ".json"  # longer than a file name may be (255 bytes)
    loaded = {
        "ours": load_bytes(long_name, dumps_tokenizer(tok).encode()),
        "hf": load_bytes(long_name, dumps_hf(tok).encode()),
        "gpt2": load_bytes(long_name, vocab_text.encode(), merges=("語" * 100 + ".txt", merges_text.encode())),
        "swapped": load_bytes("m.txt", merges_text.encode(), merges=("v.json", vocab_text.encode())),
        "tiktoken": load_bytes("ranks.txt", ranks),
    }
    assert {k: t.source for k, t in loaded.items()} == {
        "ours": "trained",
        "hf": "huggingface",
        "gpt2": "gpt2",
        "swapped": "gpt2",
        "tiktoken": "tiktoken",
    }
    for name in ("ours", "hf", "gpt2", "swapped"):
        assert loaded[name].vocab == tok.vocab and loaded[name].merges == tok.merges, name
        assert_same_encodings(tok, loaded[name])


def test_load_bytes_texts_equal_the_files_the_savers_write(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    save_tokenizer(tok, tmp_path / "model.json")
    save_hf(tok, tmp_path / "tokenizer.json")
    save_gpt2(tok, tmp_path / "gpt2")
    assert (tmp_path / "model.json").read_text(encoding="utf-8") == dumps_tokenizer(tok)
    assert (tmp_path / "tokenizer.json").read_text(encoding="utf-8") == dumps_hf(tok)
    written = tuple((tmp_path / "gpt2" / n).read_text(encoding="utf-8") for n in ("vocab.json", "merges.txt"))
    assert written == dumps_gpt2(tok)


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        (None, r"vocab.json is a GPT-2 vocabulary; it needs its merges file \(merges.txt or vocab.bpe\) too"),
        (("notes.txt", b"some plain prose here\n"), "notes.txt is plain text, not a tokenizer file"),
        (("model.json", b'{"format": "bpe-explorer"}'), "model.json is our model JSON, not the merges file"),
        (("merges.txt", b"#version: 0.2\nzz qq\n"), r"merges.txt: merge 0 \('zz', 'qq'\) needs 'zz', which is not in"),
    ],
)
def test_load_bytes_pairs_a_gpt2_vocabulary_with_its_merges_or_says_why_not(trained, merges, message):
    vocab_text, _ = dumps_gpt2(trained["bytes-gpt2"])
    with pytest.raises(BPEError, match=message) as caught:
        load_bytes("vocab.json", vocab_text.encode(), merges=merges)
    assert "\n" not in str(caught.value)


def test_load_bytes_needs_a_vocabulary_for_merges_and_a_vocabulary_to_pair(trained):
    _, merges_text = dumps_gpt2(trained["bytes-gpt2"])
    alone = r"merges.txt is a GPT-2 merges file; it needs its vocabulary \(vocab.json or encoder.json\) too"
    with pytest.raises(BPEError, match=alone):
        load_bytes("merges.txt", merges_text.encode())
    hf_text = dumps_hf(trained["bytes-gpt2"]).encode()
    with pytest.raises(BPEError, match="merges.txt was given as a merges file, but tokenizer.json is a Hugging Face"):
        load_bytes("tokenizer.json", hf_text, merges=("merges.txt", merges_text.encode()))


def test_gpt2_pairs_are_found_by_either_naming(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    vocab_text, merges_text = dumps_gpt2(tok)
    layouts = {
        "gpt2": ("encoder.json", "vocab.bpe"),
        "hf": ("vocab.json", "merges.txt"),
        "prefixed": ("tiny-vocab.json", "tiny-merges.txt"),
    }
    for folder, (vocab_name, merges_name) in layouts.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / vocab_name).write_text(vocab_text, encoding="utf-8")
        (tmp_path / folder / merges_name).write_text(merges_text, encoding="utf-8")
        for path in (tmp_path / folder / vocab_name, tmp_path / folder / merges_name):
            assert load_any(path).merges == tok.merges, path
    assert load_any(tmp_path / "gpt2").vocab == tok.vocab  # a directory holding encoder.json
    (tmp_path / "apart").mkdir()
    (tmp_path / "apart" / "my-merges").write_text(merges_text, encoding="utf-8")
    loaded = load_any(tmp_path / "hf" / "vocab.json", merges=tmp_path / "apart" / "my-merges")
    assert loaded.merges == tok.merges
