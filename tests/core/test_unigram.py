"""Unigram: the fast trainer against the reference, `tokenizers` parity, peers' token counts, files."""
from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.families.unigram import UnigramModel, dumps, loads, train_unigram, train_unigram_from_counts
from bpe_core.families.unigram_reference import reference_train, segmentations
from bpe_core.families.unigram_text import META, text_words
from bpe_core.families.unigram_train import train_pieces
from bpe_core.settings import BPEError
from tests.conftest import require

WORDS = st.text(alphabet="abc", min_size=0, max_size=6).map(lambda w: META + w)
CORPORA = st.dictionaries(WORDS, st.integers(min_value=1, max_value=9), min_size=1, max_size=6)
PROSE = (
    "the cat sat on the mat. the dog ran in the park; cats and dogs are pets. "
    "a lower, newer, wider road led to the newest town, where the widest river ran. "
)


def toy() -> UnigramModel:
    return UnigramModel([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("▁", -3.0), ("a", -3.0), ("ab", -3.0)])


# ---- the fast trainer against the reference ----------------------------------------------------


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(CORPORA, st.integers(min_value=0, max_value=10), st.integers(min_value=2, max_value=6),
       st.sampled_from([1_000_000, 4]))
def test_fast_trainer_agrees_with_reference(counts: dict[str, int], extra: int, max_len: int, seed: int) -> None:
    words, freqs = list(counts), list(counts.values())
    vocab_size = len(set("".join(words))) + 1 + extra
    options = {"vocab_size": vocab_size, "max_piece_length": max_len, "seed_size": seed}
    fast, fast_trace = train_pieces(words, freqs, **options)
    ref, ref_trace = reference_train(words, freqs, **options)
    assert [p for p, _ in fast] == [p for p, _ in ref]
    assert [s for _, s in fast] == pytest.approx([s for _, s in ref], rel=1e-9, abs=1e-9)
    assert len(fast_trace) == len(ref_trace)
    for a, b in zip(fast_trace, ref_trace):
        assert (a.vocab_size_before, a.vocab_size, a.final) == (b.vocab_size_before, b.vocab_size, b.final)
        assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-9, abs=1e-9)
        assert [p for p, _ in a.dropped] == [p for p, _ in b.dropped]
        assert a.removed == b.removed


def test_trace_of_a_real_run_shrinks_to_target_keeping_characters() -> None:
    model = train_unigram([PROSE * 20], vocab_size=30)
    assert len(model.pieces) == 30 and model.pieces[0] == "<unk>"
    assert set(PROSE.replace(" ", META)) <= set(model.pieces)
    assert [(r.vocab_size_before, r.vocab_size, r.final) for r in model.trace] == [
        (53, 36, False), (36, 33, False), (33, 33, False), (33, 30, True)]
    for r in model.trace:  # every removed piece is named with a finite loss, and gone for good
        assert all(math.isfinite(loss) and p not in model.vocab for p, loss in r.removed)
    # pieces no Viterbi path uses go first, with loss 0, by text; then the lowest losses; the
    # final cut goes by score, lowest first
    assert model.trace[0].removed[:2] == (("cat", 0.0), ("dog", 0.0))
    assert model.trace[1].removed[0] == ("er", pytest.approx(0.0942491558365))
    assert model.trace[-1].removed[0] == ("at", pytest.approx(-4.01445370733))
    assert model.scores[1:] == sorted(model.scores[1:], reverse=True)


def test_segmentations_and_viterbi_by_enumeration() -> None:
    model = toy()
    # "▁ab": ▁a+b = -3, ▁+ab = -6, ▁+a+b = -8: the best is listed and chosen
    assert sorted(segmentations("▁ab", set(model.pieces))) == [("▁", "a", "b"), ("▁", "ab"), ("▁a", "b")]
    assert model.encode_tokens("ab") == ["▁a", "b"]
    # ties: "▁" + "ab" and "▁a" + "b" both -5 here, and the longer last piece wins, as in tokenizers
    tie = UnigramModel([("<unk>", 0.0), ("▁a", -2.0), ("b", -3.0), ("▁", -2.0), ("ab", -3.0), ("a", -9.0)])
    assert tie.encode_tokens("ab") == ["▁", "ab"]


def test_tokenizers_breaks_viterbi_ties_as_we_do() -> None:
    tokenizers = require("tokenizers")
    # every split of "▁aaaa" into "▁a"/"▁aa", "a"/"aa" scores the same: the longer last piece wins
    tie = UnigramModel([("<unk>", 0.0), ("▁", -2.0), ("▁a", -2.0), ("▁aa", -4.0), ("a", -2.0), ("aa", -4.0),
                        ("b", -1.0), ("ab", -3.0)])
    hf = tokenizers.Tokenizer.from_str(json.dumps(tie.to_hf_dict()))
    for text in ("aaaa", "aab", "abab a"):
        assert hf.encode(text).tokens == tie.encode_tokens(text), text
    assert tie.encode_tokens("aaaa") == ["▁aa", "aa"]


