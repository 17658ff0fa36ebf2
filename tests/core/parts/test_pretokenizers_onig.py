"""Split patterns read as tokenizers' Oniguruma reads them, and the character tables of the
pre-tokenizers, against `tokenizers` itself.

- Oniguruma constructs Python's `regex` reads differently (Ruby's `{n,m}+`, line anchors, `\\w`,
  POSIX brackets, bare `(?i)`, ...), one by one on texts that tell them apart;
- empty matches (`x*`, lookarounds, anchors, the empty string) on random text, every behaviour,
  inverted or not: tokenizers walks them as the Rust `onig` crate does;
- word characters, POSIX classes, punctuation and scripts on every code point (for the classes:
  those assigned in Python's Unicode data, since the two libraries' Unicode versions differ on
  newer characters).
"""
from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import BPEError
from bpe_core.parts import pretokenizers as ours
from bpe_core.parts.normalized import Normalized
from bpe_core.parts.pretokenizers_onig import PatternError, compile_onig
from bpe_core.parts.pretokenizers_tables import SCRIPTS
from tests.conftest import require
from tests.core.parts.test_pretokenizers import BEHAVIORS, assert_same, read

tk = require("tokenizers")
P = tk.pre_tokenizers

CONSTRUCTS = [
    # Ruby: an interval then + or (after an exact count) ? is a second repeat.
    (r"\p{N}{1,3}+", "a1234567b 12"), (r"\p{N}{2}+", "12345"), (r"(ab){1,2}+", "abababab"), (r"x{2}?y", "y xy xxy"),
    (r"[a-c]{2}?x", "x abx ax"), (r"a{1,2}?", "aaa"), (r"a{,2}", "aaaaa"),
    # Line anchors, and \Z before a final newline.
    (r"\s++$", "a  \nb  \n  c   "), (r"\s+$", "a  \nb \n c  "), (r"^\s+", "  a\n  b"), (r".$", "ab\ncd\n"),
    (r"\s\Z", " a \n"), (r"\s\z", " a \n"), (r"\n\Z", "a\n\n"), (r"\A\s", " a "),
    # Options: (?m) lets the dot match a newline; a bare (?i) holds to the end of its group.
    (r"(?m).+", "ab\ncd"), (r"a(?i)b|c", "xcxaBxAbxac"), (r"(a(?i)b|c)d", "xcdxCdxaBdx"), (r"(?i:a)(?-i:b)", "ABAbab"),
    (r"(?i)b(?-i)B", "bBbb"), (r"(?i)a|b", "AB"), (r"(?x) a b # c", "xabx"), (r"(?x)a b|c d # e", "abcd"),
    (r"(?i)ss", "xßxSSxẞ"), (r"(?i)ß", "xssxSSxẞx"), (r"(?i)k", "k\u212aK"),
    (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)", "'ſ'S'LL'Re"),
    (r"(?i)\p{Lu}\p{Lu}", "aBBc"), (r"(?i)\P{Lu}+", "aBc"),
    (r"(?i)[\p{Lu}]+", "aBc"), (r"(?i)[^a-c]+", "xBxAyC"), (r"(?i)\p{Ll}", "aBc"),
    # Word characters: the Latin-1 digits outside a class, never the joiners.
    (r"\w+", "ab_c\u0301d\u00b2e\u200d\u200cf¼"), (r"[\w]+", "ab_c\u0301d\u00b2e\u200d\u200cf¼"),
    (r"\W+", "a² \u200d!"),
    (r"[\W]+", "a² \u200d!"), (r"[^\W]+", "a² \u200d!"), (r"\b", "ab² c\u200dd"), (r"\B", "ab² c\u200dd"),
    (r"\p{Word}+", "a²\u200dx"), (r"[\p{Word}]+", "a²\u200dx"), (r"\P{Word}+", "a²\u200dx"),
    # POSIX brackets.
    (r"[[:punct:]]+", "!$+<=>^`|~¢§ⒶA"), (r"[[:word:]]+", "a²Ⅰ1_\u200d"), (r"[[:alnum:]]+", "a²Ⅰ1١"),
    (r"[[:digit:]]+", "1١x"), (r"[[:alpha:]]+", "a²Ⅰ1é"), (r"[[:space:]]+", "a\x1cb c\u3000"),
    (r"[[:^alpha:]]+", "ab1"),
    # Escapes Python's regex spells otherwise.
    (r"\h+", "abxz09FG"), (r"[\h]+", "abxz09FG"), (r"\H+", "abxz09FG"), (r"\x{41}\x{1F600}", "zA😀z"),
    (r"[\x{41}-\x{43}]+", "zABCDz"), (r"\N+", "ab\ncd"), (r"\O", "ab\ncd"), (r"\R", "a\r\nb\nc\rd\x85e\u2028"),
    (r"(?<n>a)\k<n>", "aab"), (r"(?<n>a)\k'n'", "aab"), (r"(?'n'a)\k<n>", "aab"), (r"(a)\1", "aab"), (r"\cA", "z\x01z"),
    (r"\e", "z\x1bz"), (r"\101", "zAz"), (r"\0", "z\x00z"), (r"\t\v\f\a", "\t\v\f\a"),
    # Nested classes and intersections.
    (r"[a[bc]]+", "xabcdx"), (r"[a-z&&[^aeiou]]+", "hello world"), (r"[^a[b]]+", "abcab"), (r"[\w&&\D]+", "ab12c"),
    # Read alike anyway.
    (r"x{", "ax{b"), (r"x{a}", "ax{a}b"), (r"x{1", "ax{1b"), (r"[]a]+", "x]ax"), (r"[^]a]+", "x]ax"), (r"a\Kb", "abab"),
    (r"\p{^L}+", "ab1 c"), (r"\P{L}+", "ab1 c"), (r"\p{Greek}+", "aβγ"), (r"\p{Han}+", "ab日本"),
    (r"\p{Emoji}+", "a😀1"),
    (r"(?>a+)b", "aab"), (r"a?+a", "aa"), (r"\G\w", "ab cd"), (r"[^\S\n]+", " \t\na"), (r"\d+", "12٣४x"),
]


