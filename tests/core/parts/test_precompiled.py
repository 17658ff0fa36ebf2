"""The precompiled charsmap and the `Precompiled` normalizer against `tokenizers` on real text.

The charsmaps are sentencepiece's own (nmt_nfkc, nmt_nfkc_cf, nfkc), taken from models trained
here with sentencepiece (the Mistral models in mistral_common have none: their normalizer is
"identity"). `tokenizers` gives the normalized text; a character-level BPE (every character of
that text in the vocabulary, no merges, no pre-tokenizer) gives each normalized character's
original span, which ours must equal character for character.
"""
from __future__ import annotations

import base64
import io
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.formats.sentencepiece_proto import parse_model_proto
from bpe_core.parts.hf_parts import Reader
from bpe_core.parts.normalized import Normalized
from bpe_core.parts.precompiled import HF_TYPES, CharsMap, Precompiled, tiny_charsmap
from bpe_core.settings import BPEError
from tests.conftest import ROOT, require

tk = require("tokenizers")
spm = require("sentencepiece")

RULES = ("nmt_nfkc", "nmt_nfkc_cf", "nfkc")
EDGES = [
    "", " ", "a", "xＡ\u0301y", "xﬁy", "e\u0301", "x\r\ny", "a\u200d", "ｶﾞ", "ｶ\u3099", "a\x01b", "㍿", "¼x", "ﾞ",
    "\x01b", "\x01\x02b", "a\x01\x02b", "ﬁ\x01x", "ﬁ\x01\x02x", "\x01", "a\x01", "ﬁ", "x\u3000y", "Ａ\u0301\x01y",
    "\u0301", "\u0301\u0301a", "👨\u200d👩\u200d👧 😀", "\u00a0a\u00a0", "\ufeffx", "a\r\nb\r\n\r\n c", "\t\n \u3000",
    "\x00\x07\x7f\x1b[0m \x85\x9f", "שלום עולם مرحبا \u200fabc\u200e", "한국어 \u1100\u1161\u11a8", "ß ẞ İ ǅ Ǆ ΣΑΣ",
    "Ａｂｃ１２３！ ①⑩ x\u00b2 \u00bd", "ḍ̇ q\u0307\u0323 ǖ̃ ẛ̣ \u0f73\u0f75\u0f81", "ऩ क़ ড় ਲ਼ ଡ଼ क्ष",
    "\U0001d400\U0001d41a", "  lead and trail  ", "a\U000e0100b\ufe0fc", "\u0600a \u0915\u094d\u0937", "▁x ▁ ▁▁",
]
# Characters that make grapheme clusters of every size around the 6-byte line.
ALPHABET = list("aeAＡﬁ㍿¼ｶﾞ \t\r\n\x01\x00") + [
    "\u0301", "\u0308", "\u200d", "\u200c", "\u3099", "\u309a", "\ufe0f", "\U0001F468", "\U0001F1FA", "\U0001F1F8",
    "\u0600", "\u0915", "\u094d", "\u0937", "\u1100", "\u1161", "\u11a8", "\uac00", "\u00a0", "\u3000", "\u2028",
    "\ufeff", "\u0653", "\u0627", "\u05d0", "\u05b8", "\u0e33", "\u0e01", "\u0bb8", "\u0bcd", "\U0001F3FB", "\u20d7",
    "\u1e9b", "\u0323", "\u0345", "\u03b9", "\u1f00",
]


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def _training_lines() -> list[str]:
    text = (ROOT / "sample_corpora" / "multilingual.txt").read_text(encoding="utf-8")
    text += (ROOT / "sample_corpora" / "tricky.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()] * 3


@cache
def charsmap(rule: str) -> bytes:
    """sentencepiece's compiled charsmap for a normalization rule, from a model trained on it."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(_training_lines()), model_writer=out, vocab_size=300,
                                   model_type="char", normalization_rule_name=rule, minloglevel=2,
                                   num_threads=1, character_coverage=1.0)
    data = parse_model_proto(out.getvalue()).normalizer_spec.precompiled_charsmap
    assert data, rule
    return data


@cache
def samples() -> tuple[str, ...]:
    """The sample files, 15 languages' parallel messages, prose and code, and the edge cases."""
    from sample_corpora import load_corpus, load_parallel

    texts = [(ROOT / "sample_corpora" / name).read_text(encoding="utf-8")
             for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")]
    texts += [text[:4000] for _, text in sorted(load_parallel().items())]
    texts += [load_corpus("english", max_bytes=200_000)[:20_000], load_corpus("python", max_bytes=200_000)[:20_000]]
    return tuple(EDGES) + tuple(texts)


def reference(normalizer: Any, text: str) -> list[tuple[str, tuple[int, int]]]:
    """`tokenizers`' normalized characters, each with its original span."""
    normalized = normalizer.normalize_str(text)
    vocab = {ch: i for i, ch in enumerate(sorted(set(normalized)))}
    vocab["[UNK]"] = len(vocab)
    tokenizer = tk.Tokenizer(tk.models.BPE(vocab=vocab, merges=[], unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    encoding = tokenizer.encode(text)
    assert "".join(encoding.tokens) == normalized
    return list(zip(encoding.tokens, encoding.offsets))


def ours(part: Precompiled, text: str) -> list[tuple[str, tuple[int, int]]]:
    out = part.normalize(Normalized.of(text))
    assert part.normalize(Normalized.of(text, track=False)).text == out.text
    assert out.spans is not None
    return list(zip(out.text, out.spans))


@pytest.mark.parametrize("rule", RULES)
def test_normalized_text_and_spans_equal_tokenizers_on_real_text(rule):
    data = charsmap(rule)
    theirs, mine = tk.normalizers.Precompiled(data), Precompiled(data)
    for text in samples():
        assert ours(mine, text) == reference(theirs, text), text[:60]


@settings(derandomize=True, max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=10).map("".join))
def test_grapheme_clusters_near_six_bytes_are_cut_as_tokenizers_cuts_them(text):
    data = charsmap("nmt_nfkc")
    assert ours(Precompiled(data), text) == reference(tk.normalizers.Precompiled(data), text)


def test_a_short_cluster_takes_the_shortest_key_whole_a_long_one_goes_by_character():
    part = Precompiled(charsmap("nmt_nfkc"))
    # "Ａ" + U+0301 is 5 bytes: the shortest key it begins with is "Ａ", and the accent goes with it.
    assert ours(part, "xＡ\u0301y") == [("x", (0, 1)), ("A", (1, 2)), ("y", (3, 4))]
    # CR LF is one cluster; "\r" -> " " replaces both.
    assert ours(part, "x\r\ny") == [("x", (0, 1)), (" ", (1, 2)), ("y", (3, 4))]
    # An empty replacement at the very start consumes nothing: "b" takes the removed character's span.
    assert ours(part, "\x01b") == [("b", (0, 1))]
    # ... elsewhere the character before consumes it; "ﬁ" -> "fi" both take its span.
    assert ours(part, "ﬁ\x01\x02x") == [("f", (0, 1)), ("i", (1, 2)), ("x", (3, 4))]


def test_spans_of_an_earlier_normalizer_carry_through():
    part = Precompiled(charsmap("nmt_nfkc"))
    shifted = Normalized("xﬁ", [(10, 12), (12, 13)], at_start=False, origin=10)
    out = part.normalize(shifted)
    assert (out.text, out.spans, out.at_start, out.origin) == ("xfi", [(10, 12), (12, 13), (12, 13)], False, 10)


def test_lookups_follow_the_trie():
    table = CharsMap(charsmap("nmt_nfkc"))
    assert table.lookup("ﬁ") == "fi" and table.lookup("a") is None and table.lookup("\t") == " "
    assert table.first_prefix("ｶﾞx") == (1, "カ")  # shortest first ...
    assert table.longest_prefix("ｶﾞx", 0) == (2, "\u30ac")  # ... or longest: "ガ" composed
    assert table.longest_prefix("xyz", 1) is None
    tiny = CharsMap(tiny_charsmap({"ab": "X", "a": "Y", "abc": "", "é": "e"}), strict=True)
    assert tiny.longest_prefix("abcd", 0) == (3, "") and tiny.first_prefix("abcd") == (1, "Y")
    assert tiny.lookup("é") == "e" and tiny.lookup("b") is None


def test_a_charsmap_built_here_reads_the_same_in_tokenizers():
    data = tiny_charsmap({"ﬁ": "fi", "Ａ": "A", "ab": "X", "\x01": ""})
    theirs, mine = tk.normalizers.Precompiled(data), Precompiled(data)
    for text in ["ﬁ Ａab\x01c", "aab", "\x01\x01ab", "Ａ\u0301b"]:
        assert ours(mine, text) == reference(theirs, text)


def test_read_from_tokenizer_json_and_written_back():
    data = charsmap("nmt_nfkc_cf")
    raw = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(data).decode()}
    part = HF_TYPES["Precompiled"](raw, READER)
    assert part.to_hf() == raw
    loaded = tk.Tokenizer.from_str(json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": part.to_hf(),
        "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
    }))
    assert loaded.normalizer.normalize_str("ＡＢ ﬁ") == part.normalize(Normalized.of("ＡＢ ﬁ")).text == "ab fi"


