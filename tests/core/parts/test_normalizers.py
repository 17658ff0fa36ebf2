"""Normalizers against `tokenizers`' own: the normalized text and every normalized character's
original span, on multilingual text, code, prose and edge cases, on random text through random
sequences of normalizers, and on every code point (which re-checks the Unicode tables).

The reference alignment comes from a BPE model whose vocabulary is every normalized character and
which has no merges: each token is then one normalized character and its offsets are that
character's original span.
"""
from __future__ import annotations

import json
import unicodedata
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from bpe_core import BPEError
from bpe_core.parts import normalizers as ours
from bpe_core.parts.hf_parts import Reader
from bpe_core.parts.normalized import Normalized
from bpe_core.parts.normalizers_unicode import WHITE_SPACE
from tests.conftest import require

tk = require("tokenizers")
N = tk.normalizers
UNICODE_14 = unicodedata.unidata_version == "14.0.0"
needs_unicode_14 = pytest.mark.skipif(
    not UNICODE_14, reason="the Unicode tables are derived for Python 3.11's unicodedata (Unicode 14.0)")

EDGES = [
    "", "a", " ", "   ", "\t\n \u3000", "\u0301", "\u0301a\u0301 \u0301", "e\u0301", "a\u0301\u0316b", "ﬁ ﬂ ﬃ", "Ǆ ǅ",
    "한국어 텍스트입니다", "\u1100\u1161\u11a8 \u1100\u1161 \u110b\u1175\u11ab", "İstanbul İİ", "ΟΔΟΣ ΣΑΣ Σ σς",
    "ß ẞ ŉ ǰ", "ÅÅ\u212b", "Ａｂｃ１２３！", "①⑩㍿㋿", "a\r\nb\r\n\r\n c", "a\u00a0b\u3000c  \t e\x1c\x1d\x1e\x1f f",
    "👨\u200d👩\u200d👧 a\u200bb\u200c\u200dc", "\x00\x01\x07\x7f\x1b[0m \x85\x8f\x9f",
    "שלום עולם مرحبا \u200fabc\u200e",
    "  lead and trail  ", "\ufeffBOM \ufffd\ufffd ▁x", "中文字符 漢字 ｶﾀｶﾅ カタカナ", "\U00020000\U0002b820\U0002f800",
    "ḍ̇ q\u0307\u0323 ǖ̃ ẛ̣ x\u0345\u0301 \u0f73\u0f75\u0f81", "ऩ क़ ড় ਲ਼ ଡ଼", "thé théâtre naïve coöperate",
    "\U0001d400\U0001d41a \u2460 x\u00b2 \u00bd", "a\U000e0100b\ufe0fc", "\ue000\U000f0000 private",
    "\u0345\u0301\u0316 marks", "\ua7cb\U00010d50 İ\ua7dc newer than Python's Unicode", "ab  cd   ef\n\n\ngh",
    "the cat sat on the mat, the end.", "``quoted'' text",
]


