"""The four models on small cases worked by hand (each also checked against `tokenizers`), random
strings against `tokenizers`, the builders' errors, dropout, and threads.

The comparisons on real text are in test_models.py.
"""
from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.families import unigram_part as unigram
from bpe_core.families import wordpiece_part as wordpiece
from bpe_core.families.unigram_part import Unigram
from bpe_core.families.wordpiece_part import WordPiece
from bpe_core.parts import bpe, wordlevel
from bpe_core.parts.bpe import BPE
from bpe_core.parts.hf_parts import Reader
from bpe_core.parts.wordlevel import WordLevel
from bpe_core.settings import BPEError
from tests.conftest import require

BUILDERS = {**bpe.HF_TYPES, **wordpiece.HF_TYPES, **unigram.HF_TYPES, **wordlevel.HF_TYPES}


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def reference(model_json: dict, *, pre_tokenizer: dict | None = None):
    tokenizers = require("tokenizers")
    data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": None, "model": model_json}
    return tokenizers.Tokenizer.from_str(json.dumps(data))


def theirs(model, piece: str) -> list[tuple[str, int, int, int]]:
    """`tokenizers`' tokens of one piece (no pre-tokenizer: the text is the piece)."""
    encoding = reference(model.to_hf()).encode(piece)
    return [(t, i, s, e) for t, i, (s, e) in zip(encoding.tokens, encoding.ids, encoding.offsets)]


def check(model, piece: str, expected: list) -> None:
    """The tokens worked by hand, which `tokenizers` gives too."""
    assert model.tokenize(piece) == expected
    assert theirs(model, piece) == expected


# ---- BPE by hand --------------------------------------------------------------------------------

V = {"a": 0, "b": 1, "ab": 2, "<unk>": 3, "c": 4, "bc": 5, "abc": 6}


def test_bpe_merges_lowest_rank_first_and_leftmost_among_equals():
    model = BPE({"a": 0, "aa": 1, "b": 2, "ab": 3}, [("a", "a"), ("a", "b")])
    check(model, "aaa", [("aa", 1, 0, 2), ("a", 0, 2, 3)])
    check(model, "aab", [("aa", 1, 0, 2), ("b", 2, 2, 3)])  # (a, a) outranks (a, b)
    check(BPE(V, [("b", "c"), ("a", "b"), ("a", "bc")]), "abc", [("abc", 6, 0, 3)])


def test_bpe_a_merge_listed_twice_keeps_its_last_rank():
    check(BPE(V, [("a", "b"), ("b", "c"), ("a", "b")]), "abc", [("a", 0, 0, 1), ("bc", 5, 1, 3)])


def test_bpe_unknown_characters_are_dropped_unknown_or_fused():
    merges = [("a", "b")]
    check(BPE(V, merges), "abxab", [("ab", 2, 0, 2), ("ab", 2, 2, 4)])  # dropped: what follows shifts
    check(BPE(V, merges, unk_token="<unk>"), "abxé", [("ab", 2, 0, 2), ("<unk>", 3, 2, 3), ("<unk>", 3, 3, 4)])
    check(BPE(V, merges, unk_token="<unk>", fuse_unk=True), "xéab", [("<unk>", 3, 0, 2), ("ab", 2, 2, 4)])
    with pytest.raises(BPEError, match="'<zz>' is not either"):
        BPE(V, merges, unk_token="<zz>").tokenize("ax")
    assert BPE(V, merges, unk_token="<zz>").tokenize("ab") == [("ab", 2, 0, 2)]  # needed only for unknowns


BYTES = {"a": 0, "<0x01>": 1, "<0xC3>": 2, "<unk>": 3, "<0xA9>": 4, "<0xA9><0x01>": 5}


