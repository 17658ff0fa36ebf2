"""Unigram's merged prefix lattice against the words' own lattices, one by one."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.families.unigram_lattice import Edge, build_edges, build_edges_closed, expected_counts_log, viterbi
from bpe_core.families.unigram_text import META
from bpe_core.families.unigram_train import train_pieces
from bpe_core.families.unigram_trie import PrefixLattice
from sample_corpora import load_corpus

# Words may repeat and may be empty: `train_pieces` is public and takes any lists.
WORDS = st.lists(st.text(alphabet="ab▁c", min_size=0, max_size=9), min_size=1, max_size=8)
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


def expected_word_by_word(words: Sequence[str], counts: Sequence[int], lattices: Sequence[Sequence[Edge]],
                          weight: Sequence[float], log_scores: Sequence[float],
                          lam: float) -> tuple[list[float], list[float]]:
    """The E-step as it was before the shared lattice: forward-backward over each word's own lattice."""
    expected = [0.0] * len(weight)
    terms = []
    for word, count, edges in zip(words, counts, lattices):
        n = len(word)
        alpha = [0.0] * (n + 1)
        alpha[0] = 1.0
        for s, e, p in edges:
            alpha[e] += alpha[s] * weight[p]
        z = alpha[n]
        if not 1e-250 < z < 1e250:
            posts, log_z = expected_counts_log(n, edges, log_scores)
            for (_, _, p), post in zip(edges, posts):
                expected[p] += post * count
            terms.append(count * log_z)
            continue
        terms.append(count * (math.log(z) - lam * n))
        beta = [0.0] * (n + 1)
        beta[n] = count / z
        for s, e, p in reversed(edges):
            x = weight[p] * beta[e]
            beta[s] += x
            expected[p] += alpha[s] * x
    return expected, terms


def uses_word_by_word(words: Sequence[str], counts: Sequence[int], lattices: Sequence[Sequence[Edge]],
                      scores: Sequence[float]) -> list[int]:
    uses = [0] * len(scores)
    for word, count, edges in zip(words, counts, lattices):
        for _, _, p in viterbi(len(word), edges, scores)[0]:
            uses[p] += count
    return uses


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
    shared, terms = lattice.expected_counts(counts, weight, scores, ids, lam)
    expected, their_terms = expected_word_by_word(words, counts, lattices, weight, scores, lam)
    assert terms == their_terms  # the forward values are the same floats
    assert shared == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert lattice.viterbi_uses(counts, scores) == uses_word_by_word(words, counts, lattices, scores)  # ties alike


@given(WORDS, st.integers(min_value=1, max_value=4), SCORES, st.sets(st.integers(min_value=0, max_value=63)))
def test_dead_pieces_lose_their_edges_and_nothing_else_changes(
        words: list[str], max_len: int, levels: list[float], dead: set[int]) -> None:
    ids = pieces_of(words, max_len, closed=True)
    live = [len(p) == 1 or i not in dead for p, i in ids.items()]  # characters always live, as in training
    scores = [levels[i % len(levels)] if live[i] else -math.inf for i in range(len(ids))]
    weight = [math.exp(s) if live[i] else 0.0 for i, s in enumerate(scores)]
    live_ids = {p: i for p, i in ids.items() if live[i]}
    counts = [len(w) + 1 for w in words]
    lattice = PrefixLattice(words, ids, max_len, closed=True)
    lattice.keep(live)
    assert all(live[p] for _, _, p in lattice.edges)
    lattices = [[e for e in edges if live[e[2]]] for edges in one_by_one(words, ids, max_len, closed=True)]
    shared, terms = lattice.expected_counts(counts, weight, scores, live_ids, 0.0)
    expected, their_terms = expected_word_by_word(words, counts, lattices, weight, scores, 0.0)
    assert terms == their_terms and shared == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert lattice.viterbi_uses(counts, scores) == uses_word_by_word(words, counts, lattices, scores)


def test_shared_prefixes_are_indexed_once() -> None:
    words = ["▁the", "▁there", "▁these", "▁a", "▁the"]
    ids = pieces_of(words, 1, closed=True)  # characters only: one edge per character
    lattice = PrefixLattice(words, ids, 1, closed=True)
    assert lattice.nodes == 1 + len("▁there") + len("se") + len("a")
    assert len(lattice.edges) == lattice.nodes - 1
    assert lattice.word_nodes[0] == lattice.word_nodes[4]  # a word given twice is one node, counted twice
    assert lattice.viterbi_uses([1, 1, 1, 1, 2], [-1.0] * len(ids))[ids["t"]] == 1 + 1 + 1 + 2


@pytest.mark.parametrize(("words", "weights"), [
    (["a" * 400, "ab"], [-3.0, -1.0, -2.0]),  # the long word's total underflows: its own lattice in log space
    (["a" * 400, "a" * 400 + "b", "ab", "b"], [25.0, -1.0, 30.0]),  # a prefix overflows to infinity
    (["a" * 400, "a" * 400 + "b" * 26, "", "ab"], [-3.0, -1.0, -2.0]),  # a log-space word is another's prefix
])
def test_a_word_whose_total_leaves_the_float_range_is_redone_in_log_space(words: list[str],
                                                                            weights: list[float]) -> None:
    ids = {"a": 0, "b": 1, "aa": 2}
    scores = weights
    weight = [math.exp(s) for s in scores]  # no length scaling, so that long words leave the range
    counts = [k + 1 for k in range(len(words))]
    lattice = PrefixLattice(words, ids, 2, closed=False)
    shared, terms = lattice.expected_counts(counts, weight, scores, ids, 0.0)
    expected, their_terms = expected_word_by_word(words, counts, one_by_one(words, ids, 2, closed=False), weight,
                                                  scores, 0.0)
    assert all(math.isfinite(x) for x in shared + terms)
    assert shared == pytest.approx(expected, rel=1e-12)
    assert terms == pytest.approx(their_terms, rel=1e-12)
    characters = sum(c * len(w) for w, c in zip(words, counts))
    assert shared[0] + shared[1] + 2 * shared[2] == pytest.approx(characters)  # every character covered once


def test_a_long_run_of_one_character_leaves_the_shared_pass_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A separator line ("=" * 1000) overflows its prefixes: that word alone is redone in log space,
    the others stay in the shared pass (not every word, every step, word by word)."""
    from bpe_core.families import unigram_trie

    redone: list[int] = []
    real = unigram_trie.expected_counts_log
    monkeypatch.setattr(unigram_trie, "expected_counts_log",
                        lambda length, *args: redone.append(length) or real(length, *args))
    counts = Counter(META + w for w in load_corpus("english")[:5_000].split())
    counts["=" * 1000] = 1
    pieces, trace = train_pieces(list(counts), list(counts.values()), vocab_size=300)
    assert redone and set(redone) == {1000}
    assert trace[-1].vocab_size == 300 and all(math.isfinite(r.log_likelihood) for r in trace)
    assert "=" in dict(pieces) and all(math.isfinite(s) for _, s in pieces)
