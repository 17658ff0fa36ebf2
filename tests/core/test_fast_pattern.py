"""A split pattern's `re` twin cuts every text where `regex` cuts it (`bpe_core.fast_pattern`).

Checked for every pattern a built-in splits with, on real text, on every character of the Basic
Multilingual Plane in the contexts the patterns care about, on text with characters above it
(emoji, through stand-ins), and on random strings of the characters where the modules could
differ (case folding, spaces, marks, separators).
"""
from __future__ import annotations

import random
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.fast_pattern import TWIN_FROM, FastPattern, twin_of
from bpe_core.formats.builtin_parts import QWEN3_5_PATTERN
from bpe_core.parts.pretokenizers_onig import compile_onig
from bpe_core.pretokenize import GPT2_PATTERN, GPT4_PATTERN, LEADING_SPACE_PATTERN, O200K_PATTERN, QWEN_PATTERN
from tests.core.parts.test_ranks import sample_texts
from tests.core.test_builtin import LLAMA3_PATTERN

needs_possessive = pytest.mark.skipif(sys.version_info < (3, 11), reason="re has possessive repeats from 3.11")

# DeepSeek V4's three Split patterns, as its tokenizer.json spells them.
DEEPSEEK = [
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
]
PATTERNS = {
    "gpt2": regex.compile(GPT2_PATTERN),
    "cl100k": regex.compile(GPT4_PATTERN),
    "o200k": regex.compile(O200K_PATTERN),
    "qwen": regex.compile(QWEN_PATTERN),
    "leading space": regex.compile(LEADING_SPACE_PATTERN),
    "whitespace": regex.compile(r"[^\s\x1c-\x1f]+"),
    # The parts' patterns go through the Oniguruma rewrite, with full case folding.
    "llama3 (onig)": compile_onig(LLAMA3_PATTERN),
    "o200k (onig)": compile_onig(O200K_PATTERN),
    "qwen3.5 (onig)": compile_onig(QWEN3_5_PATTERN),
    **{f"deepseek {k} (onig)": compile_onig(p) for k, p in enumerate(DEEPSEEK)},
}
# Characters where `re` and `regex` could part: case folds ("ſ" is an "s"), the spaces and
# separators `str.split` and \s disagree on, marks, joiners, digits of other scripts.
TRICKY = ("'sStTdDmMlLvVrReEſKkßẞﬆİı \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u202f"
          "\u3000\u200b\u200c\u200d\u0301\u0903\u093f0123٣߀〇Ⅻ½aZ_-/.,!?()[]{}\\\"#<>|é中あアー가ÅǅⅠ")


def every_character_in_context() -> str:
    """Each character of the plane (but the surrogates) alone, after a space and a letter, before a
    letter, an apostrophe and a newline: long enough for the twin."""
    rng = random.Random(7)
    chars = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    out = []
    for ch in chars:
        out.append(rng.choice(["", " ", "a", "'", "\n", "  ", "A", "1"]) + ch + rng.choice(["", "a", "'", " ", "\n"]))
    return "".join(out)


@needs_possessive
@pytest.mark.parametrize("name", list(PATTERNS))
def test_every_built_in_pattern_has_a_twin_that_cuts_alike(name):
    rx = PATTERNS[name]
    fast = FastPattern(rx)
    assert fast.twin() is not None
    texts = {**sample_texts(), "plane": every_character_in_context()}
    for label, text in texts.items():
        assert fast.findall(text) == rx.findall(text), label
        assert [m.span() for m in fast.for_text(text).finditer(text)] == [m.span() for m in rx.finditer(text)], label


@needs_possessive
@pytest.mark.parametrize("name", ["cl100k", "o200k", "qwen3.5 (onig)", "gpt2"])
def test_text_with_characters_above_the_plane_is_cut_alike_through_stand_ins(name):
    rx = PATTERNS[name]
    fast = FastPattern(rx)
    emoji = "😀 Hi👋🏽 a𝐀𝐁c 𝟏𝟐3 𐍈x\U0001F1EB\U0001F1F7 👨\u200d👩\u200d👧 's😀 \U00020000中"
    text = (sample_texts()["prose"][:3000] + emoji) * 3
    assert len(text) >= TWIN_FROM and regex.search(r"[\U00010000-\U0010FFFF]", text)
    assert fast.findall(text) == rx.findall(text)
    twin = fast.twin()
    assert twin is not None and twin.standin("😀") is not None
    assert twin.findall_beyond(text) == rx.findall(text)  # the stand-in path itself, not a fallback


@needs_possessive
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(TRICKY + "😀𝐀"), min_size=1, max_size=80))
def test_random_text_of_tricky_characters_is_cut_alike(text):
    text = (text + " ") * (TWIN_FROM // (len(text) + 1) + 1)
    for name, rx in PATTERNS.items():
        assert FastPattern(rx).findall(text) == rx.findall(text), name


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"\bword\b", "word boundaries"),
        (r"(a)\1", "a backreference"),
        (r"(?x) a b", "a global flag"),
        (r"[[:alpha:]]", "a POSIX class"),
        (r"\X", "a grapheme cluster"),
        (r"(?i:é)", "a case-insensitive non-ASCII letter"),
    ],
)
def test_a_pattern_with_what_re_may_read_otherwise_has_no_twin_and_splits_by_regex(pattern, why):
    assert twin_of(pattern, regex.compile(pattern).flags) is None, why
    rx = regex.compile(pattern)
    text = "a word aa é É " * 300
    assert FastPattern(rx).findall(text) == rx.findall(text)


@needs_possessive
@pytest.mark.parametrize("pattern", [r"(?i:'ss)", r"(?i:st|ff)i", r"'(?i:[sdmt]|ll|ve|re)"])
def test_letters_that_a_character_folds_to_are_cut_alike_under_full_case_folding(pattern):
    # "ß" folds to "ss", "ﬆ" to "st", "ﬃ" to "ffi": the twin either agrees or is not made.
    rx = regex.compile(pattern, regex.FULLCASE)
    text = "'ß 'SS 'ss ﬆi sti ﬃ ﬀi ffi 'ſ 'İ " * 200
    assert FastPattern(rx).findall(text) == rx.findall(text)


@needs_possessive
def test_case_insensitive_letters_are_spelled_as_regex_folds_them():
    rx = regex.compile(GPT4_PATTERN)
    twin = FastPattern(rx).twin()
    assert twin is not None
    text = "'ſ 'S 'K 'LL 'Ve 'İ " * 200
    assert twin.rx.findall(text) == rx.findall(text)
    assert "'ſ" in twin.rx.findall(text)  # the long s folds to s, in both modules