def test_bpe_byte_fallback_gives_each_byte_its_characters_span():
    model = BPE(BYTES, [], unk_token="<unk>", byte_fallback=True)
    check(model, "aé\x01", [("a", 0, 0, 1), ("<0xC3>", 2, 1, 2), ("<0xA9>", 4, 1, 2), ("<0x01>", 1, 2, 3)])
    # Bytes merge like any token; a token of two characters' bytes spans both.
    merged = BPE(BYTES, [("<0xA9>", "<0x01>")], byte_fallback=True)
    check(merged, "é\x01", [("<0xC3>", 2, 0, 1), ("<0xA9><0x01>", 5, 0, 2)])


def test_bpe_a_character_with_some_bytes_missing_is_unknown_and_waits():
    """ñ is C3 B1: no <0xB1>, so it is unknown; `tokenizers` writes a waiting unknown token only
    when a character of the vocabulary comes, so the bytes of \\x01 come first, and the spans,
    summed in bytes, are off as there."""
    model = BPE(BYTES, [], unk_token="<unk>", byte_fallback=True)
    check(model, "ñ\x01a", [("<0x01>", 1, 0, 1), ("<unk>", 3, 0, 2), ("a", 0, 2, 3)])
    fused = BPE(BYTES, [], unk_token="<unk>", byte_fallback=True, fuse_unk=True)
    check(fused, "ñ\x01ña", [("<0x01>", 1, 0, 1), ("<unk>", 3, 0, 3), ("a", 0, 3, 4)])
    check(BPE(BYTES, [], byte_fallback=True), "ñ\x01a", [("<0x01>", 1, 0, 1), ("a", 0, 0, 1)])


def test_bpe_byte_fallback_of_a_prefixed_character_is_clamped_to_the_piece():
    """"##é" falls back to four bytes, two more than é has: `tokenizers` gives the ones past the
    piece raw byte offsets (meaningless in characters); ours stop at the piece's end."""
    vocab = {"a": 0, "<0x23>": 1, "<0xC3>": 2, "<0xA9>": 3, "##a": 4}
    model = BPE(vocab, [], byte_fallback=True, continuing_subword_prefix="##")
    ours = model.tokenize("aé")
    assert ours == [("a", 0, 0, 1), ("<0x23>", 1, 1, 2), ("<0x23>", 1, 1, 2), ("<0xC3>", 2, 2, 2), ("<0xA9>", 3, 2, 2)]
    assert [t[:2] for t in theirs(model, "aé")] == [t[:2] for t in ours]
    assert theirs(model, "aé")[:3] == ours[:3]


def test_bpe_prefix_and_suffix():
    vocab = {"a": 0, "##b": 1, "ab": 2, "b</w>": 3, "##b</w>": 4, "ab</w>": 5, "a</w>": 6}
    model = BPE(vocab, [("a", "##b</w>"), ("a", "##b")], continuing_subword_prefix="##", end_of_word_suffix="</w>")
    check(model, "ab", [("ab</w>", 5, 0, 2)])
    check(model, "a", [("a</w>", 6, 0, 1)])
    check(model, "abb", [("ab", 2, 0, 2), ("##b</w>", 4, 2, 3)])
    # The prefix is cut from b in bytes whether or not b starts with it, as in `tokenizers`.
    odd = BPE({"a": 0, "bc": 1, "##b": 2, "##c": 3}, [("a", "bc")], continuing_subword_prefix="##")
    assert odd._merged == [0]  # ("a", "bc") makes "a" + "bc"[2:]
    with pytest.raises(BPEError, match="cannot be cut from 'b'"):
        BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], continuing_subword_prefix="##")


def test_bpe_ignore_merges_takes_a_token_whole_but_not_under_dropout():
    model = BPE(V, [], ignore_merges=True)
    check(model, "abc", [("abc", 6, 0, 3)])
    check(BPE(V, []), "abc", [("a", 0, 0, 1), ("b", 1, 1, 2), ("c", 4, 2, 3)])
    sampled = BPE(V, [("a", "b")], ignore_merges=True, dropout=1.0)
    check(sampled, "ab", [("a", 0, 0, 1), ("b", 1, 1, 2)])  # dropout 1: no merge, and no whole piece


