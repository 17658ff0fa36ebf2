"""The incremental trainer against the lessons' recount-everything trainer, on random corpora."""
from __future__ import annotations

from array import array
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import Settings, encode_ranked, encode_replay, pair_index, train
from bpe_core.pretokenize import count_words, word_symbols
from bpe_core.reference import reference_steps, reference_train
from bpe_core.trainer import Descending, train_counts

# Few letters so that pairs repeat, overlap ("a a a") and tie often; capitals, a ligature, a
# combining accent, a digit and an apostrophe give lowercasing, NFKC and the GPT-2/GPT-4 splits
# something to do.
alphabet = st.sampled_from("aabbcé \n\tAÉﬁ\u03011'")
corpora = st.lists(st.text(alphabet, min_size=0, max_size=30), min_size=1, max_size=6)
SETTINGS = [
    Settings(mode=mode, eow=eow, pretokenizer=pre, tie_break=tie, **extra)
    for tie in ("count-pair", "first", "hf")
    for mode, eow, pre, extra in [
        ("word", "separate", "", {}),
        ("word", "suffix", "", {}),
        ("word", "none", "", {}),
        ("word", "separate", "", {"lowercase": True}),
        ("word", "suffix", "", {"normalization": "NFKC", "min_frequency": 2}),
        ("text", "separate", "none", {}),
        ("text", "separate", "whitespace", {}),
        ("text", "separate", "gpt2", {}),
        ("text", "separate", "gpt4", {"lowercase": True, "normalization": "NFC"}),
        ("text", "separate", "none", {"min_frequency": 3}),
        ("bytes", "separate", "gpt2", {}),
        ("bytes", "separate", "gpt4", {}),
        ("bytes", "separate", "none", {"normalization": "NFKC", "lowercase": True, "min_frequency": 2}),
    ]
]
PROFILE = dict(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25))
def test_incremental_equals_reference(texts, which, merges):
    counts = count_words(texts, which)
    if not counts:
        return
    fast = train_counts(counts, which, merges=merges)
    slow = reference_train(counts, which, merges=merges)
    assert [(m.left, m.right, m.count, m.total_tokens) for m in fast.trace] == slow


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25), longest=st.integers(1, 9))
def test_longest_token_limit_equals_reference(texts, which, merges, longest):
    """Pairs whose token would be too long are never merged, nor shown among the top pairs."""
    counts = count_words(texts, which)
    if not counts:
        return
    fast = train_counts(counts, which, merges=merges, max_token_length=longest, top_k=4)
    steps = reference_steps(counts, which, merges=merges, max_token_length=longest)
    assert [(m.left, m.right, m.count, m.total_tokens) for m in fast.trace] == [
        (*ranked[0], total) for ranked, total in steps
    ]
    assert fast.top_pairs == [ranked[:4] for ranked, _ in steps]
    assert all(len(m.token) <= longest for m in fast.trace)


def test_the_longest_token_limit_says_why_training_stopped():
    tok = train("abcabcabc abcabcabc", Settings(mode="text"), merges=50, max_token_length=4)
    assert tok.merges == [("b", "c"), ("a", "bc"), ("abc", " ")]
    assert (
        tok.training.stop_reason == "every pair left would make a token longer than 4 characters, the longest allowed"
    )
    unlimited = train("abcabcabc abcabcabc", Settings(mode="text"), merges=50, max_token_length=None)
    assert unlimited.merges[-1][0] + unlimited.merges[-1][1] == "abcabcabc abcabcabc"


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25), top_k=st.integers(1, 12))
def test_top_pairs_are_the_reference_ranking(texts, which, merges, top_k):
    """The bar chart's pairs at each step are the highest pairs a full recount gives, in order."""
    counts = count_words(texts, which)
    if not counts:
        return
    fast = train_counts(counts, which, merges=merges, top_k=top_k)
    steps = reference_steps(counts, which, merges=merges)
    assert fast.top_pairs == [ranked[:top_k] for ranked, _ in steps]


