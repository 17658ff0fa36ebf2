"""Our model file's fast writer lays out exactly what `dump_json` does, for every family."""
from __future__ import annotations

import pytest

from bpe_core import Settings, train
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.registry import family
from bpe_core.formats._common import dump_json
from bpe_core.formats.ours import _layout, dumps, load_tokenizer, save_model, to_json_dict

TEXT = "low lower lowest newest widest, the newer wider low road\n\tend. " * 3

ODD_VALUES = [
    {}, [], {"a": 1}, {"a": [1, 2]}, [[1], {"b": 2}], [1, [2]], {"k": "x" * 120}, {str(n): n for n in range(60)},
    {"f": 1.5, "n": None, "t": True, "nan": float("nan"), "big": 10**30}, {"s": "é\n\"\\\u2028"}, [{}], [[]],
    {"nested": {"deeper": {"rows": [[1, 2], [3, 4]]}}}, "plain", 3, None,
]


@pytest.mark.parametrize("value", ODD_VALUES, ids=range(len(ODD_VALUES)))
def test_the_layout_of_any_json_value_is_dump_json(value):
    assert _layout(value) == dump_json(value)


@pytest.mark.parametrize("settings", [
    Settings(), Settings(mode="bytes", pretokenizer="gpt2", tie_break="hf"), Settings(mode="text"),
    Settings(eow="suffix", tie_break="first", lowercase=True),
], ids=["word", "bytes", "text", "suffix"])
def test_a_saved_tokenizer_is_dump_json_of_its_dict_and_reads_back(settings, tmp_path):
    tok = train(TEXT, settings, merges=40)
    assert dumps(tok) == dump_json(to_json_dict(tok)) + "\n"
    save_model(tok, tmp_path / "model.json")
    assert (tmp_path / "model.json").read_text(encoding="utf-8") == dumps(tok)
    loaded = load_tokenizer(tmp_path / "model.json")
    assert loaded.training == tok.training and loaded.vocab == tok.vocab


@pytest.mark.parametrize("name", ["wordpiece", "unigram", "superbpe"])
def test_every_familys_model_file_is_dump_json_of_its_dict(name, tmp_path):
    family_models = {
        "wordpiece": lambda: train_wordpiece([TEXT], vocab_size=60),
        "unigram": lambda: train_unigram([TEXT], vocab_size=40),
        "superbpe": lambda: train_superbpe([TEXT], vocab_size=290, transition=275),
    }
    model = family_models[name]()
    data = family(name).to_dict(model)
    assert _layout(data) == dump_json(data)
    save_model(model, tmp_path / "model.json")
    assert (tmp_path / "model.json").read_text(encoding="utf-8") == dump_json(data) + "\n"