@pytest.mark.parametrize("raw", [None, ""])
def test_no_charsmap_changes_nothing_and_writes_what_tokenizers_loads(raw):
    part = HF_TYPES["Precompiled"]({"type": "Precompiled", "precompiled_charsmap": raw}, READER)
    text = Normalized.of("ﬁ  x")
    assert part.normalize(text) is text
    assert tk.normalizers.Sequence([]).normalize_str("ﬁ") == "ﬁ"
    assert part.to_hf() == {"type": "Sequence", "normalizers": []}


@pytest.mark.parametrize("raw, message", [
    (7, "test.json: normalizer Precompiled: 'precompiled_charsmap' must be a base64 string, not int"),
    ("@@@", "test.json: normalizer Precompiled: 'precompiled_charsmap' is not valid base64"),
    (base64.b64encode(b"\x01\x00").decode(), "test.json: normalizer Precompiled: the precompiled charsmap is 2 bytes"),
    (base64.b64encode(b"\xff\x00\x00\x00" + bytes(8)).decode(),
     "test.json: normalizer Precompiled: the precompiled charsmap's trie size 255 does not fit its 12 bytes"),
    (base64.b64encode(b"\x08\x00\x00\x00" + bytes(8)).decode(),
     "test.json: normalizer Precompiled: the precompiled charsmap's trie size 8 does not fit"),
])
def test_a_broken_charsmap_is_one_line(raw, message):
    with pytest.raises(BPEError) as info:
        HF_TYPES["Precompiled"]({"type": "Precompiled", "precompiled_charsmap": raw}, READER)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_strict_reading_checks_what_sentencepiece_checks():
    real = charsmap("nmt_nfkc")
    CharsMap(real, strict=True)
    size = int.from_bytes(real[:4], "little")
    with pytest.raises(BPEError, match="not a multiple of 1,024"):
        CharsMap((size - 4).to_bytes(4, "little") + real[4:size] + real[size + 4:], strict=True)
    broken = bytearray(real)
    broken[4:8] = (0x1FFFFF << 10 | 0x200).to_bytes(4, "little")  # the root points far outside the trie
    with pytest.raises(BPEError, match="trie is broken"):
        CharsMap(bytes(broken), strict=True)
    with pytest.raises(BPEError, match="trie is broken"):  # sentencepiece refuses such a model too
        spm_model_with_charsmap(bytes(broken))
    CharsMap(bytes(broken))  # `tokenizers` reads it; lookups then find nothing


def spm_model_with_charsmap(data: bytes) -> Any:
    """Our reader on a tiny model with this charsmap, after checking sentencepiece refuses it."""
    from dataclasses import replace

    from bpe_core.formats.sentencepiece import sentencepiece_from_bytes
    from bpe_core.formats.sentencepiece_proto import _demo_model, dumps_model_proto

    proto = parse_model_proto(_demo_model())
    model = dumps_model_proto(replace(proto, normalizer_spec=replace(proto.normalizer_spec, precompiled_charsmap=data)))
    with pytest.raises(RuntimeError):
        spm.SentencePieceProcessor(model_proto=model)
    return sentencepiece_from_bytes(model, name="m.model")
