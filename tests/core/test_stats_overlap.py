"""`text_stats`, `vocabulary_overlap` and the `stats` / `overlap` commands, on small known cases."""
from __future__ import annotations

import io
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from bpe_core import Settings, Tokenizer, train
from bpe_core.analysis import TextStats, text_stats
from bpe_core.analysis.overlap import EOW, SPECIAL, LengthCount, vocabulary_overlap
from bpe_core.cli import main
from bpe_core.formats import load_any, save_tokenizer
from bpe_core.pretokenize import byte_to_char

# A GPT-2-style vocabulary: the 256 byte symbols, four merges and GPT-2's end-of-text token.
GPT2_MERGES = [("t", "h"), ("Ġ", "th"), ("Ġth", "e"), ("h", "e")]
GPT2_TOKENS = [*byte_to_char(), "th", "Ġth", "Ġthe", "he", "<|endoftext|>"]


@pytest.fixture
def gpt2_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "gpt2"
    folder.mkdir()
    vocab = {token: i for i, token in enumerate(GPT2_TOKENS)}
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in GPT2_MERGES)
    (folder / "merges.txt").write_text(merges, encoding="utf-8")
    return folder


def text_mode() -> Tokenizer:
    """Text mode, no pre-tokenizer: ' ', e, h, t, th, ' th', ' the', <unk>."""
    return Tokenizer(
        settings=Settings(mode="text"),
        base=[" ", "e", "h", "t"],
        merges=[("t", "h"), (" ", "th"), (" th", "e")],
    )


def word_mode() -> Tokenizer:
    """Word mode, separate </w>: </w>, e, h, t, th, e</w>, the</w>, <unk>."""
    return Tokenizer(
        settings=Settings(mode="word"),
        base=["</w>", "e", "h", "t"],
        merges=[("t", "h"), ("e", "</w>"), ("th", "e</w>")],
    )


# ---- text_stats -----------------------------------------------------------------------------


def test_text_stats_counts_bytes_characters_words_and_tokens():
    tok = train("low low lower", merges=2)  # l o -> lo, lo w -> low
    stats = text_stats(tok, "low lower\n  é")  # low </w> low e r </w> <unk> </w>
    assert stats == TextStats(bytes=14, characters=13, words=3, tokens=8)
    assert stats.tokens_per_byte == 8 / 14
    assert stats.tokens_per_character == 8 / 13
    assert stats.characters_per_token == 13 / 8
    assert text_stats(tok, "") == TextStats(0, 0, 0, 0)
    assert (text_stats(tok, "").tokens_per_byte, text_stats(tok, "").characters_per_token) == (0.0, 0.0)


def test_text_stats_in_bytes_mode_counts_utf8_bytes(gpt2_dir):
    tok = load_any(gpt2_dir / "vocab.json")
    # " the" is one token; "é" is two bytes, two tokens; "the" at the start is th + e.
    assert tok.encode(" the").tokens == ["Ġthe"]
    assert text_stats(tok, "the the é") == TextStats(bytes=10, characters=9, words=3, tokens=6)


# ---- vocabulary_overlap ---------------------------------------------------------------------


def test_gpt2_space_symbol_equals_a_text_mode_space(gpt2_dir):
    o = vocabulary_overlap(load_any(gpt2_dir / "vocab.json"), text_mode())
    assert (o.size_a, o.size_b) == (261, 8)  # shared and only A in A's id order: bytes by value
    assert [o.spelling_a[k] for k in o.shared] == ["Ġ", "e", "h", "t", "th", "Ġth", "Ġthe"]
    assert [o.spelling_b[k] for k in o.shared] == [" ", "e", "h", "t", "th", " th", " the"]
    assert [o.shown(k) for k in o.shared][-3:] == ["th", "·th", "·the"]
    assert [o.spelling_b[k] for k in o.only_b] == ["<unk>"]
    assert o.only_b == ((SPECIAL, b"<unk>"),)
    assert len(o.only_a) == 254 and [o.spelling_a[k] for k in o.only_a][-2:] == ["he", "<|endoftext|>"]
    assert Fraction(o.jaccard).limit_denominator(1000) == Fraction(7, 261 + 8 - 7)


def test_end_of_word_tokens_and_unk_are_their_own_kind(gpt2_dir):
    o = vocabulary_overlap(load_any(gpt2_dir / "vocab.json"), word_mode())
    assert [o.spelling_a[k] for k in o.shared] == ["e", "h", "t", "th"]
    # e</w> is not the byte "e", the</w> is not "Ġthe": a word's end is a place, not a byte.
    assert [o.spelling_b[k] for k in o.only_b] == ["</w>", "e</w>", "the</w>", "<unk>"]
    assert o.only_b == ((EOW, b""), (EOW, b"e"), (EOW, b"the"), (SPECIAL, b"<unk>"))
    assert [o.shown(k) for k in o.only_b] == ["</w>", "e</w>", "the</w>", "<unk>"]
    assert o.jaccard == 4 / (261 + 8 - 4)
    assert o.by_length == [
        LengthCount(0, shared=0, only_a=0, only_b=2),  # </w>, <unk>
        LengthCount(1, shared=3, only_a=253, only_b=1),  # e h t | 253 other bytes | e</w>
        LengthCount(2, shared=1, only_a=1, only_b=0),  # th | he
        LengthCount(3, shared=0, only_a=1, only_b=1),  # Ġth | the</w>
        LengthCount(4, shared=0, only_a=1, only_b=0),  # Ġthe
        LengthCount(13, shared=0, only_a=1, only_b=0),  # <|endoftext|>, in byte symbols
    ]


