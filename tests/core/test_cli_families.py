"""`python -m bpe_core` with --model wordpiece, unigram and superbpe: train, trace, encode, decode,
export, stats and overlap, through `main`, checked against the engines and against `tokenizers`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_core import sources
from bpe_core.cli import main
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.superbpe import is_superword
from bpe_core.formats import load_any
from bpe_core.formats.detect import load_model
from bpe_core.settings import BPEError
from tests.conftest import require

PROSE = (
    "The river ran past the old mill, and the miller watched the water turn the wheel.\n"
    "In the morning the baker sold bread to the people of the town; in the evening he slept.\n"
    "One of the children asked why the wheel never stopped. The miller said: because the river never stops.\n"
    "Lower, lowest, newer, newest: the words of the lesson came back in the spring of the year.\n"
    "Tabs\tand  double  spaces stay in the text, as do numbers like 1234 and 56.\n"
)
OTHER = (
    "A second file holds other sentences. The town had a market by the river, and the market was busy.\n"
    "People came from the hills with wool and cheese; they went home with bread and news of the town.\n"
)
TEXTS = [PROSE * 6, OTHER * 5]
SAMPLES = ["The miller's wheel turned lowest!", "naïve café, 東京 😀\tand  then\nnew lines", "of the town of the river"]
FAMILIES = ("wordpiece", "unigram", "superbpe")
SIZE = {"wordpiece": 160, "unigram": 100, "superbpe": 420}
EXTRA = {"wordpiece": [], "unigram": [], "superbpe": ["--transition", "340"]}


def direct(family: str, texts: list[str]):
    """The same model trained by the engine's own function on the texts."""
    if family == "wordpiece":
        return train_wordpiece(texts, vocab_size=SIZE[family])
    if family == "unigram":
        return train_unigram(texts, vocab_size=SIZE[family])
    return train_superbpe(texts, vocab_size=SIZE[family], transition=340)


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "prose.txt", tmp_path / "other.txt"]
    for path, text in zip(paths, TEXTS):
        path.write_text(text, encoding="utf-8")
    return paths


@pytest.fixture(params=FAMILIES)
def trained(request, corpus, tmp_path, capsys) -> tuple[str, Path, str]:
    family = request.param
    model = tmp_path / f"{family}.json"
    status, out, err = run(capsys, "train", *corpus, "--model", family, "--vocab-size", SIZE[family],
                           *EXTRA[family], "-o", model)
    assert (status, out) == (0, "")
    return family, model, err


def test_train_reads_sources_as_the_engine_reads_texts(trained):
    family, model, err = trained
    name = {"wordpiece": "WordPiece", "unigram": "Unigram", "superbpe": "SuperBPE"}[family]
    assert err.startswith(f"trained {name}: ") and err.endswith(f"-> {model}\n") and err.count("\n") == 1
    # Each file is one text, exactly as the engine's train function takes a list of texts.
    assert load_model(model).to_dict() == direct(family, TEXTS).to_dict()


def test_encode_decode_and_export_agree_with_tokenizers(trained, capsys, tmp_path):
    tokenizers = require("tokenizers")
    family, model, _ = trained
    ours = direct(family, TEXTS)
    status, out, _ = run(capsys, "encode", model, *SAMPLES)
    rows = lines(out)
    assert status == 0
    assert rows == [{"text": s, "tokens": ours.encode_tokens(s), "ids": ours.encode_ids(s)} for s in SAMPLES]

    exported = tmp_path / "tokenizer.json"
    status, _, err = run(capsys, "export", model, "--format", "hf", "-o", exported)
    assert (status, err) == (0, f"wrote {exported}\n")
    hf = tokenizers.Tokenizer.from_file(str(exported))
    for row in rows:
        assert hf.encode(row["text"], add_special_tokens=False).ids == row["ids"], row["text"]

    ids = rows[2]["ids"]
    status, out, _ = run(capsys, "decode", model, *map(str, ids))
    assert (status, out) == (0, ours.decode(ids) + "\n")
    if family != "wordpiece":  # WordPiece's decoder writes "of the town" back; the others are exact
        assert out == SAMPLES[2] + "\n"


def test_stats_counts_the_familys_tokens(trained, capsys, corpus):
    family, model, _ = trained
    status, out, _ = run(capsys, "stats", model, corpus[1])
    (row,) = lines(out)
    assert status == 0
    assert row["tokens"] == len(direct(family, TEXTS).encode_ids(TEXTS[1]))
    assert row["words"] == len(TEXTS[1].split())


