"""`python -m bpe_core` through the family registry: every family that trains is trained, traced,
encoded and compared by the same commands, and refuses the options its `Family` does not take."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bpe_core.cli_families import check_model_options
from bpe_core.families.registry import families, family, family_of
from bpe_core.formats.detect import load_model
from bpe_core.parts.pipeline import PartsTokenizer
from bpe_core.settings import BPEError
from tests.core.test_cli_families import lines, run

TRAINABLE = families(trainable=True)
NAMES = [one.name for one in TRAINABLE]
TEXT = (
    "The river ran past the old mill, and the miller watched the water turn the wheel.\n"
    "In the morning the baker sold bread to the people of the town; in the evening he slept.\n"
    "Lower, lowest, newer, newest: the words came back in the spring of the year. 12 naïve cafés.\n"
) * 8
SAMPLES = ["the miller's wheel", "naïve  café\tand 東京 😀", ""]
SIZE = 400  # a size every family reaches or stops short of without an error on this text
# A value for each `train` option some family takes: its flag and arguments.
VALUES = {
    "mode": ["--mode", "word"], "pretokenizer": ["--pretokenizer", "gpt2"], "lowercase": ["--lowercase"],
    "normalization": ["--normalization", "NFC"], "merges": ["--merges", "10"],
    "tie_break": ["--tie-break", "count-pair"], "eow": ["--eow", "separate"], "min_frequency": ["--min-frequency", "1"],
    "max_token_length": ["--max-token-length", "8"], "transition": ["--transition", "300"],
    "counts": ["--counts", "counts.tsv"], "text_field": ["--text-field", "body"], "errors": ["--errors", "strict"],
    "scheduler": ["--scheduler", "tcp://127.0.0.1:9"], "workers": ["--workers", "2"],
    "max_distinct": ["--max-distinct", "100"], "min_count": ["--min-count", "1"],
    "partition_size": ["--partition-size", "1MB"],
}
OPTIONS = sorted(set().union(*(one.cli_options for one in TRAINABLE)))
NOT_TAKEN = [(one.name, dest) for one in TRAINABLE for dest in OPTIONS if dest not in one.cli_options]
TAKEN = [(one.name, dest) for one in TRAINABLE for dest in sorted(one.cli_options)]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def train(capsys: pytest.CaptureFixture[str], corpus: Path, name: str) -> Path:
    model = corpus.parent / f"{name}.json"
    status, out, err = run(capsys, "train", corpus, "--model", name, "--vocab-size", SIZE, "-o", model)
    assert (status, out) == (0, ""), err
    assert err.startswith("trained ") and f"-> {model}\n" in err
    return model


def test_the_model_choices_are_the_families_that_train():
    assert NAMES and NAMES[0] == "bpe" and "parts" not in NAMES
    assert all(one.train_cli is not None and one.trace_help and one.cli_help for one in TRAINABLE)


@pytest.mark.parametrize("name", NAMES)
def test_every_family_trains_traces_and_encodes_with_offsets(name, corpus, capsys):
    path = train(capsys, corpus, name)
    model = load_model(path)
    assert family_of(model) is family(name)

    status, out, err = run(capsys, "trace", path)
    rows = lines(out)
    assert (status, err) == (0, "") and rows
    assert rows == [json.loads(json.dumps(row)) for row in family(name).trace_rows(model)]

    status, out, err = run(capsys, "encode", path, *SAMPLES, "--offsets")
    assert (status, err) == (0, "")
    for text, row in zip(SAMPLES, lines(out), strict=True):
        encoding = model.encode(text)
        assert row == {"text": text, "tokens": encoding.tokens, "ids": encoding.ids,
                       "offsets": [list(span) for span in encoding.spans]}
        assert row["ids"] == model.encode_ids(text) and len(row["offsets"]) == len(row["tokens"])
        assert all(0 <= start <= end <= len(text) for start, end in row["offsets"])
        assert [start for start, _ in row["offsets"]] == sorted(start for start, _ in row["offsets"])
    assert lines(out)[-1]["tokens"] == []  # the empty text


@pytest.mark.parametrize(("name", "dest"), NOT_TAKEN)
def test_an_option_a_family_does_not_take_is_refused_in_one_line(name, dest, corpus, capsys):
    model = corpus.parent / "m.json"
    target = [] if dest == "merges" else ["--vocab-size", str(SIZE)]
    status, out, err = run(capsys, "train", corpus, "--model", name, *target, *VALUES[dest], "-o", model)
    flag = VALUES[dest][0]
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {flag} does not apply to --model {name}; it is for --model ")
    assert err.count("\n") == 1
    assert not model.exists()


@pytest.mark.parametrize(("name", "dest"), TAKEN)
def test_an_option_a_family_takes_passes_the_check(name, dest):
    check_model_options(argparse.Namespace(given={dest, "sources", "output", "vocab_size"}), family(name))


def test_the_check_refuses_what_only_another_family_takes():
    with pytest.raises(BPEError, match=r"^--transition does not apply to --model bpe; it is for --model superbpe "):
        check_model_options(argparse.Namespace(given={"transition"}), family("bpe"))


def test_overlap_compares_two_families_by_the_bytes_their_tokens_stand_for(corpus, capsys):
    a, b = train(capsys, corpus, "wordpiece"), train(capsys, corpus, "unigram")
    wordpiece, unigram = load_model(a), load_model(b)
    status, out, err = run(capsys, "overlap", a, b)
    (row,) = lines(out)
    assert (status, err) == (0, "")
    assert row["sizes"] == {"a": len(wordpiece.vocab), "b": len(unigram.vocab)}
    assert row["shared"] + row["only_a"] == row["sizes"]["a"] and row["shared"] + row["only_b"] == row["sizes"]["b"]
    listed = {which: lines(run(capsys, "overlap", a, b, "--list", which)[1])
              for which in ("shared", "only-a", "only-b")}
    assert len(listed["shared"]) == row["shared"]
    # Inside a word WordPiece's "##er" is Unigram's "er"; at a word's start its "to" is Unigram's "▁to" (" to").
    inside = {"##" + piece for piece in unigram.vocab if "▁" not in piece and "##" + piece in wordpiece.vocab}
    starts = {piece[1:] for piece in unigram.vocab if piece.startswith("▁") and piece[1:] in wordpiece.vocab}
    assert "##e" in inside and starts and inside | starts <= set(listed["shared"])
    assert {"[CLS]", "[SEP]"} <= set(listed["only-a"]) and unigram.unk_token in listed["only-b"]
    # Specials are 0 bytes long: WordPiece's five and Unigram's unknown piece.
    assert row["by_length"][0] == {"bytes": 0, "shared": 0, "only_a": 5, "only_b": 1}


@pytest.mark.parametrize("name", ["unigram", "superbpe"])
def test_overlap_of_a_model_and_its_tokenizer_json_read_as_parts(name, corpus, capsys):
    model = train(capsys, corpus, name)
    exported = corpus.parent / "tokenizer.json"
    assert run(capsys, "export", model, "--format", "hf", "-o", exported)[0] == 0
    assert isinstance(load_model(exported), PartsTokenizer)
    status, out, err = run(capsys, "overlap", model, exported)
    (row,) = lines(out)
    assert (status, err) == (0, "")
    assert row["jaccard"] == 1.0 and row["only_a"] == row["only_b"] == 0
    assert row["shared"] == len(load_model(model).vocab)


def test_export_refuses_a_format_the_family_does_not_write(corpus, capsys):
    for one in TRAINABLE:
        model = train(capsys, corpus, one.name)
        for fmt in {"hf", "gpt2"} - set(one.export_formats):
            status, out, err = run(capsys, "export", model, "--format", fmt, "-o", corpus.parent / "out")
            assert (status, out) == (2, "")
            assert err == (f"error: --format {fmt} does not hold {model} ({one.title}); it exports with "
                           f"{' or '.join('--format ' + f for f in one.export_formats)}\n")