def test_bpe_tokens_sharing_an_id_take_the_last_ones_text():
    """`tokenizers` takes the text of one of them by its hash order (any of them, from run to run)."""
    model = BPE({"a": 0, "b": 0}, [])
    assert model.tokenize("ab") == [("b", 0, 0, 1), ("b", 0, 1, 2)]
    ref = theirs(model, "ab")
    assert [t[1:] for t in ref] == [(0, 0, 1), (0, 1, 2)] and ref[0][0] == ref[1][0] in ("a", "b")


def test_bpe_dropout_is_seeded_and_only_ever_drops_merges():
    vocab = {c: i for i, c in enumerate("abcd")}
    merges = []
    for a, b in [("a", "b"), ("c", "d"), ("ab", "cd"), ("b", "c")]:
        vocab.setdefault(a + b, len(vocab))
        merges.append((a, b))
    word = "abcdabcdbc"
    full = BPE(vocab, merges).tokenize(word)
    assert BPE(vocab, merges, dropout=0.0).tokenize(word) == full
    runs = [[t for t, *_ in BPE(vocab, merges, dropout=0.5, rng=seed).tokenize(word)] for seed in (1, 1, 2)]
    assert runs[0] == runs[1]
    shared = BPE(vocab, merges, dropout=0.5, rng=random.Random(3))
    samples = {tuple(t for t, *_ in shared.tokenize(word)) for _ in range(200)}
    assert len(samples) > 3 and all("".join(s) == word for s in samples)
    assert tuple(t for t, *_ in full) in samples
    assert [t for t, *_ in BPE(vocab, merges, dropout=1.0).tokenize(word)] == list(word)
    with pytest.raises(BPEError, match="dropout"):
        BPE(vocab, merges, dropout=1.5)


# ---- WordPiece, WordLevel and Unigram by hand ---------------------------------------------------

WP = {"[UNK]": 0, "a": 1, "##b": 2, "ab": 3, "##c": 4, "é": 5, "##é": 6, "##": 7, "####": 8}


def test_wordpiece_longest_match_first_and_unknowns():
    model = WordPiece(WP)
    check(model, "abc", [("ab", 3, 0, 2), ("##c", 4, 2, 3)])
    check(model, "éé", [("é", 5, 0, 1), ("##é", 6, 1, 2)])
    check(model, "abx", [("[UNK]", 0, 0, 3)])  # one stretch without a match: the whole piece
    check(model, "a##", [("a", 1, 0, 1), ("####", 8, 1, 3)])  # the prefix on "##" itself
    check(WordPiece(WP, max_input_chars_per_word=2), "abc", [("[UNK]", 0, 0, 3)])
    check(WordPiece(WP, max_input_chars_per_word=2), "ab", [("ab", 3, 0, 2)])
    check(WordPiece({"a": 0, "b": 1}, continuing_subword_prefix=""), "ab", [("a", 0, 0, 1), ("b", 1, 1, 2)])
    assert model.tokenize("") == []
    with pytest.raises(BPEError, match="'\\[UNK\\]' is not in the vocabulary"):
        WordPiece({"a": 0}).tokenize("b")


def test_wordlevel_is_a_token_or_the_unknown_one():
    model = WordLevel({"a": 0, "[U]": 3}, unk_token="[U]")
    check(model, "a", [("a", 0, 0, 1)])
    check(model, "abc", [("[U]", 3, 0, 3)])
    with pytest.raises(BPEError, match="no unknown token"):
        WordLevel({"a": 0}).tokenize("b")
    assert WordLevel({"a": 0}).to_hf()["unk_token"] == "<unk>"