@cache
def samples() -> tuple[str, ...]:
    """Real text in chunks: the sample files, 15 languages' parallel messages, prose and code."""
    from sample_corpora import load_corpus, load_parallel
    from tests.core.test_builtin import ROOT

    texts = [(ROOT / "sample_corpora" / name).read_text(encoding="utf-8")
             for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")]
    texts += [text[:3000] for _, text in sorted(load_parallel().items())]
    texts += [load_corpus("english", max_bytes=200_000)[:20_000], load_corpus("python", max_bytes=200_000)[:20_000]]
    return tuple(EDGES) + tuple(texts)


def reference(normalizer: Any, text: str) -> tuple[str, list[tuple[int, int]]]:
    """`tokenizers`' normalized text and the original span of each of its characters."""
    out = normalizer.normalize_str(text)
    vocab = {"[UNK]": 0}
    for ch in out:
        vocab.setdefault(ch, len(vocab))
    tokenizer = tk.Tokenizer(tk.models.BPE(vocab=vocab, merges=[], unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    encoding = tokenizer.encode(text)
    assert "".join(encoding.tokens) == out
    return out, [tuple(span) for span in encoding.offsets]


def mine(part: Any, text: str) -> tuple[str, list[tuple[int, int]], str]:
    """Our normalized text, each character's span, and the untracked (ids-only) text."""
    n = part.normalize(Normalized.of(text))
    untracked = part.normalize(Normalized.of(text, track=False))
    assert untracked.spans is None
    return n.text, [n.offsets(i, i + 1) for i in range(len(n.text))], untracked.text


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def serialized(normalizer: Any) -> dict[str, Any]:
    """The normalizer as `tokenizers` writes it in a tokenizer.json."""
    holder = tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a"))
    holder.normalizer = normalizer
    return json.loads(holder.to_str())["normalizer"]


def read(reference_part: Any) -> Any:
    """Our normalizer read from the reference's tokenizer.json form; it must write that form back."""
    data = serialized(reference_part)
    part = ours.HF_TYPES[data["type"]](data, READER)
    assert part.to_hf() == data
    return part


def assert_same(reference_part: Any, texts: Any) -> None:
    part = read(reference_part)
    for text in texts:
        expected_text, expected_spans = reference(reference_part, text)
        got_text, got_spans, untracked = mine(part, text)
        assert got_text == expected_text, (text[:60], got_text[:60], expected_text[:60])
        assert untracked == expected_text, text[:60]
        if got_spans != expected_spans:
            at = next(i for i, (a, b) in enumerate(zip(got_spans, expected_spans)) if a != b)
            raise AssertionError(f"{text[:40]!r}: char {at} {got_text[at]!r} spans {got_spans[at]}, "
                                 f"tokenizers {expected_spans[at]}")


REGEX = tk.Regex
CONFIGS = {
    "NFC": N.NFC(), "NFD": N.NFD(), "NFKC": N.NFKC(), "NFKD": N.NFKD(),
    "Lowercase": N.Lowercase(),
    "Strip": N.Strip(), "Strip left": N.Strip(left=True, right=False), "Strip right": N.Strip(left=False, right=True),
    "StripAccents": N.StripAccents(), "NFD StripAccents": N.Sequence([N.NFD(), N.StripAccents()]),
    "Replace space": N.Replace(" ", "▁"), "Replace longer": N.Replace("th", "<TH>"),
    "Replace shorter": N.Replace("the", "ð"),
    "Replace removes": N.Replace("a", ""), "Replace empty pattern": N.Replace("", "|"),
    "Regex spaces": N.Replace(REGEX(r"\s+"), " "), "Regex runs": N.Replace(REGEX(" {2,}"), "▁"),
    "Regex empty matches": N.Replace(REGEX("x*"), "-"), "Regex lazy empty": N.Replace(REGEX("|e"), "·"),
    "Regex digits": N.Replace(REGEX(r"\d"), "<n>"), "Regex line anchors": N.Replace(REGEX("^|$"), "¶"),
    "Regex marks": N.Replace(REGEX(r"\p{M}+"), ""), "Regex casefold": N.Replace(REGEX("(?i)ss|é"), "§"),
    "Prepend": N.Prepend("▁"), "Prepend long": N.Prepend("<s> "),
    "Bert": N.BertNormalizer(), "Bert cased": N.BertNormalizer(lowercase=False),
    "Bert strip only": N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True,
                                        lowercase=False),
    "Bert keep accents": N.BertNormalizer(strip_accents=False),
    "Nmt": N.Nmt(), "ByteLevel": N.ByteLevel(),
    "Llama": N.Sequence([N.Prepend("▁"), N.Replace(" ", "▁")]),
    "NFKC lower strip": N.Sequence([N.NFKC(), N.Lowercase(), N.Strip()]),
    "Albert-like": N.Sequence([N.Replace("``", '"'), N.Replace("''", '"'), N.NFKD(), N.StripAccents(), N.Lowercase()]),
    "Nmt NFKC": N.Sequence([N.Nmt(), N.NFKC(), N.Replace(REGEX(" {2,}"), " ")]),
    "Empty sequence": N.Sequence([]),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_same_text_and_spans_as_tokenizers(name: str) -> None:
    texts = samples()
    if "empty" in name:  # a match at every position: shorter texts say as much
        texts = tuple(text[:2000] for text in texts)
    assert_same(CONFIGS[name], texts)


def test_known_alignments() -> None:
    """Worked by hand from tokenizers' rules, and checked against it."""
    cases = [
        # A ligature's letters all span it; a composed letter spans only its first character.
        (N.NFKC(), "ﬁx", ("fix", [(0, 1), (0, 1), (1, 2)])),
        (N.NFC(), "e\u0301x", ("éx", [(0, 1), (2, 3)])),
        # Canonical ordering moves the marks; each takes the span of the place it moved to.
        (N.NFD(), "a\u0301\u0316", ("a\u0316\u0301", [(0, 1), (1, 2), (2, 3)])),
        (N.NFD(), "한", ("\u1112\u1161\u11ab", [(0, 1)] * 3)),
        (N.Lowercase(), "İΣ", ("i\u0307σ", [(0, 1), (0, 1), (1, 2)])),
        # Replace: new characters span the last character replaced; an empty match the one before.
        (N.Replace("ab", "XYZ"), "cab", ("cXYZ", [(0, 1), (2, 3), (2, 3), (2, 3)])),
        (N.Replace("", "-"), "AB", ("-A-B-", [(0, 0), (0, 1), (0, 1), (1, 2), (1, 2)])),
        (N.Replace(REGEX("x*"), "-"), "abxd", ("-a-b-d-", [(0, 0), (0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (3, 4)])),
        (N.Prepend("__"), "ab", ("__ab", [(0, 1), (0, 1), (0, 1), (1, 2)])),
        (N.Prepend("__"), "", ("", [])),
        (N.Strip(), " \u3000 ", ("", [])),
        (N.BertNormalizer(), "A中", ("a 中 ", [(0, 1), (1, 2), (1, 2), (1, 2)])),
    ]
    for reference_part, text, expected in cases:
        assert reference(reference_part, text) == expected
        got_text, got_spans, untracked = mine(read(reference_part), text)
        assert (got_text, got_spans) == expected
        assert untracked == expected[0]


def test_pieces_of_a_longer_text_keep_their_offsets() -> None:
    """A piece starting at `origin` gets the same spans, moved by `origin` (insertions at its
    start too)."""
    parts = [read(CONFIGS[name]) for name in ("NFKD", "Replace empty pattern", "Bert", "Llama", "Strip")]
    for part in parts:
        for text in ("  ﬁe\u0301 中 x", "", "ab"):
            base = part.normalize(Normalized.of(text))
            moved = part.normalize(Normalized.of(text, origin=7))
            assert moved.text == base.text
            assert moved.spans == [(a + 7, b + 7) for a, b in base.spans]


# Characters that exercise the rules: marks of several classes, jamo, ligatures, case changes,
# spaces and controls, CJK, emoji with joiners, bidi marks.
ALPHABET = ("aeiouAEIOUsSxX \t\n\r\u00a0\u3000\u2028\x00\x01\x1f\x7f\x85\u200b\u200d\u200e\ufeff\ufffd"
            "\u0300\u0301\u0316\u0323\u0327\u0345\u05b0\u0f71\u0f72\u0f73\u0f74\u0f80\u0488\u0903\u093c"
            "\u1100\u1161\u11a8\u11a7한각ᄀ가ﬁﬀ①㍿Ａｶ\u212bÅİIıΣσςßẞǅ中文\U00020001▁ÿé😀👍🏽ड़क\u094d")
NORMALIZER_POOL = [
    N.NFC(), N.NFD(), N.NFKC(), N.NFKD(), N.Lowercase(), N.Strip(), N.Strip(left=False), N.StripAccents(),
    N.Replace(" ", "▁"), N.Replace("a", ""), N.Replace("ss", "ß"), N.Replace(REGEX(r"\s+"), " "),
    N.Replace(REGEX("[\u0300-\u036f]"), "´"), N.Prepend("▁"), N.BertNormalizer(),
    N.BertNormalizer(lowercase=False, strip_accents=True), N.Nmt(), N.ByteLevel(),
]


@settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=ALPHABET, max_size=24),
       picks=st.lists(st.integers(0, len(NORMALIZER_POOL) - 1), min_size=1, max_size=3))
def test_random_text_through_random_sequences(text: str, picks: list[int]) -> None:
    reference_part = N.Sequence([NORMALIZER_POOL[i] for i in picks])
    try:
        expected = reference(reference_part, text)
    except BaseException as exc:  # pyo3's PanicException is a BaseException
        if type(exc).__name__ != "PanicException":
            raise
        reject()
    got_text, got_spans, untracked = mine(read(reference_part), text)
    assert (got_text, got_spans) == expected
    assert untracked == expected[0]


def test_replace_with_an_empty_match_at_the_start_then_more() -> None:
    """tokenizers gives an insertion at the very start the span (0, 0), which later normalizers'
    Rust code mishandles (here it panics); we simply go on normalizing the whole text."""
    reference_part = N.Sequence([N.Replace(REGEX(""), "X"), N.Lowercase()])
    with pytest.raises(BaseException, match="index out of bounds"):
        reference_part.normalize_str("AB")
    part = read(reference_part)
    assert part.normalize(Normalized.of("AB")).text == "xaxbx"


# Every code point of planes 0 and 1 and of the variation selectors and tags, and both ends of
# the CJK blocks of planes 2 and 3 (the rest are ideographs, unassigned or private use), in
# batches joined by "|": the Unicode tables must all be right.
def _ends(first: int, last: int) -> list[int]:
    return [*range(first - 8, first + 8), *range(last - 8, last + 8)]


CODE_POINTS = sorted({cp for cp in (*range(0x20000), *range(0xE0000, 0xE0200), 0xF0000, 0x10FFFD,
                                    *_ends(0x20000, 0x2A6DF), *_ends(0x2A700, 0x2B81F), *_ends(0x2B920, 0x2CEAF),
                                    *_ends(0x2F800, 0x2FA1F), *_ends(0x30000, 0x3134A))
                      if not 0xD800 <= cp < 0xE000 and chr(cp) != "|"})


def joined(wrap: Any = lambda c: c, cps: Any = CODE_POINTS) -> str:
    return "|".join(wrap(chr(cp)) for cp in cps)


def assert_same_text(reference_part: Any, text: str, cps: Any = CODE_POINTS) -> None:
    part = read(reference_part)
    expected = reference_part.normalize_str(text).split("|")
    got = part.normalize(Normalized.of(text, track=False)).text.split("|")
    assert len(got) == len(expected)
    wrong = [(hex(cp), g, e) for cp, g, e in zip(cps, got, expected) if g != e]
    assert not wrong, f"{len(wrong)} characters differ, first {wrong[:5]}"


@needs_unicode_14
@pytest.mark.parametrize("name", ["NFD", "NFKD", "NFC", "NFKC", "Lowercase", "StripAccents", "Bert", "Bert strip only",
                                  "Nmt"])
def test_every_code_point(name: str) -> None:
    assert_same_text(CONFIGS[name], joined())


@needs_unicode_14
def test_every_combining_class() -> None:
    """Canonical ordering moves a mark past one of a higher class: this finds every class the
    crate (Unicode 9.0) does not know. (Classes of assigned characters never change, so only
    those Python gives one can differ.)"""
    marks = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and unicodedata.combining(chr(cp))]
    assert_same_text(N.NFD(), joined(lambda c: f"a{c}\u0334", marks), marks)  # U+0334 has class 1
    assert_same_text(N.NFD(), joined(lambda c: f"a\u0301{c}", marks), marks)  # U+0301 has class 230
    assert_same_text(N.NFC(), joined(lambda c: f"e{c}\u0301", marks), marks)


@needs_unicode_14
def test_every_code_point_whitespace() -> None:
    strip = N.Strip()
    stripped = {chr(cp) for cp in CODE_POINTS if strip.normalize_str(chr(cp)) == ""}
    assert stripped == WHITE_SPACE


def _changes(ch: str) -> bool:
    """Whether some normalizer changes or drops this character."""
    return (unicodedata.normalize("NFKD", ch) != ch or unicodedata.combining(ch) > 0 or ch.lower() != ch
            or unicodedata.category(ch) in ("Mn", "Mc", "Me", "Cc", "Cf", "Co", "Zs", "Zl", "Zp"))


@needs_unicode_14
def test_every_changing_character_aligned() -> None:
    """Offsets too, for every character of planes 0 and 1 that some normalizer changes, each
    after an "a" (which it may combine with)."""
    text = "".join(f"a{chr(cp)}" for cp in range(0x80, 0x20000) if not 0xD800 <= cp < 0xE000 and _changes(chr(cp)))
    for name in ("NFKD", "NFKC", "Bert", "Lowercase", "StripAccents"):
        assert_same(CONFIGS[name], [text])


BAD = [
    ({"type": "Strip"}, "normalizer Strip: needs a 'strip_left' field"),
    ({"type": "Strip", "strip_left": True, "strip_right": None}, "'strip_right' must be true or false, not None"),
    ({"type": "Strip", "strip_left": 1, "strip_right": True}, "'strip_left' must be true or false, not 1"),
    ({"type": "Replace", "content": "b"}, 'normalizer Replace: pattern must be {"String": "..."} or {"Regex": "..."}'),
    ({"type": "Replace", "pattern": "a", "content": "b"}, "pattern must be"),
    ({"type": "Replace", "pattern": {"String": 1}, "content": "b"}, "pattern must be"),
    ({"type": "Replace", "pattern": {"String": "a", "Regex": "b"}, "content": "b"}, "pattern must be"),
    ({"type": "Replace", "pattern": {"String": "a"}}, "needs a 'content' field"),
    ({"type": "Replace", "pattern": {"String": "a"}, "content": None}, "'content' must be a string, not None"),
    ({"type": "Replace", "pattern": {"Regex": "("}, "content": "b"}, "cannot read the regex '('"),
    ({"type": "Prepend"}, "normalizer Prepend: needs a 'prepend' field"),
    ({"type": "Prepend", "prepend": 3}, "'prepend' must be a string, not 3"),
    ({"type": "BertNormalizer"}, "normalizer BertNormalizer: needs 'clean_text' true or false, not None"),
    ({"type": "BertNormalizer", "clean_text": 1, "handle_chinese_chars": True, "lowercase": True}, "'clean_text'"),
    ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "lowercase": True,
      "strip_accents": "yes"}, "'strip_accents' must be true, false or null, not 'yes'"),
    ({"type": "Sequence"}, "normalizer Sequence: 'normalizers' must be a list, not None"),
    ({"type": "Sequence", "normalizers": "x"}, "'normalizers' must be a list"),
    ({"type": "Sequence", "normalizers": [None]}, "a member of 'normalizers' is null"),
]


