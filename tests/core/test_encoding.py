"""Encoding, decoding, spans, unknown characters, dropout and merge trees."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, encode_ranked, encode_replay, merge_tree, train
from tests.conftest import SEED000

PROFILE = dict(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CORPUS = (
    "The quick brown fox jumps over the lazy dog. Ünïcödé naïve café — 日本語のテキスト 🙂\n"
    "def encode(self, text):\n\treturn [ord(c) for c in text]  # comment\r\n" * 3
)


@pytest.fixture(scope="module")
def byte_level():
    return train(CORPUS, Settings(mode="bytes"), merges=120)


@pytest.fixture(scope="module")
def text_level():
    return train(CORPUS, Settings(mode="text"), merges=120)


@hyp_settings(**PROFILE)
@given(text=st.text())
def test_bytes_mode_round_trips_any_string(byte_level, text):
    enc = byte_level.encode(text)
    assert byte_level.decode(enc.ids) == text
    assert enc.ids == byte_level.encode_ids(text)


@hyp_settings(**PROFILE)
@given(text=st.text(alphabet=sorted(set(CORPUS)), max_size=200))
def test_text_mode_round_trips_text_of_seen_characters(text_level, text):
    enc = text_level.encode(text)
    assert text_level.unk_id not in enc.ids
    assert text_level.decode(enc.ids) == text
    assert "".join(text[s:e] for s, e in enc.spans) == text


@hyp_settings(**PROFILE)
@given(words=st.lists(st.text(alphabet="lowernstid", min_size=1, max_size=9), min_size=1, max_size=8))
def test_word_mode_decodes_to_words_with_single_spaces(words):
    tok = train(SEED000, merges=10)
    text = "  ".join(words) + "\n"
    assert tok.decode(tok.encode(text).ids) == " ".join(words)


@pytest.mark.parametrize("eow", ["separate", "suffix", "none"])
def test_word_mode_spans_cover_each_token_text(seed000, eow):
    tok = train(seed000, Settings(eow=eow), merges=10)
    text = "  lowest\tnewer wider\n slow "
    enc = tok.encode(text)
    for token, (s, e) in zip(enc.tokens, enc.spans):
        assert text[s:e] == token.removesuffix("</w>")


def test_spans_point_into_the_original_text_after_normalization():
    tok = train("cafe cafe café CAFÉ", Settings(lowercase=True, normalization="NFKC"), merges=8)
    text = "CAFE\u0301 ﬁne"  # decomposed accent and an ﬁ ligature, both changed by NFKC
    enc = tok.encode(text)
    assert tok.merges == [("c", "a"), ("ca", "f"), ("é", "</w>"), ("e", "</w>"), ("caf", "é</w>"), ("caf", "e</w>")]
    # "CAFÉ" (E + a combining accent) normalizes to the learned "café</w>"; "ﬁ" becomes "f" + "i",
    # and "i" never occurred in training: <unk>, with the id after every learned token.
    assert enc.tokens == ["café</w>", "f", "<unk>", "<unk>", "e</w>"]
    assert enc.ids == [tok.vocab["café</w>"], tok.vocab["f"], tok.unk_id, tok.unk_id, tok.vocab["e</w>"]]
    assert enc.ids == [10, 4, 12, 12, 9]
    # Each span covers the input characters the token came from: both pieces of the ligature
    # span the ligature itself (never an empty span).
    assert enc.spans == [(0, 5), (6, 7), (6, 7), (7, 8), (8, 9)]
    assert [text[s:e] for s, e in enc.spans] == ["CAFE\u0301", "ﬁ", "ﬁ", "n", "e"]
    assert tok.decode(enc.ids) == "café f<unk><unk>e"


def test_unknown_characters_become_unk_in_text_mode(text_level):
    enc = text_level.encode("fox ж")
    assert enc.tokens[-1] == "<unk>" and enc.ids[-1] == text_level.unk_id
    assert enc.spans[-1] == (4, 5)


def test_bytes_mode_has_no_unknown(byte_level):
    assert byte_level.unk_id is None
    enc = byte_level.encode("ж𝔘\x00")
    assert byte_level.decode(enc.ids) == "ж𝔘\x00"


def test_decode_rejects_unknown_ids(byte_level):
    with pytest.raises(BPEError, match="not in this tokenizer"):
        byte_level.decode([10**9])


def test_long_sequences_use_the_heap_encoder_with_identical_results(text_level):
    rng = random.Random(7)
    text = "".join(rng.choice(CORPUS) for _ in range(3000))
    symbols = list(text)
    assert encode_ranked(symbols, text_level.table) == encode_replay(symbols, text_level.merges)
    for limit in (0, 1, 17, 60):
        assert encode_ranked(symbols, text_level.table, limit=limit) == encode_replay(
            symbols, text_level.merges[:limit]
        )


def test_limit_shows_the_word_as_training_went(seed000):
    tok = train(seed000, merges=10)
    timeline = [tok.encode_word("lowest", limit=k) for k in range(11)]
    assert timeline[0] == ["l", "o", "w", "e", "s", "t", "</w>"]
    assert timeline[1] == ["l", "o", "we", "s", "t", "</w>"]
    assert timeline[10] == ["lo", "we", "st</w>"]
    assert tok.encode("lowest", limit=3).tokens == ["l", "o", "we", "st</w>"]


def test_merge_steps_list_the_merges_that_fire(seed000):
    tok = train(seed000, merges=10)
    steps = tok.merge_steps("lowest")
    assert [(s.rank, s.left, s.right) for s in steps] == [
        (0, "w", "e"),
        (1, "t", "</w>"),
        (2, "s", "t</w>"),
        (6, "l", "o"),
    ]
    assert steps[-1].pieces == ("lo", "we", "st</w>")


def test_merge_tree_goes_down_to_base_symbols(seed000):
    tok = train(seed000, merges=10)
    tree = merge_tree(tok, "newest</w>")
    assert tree.rank == 7 and tree.left.token == "newe" and tree.right.token == "st</w>"
    assert tree.leaves() == ["n", "e", "w", "e", "s", "t", "</w>"]
    assert tree.depth() == 3
    assert merge_tree(tok, "w").is_base


def test_dropout_is_seeded_and_bounded(seed000):
    tok = train(seed000, merges=10)
    assert tok.dropout("lowest", p=0.0, samples=3) == [["lo", "we", "st</w>"]] * 3
    assert tok.dropout("lowest", p=1.0, samples=1) == [list("lowest") + ["</w>"]]
    a = tok.dropout("lowest", p=0.3, seed=5, samples=50)
    assert a == tok.dropout("lowest", p=0.3, seed=5, samples=50)
    assert len({tuple(s) for s in a}) > 1
    assert all("".join(s) == "lowest</w>" for s in a)
    with pytest.raises(ValueError):
        tok.dropout("lowest", p=1.5)


@pytest.mark.parametrize("text", ["a\uffffb c é", "\uffff", "x \uffff\uffff y\n\uffff"])
def test_new_words_holding_the_joiner_of_a_pass_encode_as_one_by_one(byte_level, text):
    """`encode_ids` makes the byte symbols of a text's new words in one pass, joined by U+FFFF; words
    that hold it are made one by one, as `encode` makes every word."""
    byte_level.clear_cache()
    ids = byte_level.encode_ids(text)
    assert ids == byte_level.encode(text).ids
    assert byte_level.decode(ids) == text