UG = [("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -3.0), ("c", -1.5), ("bc", -1.5)]


def test_unigram_ties_go_to_the_longest_last_piece():
    model = Unigram(UG, unk_id=0)
    check(model, "ab", [("ab", 3, 0, 2)])  # a + b = ab = -3
    check(model, "abc", [("a", 1, 0, 1), ("bc", 5, 1, 3)])  # a|bc -2.5 beats ab|c and a|b|c, -4.5
    equal = Unigram([("<unk>", 0.0)] + [(p, -1.0) for p in ("a", "b", "c", "ab", "bc")], unk_id=0)
    check(equal, "abc", [("a", 1, 0, 1), ("bc", 5, 1, 3)])  # a|bc ties ab|c: bc is the longer last piece


def test_unigram_unknowns_fuse_and_keep_their_text():
    model = Unigram(UG, unk_id=0)
    check(model, "xxabyé", [("xx", 0, 0, 2), ("ab", 3, 2, 4), ("yé", 0, 4, 6)])
    check(model, "x<unk>x", [("x<unk>x", 0, 0, 7)])  # the unknown piece itself fuses with its neighbours
    last = Unigram([("a", -1.0), ("<unk>", -3.0)], unk_id=1)
    check(last, "ax", [("a", 0, 0, 1), ("x", 1, 1, 2)])


def test_unigram_byte_fallback_gives_every_byte_the_whole_unknown_span():
    model = Unigram(UG + [("<0xC3>", -5.0), ("<0xA9>", -5.0), ("<0x78>", -5.0)], unk_id=0, byte_fallback=True)
    check(model, "aéé", [("a", 1, 0, 1)] + [("<0xC3>", 6, 1, 3), ("<0xA9>", 7, 1, 3)] * 2)
    check(model, "éxñ", [("éxñ", 0, 0, 3)])  # ñ has no byte pieces: the whole stretch is unknown


def test_unigram_without_unk_id_fails_only_where_an_unknown_would_be_chosen():
    model = Unigram([("a", -1.0), ("ab", -2.0)])
    check(model, "ab", [("ab", 1, 0, 2)])  # b alone is no piece, but the unknown there loses
    with pytest.raises(BPEError, match="no unk_id"):
        model.tokenize("b")
    assert model.tokenize("") == []


def test_unigram_scores_are_read_from_a_file_as_tokenizers_reads_them():
    """a + b ties ab exactly, so ab wins; `tokenizers` reads these digits a unit off, and then a, b
    wins when the model comes from a file. Built from Python floats both keep the exact scores."""
    scores = [["<unk>", 0.0], ["a", -1.9150488850818106], ["b", -4.781082782215689], ["ab", -6.6961316672975]]
    data = {"type": "Unigram", "unk_id": 0, "vocab": scores, "byte_fallback": False}
    from_file = BUILDERS["Unigram"](data, READER)
    assert [t for t, *_ in from_file.tokenize("ab")] == reference(data).encode("ab").tokens == ["a", "b"]
    assert [t for t, *_ in Unigram([tuple(s) for s in scores], unk_id=0).tokenize("ab")] == ["ab"]


def test_unigram_a_piece_listed_twice_keeps_its_last_id_and_score():
    check(Unigram([("<unk>", 0.0), ("a", -1.0), ("a", -3.0), ("ab", -2.0)], unk_id=0), "ab", [("ab", 3, 0, 2)])
    check(Unigram([("<unk>", 0.0), ("a", -1.0), ("a", -3.0), ("ab", -2.0)], unk_id=0), "a", [("a", 2, 0, 1)])


# ---- random strings against `tokenizers` --------------------------------------------------------

ALPHABET = "abcé"
TEXTS = st.text(alphabet=ALPHABET + "x€😀\u0301 ", max_size=40)  # x, €, 😀 and the mark: never trained


@cache
def small_bpe(affixed: bool) -> dict:
    """A BPE model `tokenizers` trains on random words of a four-letter alphabet, with byte tokens
    for x (78) and € (E2 82 AC) and for all but one byte of 😀 (F0 9F 98 80), and none for "#"."""
    tokenizers = require("tokenizers")
    rng = random.Random(7)
    words = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    affixes = {"continuing_subword_prefix": "##", "end_of_word_suffix": "</w>"} if affixed else {}
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>", **affixes))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator([" ".join(words)], tokenizers.trainers.BpeTrainer(vocab_size=60, special_tokens=["<unk>"],
                                                                              **affixes))
    model = json.loads(tok.to_str())["model"]
    for b in (0x78, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98):
        model["vocab"][f"<0x{b:02X}>"] = len(model["vocab"])
    return model