def test_wordpiece_trace_has_scores_and_counts(tmp_path, capsys):
    # The Hugging Face course's example; the first two merges and their counts are known.
    corpus = tmp_path / "hug.txt"
    corpus.write_text("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5, encoding="utf-8")
    model = tmp_path / "wp.json"
    assert run(capsys, "train", corpus, "--model", "wordpiece", "--vocab-size", "18", "-o", model)[0] == 0
    status, out, _ = run(capsys, "trace", model)
    rows = lines(out)
    assert status == 0
    assert rows[0] == {"step": 1, "left": "##g", "right": "##s", "token": "##gs", "score": 5 / 100,
                       "pair_count": 5, "left_count": 20, "right_count": 5, "added": True}
    assert (rows[1]["left"], rows[1]["right"], rows[1]["pair_count"], rows[1]["left_count"]) == ("p", "##u", 17, 17)
    status, out, _ = run(capsys, "encode", model, "hugs bugs thug")
    assert lines(out)[0]["tokens"] == ["hugs", "bu", "##gs", "[UNK]"]


def train_one(capsys, corpus: list[Path], tmp_path: Path, family: str) -> Path:
    model = tmp_path / f"{family}.json"
    argv = ["--model", family, "--vocab-size", SIZE[family], *EXTRA[family], "-o", model]
    assert run(capsys, "train", *corpus, *argv)[0] == 0
    return model


def test_unigram_trace_rounds_shrink_to_the_target(corpus, tmp_path, capsys):
    status, out, _ = run(capsys, "trace", train_one(capsys, corpus, tmp_path, "unigram"))
    rows = lines(out)
    assert status == 0 and rows
    assert rows == [r.to_dict() for r in direct("unigram", TEXTS).trace]
    assert [r["round"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r["vocab_size"] <= r["vocab_size_before"] for r in rows)
    assert rows[-1]["vocab_size"] == SIZE["unigram"] and rows[-1]["final"] is True
    assert all(isinstance(r["log_likelihood"], float) and r["log_likelihood"] < 0 for r in rows)
    assert all(isinstance(piece, str) and isinstance(loss, float) for r in rows for piece, loss in r["removed"])


def test_superbpe_trace_marks_the_transition_and_superwords(corpus, tmp_path, capsys):
    status, out, _ = run(capsys, "trace", train_one(capsys, corpus, tmp_path, "superbpe"))
    rows = lines(out)
    assert status == 0 and len(rows) == SIZE["superbpe"] - 256
    assert [r["rank"] for r in rows] == list(range(len(rows)))
    assert [r["phase"] for r in rows] == [1] * (340 - 256) + [2] * (SIZE["superbpe"] - 340)
    assert all(r["superword"] == is_superword(r["token"]) for r in rows)
    assert any(r["superword"] for r in rows) and not any(r["superword"] for r in rows if r["phase"] == 1)
    steps = direct("superbpe", TEXTS).trace
    assert [(r["left"], r["right"], r["token"], r["phase"]) for r in rows] == [
        (s.left, s.right, s.token, s.phase) for s in steps]
    # Our SuperBPE file keeps only the merges, not their counts: the trace prints null for each.
    assert [r["count"] for r in rows] == [None] * len(steps)


def test_superbpe_overlap_with_itself_and_with_wordpiece(tmp_path, corpus, capsys):
    models = {family: train_one(capsys, corpus, tmp_path, family) for family in ("superbpe", "wordpiece")}
    status, out, _ = run(capsys, "overlap", models["superbpe"], models["superbpe"])
    assert status == 0 and lines(out)[0]["jaccard"] == 1.0 and lines(out)[0]["shared"] == SIZE["superbpe"]
    status, out, err = run(capsys, "overlap", models["wordpiece"], models["superbpe"])
    (row,) = lines(out)
    assert (status, err) == (0, "")
    assert row["sizes"] == {"a": SIZE["wordpiece"], "b": SIZE["superbpe"]}
    assert 0 < row["shared"] < SIZE["wordpiece"] and row["shared"] + row["only_b"] == SIZE["superbpe"]


@pytest.mark.parametrize(
    ("family", "extra", "flag"),
    [
        ("wordpiece", ["--mode", "word"], "--mode"),
        ("wordpiece", ["--eow", "separate"], "--eow"),  # the default value, given: still refused
        ("wordpiece", ["--tie-break", "count-pair"], "--tie-break"),
        ("wordpiece", ["--merges", "10"], "--merges"),
        ("wordpiece", ["--transition", "300"], "--transition"),
        ("wordpiece", ["--max-token-length", "8"], "--max-token-length"),
        ("unigram", ["--lowercase"], "--lowercase"),
        ("unigram", ["--workers", "2"], "--workers"),
        ("unigram", ["--min-frequency", "1"], "--min-frequency"),
        ("unigram", ["--normalization", "NFC"], "--normalization"),
        ("superbpe", ["--lowercase"], "--lowercase"),
        ("superbpe", ["--eow", "suffix"], "--eow"),
        ("superbpe", ["--max-distinct", "100"], "--max-distinct"),
        ("bpe", ["--transition", "300"], "--transition"),
    ],
)
def test_options_a_model_does_not_use_are_refused(family, extra, flag, corpus, tmp_path, capsys):
    model = tmp_path / "m.json"
    target = [] if "--merges" in extra else ["--vocab-size", "300"]
    status, out, err = run(capsys, "train", *corpus, "--model", family, *target, *extra, "-o", model)
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {flag} does not apply to --model {family}") and err.count("\n") == 1
    assert not model.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "unigram", "--counts", "c.tsv"], "error: --counts does not apply to --model unigram"),
        (["--model", "superbpe", "--pretokenizer", "whitespace", "--vocab-size", "300"],
         "error: --pretokenizer whitespace does not apply to --model superbpe"),
        (["--model", "wordpiece"], "error: --model wordpiece needs --vocab-size N\n"),
    ],
)
def test_other_train_mistakes_are_one_line(argv, message, corpus, tmp_path, capsys):
    status, out, err = run(capsys, "train", *corpus, *argv, "-o", tmp_path / "m.json")
    assert (status, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize(
    ("family", "broken"),
    [
        ("wordpiece", {"options": {}, "vocab": "abc"}),
        ("unigram", {"vocab": [["<unk>", 0.0], ["a", "high"]]}),
        ("superbpe", {"transition": 0, "merges": [["a", "zz"]]}),
    ],
)
def test_a_malformed_family_file_is_one_line(family, broken, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "bpe-explorer", "model": family, "version": 1, **broken}), encoding="utf-8")
    for argv in (["encode", path, "x"], ["trace", path], ["export", path, "--format", "hf", "-o", tmp_path / "t"]):
        status, out, err = run(capsys, *argv)
        assert (status, out) == (2, "")
        assert err.startswith("error: bad.json: ") and err.count("\n") == 1


