"""Greedy longest match, bounded by the longest token and a cap on characters per word."""
from __future__ import annotations

import random
from itertools import accumulate

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import Settings, train
from bpe_core.analysis.longest_match import (
    WORD_CAP,
    GreedyComparison,
    GreedyVocabulary,
    compare,
    differences,
    longest_match,
)
from tests.conftest import SEED000


def unbounded(symbols: list[str], vocab: set[str]) -> list[str]:
    """The definition, with no bound: at each point try every longer run."""
    out, i = [], 0
    while i < len(symbols):
        end = i + 1
        for j in range(i + 2, len(symbols) + 1):
            if "".join(symbols[i:j]) in vocab:
                end = j
        out.append("".join(symbols[i:end]))
        i = end
    return out


@pytest.fixture(scope="module")
def plain():
    # The lessons' "common mistake": seed 000 without an end-of-word marker, 10 merges.
    return train(SEED000, Settings(eow="none"), merges=10)


def test_the_lessons_longest_match_mistake(plain):
    row = compare(plain, "lower")
    assert row == GreedyComparison(
        word="lower", bpe=["lo", "we", "r"], greedy=["low", "e", "r"], capped=False, length=5
    )
    assert row.differs
    assert differences(plain, ["newer", "lower", "lower"]) == [row]
    assert not compare(plain, "newer").differs


def test_basics():
    assert longest_match([], {"a"}) == []
    assert longest_match(["a", "b", "c"], {"abc", "ab"}) == ["abc"]
    assert longest_match(["x", "y"], set()) == ["x", "y"]
    assert longest_match(["l", "o", "w", "e", "r"], {"lo", "low", "we"}) == ["low", "e", "r"]
    # Runs are whole symbols: "w</w>" is one symbol, so "w<" can never match.
    assert longest_match(["n", "e", "w</w>"], {"new", "ne", "new</w>"}) == ["new</w>"]
    assert longest_match(["n", "e", "w</w>"], {"new", "ne", "w<"}) == ["ne", "w</w>"]


@hyp_settings(max_examples=300, deadline=None)
@given(
    symbols=st.lists(st.sampled_from(["a", "b", "c", "ab", "</w>"]), max_size=30),
    vocab=st.sets(st.text(alphabet="abc</w>", min_size=1, max_size=8), max_size=25),
)
def test_bounded_search_equals_the_definition(symbols, vocab):
    assert longest_match(symbols, vocab) == unbounded(symbols, vocab)
    assert longest_match(symbols, GreedyVocabulary.of(vocab)) == unbounded(symbols, vocab)


def test_a_long_word_is_cut_at_the_cap_and_says_so(plain):
    word = "lower" * 1000
    row = compare(plain, word, cap=12)
    assert row.word == "lowerlowerlo" and row.capped and row.length == 5000
    assert row.bpe == plain.encode_word("lowerlowerlo")
    assert row.greedy == ["low", "e", "r", "low", "e", "r", "lo"]
    assert not compare(plain, "lower", cap=5).capped
    assert WORD_CAP == 2_000
    assert compare(plain, word).word == word[:WORD_CAP]


def test_a_five_megabyte_single_word_finishes():
    # Text mode without a pre-tokenizer: the whole corpus is one word.
    rng = random.Random(8)
    words = ["the", "tokenizer", "merges", "pairs", "of", "symbols", "into", "longer", "tokens"]
    corpus = " ".join(rng.choice(words) for _ in range(40_000))
    tok = train(corpus, Settings(mode="text"), merges=300)
    big = (corpus * (5_000_000 // len(corpus) + 1))[:5_000_000]
    row = compare(tok, big)
    assert row.capped and row.length == 5_000_000 and len(row.word) == WORD_CAP
    assert "".join(row.bpe) == "".join(row.greedy) == big[:WORD_CAP]
    # Uncapped, the bounded search is linear in the word: a quarter megabyte in one pass, and
    # equal to the definition wherever no token could reach past the part the definition saw.
    quarter = big[:250_000]
    known = GreedyVocabulary.of_tokenizer(tok)
    pieces = longest_match(tok.initial_symbols(quarter), known)
    assert "".join(pieces) == quarter
    head = unbounded(tok.initial_symbols(quarter[:3000]), set(known.tokens))
    safe = [p for p, end in zip(head, accumulate(map(len, head))) if end <= 3000 - known.longest]
    assert len(safe) > 100
    assert pieces[: len(safe)] == safe