BPE_FLAGS = st.fixed_dictionaries({
    "unk_token": st.sampled_from([None, "<unk>"]), "fuse_unk": st.booleans(), "byte_fallback": st.booleans(),
    "ignore_merges": st.booleans(), "affixed": st.booleans(),
})


def same_on_pieces(model_json: dict, text: str) -> None:
    ref = reference(model_json, pre_tokenizer={"type": "WhitespaceSplit"})
    ours = BUILDERS[model_json["type"]](model_json, READER)
    encoding = ref.encode(text)
    mine = [(t, i, (start + s, start + e)) for piece, (start, _) in ref.pre_tokenizer.pre_tokenize_str(text)
            for t, i, s, e in ours.tokenize(piece)]
    assert mine == list(zip(encoding.tokens, encoding.ids, encoding.offsets))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(flags=BPE_FLAGS, text=TEXTS)
def test_bpe_agrees_with_tokenizers_on_random_strings(flags, text):
    model = dict(small_bpe(flags.pop("affixed")), **flags)
    same_on_pieces(model, text)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(scores=st.lists(st.sampled_from([-1.0, -2.0, -2.5]), min_size=30, max_size=30), text=TEXTS,
       byte_fallback=st.booleans())
def test_unigram_agrees_with_tokenizers_on_random_strings(scores, text, byte_fallback):
    """Every piece of up to three letters, scored from three values: ties everywhere."""
    pieces = [a + b + c for a in ALPHABET for b in ["", *ALPHABET] for c in ["", *ALPHABET] if b or not c]
    vocab = [["<unk>", 0.0]] + [[p, scores[k % len(scores)]] for k, p in enumerate(pieces)]
    vocab += [["<0xE2>", -9.0], ["<0x82>", -9.0], ["<0xAC>", -9.0], ["<0x78>", -9.0]]
    same_on_pieces({"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": byte_fallback}, text)


@settings(derandomize=True, max_examples=100, deadline=None)
@given(keep=st.lists(st.booleans(), min_size=60, max_size=60), text=TEXTS, longest=st.integers(0, 6))
def test_wordpiece_agrees_with_tokenizers_on_random_strings(keep, text, longest):
    pieces = [a + b for a in ALPHABET for b in ["", *ALPHABET]]
    tokens = ["[UNK]"] + [p for k, p in enumerate(pieces + ["##" + p for p in pieces]) if keep[k % 60]]
    model = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
             "max_input_chars_per_word": longest, "vocab": {t: i for i, t in enumerate(tokens)}}
    same_on_pieces(model, text)


# ---- reading tokenizer.json ---------------------------------------------------------------------