def test_unknown_characters_fuse_and_keep_their_text() -> None:
    model = toy()
    assert model.encode_with_spans("aß€b <unk>") == [
        ("▁a", 0, 1), ("ß€", 1, 3), ("b", 3, 4), ("▁", 4, 5), ("<unk>", 5, 10)]
    assert model.encode_ids("aß€b <unk>") == [1, 0, 2, 3, 0]


# ---- tokenizers parity -------------------------------------------------------------------------

TEXTS = st.lists(st.sampled_from(list("the cat sat on mat,.\n\t  ") + ["<unk>", "<un", "é", "日", "▁", "zz"]),
                 max_size=40).map("".join)


@pytest.fixture(scope="module")
def trained() -> UnigramModel:
    return train_unigram([PROSE * 30], vocab_size=80)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(TEXTS)
def test_tokenizers_encodes_exactly_as_we_do(trained: UnigramModel, text: str) -> None:
    tokenizers = require("tokenizers")
    hf = tokenizers.Tokenizer.from_str(json.dumps(trained.to_hf_dict()))
    enc = hf.encode(text)
    ours = trained._encode(text)
    assert enc.tokens == [t for t, _, _, _ in ours]
    assert enc.ids == [i for _, i, _, _ in ours]
    assert enc.offsets == [(s, e) for _, _, s, e in ours]


def test_decode_round_trips_known_text(trained: UnigramModel) -> None:
    for text in ("the cat", "the  mat  ", "on, the mat."):
        assert trained.decode(trained.encode_ids(text)) == text
    # a leading space is lost (" the" and "the" are both "▁the"), and an unknown stretch is "<unk>"
    assert trained.decode(trained.encode_ids(" the\tmat")) == "the<unk>mat"


# ---- n-best and sampling -------------------------------------------------------------------------


def test_nbest_lists_segmentations_by_probability() -> None:
    model = toy()
    best = model.nbest("ab", 5)
    assert [pieces for pieces, _, _ in best] == [["▁a", "b"], ["▁", "ab"], ["▁", "a", "b"]]
    assert [logp for _, logp, _ in best] == [-3.0, -6.0, -8.0]
    z = math.exp(-3) + math.exp(-6) + math.exp(-8)
    assert [p for _, _, p in best] == pytest.approx([math.exp(-3) / z, math.exp(-6) / z, math.exp(-8) / z])
    assert model.nbest("ab", 1)[0][0] == model.encode_tokens("ab")
    assert [p for p, _, _ in model.nbest("ab ab", 2)] == [["▁a", "b", "▁a", "b"], ["▁a", "b", "▁", "ab"]]


def test_sampling_follows_p_to_the_alpha() -> None:
    model = toy()
    rng = random.Random(7)
    seen = Counter(tuple(model.sample("ab", 0.5, rng)) for _ in range(4000))
    weights = {("▁a", "b"): math.exp(-1.5), ("▁", "ab"): math.exp(-3.0), ("▁", "a", "b"): math.exp(-4.0)}
    total = sum(weights.values())
    for seg, w in weights.items():
        assert seen[seg] / 4000 == pytest.approx(w / total, abs=0.03)
    assert set(seen) == set(weights)
    assert model.sample("ab", 0.5, random.Random(3)) == model.sample("ab", 0.5, random.Random(3))


# ---- peers' token counts -------------------------------------------------------------------------