@pytest.mark.parametrize(("pattern", "text"), CONSTRUCTS)
def test_oniguruma_constructs(pattern: str, text: str) -> None:
    for behavior in ("removed", "isolated"):
        assert_same(P.Split(tk.Regex(pattern), behavior), {"text": text, "twice": text + "\n" + text})


@pytest.mark.parametrize(("pattern", "message"), [
    (r"(?s).", "(?s) is no Oniguruma option"),  # tokenizers refuses it too
    (r"(?a)x", "(?a) is no Oniguruma option"),
    (r"\y", "\\y (text segment boundary) is not supported"),
    (r"[\H]", "\\H inside a character class is not supported"),
    (r"\x{12G}", "bad escape \\x{12G}"),
    (r"(ab", "missing )"),
    (r"\p{Foo}", "unknown property"),
])
def test_patterns_refused(pattern: str, message: str) -> None:
    with pytest.raises(PatternError) as caught:
        compile_onig(pattern)
    assert message in str(caught.value)
    data = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    with pytest.raises(BPEError) as read_error:
        read(data)
    assert f"cannot compile the pattern {pattern!r}: " in str(read_error.value)


def test_scoped_full_case_folding_is_not_oniguruma_s() -> None:
    """A known difference: in a scoped (?i:...) Python's regex folds only character by character,
    so "(?i:st)" misses the ligature "ﬅ" Oniguruma matches (a bare (?i) at the start folds fully)."""
    text = "x\ufb05x"
    assert [t for t, _ in P.Split(tk.Regex(r"(?i:st)"), "removed").pre_tokenize_str(text)] == ["x", "x"]
    assert [p.text for p in ours.Split(pattern=r"(?i:st)", is_regex=True, behavior="Removed").pre_tokenize(
        [Normalized.of(text)])] == [text]


EMPTY_MATCHING = [r"x*", r"x*?", r"(?=x)", r"\b", r"x|", r"|x", r"$", r"^", r"(?<=x)", r"\B", r"y?", r"(?=x)|x+",
                  r"x??", r"\s*", r"(?!x)", r"a*?b?", r"(?<=a)|b", r"\Z", r"\A", r"\z", r"(?:)", r"x{0}", r"[ax]{,2}",
                  r"\Gx", r"x{2}?y"]


@settings(derandomize=True, max_examples=150, deadline=None)
@given(pattern=st.sampled_from(EMPTY_MATCHING), behavior=st.sampled_from(BEHAVIORS), invert=st.booleans(),
       texts=st.lists(st.text(alphabet="axy \n", max_size=12), min_size=1, max_size=8))
