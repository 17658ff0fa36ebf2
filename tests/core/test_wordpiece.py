"""WordPiece: the fast trainer against the recount-everything reference, a hand-worked example,
and parity with Hugging Face `tokenizers` (its WordPiece model, BertPreTokenizer, Lowercase
normalizer and WordPiece decoder loaded from our `to_hf_dict()`)."""
from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings
from bpe_core.families import WordPieceModel, train_wordpiece, train_wordpiece_from_counts, wordpiece_train
from bpe_core.families.wordpiece import dumps, loads
from bpe_core.families.wordpiece_reference import reference_train
from bpe_core.families.wordpiece_text import count_words, split_words
from bpe_core.families.wordpiece_train import EXACT_FLOATS, train_merges
from bpe_core.pretokenize import count_words as count_whitespace_words
from tests.conftest import require

PROFILE = dict(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Few letters so that pairs repeat, overlap and tie; plus capitals (lowercasing), "İ" (two
# characters when lowercased), a final-sigma candidate, a combining accent, punctuation that
# BERT isolates ("$" is ASCII punctuation but a Unicode symbol; U+2E43 is punctuation in recent
# Unicode only), whitespace of several kinds (no-break space, ideographic space, U+001C which
# `str.split` cuts at but BERT does not), CJK and an emoji.
ALPHABET = "aaabbbcc \n\tAİΣσé\u0301.,!?'-$#[]\u00a0\u3000\u2e43\x1c中😀"
texts = st.text(st.sampled_from(ALPHABET), max_size=40)
corpora = st.lists(texts, min_size=1, max_size=5)

HUG = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5


# ---- training ---------------------------------------------------------------------------------


def test_hand_worked_example() -> None:
    """The Hugging Face course's corpus, worked by hand: count(##g) = 10 + 5 = 15 in hug and pug,
    plus 5 in hugs = 20, count(##s) = 5, count(##g ##s) = 5, so step 1 scores 5 / (20 * 5) = 1/20,
    the highest. At step 2 six pairs tie at 1/36 (p ##u 17/(17*36), h ##u 15/(15*36), ...): the
    higher pair count wins, p ##u with 17 (the course, taking the first pair it meets, says h ##u)."""
    model = train_wordpiece(HUG, vocab_size=17, special_tokens=["[UNK]"])
    assert model.tokens == (
        "[UNK]", "##g", "##n", "##s", "##u", "b", "h", "p",
        "##gs", "pu", "hu", "bu", "hugs", "hug", "bun", "pun", "pug",
    )
    rows = [(s.step, s.left, s.right, s.token, s.pair_count, s.left_count, s.right_count) for s in model.trace]
    assert rows == [
        (1, "##g", "##s", "##gs", 5, 20, 5),
        (2, "p", "##u", "pu", 17, 17, 36),
        (3, "h", "##u", "hu", 15, 15, 19),
        (4, "b", "##u", "bu", 4, 4, 4),
        (5, "hu", "##gs", "hugs", 5, 15, 5),
        (6, "hu", "##g", "hug", 10, 10, 15),
        (7, "bu", "##n", "bun", 4, 4, 16),
        (8, "pu", "##n", "pun", 12, 17, 12),
        (9, "pu", "##g", "pug", 5, 5, 5),
    ]
    assert model.trace[0].exact_score == Fraction(1, 20) and model.trace[0].score == 0.05
    assert all(step.added for step in model.trace)
    assert model.encode_tokens("hugs bugs thug") == ["hugs", "bu", "##gs", "[UNK]"]


def test_vocabulary_target_counts_special_tokens() -> None:
    model = train_wordpiece(HUG, vocab_size=13)  # BERT's five specials + 7 characters + 1 merge
    assert model.tokens[:5] == ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    assert len(model) == 13 and [s.token for s in model.trace] == ["##gs"]
    # A target below specials + alphabet keeps them all and merges nothing; no pair left stops early.
    assert len(train_wordpiece(HUG, vocab_size=3)) == 12 and not train_wordpiece(HUG, vocab_size=3).trace
    assert len(train_wordpiece("ab ab", vocab_size=100, special_tokens=[])) == 4  # [UNK], a, ##b, ab


def test_scores_are_compared_exactly_not_as_floats() -> None:
    """1/2**60 and 1/(2**60 + 1) are the same float; the exact fraction picks "ab" although "cd"
    occurs once more (a float-only comparison would fall through to the higher pair count)."""
    counts = {"ab": 2**60, "cd": 2**60 + 1}
    model = train_wordpiece_from_counts(counts, vocab_size=6, special_tokens=["[UNK]"])
    assert 1 / 2**60 == 1 / (2**60 + 1)
    assert [step.token for step in model.trace] == ["ab"]
    assert reference_train(counts, vocab_size=6, specials=["[UNK]"], prefix="##")[0][-1] == "ab"


@given(st.integers(1, 2**20), st.integers(2, 2**34), st.integers(0, 2**24))
@hyp_settings(**PROFILE)
def test_fractions_that_share_a_float_are_past_the_fast_paths_bound(p: int, q: int, k: int) -> None:
    """The trainer takes the heap's best entry without ordering equal floats exactly when its
    pair count times any possible denominator is below `EXACT_FLOATS`: below that, two different
    fractions never round to the same float. Checked on the closest fractions there are: p2/q2
    with p q2 - p2 q = 1 (neighbours in the Farey sequence)."""
    if math.gcd(p, q) != 1:
        p //= math.gcd(p, q)
        q //= math.gcd(p, q) or 1
    if q < 2 or math.gcd(p, q) != 1:
        return
    q2 = pow(p, -1, q) + k * q
    p2 = (p * q2 - 1) // q
    assert p * q2 - p2 * q == 1
    if p * q2 < EXACT_FLOATS:
        assert p / q != p2 / q2, (p, q, p2, q2)


def test_the_fast_paths_bound_is_below_the_first_shared_float() -> None:
    """Neighbours that do share a float (found by search): their p q2 is about 2**53.8, so the
    fast path must not take a pair count this large or the trainer would order them wrongly."""
    p, q, p2, q2 = 112657, 16786243, 926810792, 138097687401
    assert p / q == p2 / q2 and Fraction(p, q) != Fraction(p2, q2)
    assert p * q2 >= EXACT_FLOATS


def test_late_ties_with_one_score_are_ordered_like_the_reference() -> None:
    """Words of three characters found nowhere else: every pair scores 1/count (1, 1/2 or 1/3), so
    hundreds of pairs share each score, as rare pairs do late in a real training. The fast path
    takes them in the heap's order (higher pair count, then the strings), the reference's order."""
    words = {"".join(chr(0x4E00 + 3 * i + k) for k in range(3)): 1 + i % 3 for i in range(300)}
    args = dict(vocab_size=2_000, specials=["[UNK]"], prefix="##")
    vocab, trace = train_merges(words, **args)
    assert len(trace) == 600 and {step.score for step in trace} == {1.0, 1 / 2, 1 / 3}
    assert (vocab, trace) == reference_train(words, **args)


@given(st.dictionaries(st.text("abcé", min_size=1, max_size=7), st.integers(1, 6), min_size=1, max_size=6),
       st.integers(1, 40))
@hyp_settings(**PROFILE)
def test_fast_trainer_equals_reference(counts: dict[str, int], vocab_size: int) -> None:
    fast = train_merges(counts, vocab_size=vocab_size, specials=["[UNK]"], prefix="##")
    assert fast == reference_train(counts, vocab_size=vocab_size, specials=["[UNK]"], prefix="##")


@given(corpora, st.booleans())
@hyp_settings(**PROFILE)
def test_fast_trainer_equals_reference_on_texts(corpus: list[str], lowercase: bool) -> None:
    counts = count_words(corpus, lowercase=lowercase)
    assert train_merges(counts, vocab_size=60, specials=["[UNK]"], prefix="##") == reference_train(
        counts, vocab_size=60, specials=["[UNK]"], prefix="##"
    )


@pytest.mark.parametrize("patched", [{"EXACT_FLOATS": 0}, {"STALE_SLACK": -10**9}, {"STALE_SLACK": 3}])
@given(st.dictionaries(st.text("abcé", min_size=1, max_size=7), st.integers(1, 6), min_size=1, max_size=6),
       st.integers(1, 40))
@hyp_settings(**PROFILE)
def test_the_slow_paths_train_the_same(patched: dict[str, int], counts: dict[str, int], vocab_size: int) -> None:
    """The paths a small corpus never takes, one at a time: every float tie ordered by exact
    fractions (in the groups and at the top); every group built again after each merge (owners
    chosen anew); stale entries kept only a few at a time, so builds come between incremental steps."""
    args = dict(vocab_size=vocab_size, specials=["[UNK]"], prefix="##")
    expected = reference_train(counts, **args)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in patched.items():
            patch.setattr(wordpiece_train, name, value)
        assert train_merges(counts, **args) == expected


def test_fractions_that_share_a_float_inside_a_group_are_ordered_exactly() -> None:
    """Counts past 2**53, where different fractions round to one float: at step 2 the pairs of a
    group share the top float, and the exact order takes a + ##c, as the reference does (a group
    ordered by its floats alone took a + ##ac)."""
    counts = {"aac": 2**60, "acb": 2**61 + 1, "bb": 2**60 + 1}
    args = dict(vocab_size=8, specials=["[UNK]"], prefix="##")
    vocab, trace = train_merges(counts, **args)
    assert (trace[1].left, trace[1].right) == ("a", "##c")
    assert (vocab, trace) == reference_train(counts, **args)


def test_a_suffix_after_many_stems_is_not_ranked_again_at_each_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 stems each seen only before "s": every stem + ##s pair scores 1 / count(##s), so they
    are merged one after another, each lowering count(##s). Pushing every pair of ##s again after
    each merge is 2,000 x 2,000 heap pushes (what made 50,000 tokens on 5 MB take a minute); the
    pairs grouped under ##s keep their order, so the pushes stay linear."""
    stems = [chr(0x4E00 + i) + chr(0x5000 + i) for i in range(2_000)]
    counts = {stem + "s": 1 for stem in stems}
    pushes = 0
    real_push = wordpiece_train.heapq.heappush

    def counting_push(heap: list, entry: object) -> None:
        nonlocal pushes
        pushes += 1
        real_push(heap, entry)

    monkeypatch.setattr(wordpiece_train.heapq, "heappush", counting_push)
    vocab, trace = train_merges(counts, vocab_size=10**6, specials=["[UNK]"], prefix="##")
    assert len(trace) == 4_000  # every stem's two pairs, then nothing is left
    assert pushes < 20 * len(trace), pushes


@given(corpora, st.booleans())
@hyp_settings(**PROFILE)
def test_training_from_whitespace_counts_equals_training_from_texts(corpus: list[str], lowercase: bool) -> None:
    """Issue 12's counts (word mode: whitespace words, punctuation attached) train the same model."""
    counted = count_whitespace_words(corpus, Settings())
    from_counts = train_wordpiece_from_counts(counted, vocab_size=40, lowercase=lowercase)
    from_texts = train_wordpiece(corpus, vocab_size=40, lowercase=lowercase)
    if "\x1c" not in "".join(corpus):  # str.split cuts at U+001C, BERT does not
        assert from_counts.tokens == from_texts.tokens and from_counts.trace == from_texts.trace


# ---- encoding and decoding --------------------------------------------------------------------


def test_greedy_longest_match_and_unknown_words() -> None:
    model = WordPieceModel(["[UNK]", "a", "##a", "ab", "##ab", "abc", "##c", "c", "."], max_input_chars_per_word=5)
    assert model.encode_with_spans("abcab ab.x aaaaa aaaaaa") == [
        ("abc", 0, 3), ("##ab", 3, 5), ("ab", 6, 8), (".", 8, 9), ("[UNK]", 9, 10),
        ("a", 11, 12), ("##a", 12, 13), ("##a", 13, 14), ("##a", 14, 15), ("##a", 15, 16),
        ("[UNK]", 17, 23),  # six characters: over max_input_chars_per_word
    ]
    assert model.encode_tokens("cab abd") == ["c", "##ab", "[UNK]"]  # "d" is unknown: the whole word is
    assert model.decode(model.encode_ids("cab ab. x")) == "cab ab. [UNK]"


def test_lowercase_spans_point_into_the_input() -> None:
    model = train_wordpiece("İstanbul ΑΣ", vocab_size=200, lowercase=True, special_tokens=["[UNK]"])
    assert model.encode_with_spans("İSTANBUL ΑΣ") == [("i̇stanbul", 0, 8), ("ασ", 9, 11)]


def test_decode_follows_the_hugging_face_decoder() -> None:
    model = WordPieceModel(["[UNK]", "do", "n", "'", "t", "##s", "it", ".", "##it"])
    ids = [model.vocab[t] for t in ["do", "n", "'", "t", "it", "##s", ".", "do"]]
    # The decoder cleans up each piece on its own, so only " ." (and " ?", " !", " ,") change:
    # " n't" never occurs inside one piece, as BERT's words cut "'" off.
    assert model.decode(ids) == "do n ' t its. do"
    assert WordPieceModel(model.tokens, cleanup=False).decode(ids) == "do n ' t its . do"
    assert _hf(model).decode(ids) == model.decode(ids)
    assert model.decode([model.vocab["##it"]]) == "##it"  # the first piece keeps its prefix


def _hf(model: WordPieceModel):  # type: ignore[no-untyped-def]
    tokenizers = require("tokenizers")
    return tokenizers.Tokenizer.from_str(json.dumps(model.to_hf_dict()))


_HF_CORPUS = "The quick brown fox's jump-over: 3 lazy dogs! Don't ΣΑΣ İzmir 中文 😀 " * 3


@given(corpora, texts, st.booleans(), st.sampled_from([100, 4]), st.integers(30, 120))
@hyp_settings(**PROFILE)
def test_tokenizers_encodes_exactly_as_we_do(corpus: list[str], text: str, lowercase: bool,
                                            max_chars: int, vocab_size: int) -> None:
    model = train_wordpiece([_HF_CORPUS, *corpus], vocab_size=vocab_size, lowercase=lowercase,
                            max_input_chars_per_word=max_chars)
    theirs = _hf(model).encode(text)
    spans = model.encode_with_spans(text)
    assert theirs.tokens == [t for t, _, _ in spans] == model.encode_tokens(text)
    assert theirs.ids == model.encode_ids(text)
    assert theirs.offsets == [(s, e) for _, s, e in spans]
    assert _hf(model).decode(theirs.ids) == model.decode(theirs.ids)


@given(st.lists(st.text("ab#c", min_size=1, max_size=5), max_size=15), st.text("abc #", max_size=30))
@hyp_settings(**PROFILE)
def test_tokenizers_agrees_on_any_vocabulary(tokens: list[str], text: str) -> None:
    """Greedy longest match on vocabularies training never makes ("##" alone, "a#", gaps)."""
    model = WordPieceModel(["[UNK]", *dict.fromkeys(tokens)], max_input_chars_per_word=6)
    theirs = _hf(model).encode(text)
    assert (theirs.tokens, theirs.ids, theirs.offsets) == (
        model.encode_tokens(text), model.encode_ids(text), [(s, e) for _, s, e in model.encode_with_spans(text)])


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=30))
@hyp_settings(**PROFILE)
def test_tokenizers_agrees_on_any_characters(text: str) -> None:
    model = train_wordpiece([_HF_CORPUS, text[:15]], vocab_size=150)
    theirs = _hf(model).encode(text)
    assert (theirs.tokens, theirs.offsets) == ([t for t, _, _ in model.encode_with_spans(text)],
                                               [(s, e) for _, s, e in model.encode_with_spans(text)])


def test_pre_tokenizer_matches_bert_on_every_code_point() -> None:
    """Each code point between two letters: a word character, whitespace or punctuation, as in
    `tokenizers`' BertPreTokenizer (its Unicode tables, not Python's, decide)."""
    pre_tokenizers = require("tokenizers.pre_tokenizers")
    bert = pre_tokenizers.BertPreTokenizer()
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    for i in range(0, len(points), 20_000):
        text = "".join("a" + chr(cp) for cp in points[i:i + 20_000]) + "a"
        assert [w for w, _ in bert.pre_tokenize_str(text)] == split_words(text)


# ---- files and bad input ------------------------------------------------------------------------


def test_our_json_round_trip() -> None:
    model = train_wordpiece(HUG, vocab_size=20, lowercase=True, max_input_chars_per_word=7, cleanup=False)
    again = loads(dumps(model))
    assert again.tokens == model.tokens and again.trace == model.trace
    assert (again.lowercase, again.max_input_chars_per_word, again.cleanup, again.special_tokens) == (
        True, 7, False, ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"))
    assert again.to_dict() == model.to_dict()
    assert model.to_dict()["model"] == "wordpiece" and model.to_dict()["format"] == "bpe-explorer"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "invalid JSON at line 1"),
        ("[]", "expected a JSON object"),
        ('{"format": "bpe-explorer", "version": 1}', '"model" \'wordpiece\''),
        ('{"format": "bpe-explorer", "model": "wordpiece", "version": 2}', "unsupported version 2"),
        ('{"format": "bpe-explorer", "model": "wordpiece", "version": 1, "options": {}, "vocab": ["a"]}',
         "the unknown token '[UNK]' is not in the vocabulary"),
        ('{"format": "bpe-explorer", "model": "wordpiece", "version": 1, "options": {}, "vocab": ["[UNK]", "a", "a"]}',
         "token 'a' appears twice"),
        ('{"format": "bpe-explorer", "model": "wordpiece", "version": 1, "options": {}, "vocab": ["[UNK]"],'
         ' "trace": [{"step": 0}]}', 'trace entry 1: "left" must be a str'),
    ],
)
def test_malformed_json_is_one_line_error(text: str, message: str) -> None:
    with pytest.raises(BPEError) as info:
        loads(text)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: train_wordpiece("ab", vocab_size=0), "vocabulary size must be a whole number"),
        (lambda: train_wordpiece("ab", vocab_size=True), "vocabulary size must be a whole number"),
        (lambda: train_wordpiece(b"ab", vocab_size=5), "must be a str, not bytes"),  # type: ignore[arg-type]
        (lambda: train_wordpiece("ab", vocab_size=5, prefix="xx"), "continuation prefix"),
        (lambda: train_wordpiece("ab", vocab_size=5, max_input_chars_per_word=0), "max_input_chars_per_word"),
        (lambda: train_wordpiece("ab", vocab_size=5, special_tokens=["[X]", "[X]"]), "appears twice"),
        (lambda: train_wordpiece("ab", vocab_size=5, lowercase="yes"), "lowercase must be"),  # type: ignore[arg-type]
        (lambda: train_wordpiece_from_counts({"ab": 0}, vocab_size=5), "count of 'ab'"),
        (lambda: train_wordpiece_from_counts(["ab"], vocab_size=5), "mapping"),  # type: ignore[arg-type]
        (lambda: WordPieceModel(["[UNK]"]).decode([1]), "token id 1 is not in the vocabulary"),
        (lambda: WordPieceModel(["[UNK]"]).decode("0"), "sequence of token ids"),
        (lambda: WordPieceModel(["[UNK]"]).encode(None), "must be a str"),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_are_one_line_errors(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BPEError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_training_is_deterministic_whatever_the_order_of_counts() -> None:
    counts = count_words([HUG, "abc abd bcd " * 3])
    reversed_counts = Counter(dict(reversed(list(counts.items()))))
    a = train_wordpiece_from_counts(counts, vocab_size=30)
    b = train_wordpiece_from_counts(reversed_counts, vocab_size=30)
    assert a.tokens == b.tokens and a.trace == b.trace


def test_words_longer_than_the_encoding_limit_are_left_out_of_training():
    # Such a word encodes as [UNK] whole, so training skips it: its letters ("q" here) do not
    # enter the alphabet, and a 20,000-letter word costs nothing instead of a rewrite per step.
    giant = "q" * 20_000
    model = train_wordpiece([f"{giant} hug hugs pug", "z" * 100], vocab_size=40, max_input_chars_per_word=100)
    assert "q" not in model.vocab and "##q" not in model.vocab
    assert "z" in model.vocab  # a word of exactly 100 letters is at the limit, not over it
    small = train_wordpiece(["hug hugs pug", "z" * 100], vocab_size=40)
    assert list(model.vocab) == list(small.vocab)
    assert model.encode_tokens(giant[:101]) == ["[UNK]"]