def test_token_count_within_two_percent_of_tokenizers_and_sentencepiece(tmp_path) -> None:
    tokenizers = require("tokenizers")
    spm = require("sentencepiece")
    from sample_corpora import catalog

    lines = [line for line in catalog.build_english(400_000).split("\n") if line.strip()]
    train, held = lines[: len(lines) * 3 // 4], lines[len(lines) * 3 // 4:]
    size = 1000
    ours = train_unigram(train, vocab_size=size)
    hf = tokenizers.Tokenizer(tokenizers.models.Unigram())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    trainer = tokenizers.trainers.UnigramTrainer(vocab_size=size, special_tokens=["<unk>"], unk_token="<unk>",
                                                 show_progress=False)
    hf.train_from_iterator(train, trainer=trainer)
    path = tmp_path / "train.txt"
    path.write_text("\n".join(train), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(path), model_prefix=str(tmp_path / "sp"), vocab_size=size, model_type="unigram",
        character_coverage=1.0, normalization_rule_name="identity", remove_extra_whitespaces=False,
        bos_id=-1, eos_id=-1, num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    n_ours = sum(len(ours.encode_tokens(line)) for line in held)
    n_hf = sum(len(e.ids) for e in hf.encode_batch(held))
    n_sp = sum(len(ids) for ids in sp.encode(held))
    message = f"held-out tokens: ours {n_ours}, tokenizers {n_hf}, sentencepiece {n_sp}"
    assert abs(n_ours / n_hf - 1) <= 0.02, message
    assert abs(n_ours / n_sp - 1) <= 0.02, message


# ---- files and bad input -------------------------------------------------------------------------


def test_json_round_trip(trained: UnigramModel) -> None:
    again = loads(dumps(trained))
    assert again.pieces == trained.pieces and again.scores == trained.scores
    assert again.trace == trained.trace
    assert again.encode_ids(PROSE) == trained.encode_ids(PROSE)


@pytest.mark.parametrize("text", [
    "{", "[]", '{"format": "bpe-explorer", "model": "bpe"}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 1, "vocab": []}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 1, "vocab": [["<unk>", "x"]]}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 1, "vocab": [["a", 0.0]]}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 1, "vocab": [["<unk>", 0.0], ["<unk>", 1.0]]}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 1, "vocab": [["<unk>", 0.0]], "trace": [{}]}',
    '{"format": "bpe-explorer", "model": "unigram", "version": 2, "vocab": [["<unk>", 0.0]]}',
])
def test_malformed_json_is_one_line_error(text: str) -> None:
    with pytest.raises(BPEError) as info:
        loads(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("call", [
    lambda: train_unigram("one string", vocab_size=10),
    lambda: train_unigram(["ab"], vocab_size=2),
    lambda: train_unigram(["ab"], vocab_size=True),
    lambda: train_unigram([b"ab"], vocab_size=10),
    lambda: train_unigram(["ab"], vocab_size=10, shrinking_factor=1.5),
    lambda: train_unigram([""], vocab_size=10),
    lambda: train_unigram_from_counts({"▁a": -1}, vocab_size=10),
    lambda: toy().nbest("ab", 0),
    lambda: toy().sample("ab", 0, random.Random(1)),
    lambda: toy().sample("ab", 1.0, 5),
    lambda: toy().decode([99]),
    lambda: toy().decode("ab"),
])
def test_bad_arguments_raise_bpe_error(call) -> None:
    with pytest.raises(BPEError):
        call()


def test_words_follow_the_metaspace_rule() -> None:
    assert text_words("a  b\tc <unk>d ") == [
        ("▁a", [0, 0]), ("▁", [1]), ("▁b\tc", [2, 3, 4, 5]), ("▁", [6]), ("▁d", [12, 12]), ("▁", [13])]


def test_a_rounds_dict_holds_its_fields_in_order_and_reads_back() -> None:
    from dataclasses import fields

    from bpe_core.families.unigram_train import UnigramRound

    one = UnigramRound(2, 40, -12.5, (("ab", 0.25),), (("abc", 1.5), ("bc", 2.0)), 37, False)
    data = one.to_dict()
    assert list(data) == [f.name for f in fields(UnigramRound)]
    assert data["dropped"] == [["ab", 0.25]] and data["removed"] == [["abc", 1.5], ["bc", 2.0]]
    assert UnigramRound.from_dict(json.loads(json.dumps(data))) == one


# ---- training's words: line breaks and long words -------------------------------------------------

def test_training_cuts_words_at_line_breaks_and_into_runs():
    from bpe_core.families.unigram import word_counts
    from bpe_core.families.unigram_text import MAX_TRAINING_WORD

    counts = word_counts(["the end.\n\nNext one\r\nline " + "x" * (2 * MAX_TRAINING_WORD + 5)])
    assert counts == Counter({"▁the": 1, "▁end.": 1, "\n": 3, "Next": 1, "▁one": 1, "\r": 1, "line": 1,
                              "▁" + "x" * (MAX_TRAINING_WORD - 1): 1, "x" * MAX_TRAINING_WORD: 1, "xxxxxx": 1})


@given(st.lists(st.text(st.sampled_from("ab \n\r\t"), max_size=30), min_size=1, max_size=6))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_encoding_cuts_a_word_at_its_line_breaks_as_training_did(texts):
    """No trained piece holds a line break beside other characters, so a word is encoded as its
    parts between line breaks would be, each break a token of its own; and the text comes back whole."""
    text = "".join(texts)
    if not text.strip(" "):
        return
    model = train_unigram(texts, vocab_size=40)
    assert all(len(piece) == 1 for piece in model.pieces if "\n" in piece or "\r" in piece)
    tokens = model.encode_tokens(text)
    assert all(len(t) == 1 for t in tokens if "\n" in t or "\r" in t)
    assert model.decode(model.encode_ids(text)) == text.removeprefix(" ")  # a leading space is "▁" alone


def test_a_rounds_removed_pieces_are_lowest_loss_first():
    """The unused pieces' loss 0 sits among the others: SentencePiece's estimate can fall below 0."""
    from bpe_core.families.unigram_train import prune

    removed = prune([("ab", -0.5), ("bc", 0.25), ("cd", 3.0)], ["zz", "aa"], keep=1)
    assert removed == [("ab", -0.5), ("aa", 0.0), ("zz", 0.0), ("bc", 0.25)]
