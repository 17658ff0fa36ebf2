"""The common mistakes (bpe_core.analysis.mistakes) on seed 000's corpus, right against wrong."""
from __future__ import annotations

import pytest

from bpe_core import Settings, Tokenizer, train
from bpe_core.analysis import mistakes
from bpe_core.analysis.longest_match import WORD_CAP, differences
from sample_corpora import load_corpus


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    """Seed 000's lesson: 10 merges with </w>."""
    return train(load_corpus("seed000"), merges=10)


@pytest.fixture(scope="module")
def plain() -> Tokenizer:
    """The same 10 merges trained with no end-of-word marker."""
    return train(load_corpus("seed000"), Settings(eow="none"), merges=10)


def test_try_it_yourself():
    tried = mistakes.try_it_yourself(load_corpus("seed000"), "lowest lowest lowest")
    assert [t for t, _ in tried.before] == ["we", "t</w>", "st</w>", "ne", "w</w>", "newe", "lo", "newest</w>",
                                          "low</w>", "wi"]  # the lesson's 10 merges
    assert ("west</w>", 9) in tried.after and "west</w>" not in [t for t, _ in tried.before]
    assert (tried.collapse_before, tried.collapse_after) == (18, 19)


def test_with_extra_appends_to_the_last_line():
    assert mistakes.with_extra(load_corpus("seed000"), "lowest lowest lowest").endswith(
        "new new newer lowest lowest lowest\n")


def test_wrong_orders_change_segmentations(tok):
    for name, order in mistakes.wrong_orders(tok.merges).items():
        assert sorted(order) == sorted(tok.merges)
        rows = mistakes.order_rows(tok, ["newest", "lowest", "slow"], order)
        assert any(a != b for _, a, b in rows), name


def test_learned_order_replay_matches_ranked(tok):
    rows = mistakes.order_rows(tok, ["newest", "lowest", "wider", "slow"], tok.merges)
    assert all(a == b for _, a, b in rows)


def test_no_marker_makes_suffix_and_prefix_alike(tok, plain):
    rows = dict((w, b) for w, _, b in mistakes.marker_rows(tok, plain, ["west", "estate"]))
    assert rows["west"][-1] == "st" and "st" in rows["estate"]
    assert plain.decode(plain.encode("low est").ids) == "lowest"


def test_longest_match_differs_from_bpe(plain):
    (word, bpe, greedy), = mistakes.greedy_rows(plain, ["lower"])
    assert bpe == ["lo", "we", "r"] and greedy == ["low", "e", "r"]
    assert [(d.word, d.bpe, d.greedy) for d in differences(plain, ["newer", "lower", "lower"])] == [
        ("lower", bpe, greedy)]


def test_greedy_rows_cut_a_long_word_at_the_cap(plain):
    (word, bpe, greedy), = mistakes.greedy_rows(plain, ["lower" * 1000])
    assert word == ("lower" * 1000)[:WORD_CAP] and len(word) == 2_000
    assert greedy[:3] == ["low", "e", "r"] and len(greedy) == 3 * 400
    assert bpe == plain.encode_word(word)


def test_around_first_difference_keeps_context_and_says_what_it_cut():
    bpe, greedy = ["a", "b", "cd", "e", "f"], ["a", "b", "c", "de", "f"]
    assert mistakes.around_first_difference(bpe, greedy, context=1, chars=3) == (
        "bcde", ["b", "cd", "e"], ["b", "c", "de"], True, True)
    # Context reaching the start, and a stop at the end: nothing is cut.
    assert mistakes.around_first_difference(bpe, greedy, context=5, chars=60) == (
        "abcdef", bpe, greedy, False, False)


def test_mismatch_on_small_texts():
    english = "the cat sat on the mat and the dog sat on the log " * 40
    code = "def f(x): return x + 1\nfor i in range(10): print(f(i))\n" * 40
    result = mistakes.mismatch({"English": english, "code": code}, {"English": english, "code": code}, merges=40)
    assert result.fertility[0][0] < result.fertility[1][0]  # English text is cheaper for the English tokenizer
    assert result.fertility[1][1] < result.fertility[0][1]


def test_tokens_per_word(tok):
    assert mistakes.tokens_per_word(tok, "lowest newer") == len(tok.encode("lowest newer")) / 2 == 3.0
    assert mistakes.tokens_per_word(tok, "  ") == 0.0
