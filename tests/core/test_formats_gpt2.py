"""GPT-2 vocab.json + merges.txt: export, import, pairing the two files, bad merges."""
from __future__ import annotations

import pytest

from bpe_core import BPEError, Tokenizer
from bpe_core.formats import load_any, load_gpt2, save_gpt2
from tests.core.formats_common import TEXTS, hf_byte_level_model, hf_lib, trained_by_mode


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    return trained_by_mode()


# ---- GPT-2 vocab.json + merges.txt ----------------------------------------------------------


def test_gpt2_export_loads_in_tokenizers_and_reimports(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    vocab_path, merges_path = save_gpt2(tok, tmp_path / "gpt2")
    assert merges_path.read_text(encoding="utf-8").splitlines()[0] == "#version: 0.2"
    theirs = hf_lib().ByteLevelBPETokenizer(str(vocab_path), str(merges_path))
    again = load_any(vocab_path)
    assert again.source == "gpt2" and again.vocab == tok.vocab and again.merges == tok.merges
    for text in TEXTS:
        ours = tok.encode(text)
        got = theirs.encode(text)
        assert (got.tokens, got.ids) == (ours.tokens, ours.ids), text
        assert again.encode(text).ids == ours.ids


def test_gpt2_import_of_files_tokenizers_wrote(tmp_path):
    hf = hf_byte_level_model()
    hf.save_model(str(tmp_path), "tiny")  # tiny-vocab.json, tiny-merges.txt
    ours = load_any(tmp_path / "tiny-vocab.json")
    assert (ours.settings.mode, ours.settings.pretokenizer) == ("bytes", "gpt2")
    for text in TEXTS:
        assert ours.encode(text).ids == hf.encode(text).ids, text


def test_gpt2_loads_from_a_directory(trained, tmp_path):
    save_gpt2(trained["bytes-gpt2"], tmp_path)
    assert load_any(tmp_path).vocab == trained["bytes-gpt2"].vocab


@pytest.mark.parametrize("name", ["word-separate", "text-none", "bytes-gpt4"])
def test_gpt2_export_refuses_what_the_format_cannot_say(trained, tmp_path, name):
    with pytest.raises(BPEError, match="Hugging Face tokenizer.json can"):
        save_gpt2(trained[name], tmp_path / "out")


def test_gpt2_merges_must_sit_beside_the_vocab(trained, tmp_path):
    vocab_path, merges_path = save_gpt2(trained["bytes-gpt2"], tmp_path)
    merges_path.unlink()
    beside = r"vocab.json is a GPT-2 vocabulary, but no merges file \(merges.txt or vocab.bpe\) is beside it"
    with pytest.raises(BPEError, match=beside):
        load_any(vocab_path)


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        ("#version: 0.2\nĠ t h\n", "line 2: expected 'left right'"),
        ("#version: 0.2\nĠ zzz\n", "'zzz', which is not in vocab.json"),
        (b"#version: 0.2\n\xff\xfe\n", "not UTF-8"),
    ],
)
def test_gpt2_rejects_bad_merges(trained, tmp_path, merges, message):
    vocab_path, merges_path = save_gpt2(trained["bytes-gpt2"], tmp_path)
    if isinstance(merges, bytes):
        merges_path.write_bytes(merges)
    else:
        merges_path.write_text(merges, encoding="utf-8")
    with pytest.raises(BPEError, match=message):
        load_gpt2(vocab_path)
