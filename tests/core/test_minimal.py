"""Minimal vs BPE: a shortest cut in the same vocabulary beside BPE's, for one word and a corpus."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, Tokenizer, train
from bpe_core.analysis import WordSplit, minimal_segmentation, minimal_vs_bpe, shortest_split
from bpe_core.builtin import load_builtin
from bpe_core.formats.tiktoken import tokenizer_from_ranks
from tests.conftest import require


def hand_built() -> Tokenizer:
    """Merges learned so that rank order misses the shorter cut: `b c` fires first, then nothing joins `bc`."""
    merges = [("b", "c"), ("a", "b"), ("d", "</w>"), ("c", "d</w>")]
    return Tokenizer(settings=Settings(), merges=merges, base=["</w>", "a", "b", "c", "d"])


def test_bpe_takes_three_pieces_where_two_suffice():
    tok = hand_built()
    assert tok.encode_word("abcd") == ["a", "bc", "d</w>"]
    assert minimal_segmentation(tok, "abcd") == ["ab", "cd</w>"]  # the marker is a symbol, as BPE has it


def test_corpus_report_counts_words_occurrences_and_extra_tokens():
    report = minimal_vs_bpe(hand_built(), "abcd ab abcd")
    assert (report.words, report.occurrences) == (2, 3)
    assert (report.bpe_tokens, report.minimal_tokens, report.extra_tokens) == (8, 6, 2)  # ab: ab </w>, both
    assert (report.affected_words, report.affected_occurrences) == (1, 2)
    assert report.examples == (WordSplit("abcd", 2, ("a", "bc", "d</w>"), ("ab", "cd</w>")),)
    assert report.examples[0].extra == 1
    assert not report.capped


def test_ties_take_the_longest_first_token():
    assert shortest_split(list("abcd"), {"ab", "cd", "abc"}) == ["abc", "d"]  # not ab + cd
    assert shortest_split(list("abcd"), {"ab", "cd"}) == ["ab", "cd"]
    assert shortest_split(list("abcde"), {"abc", "ab", "cde"}) == ["ab", "cde"]  # longest match first takes 3
    assert shortest_split(list("xyz"), set()) == ["x", "y", "z"]  # single symbols always allowed
    assert shortest_split([], {"a"}) == []


def test_unknown_token_is_never_used():
    tok = train("ab ab", merges=1)
    assert "<unk>" in tok.vocab
    assert minimal_segmentation(tok, "<unk>") == list("<unk>") + ["</w>"]


def test_caps_leave_out_long_and_rare_words_and_say_so():
    tok = hand_built()
    capped = minimal_vs_bpe(tok, "abcd abcd abcd ab ab c", max_symbols=4)  # abcd + </w> is 5 symbols
    assert (capped.long_words, capped.long_occurrences, capped.words, capped.occurrences) == (1, 3, 2, 3)
    assert capped.affected_words == 0 and capped.capped
    rare = minimal_vs_bpe(tok, "abcd abcd abcd ab ab c", max_words=2)
    assert (rare.rare_words, rare.rare_occurrences, rare.words) == (1, 1, 2)
    with pytest.raises(BPEError, match="max_words"):
        minimal_vs_bpe(tok, "abcd", max_words=0)


def rank_file_tokenizer() -> Tokenizer:
    """A rank file (tiktoken's rule): every byte, then `a` + é's first byte, then é's bytes + `b`."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"a\xc3": 256, "éb".encode(): 257})
    return tokenizer_from_ranks(ranks, pretokenizer="gpt2")


def test_byte_level_words_cut_on_bytes():
    tok = rank_file_tokenizer()
    assert tok.encode_word("aéb") == ["aÃ", "©", "b"]  # BPE cuts é between its two bytes
    assert minimal_segmentation(tok, "aéb") == ["a", "Ã©b"]  # byte symbols, as the vocabulary spells them
    report = minimal_vs_bpe(tok, "aéb aéb aéb")  # the words " aéb" (twice) and "aéb"
    assert (report.words, report.occurrences, report.affected_words, report.extra_tokens) == (2, 3, 2, 3)
    assert report.examples == (WordSplit(" aéb", 2, ("Ġ", "aÃ", "©", "b"), ("Ġ", "a", "Ã©b")),
                               WordSplit("aéb", 1, ("aÃ", "©", "b"), ("a", "Ã©b")))


def test_o200k_cuts_timedelta_in_two_where_bpe_takes_three():
    require("quicktok")
    tok = load_builtin("o200k_base")
    assert tok.encode_word(" Timedelta") == ["ĠTim", "ed", "elta"]
    assert minimal_segmentation(tok, " Timedelta") == ["ĠTime", "delta"]


def fewest_pieces(symbols: list[str], allowed) -> int:
    """Every cut of the word tried (short words only): the obviously-right minimum."""
    n = len(symbols)
    best = n
    for mask in range(1 << (n - 1)):
        cuts = [0] + [i + 1 for i in range(n - 1) if mask >> i & 1] + [n]
        pieces = ["".join(symbols[a:b]) for a, b in itertools.pairwise(cuts)]
        if all(b - a == 1 or p in allowed for p, (a, b) in zip(pieces, itertools.pairwise(cuts), strict=True)):
            best = min(best, len(pieces))
    return best


words = st.text(st.sampled_from("aab c"), min_size=1, max_size=7).filter(lambda w: w.strip() == w and w)
MODES = [Settings(), Settings(eow="suffix"), Settings(mode="text", pretokenizer="whitespace"),
         Settings(mode="bytes", pretokenizer="gpt2")]


@hyp_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.lists(words, min_size=1, max_size=8), merges=st.integers(0, 12), mode=st.sampled_from(MODES),
       word=words)
def test_minimal_is_never_longer_than_bpe_and_truly_minimal(corpus, merges, mode, word):
    tok = train(" ".join(corpus), merges=merges, settings=mode)
    for w in tok.words_of(word):
        symbols = tok.initial_symbols(w)
        cut = minimal_segmentation(tok, w)
        assert "".join(cut) == "".join(symbols)
        assert len(cut) <= len(tok.encode_word(w))
        allowed = {t for t in tok.vocab if t != tok.unk_token}
        assert len(cut) == fewest_pieces(symbols, allowed)


@hyp_settings(max_examples=200, deadline=None)
@given(symbols=st.lists(st.sampled_from("abc"), min_size=1, max_size=9),
       vocab=st.sets(st.text(st.sampled_from("abc"), min_size=2, max_size=5), max_size=12))
def test_shortest_split_against_every_cut(symbols, vocab):
    cut = shortest_split(symbols, vocab)
    assert "".join(cut) == "".join(symbols)
    assert all(len(p) == 1 or p in vocab for p in cut)
    assert len(cut) == fewest_pieces(symbols, vocab)