def test_two_word_mode_tokenizers_share_markers_and_unk():
    a = word_mode()
    b = Tokenizer(settings=Settings(mode="word"), base=["</w>", "e", "h"], merges=[("e", "</w>")])
    o = vocabulary_overlap(a, b)
    assert [o.spelling_a[k] for k in o.shared] == ["</w>", "e", "h", "e</w>", "<unk>"]
    assert (len(o.only_a), len(o.only_b), o.jaccard) == (3, 0, 5 / 8)
    assert vocabulary_overlap(a, a).jaccard == 1.0


def test_bytes_and_text_tokenizers_trained_on_one_corpus_share_exactly_the_same_text():
    corpus = "ab ab abc"
    text = train(corpus, Settings(mode="text", pretokenizer="whitespace"), merges=2)  # ab, " ab"
    raw = train(corpus, Settings(mode="bytes"), merges=2)  # ab, Ġab
    o = vocabulary_overlap(text, raw)
    assert [o.spelling_b[k] for k in o.shared] == ["Ġ", "a", "b", "c", "ab", "Ġab"]
    assert (o.size_a, o.size_b, len(o.only_a), len(o.only_b)) == (7, 258, 1, 252)


# ---- the commands ---------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_stats_prints_a_json_line_per_file_and_reads_stdin(capsys, gpt2_dir, tmp_path, monkeypatch):
    first = tmp_path / "first.txt"
    first.write_text("the the é", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b" the\n"), encoding="utf-8"))
    status, out, err = run(capsys, "stats", gpt2_dir / "vocab.json", first, "-")
    assert (status, err) == (0, "")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows == [
        {"file": str(first), "bytes": 10, "characters": 9, "words": 3, "tokens": 6,
         "tokens_per_byte": 0.6, "tokens_per_character": 6 / 9},
        {"file": "-", "bytes": 5, "characters": 5, "words": 1, "tokens": 2,
         "tokens_per_byte": 0.4, "tokens_per_character": 0.4},
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "missing.txt does not exist"),
        (b"text\x00\x01", "looks like a binary file"),
        (b"caf\xe9", "is not UTF-8 text (invalid byte 0xe9 at offset 3)"),
    ],
)
def test_stats_refuses_a_bad_file_with_one_line_naming_it(capsys, gpt2_dir, tmp_path, data, message):
    good = tmp_path / "good.txt"
    good.write_text("fine", encoding="utf-8")
    bad = tmp_path / "missing.txt"
    if data is not None:
        bad.write_bytes(data)
    status, out, err = run(capsys, "stats", gpt2_dir / "vocab.json", good, bad)
    assert (status, out) == (2, "")  # checked before any line is printed
    assert err.count("\n") == 1 and err.startswith(f"error: {bad}") and message in err


def test_overlap_prints_sizes_counts_jaccard_and_lengths(capsys, gpt2_dir, tmp_path):
    model = tmp_path / "word.json"
    save_tokenizer(word_mode(), model)
    status, out, err = run(capsys, "overlap", gpt2_dir / "vocab.json", model)
    assert (status, err) == (0, "") and out.count("\n") == 1
    summary = json.loads(out)
    assert summary == {
        "a": str(gpt2_dir / "vocab.json"),
        "b": str(model),
        "sizes": {"a": 261, "b": 8},
        "shared": 4,
        "only_a": 257,
        "only_b": 4,
        "jaccard": 4 / 265,
        "by_length": [
            {"bytes": 0, "shared": 0, "only_a": 0, "only_b": 2},
            {"bytes": 1, "shared": 3, "only_a": 253, "only_b": 1},
            {"bytes": 2, "shared": 1, "only_a": 1, "only_b": 0},
            {"bytes": 3, "shared": 0, "only_a": 1, "only_b": 1},
            {"bytes": 4, "shared": 0, "only_a": 1, "only_b": 0},
            {"bytes": 13, "shared": 0, "only_a": 1, "only_b": 0},
        ],
    }


def test_overlap_lists_tokens_as_their_tokenizer_writes_them(capsys, gpt2_dir, tmp_path):
    model = tmp_path / "text.json"
    save_tokenizer(text_mode(), model)
    vocab = gpt2_dir / "vocab.json"
    listed = {}
    for which in ("shared", "only-a", "only-b"):
        status, out, _ = run(capsys, "overlap", vocab, model, "--list", which)
        assert status == 0
        listed[which] = [json.loads(line) for line in out.splitlines()]
    assert listed["shared"] == ["Ġ", "e", "h", "t", "th", "Ġth", "Ġthe"]
    assert listed["only-b"] == ["<unk>"]
    assert len(listed["only-a"]) == 254 and listed["only-a"][-2:] == ["he", "<|endoftext|>"]


def test_overlap_with_a_missing_tokenizer_exits_2(capsys, gpt2_dir, tmp_path):
    status, out, err = run(capsys, "overlap", gpt2_dir / "vocab.json", tmp_path / "nope.json")
    assert (status, out) == (2, "") and err.count("\n") == 1 and "nope.json" in err
    status, _, err = run(capsys, "overlap", gpt2_dir / "vocab.json", tmp_path / "x", "--list", "both")
    assert status == 2 and "invalid choice" in err
