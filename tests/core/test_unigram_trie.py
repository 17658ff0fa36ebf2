"""Unigram's merged prefix lattice against the words' own lattices, one by one."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.families.unigram_lattice import Edge, build_edges, build_edges_closed, viterbi
from bpe_core.families.unigram_text import META
from bpe_core.families.unigram_train import _e_step_words, train_pieces
from bpe_core.families.unigram_trie import PrefixLattice

WORDS = st.lists(st.text(alphabet="ab▁c", min_size=1, max_size=9), min_size=1, max_size=8, unique=True)
# a few score levels, so that many segmentations tie
SCORES = st.lists(st.sampled_from([-1.0, -2.0, -2.5, -4.0]), min_size=64, max_size=64)


def pieces_of(words: list[str], max_len: int, *, closed: bool) -> dict[str, int]:
    """Every substring of the words up to ``max_len`` (closed under suffixes), or every other one."""
    texts = sorted({w[i:j] for w in words for i in range(len(w)) for j in range(i + 1, min(len(w), i + max_len) + 1)})
    if not closed:  # a set that is not closed under suffixes: the characters and every other longer text
        texts = [t for k, t in enumerate(texts) if len(t) == 1 or k % 2]
    return {t: i for i, t in enumerate(texts)}


def one_by_one(words: list[str], ids: dict[str, int], max_len: int, *, closed: bool) -> list[list[Edge]]:
    build = build_edges_closed if closed else build_edges
    return [build(w, ids, max_len) for w in words]


@given(WORDS, st.integers(min_value=1, max_value=5), st.booleans(), SCORES,
       st.lists(st.integers(min_value=1, max_value=50), min_size=8, max_size=8))
def test_the_merged_lattice_computes_what_each_words_lattice_does(
        words: list[str], max_len: int, closed: bool, levels: list[float], counts: list[int]) -> None:
    ids = pieces_of(words, max_len, closed=closed)
    counts = counts[:len(words)]
    scores = [levels[i % len(levels)] for i in range(len(ids))]
    lam = 0.7
    weight = [math.exp(s + lam * len(p)) for p, s in zip(ids, scores)]
    lattice = PrefixLattice(words, ids, max_len, closed=closed)
    lattices = one_by_one(words, ids, max_len, closed=closed)
    shared = lattice.expected_counts(words, counts, weight, scores, ids, lam)
    assert shared is not None
    expected, terms = _e_step_words(words, counts, lattices, weight, scores, lam)
    assert shared[1] == terms  # the forward values are the same floats
    assert shared[0] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    uses = [0] * len(ids)
    for word, count, edges in zip(words, counts, lattices):
        for _, _, p in viterbi(len(word), edges, scores)[0]:
            uses[p] += count
    assert lattice.viterbi_uses(counts, scores) == uses  # ties broken alike


def test_shared_prefixes_are_indexed_once() -> None:
    words = ["▁the", "▁there", "▁these", "▁a"]
    ids = pieces_of(words, 1, closed=True)  # characters only: one edge per character
    lattice = PrefixLattice(words, ids, 1, closed=True)
    assert lattice.nodes == 1 + len("▁there") + len("se") + len("a")
    assert len(lattice.edges) == lattice.nodes - 1
    assert sum(len(e) for e in one_by_one(words, ids, 1, closed=True)) == sum(map(len, words))


def test_dead_pieces_lose_their_edges_and_weigh_nothing() -> None:
    words = ["▁ab", "▁abc", "▁b"]
    ids = pieces_of(words, 3, closed=True)
    lattice = PrefixLattice(words, ids, 3, closed=True)
    live = [len(p) == 1 or p == "ab" for p in ids]
    lattice.keep(live)
    assert {p for p, i in ids.items() if any(e[2] == i for e in lattice.edges)} == {"▁", "a", "b", "c", "ab"}


def test_a_word_whose_total_leaves_the_float_range_is_redone_in_log_space() -> None:
    words = ["a" * 400, "ab"]
    ids = {"a": 0, "b": 1, "aa": 2}
    scores = [-3.0, -1.0, -2.0]
    weight = [math.exp(s) for s in scores]  # no length scaling: the long word's total underflows
    lattice = PrefixLattice(words, ids, 2, closed=False)
    shared = lattice.expected_counts(words, [1, 1], weight, scores, ids, 0.0)
    assert shared is not None
    expected, terms = _e_step_words(words, [1, 1], one_by_one(words, ids, 2, closed=False), weight, scores, 0.0)
    assert shared[0] == pytest.approx(expected, rel=1e-12)
    assert shared[1] == pytest.approx(terms, rel=1e-12)
    assert expected[0] + 2 * expected[2] == pytest.approx(401)  # every character of both words is covered


def test_an_overflowing_prefix_sends_the_step_word_by_word() -> None:
    words = ["a" * 400]
    ids = {"a": 0}
    lattice = PrefixLattice(words, ids, 1, closed=True)
    assert lattice.expected_counts(words, [1], [1e10], [math.log(1e10)], ids, 0.0) is None


def test_training_word_by_word_after_an_overflow_gives_the_same_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "the cat sat on the mat the dog ran in the park cats and dogs are pets"
    words = list(dict.fromkeys(META + w for w in text.split(" ")))
    counts = [len(w) % 4 + 1 for w in words]
    shared, shared_trace = train_pieces(words, counts, vocab_size=30)
    monkeypatch.setattr(PrefixLattice, "expected_counts", lambda *args: None)
    alone, alone_trace = train_pieces(words, counts, vocab_size=30)
    assert [p for p, _ in alone] == [p for p, _ in shared]
    assert [s for _, s in alone] == pytest.approx([s for _, s in shared], rel=1e-9)
    assert [r.removed for r in alone_trace] == [r.removed for r in shared_trace]
