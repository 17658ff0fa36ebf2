"""Our own JSON format: round trips, the golden file, tiktoken-sourced tokenizers, malformed files."""
from __future__ import annotations

import json

import pytest

from bpe_core import BPEError, Tokenizer, train
from bpe_core.formats import from_json_dict, load_any, load_hf, load_tokenizer, save_hf, save_tokenizer, to_json_dict
from tests.conftest import SEED000
from tests.core.formats_common import GOLDEN, MODES, assert_same_encodings, trained_by_mode, write_tiktoken


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    return trained_by_mode()


# ---- our JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MODES)
def test_our_json_round_trip_keeps_encodings_and_training(trained, tmp_path, name):
    tok = trained[name]
    save_tokenizer(tok, tmp_path / "model.json")
    loaded = load_tokenizer(tmp_path / "model.json")
    assert loaded.settings == tok.settings
    assert loaded.merges == tok.merges and loaded.vocab == tok.vocab
    assert loaded.training == tok.training  # trace, top pairs and every number
    assert loaded.trace == tok.trace and loaded.source == "trained"
    assert_same_encodings(tok, loaded)
    assert "vocab" not in json.loads((tmp_path / "model.json").read_text(encoding="utf-8"))


def test_our_json_matches_the_golden_seed000_file():
    tok = train(SEED000, merges=10)
    golden = json.loads((GOLDEN / "seed000_model.json").read_text(encoding="utf-8"))
    ours = to_json_dict(tok)
    for data in (golden, ours):
        data["training"].pop("stats")  # timings, if the trainer records any, vary by run
    assert ours == golden
    loaded = load_any(GOLDEN / "seed000_model.json")
    first = [(m.left, m.right, m.count) for m in loaded.trace[:3]]
    assert first == [("w", "e", 9), ("t", "</w>", 9), ("s", "t</w>", 9)]
    assert loaded.encode("lowest").tokens == ["lo", "we", "st</w>"]


def test_our_json_stores_the_vocab_of_imported_tokenizers(trained, tmp_path):
    save_hf(trained["bytes-gpt2"], tmp_path / "tokenizer.json")
    imported = load_hf(tmp_path / "tokenizer.json")
    data = to_json_dict(imported)
    assert data["source"] == "huggingface" and data["vocab"] == imported.vocab and "training" not in data
    again = from_json_dict(json.loads(json.dumps(data)))
    assert again.source == "huggingface" and again.vocab == imported.vocab and again.trace == []
    assert_same_encodings(imported, again)



def test_tiktoken_sourced_tokenizers_reload_with_concat_ranks(trained, tmp_path):
    write_tiktoken(trained["bytes-gpt4"], tmp_path / "small.tiktoken")
    tik = load_any(tmp_path / "small.tiktoken")
    assert tik.source == "tiktoken" and tik.table.concat
    save_tokenizer(tik, tmp_path / "model.json")
    again = load_any(tmp_path / "model.json")
    assert again.source == "tiktoken" and again.table.concat and again.vocab == tik.vocab
    assert again.merges == tik.merges
    assert_same_encodings(tik, again)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="something-else"), "not a bpe-explorer model"),
        (lambda d: d.update(version=2), "reads only version 1"),
        (lambda d: d.pop("settings"), "'settings' must be an object"),
        (lambda d: d["settings"].update(mode="letters"), "unknown mode 'letters'"),
        (lambda d: d["settings"].update(lowercase="yes"), "'lowercase' must be true or false"),
        (lambda d: d.update(merges="w e"), "'merges' must be a list"),
        (lambda d: d["merges"].__setitem__(3, ["n"]), "item 3"),
        (lambda d: d["merges"].__setitem__(0, ["w", "q"]), "'q'"),
        (lambda d: d["training"]["trace"].pop(), "does not match 'merges'"),
        (lambda d: d["training"]["trace"][2].pop("count"), "lacks 'count'"),
        (lambda d: d["training"]["trace"][2].update(count="9"), "item 2: 'count' must be a whole number"),
        (lambda d: d["training"].update(word_count=-1), "training.word_count must be a whole number"),
        (lambda d: d.update(vocab={"a": 0, "b": 0}), "id 0 is given to both"),
        (lambda d: d.update(rank_rule="fastest"), "'rank_rule'"),
        (lambda d: d.update(rank_rule="concat"), "'concat' rank rule needs a 'vocab'"),
        (lambda d: d.pop("base"), "neither a base symbol nor made by an earlier merge"),
    ],
)
def test_our_json_rejects_malformed_files(change, message):
    data = to_json_dict(train(SEED000, merges=10))
    change(data)
    with pytest.raises(BPEError, match=message) as caught:
        from_json_dict(data, name="model.json")
    assert "\n" not in str(caught.value)