@pytest.mark.parametrize(("data", "message"), BAD)
def test_bad_fields_are_one_line_errors(data: dict[str, Any], message: str) -> None:
    # tokenizers refuses each of these files too.
    holder = json.loads(tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a")).to_str())
    holder["normalizer"] = data
    with pytest.raises(Exception):  # noqa: B017 - tokenizers raises a bare Exception
        tk.Tokenizer.from_str(json.dumps(holder))
    with pytest.raises(BPEError) as caught:
        ours.HF_TYPES[data["type"]](data, READER)
    assert str(caught.value).startswith("test.json: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_reading_accepts_what_tokenizers_accepts() -> None:
    """strip_accents may be missing (null); the short name "Bert"; unknown extra fields ignored."""
    for data in ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": False, "lowercase": True},
                 {"type": "Bert", "clean_text": True, "handle_chinese_chars": False, "lowercase": True},
                 {"type": "NFC", "extra": 1}, {"type": "Sequence", "normalizers": []}):
        holder = json.loads(tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a")).to_str())
        holder["normalizer"] = data
        written = json.loads(tk.Tokenizer.from_str(json.dumps(holder)).to_str())["normalizer"]
        assert ours.HF_TYPES[data["type"]](data, READER).to_hf() == written


def test_unknown_form_and_bad_regex_raise() -> None:
    with pytest.raises(ValueError, match="unknown normalization form"):
        ours.UnicodeForm("NFX")
    with pytest.raises(ValueError):
        ours.Replace(pattern="(", content="", is_regex=True)