@pytest.mark.parametrize(
    "which",
    [
        Settings(mode="word", eow="suffix", tie_break="count-pair"),
        Settings(mode="word", eow="none", tie_break="hf"),
        Settings(mode="text", pretokenizer="none", tie_break="first"),
        Settings(mode="bytes", pretokenizer="gpt2", tie_break="hf"),
    ],
    ids=lambda s: f"{s.mode}-{s.tie_break}",
)
def test_long_training_equals_reference(which):
    """Hundreds of merges on a few thousand characters: counts fall to 1, so stale index positions,
    overstated heap entries and ties all occur many times over."""
    import random

    rng = random.Random(11)
    syllables = ["lo", "w", "er", "ne", "st", "wi", "d", "a", "aa", " ", " ", "\n", "é", "日本"]
    text = "".join(rng.choice(syllables) for _ in range(2500))
    counts = count_words([text], which)
    fast = train_counts(counts, which, merges=400, top_k=5)
    steps = reference_steps(counts, which, merges=400)
    assert len(fast.trace) > 300
    assert [(m.left, m.right, m.count, m.total_tokens) for m in fast.trace] == [
        (*ranked[0], total) for ranked, total in steps
    ]
    assert fast.top_pairs == [ranked[:5] for ranked, _ in steps]


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25), data=st.data())
def test_ranked_encoder_equals_replay(texts, which, merges, data):
    if not count_words(texts, which):
        return
    tok = train(texts, which, merges=merges)
    word = data.draw(st.text(alphabet, max_size=40))
    symbols = tok.initial_symbols(word)
    assert encode_ranked(symbols, tok.table) == encode_replay(symbols, tok.merges)
    limit = data.draw(st.integers(0, len(tok.merges)))
    assert encode_ranked(symbols, tok.table, limit=limit) == encode_replay(symbols, tok.merges[:limit])


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25))
def test_trace_agrees_with_encoding_the_corpus(texts, which, merges):
    """The trace's compression curve is what encoding the corpus words after t merges gives."""
    counts = count_words(texts, which)
    if not counts:
        return
    tok = train(texts, which, merges=merges)
    for m in tok.trace[:: max(1, len(tok.trace) // 4)]:
        lengths = {w: len(encode_ranked(word_symbols(w, which), tok.table, limit=m.rank + 1)) for w in counts}
        assert m.total_tokens == sum(lengths[w] * n for w, n in counts.items())
        assert m.multi_token_words == sum(1 for w in counts if lengths[w] > 1)
    usage: dict[str, int] = {}
    for w, n in counts.items():
        for t in encode_ranked(word_symbols(w, which), tok.table):
            usage[t] = usage.get(t, 0) + n
    assert tok.training.final_usage == usage


def test_min_frequency_stops_training():
    tok = train("ab ab ab cd cd ef", Settings(min_frequency=3), merges=50)
    assert all(m.count >= 3 for m in tok.trace)
    assert "at least 3" in tok.training.stop_reason


def test_same_corpus_same_merges_whatever_the_word_order():
    a = train("x y low lower newest low", merges=8)
    b = train("newest low lower low y x", merges=8)
    assert a.merges == b.merges


def test_top_pairs_start_with_the_merged_pair_and_are_sorted(seed000):
    tok = train(seed000, merges=10)
    for m in tok.trace:
        top = tok.top_pairs_at(m.rank)
        assert top[0] == (m.left, m.right, m.count)
        assert [c for *_, c in top] == sorted((c for *_, c in top), reverse=True)
    assert [(a, b) for a, b, _ in tok.top_pairs_at(0)][:4] == [("w", "e"), ("t", "</w>"), ("s", "t"), ("n", "e")]


def test_merges_visit_only_where_their_pair_occurs():
    """One long text (text mode, no pre-tokenizer) is trained without rescanning it per merge."""
    import random

    rng = random.Random(3)
    words = ["lower", "newest", "widest", "hug", "love", "the", "and"]
    text = " ".join(rng.choice(words) for _ in range(4000))
    tok = train(text, Settings(mode="text"), merges=300)
    stats = tok.training.stats
    assert stats["positions"] == len(text)
    # A rescan per merge would look at merges x positions; each merge here sees only its pair's
    # occurrences, which together can never exceed the characters merged away plus overlaps.
    assert stats["positions_visited"] < 2 * len(text)
    assert len(tok.merges) * stats["positions"] > 100 * stats["positions_visited"]


@hyp_settings(max_examples=300, deadline=None)
@given(data=st.data(), symbols=st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=8, unique=True))
def test_descending_keys_order_tokens_backwards(data, symbols):
    """The count-pair tie-break's keys: a < b exactly when key(a) > key(b), for any tokens made of
    the base symbols (prefixes and characters beyond the BMP included)."""
    key = Descending(symbols)
    tokens = data.draw(
        st.lists(st.lists(st.sampled_from(symbols), min_size=1, max_size=5).map("".join), min_size=2, max_size=8)
    )
    for a in tokens:
        for b in tokens:
            assert (a < b) == (key(a) > key(b))
            assert (a == b) == (key(a) == key(b))


def test_long_text_mode_tokens_keep_training_memory_near_their_own_size():
    """Text without pre-tokenization repeats whole passages, and its tokens grow as long as they
    are: training must hold about what the tokens themselves take, not tens of bytes a character."""
    import tracemalloc

    passage = "The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. " * 3
    text = "".join(passage + f" [{i}] " for i in range(60))  # a passage repeated, with small gaps
    tracemalloc.start()
    try:
        tok = train(text, Settings(mode="text"), merges=2500, max_token_length=None)  # pairs run out after 197
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    token_chars = sum(len(m.token) for m in tok.trace)
    assert max(len(m.token) for m in tok.trace) > 200  # whole passages became tokens
    assert token_chars == 890_792
    # The tokens (one byte a character here), their sort keys (the same) and the corpus's index:
    # about 3 bytes a token character (3.0 MB). Sort keys of one int a character took 42 (38 MB).
    assert peak < 6 * token_chars


@hyp_settings(**PROFILE)
@given(texts=corpora, which=st.sampled_from(SETTINGS), merges=st.integers(0, 25))
def test_both_layouts_of_the_index_train_alike(texts, which, merges):
    """A long text's index keeps arrays (a quarter of the memory), a short one lists: the same
    merges, runners-up, counts and usage either way, and the reference's merges."""
    counts = count_words(texts, which)
    if not counts:
        return
    with patch.object(pair_index, "LEAN_POSITIONS", -1):
        lean = train_counts(counts, which, merges=merges)
    with patch.object(pair_index, "LEAN_POSITIONS", 10**9):
        lists = train_counts(counts, which, merges=merges)
    assert (lean.trace, lean.top_pairs, lean.final_usage, lean.stats) == (
        lists.trace, lists.top_pairs, lists.final_usage, lists.stats)
    assert [(m.left, m.right, m.count, m.total_tokens) for m in lean.trace] == reference_train(
        counts, which, merges=merges)


def test_a_long_text_is_indexed_in_arrays_and_a_short_one_in_lists():
    settings = Settings(mode="text", pretokenizer="none")
    for text, lean in (("the cat sat " * 100_000, True), ("the cat sat " * 1_000, False)):
        base, sym, lengths, weights = pair_index.symbol_ids({text: 1}, settings)
        index = pair_index.PairIndex(sym, lengths, weights, len(base))
        assert index.lean is lean
        assert all(isinstance(x, array if lean else list) for x in (index.sym, index.nxt, index.prv, index.wt))
        assert all(isinstance(x, array if lean else list) for x in index.where.values())
        # "t" + "h" at every "the": positions 0, 12, 24, ...
        the = next(k for k in index.where if (base[k >> pair_index.SHIFT], base[k & pair_index.MASK]) == ("t", "h"))
        assert list(index.where[the][:3]) == [0, 12, 24] and index.counts[the] == len(text) // 12