def test_load_any_names_a_family_file_for_what_it_is(trained):
    family, model, _ = trained
    name = {"wordpiece": "WordPiece", "unigram": "Unigram", "superbpe": "SuperBPE"}[family]
    with pytest.raises(BPEError, match=f"^{model.name} is our {name} model, not a BPE tokenizer"):
        load_any(model)


def test_wordpiece_trains_on_counts_as_on_the_sources(corpus, tmp_path, capsys):
    counts, a, b = tmp_path / "counts.tsv", tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "count", *corpus, "-o", counts)[0] == 0
    assert run(capsys, "train", "--counts", counts, "--model", "wordpiece", "--vocab-size", "160", "--lowercase",
               "-o", a)[0] == 0
    assert run(capsys, "train", *corpus, "--model", "wordpiece", "--vocab-size", "160", "--lowercase", "-o", b)[0] == 0
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")
    assert load_model(a).to_dict() == train_wordpiece(TEXTS, vocab_size=160, lowercase=True).to_dict()

    bytes_counts = tmp_path / "bytes.tsv"
    assert run(capsys, "count", *corpus, "--mode", "bytes", "-o", bytes_counts)[0] == 0
    status, _, err = run(capsys, "train", "--counts", bytes_counts, "--model", "wordpiece", "--vocab-size", "160",
                         "-o", a)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("error: --model wordpiece trains on word-mode counts")


def test_unigram_reads_a_text_in_pieces_exactly(tmp_path, capsys, monkeypatch):
    # Pieces of about 20 characters are cut where word mode may cut (after a newline too); Unigram
    # keeps a newline inside a word, so the reader must join them again up to a space.
    monkeypatch.setattr(sources, "PIECE_CHARS", 20)
    monkeypatch.setattr(sources, "CHUNK_BYTES", 16)
    text = "the cat\nsat on the mat\nand the dog\nsat on the log\n" * 30
    path, model = tmp_path / "lines.txt", tmp_path / "u.json"
    path.write_text(text, encoding="utf-8")
    assert run(capsys, "train", path, "--model", "unigram", "--vocab-size", "40", "-o", model)[0] == 0
    assert load_model(model).to_dict() == train_unigram([text], vocab_size=40).to_dict()


def test_json_lines_records_are_texts_of_their_own(tmp_path, capsys):
    records = ["one record about the river", "another about the town", "the river and the town"] * 20
    path, model = tmp_path / "docs.jsonl", tmp_path / "s.json"
    path.write_text("".join(json.dumps({"body": r}) + "\n" for r in records), encoding="utf-8")
    argv = ["train", path, "--text-field", "body", "--vocab-size", "300", "-o", model]
    assert run(capsys, *argv, "--model", "superbpe", "--transition", "280")[0] == 0
    assert load_model(model).to_dict() == train_superbpe(records, vocab_size=300, transition=280).to_dict()
    assert run(capsys, *argv, "--model", "unigram")[0] == 0
    assert load_model(model).to_dict() == train_unigram(records, vocab_size=300).to_dict()
