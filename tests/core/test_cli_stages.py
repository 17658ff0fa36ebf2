"""`python -m bpe_core parts`: any tokenizer's parts, and what each makes of a text, stage by
stage; every family's model as a tokenizer of parts encodes as the model does."""
from __future__ import annotations

import pytest

from bpe_core.families.registry import families, family_of
from bpe_core.formats.detect import load_model
from tests.conftest import require
from tests.core.real_texts import held_out_texts
from tests.core.test_cli_registry import corpus, lines, run, train  # noqa: F401  (corpus is a fixture)

TRAINABLE = [one.name for one in families(trainable=True)]


@pytest.mark.parametrize("name", TRAINABLE)
def test_every_family_as_parts_encodes_as_its_model(name, corpus, capsys):  # noqa: F811
    model = load_model(str(train(capsys, corpus, name)))
    parts = family_of(model).as_parts(model)
    for text in [t[:3_000] for t in held_out_texts().values()]:
        ours = model.encode(text)
        assert parts.encode(text).ids == ours.ids, (name, text[:40])


@pytest.mark.parametrize("name", TRAINABLE)
def test_parts_lists_a_trained_models_stages_and_follows_a_text(name, corpus, capsys):  # noqa: F811
    path = train(capsys, corpus, name)
    status, out, err = run(capsys, "parts", path)
    assert status == 0, err
    stages = [row["stage"] for row in lines(out)]
    assert "model" in stages and stages == sorted(stages, key=["normalizer", "pre-tokenizer", "model", "decoder",
                                                               "post-processor"].index)
    text = "Lowest  newer, x!"
    status, out, err = run(capsys, "parts", path, text)
    assert status == 0, err
    (row,) = lines(out)
    model = load_model(str(path))
    assert row["ids"] == model.encode(text).ids
    for stretch in row["normalized"] + row["pieces"]:
        start, end = stretch["span"]
        assert 0 <= start <= end <= len(text)
    assert [p["span"][0] for p in row["pieces"]] == sorted(p["span"][0] for p in row["pieces"])


def test_parts_of_a_real_file_shows_added_tokens_cut_out(capsys):
    tokenizers = require("tokenizers")
    from tests.core.test_real_tokenizers import deepseek_json

    path = deepseek_json()
    reference = tokenizers.Tokenizer.from_file(str(path))
    special = next(t.content for t in reference.get_added_tokens_decoder().values() if t.special)
    text = f"日本 123{special}done"
    status, out, err = run(capsys, "parts", path, text)
    assert status == 0, err
    (row,) = lines(out)
    assert row["ids"] == reference.encode(text, add_special_tokens=False).ids
    added = [p for p in row["pieces"] if p.get("added")]
    assert [p["text"] for p in added] == [special]
    assert added[0]["span"] == [text.index(special), text.index(special) + len(special)]
    status, out, _ = run(capsys, "parts", path)
    assert {"stage": "pre-tokenizer", "part": "Split → Split → Split → ByteLevel"} in lines(out)


def test_parts_of_a_missing_file_is_one_line(capsys, tmp_path):
    status, out, err = run(capsys, "parts", tmp_path / "nope.json", "x")
    assert status == 2 and out == "" and err.count("\n") == 1 and "nope.json" in err
