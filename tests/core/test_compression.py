"""The compression curve and the collapse step (bpe_core.analysis.compression), from the training trace."""
from __future__ import annotations

import pytest

from bpe_core import Settings, train, train_from_counts
from bpe_core.analysis import Curve, collapse_step, compression_curve
from bpe_core.pretokenize import count_words, counted_word_text
from sample_corpora import load_corpus
from tests.conftest import SEED000


def curve_of(texts: list[str], settings: Settings, merges: int) -> tuple[Curve, int | None]:
    counts = count_words(texts, settings)
    result = train_from_counts(counts, settings, merges=merges).training
    return compression_curve(result, counts, settings), collapse_step(result)


def test_curve_and_collapse():
    curve, collapse = curve_of([load_corpus("seed000")], Settings(), 10)
    assert curve.steps == 10
    assert curve.total_tokens[0] == 109 and curve.total_tokens[1] == 100
    assert curve.tokens_per_word[0] == pytest.approx(109 / 19)
    assert collapse is None  # 10 merges are not enough
    twenty, collapse = curve_of([SEED000], Settings(), 20)
    assert collapse == 18 and twenty.multi_token_words[18] == 0


def test_collapse_step_is_the_first_step_with_no_multi_token_word():
    result = train("low low lower", merges=8).training  # stops after 6: every word is one token
    assert [m.multi_token_words for m in result.trace] == [2, 2, 1, 1, 1, 0]
    assert collapse_step(result) == 6
    assert collapse_step(train("a a b", Settings(eow="suffix"), merges=3).training) == 0  # "a</w>": one token already
    assert collapse_step(None) is None  # a tokenizer read from a file has no training record


def test_curve_knows_characters_and_whether_words_exist():
    curve, _ = curve_of([load_corpus("seed000")], Settings(), 10)
    assert curve.characters == 90 and curve.has_words  # 19 words, spaces not counted
    assert curve.tokens_per_character(0) == pytest.approx(109 / 90)
    whole, _ = curve_of(["ab" * 400], Settings(mode="text"), 3)
    assert whole.characters == 800 and not whole.has_words  # one "word": per word means nothing
    split, _ = curve_of(["low lower"], Settings(mode="text", pretokenizer="gpt2"), 3)
    assert split.characters == 9 and split.has_words


def test_bytes_mode_curve_counts_bytes_and_words_read_back_as_text():
    settings = Settings(mode="bytes")
    curve, _ = curve_of(["héllo héllo wörld"], settings, 5)
    assert curve.characters == 20  # bytes: é and ö are two each
    counts = count_words(["héllo héllo wörld"], settings)
    assert [(counted_word_text(w, settings), n) for w, n in counts.most_common()] == [
        ("héllo", 1), (" héllo", 1), (" wörld", 1)]  # gpt2 keeps the leading space
    assert counted_word_text("héllo", Settings()) == "héllo"  # other modes count text as it is