def test_empty_matches(pattern: str, behavior: str, invert: bool, texts: list[str]) -> None:
    reference = P.Split(tk.Regex(pattern), behavior, invert=invert)
    assert_same(reference, {f"text {k}": text for k, text in enumerate(texts)})


# ---- character tables, on every code point ---------------------------------------------------


@cache
def code_points() -> list[int]:
    return [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


@cache
def assigned() -> str:
    """Every character Python's Unicode data assigns, private use aside."""
    return "".join(chr(c) for c in code_points() if unicodedata.category(chr(c)) not in ("Cn", "Co"))


def matched(reference: Any, part: Any, text: str, chunk: int = 40_000) -> tuple[set[int], set[int]]:
    """The characters of `text` each removes (a Split with behaviour Removed): theirs, ours."""
    theirs: set[int] = set()
    mine: set[int] = set()
    for at in range(0, len(text), chunk):
        block = text[at : at + chunk]
        kept = {k for _, (a, b) in reference.pre_tokenize_str(block) for k in range(a, b)}
        theirs.update(ord(block[k]) for k in range(len(block)) if k not in kept)
        ours_kept = {k for p in part.pre_tokenize([Normalized.of(block)]) for k in range(*p.offsets(0, len(p)))}
        mine.update(ord(block[k]) for k in range(len(block)) if k not in ours_kept)
    return theirs, mine


NEWER_UNICODE = tuple(map(int, unicodedata.unidata_version.split("."))) > (16,)


@pytest.mark.skipif(NEWER_UNICODE, reason="Python's Unicode data is newer than tokenizers' (16.0)")
@pytest.mark.parametrize("pattern", [r"\w", r"[\w]", r"\W", r"[\W]", r"\p{Word}", r"[\p{Word}]", r"[[:punct:]]",
                                     r"[[:word:]]", r"[[:alnum:]]", r"[[:digit:]]", r"\s", r"\d", r"\h", r"\p{L}",
                                     r"\p{N}", r"\p{P}", r"\p{M}"])
def test_classes_on_every_character(pattern: str) -> None:
    theirs, mine = matched(P.Split(tk.Regex(pattern), "removed"),
                           ours.Split(pattern=pattern, is_regex=True, behavior="Removed"), assigned())
    assert theirs == mine, sorted(theirs ^ mine)[:20]


def test_punctuation_table_on_every_code_point() -> None:
    every = "".join(map(chr, code_points()))
    theirs, mine = matched(P.Punctuation("removed"), ours.Punctuation(behavior="Removed"), every, chunk=200_000)
    assert theirs == mine, sorted(theirs ^ mine)[:20]


def scripts_agree(text: str, chunk: int = 30_000) -> None:
    reference, part = P.UnicodeScripts(), ours.UnicodeScripts()
    for at in range(0, len(text), chunk):
        block = text[at : at + chunk]
        want = [t for t, _ in reference.pre_tokenize_str(block)]
        assert [p.text for p in part.pre_tokenize([Normalized.of(block, track=False)])] == want, at


def test_script_table_on_every_code_point() -> None:
    """Each character after a Greek one, and after a Latin one: a cut before it in both says it
    has a script other than those, none in either says it has none (U+0020, unassigned ones)."""
    listed = {c for ranges in SCRIPTS.values() for item in ranges.split() for lo, _, hi in [item.partition("-")]
              for c in range(int(lo, 16), int(hi or lo, 16) + 1)}
    # Every character either library may give a script, and a sample of the unassigned rest.
    chars = [chr(c) for c in code_points()
             if c in listed or unicodedata.category(chr(c)) not in ("Cn", "Co") or c % 61 == 0]
    scripts_agree("".join("α" + c for c in chars))
    scripts_agree("".join("a" + c for c in chars))


def test_script_classes_are_scripts() -> None:
    """All characters of one of our scripts, in a row, make one piece; and any two of our scripts
    are different ones: one character of each, in every order."""
    firsts = []
    for name, ranges in SCRIPTS.items():
        members = "".join(chr(c) for item in ranges.split() for lo, _, hi in [item.partition("-")]
                          for c in range(int(lo, 16), int(hi or lo, 16) + 1))
        assert [t for t, _ in P.UnicodeScripts().pre_tokenize_str(members)] == [members], name
        firsts.append(members[0])
    scripts_agree("".join(a + b for a in firsts for b in firsts))