GOOD = {
    "BPE": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]},
    "WordPiece": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "a": 1}},
    "WordLevel": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "<unk>"},
    "Unigram": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]], "byte_fallback": False},
}
class _Missing:
    """A key left out of the model (its repr is fixed, so test ids are the same in every process)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()
BAD = [
    ("BPE", {"vocab": None}, "'vocab'"),
    ("BPE", {"vocab": MISSING}, "has no 'vocab'"),
    ("BPE", {"merges": MISSING}, "has no 'merges'"),
    ("WordPiece", {"max_input_chars_per_word": MISSING}, "'max_input_chars_per_word' must be"),
    ("WordLevel", {"unk_token": MISSING}, "'unk_token' must be a string"),
    ("BPE", {"vocab": {"a": -1}}, "ids are whole numbers"),
    ("BPE", {"vocab": {"a": 1.0}}, "ids are whole numbers"),
    ("BPE", {"vocab": {"a": True}}, "ids are whole numbers"),
    ("BPE", {"merges": None}, "'merges' must be a list"),
    ("BPE", {"merges": ["a b c"]}, "one space"),
    ("BPE", {"merges": ["a  b"]}, "one space"),
    ("BPE", {"merges": [["a", "b", "c"]]}, "pair of strings"),
    ("BPE", {"merges": [["a", "b"], "a b"]}, "mixes"),
    ("BPE", {"merges": [["a", "x"]]}, "'x' is not in the vocabulary"),
    ("BPE", {"merges": [["b", "a"]]}, "makes 'ba'"),
    ("BPE", {"dropout": 1.5}, "from 0 to 1"),
    ("BPE", {"dropout": "x"}, "'dropout' must be a number"),
    ("BPE", {"fuse_unk": 1}, "'fuse_unk' must be true or false"),
    ("BPE", {"unk_token": 3}, "'unk_token' must be a string"),
    ("WordPiece", {"unk_token": None}, "'unk_token' must be a string"),
    ("WordPiece", {"max_input_chars_per_word": -1}, "0 or more"),
    ("WordPiece", {"continuing_subword_prefix": None}, "'continuing_subword_prefix'"),
    ("WordLevel", {"unk_token": None}, "'unk_token' must be a string"),
    ("Unigram", {"vocab": [["a", "x"]]}, "vocab entry 0"),
    ("Unigram", {"vocab": {"a": 0}}, "'vocab' must be a list"),
    ("Unigram", {"unk_id": 9}, "not the id of a piece"),
    ("Unigram", {"vocab": []}, "cannot be empty"),
    ("Unigram", {"byte_fallback": None}, "'byte_fallback' must be true or false"),
]


@pytest.mark.parametrize(("kind", "change", "message"), BAD, ids=lambda v: str(v)[:40])
def test_a_malformed_model_is_one_line_naming_the_part_and_tokenizers_refuses_it_too(kind, change, message):
    data = {key: value for key, value in {**GOOD[kind], **change}.items() if value is not MISSING}
    with pytest.raises(BPEError, match=message) as caught:
        BUILDERS[kind](data, READER)
    assert str(caught.value).startswith(f"test.json: model {kind}: ") and "\n" not in str(caught.value)
    with pytest.raises(Exception):  # noqa: B017 (tokenizers raises its own exception types)
        reference(data)


@pytest.mark.parametrize("kind", list(GOOD))
def test_a_good_model_reads_and_writes_back_what_tokenizers_writes(kind):
    model = BUILDERS[kind](GOOD[kind], READER)
    assert model.kind == kind
    assert model.to_hf() == json.loads(reference(GOOD[kind]).to_str())["model"]


def test_null_and_missing_bpe_options_are_their_defaults():
    model = BUILDERS["BPE"](GOOD["BPE"] | {"fuse_unk": None, "byte_fallback": None, "dropout": None}, READER)
    assert model.to_hf() == json.loads(reference(GOOD["BPE"]).to_str())["model"]
    assert BUILDERS["BPE"](GOOD["BPE"] | {"merges": ["a b"]}, READER).merges == [("a", "b")]


# ---- threads --------------------------------------------------------------------------------------


def test_models_shared_between_threads_encode_alike(monkeypatch):
    """Tiny caches, so that they start over again and again while other threads read them."""
    rng = random.Random(5)
    words = ["".join(rng.choice(ALPHABET + "x") for _ in range(rng.randint(1, 12))) for _ in range(400)]
    models = [
        BUILDERS["BPE"](small_bpe(False) | {"unk_token": "<unk>", "byte_fallback": True}, READER),
        WordPiece({"[UNK]": 0, **{t: i + 1 for i, t in enumerate(["a", "b", "ab", "##a", "##b", "##c", "c", "##é"])}}),
        Unigram([("<unk>", 0.0)] + [(p, -1.5 * len(p)) for p in ("a", "b", "c", "é", "ab", "bc", "abc")], unk_id=0),
    ]
    for model in models:
        model._cache.limit = 7
        expected = [model.tokenize(w) for w in words]

        def run(seed: int, model=model, expected=expected) -> bool:
            order = random.Random(seed).sample(range(len(words)), len(words))
            return all(model.tokenize(words[k]) == expected[k] for k in order)

        with ThreadPoolExecutor(max_workers=4) as pool:
            assert all(pool.map(run, range(8)))
