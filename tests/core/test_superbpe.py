"""SuperBPE: the fast trainer against the slow reference, exact round trips, `tokenizers` parity
of the export, fewer tokens than BPE on held-out prose, our JSON, and one-line errors."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, train
from bpe_core.families import SuperBPEModel, train_superbpe, train_superbpe_from_counts
from bpe_core.families.superbpe import (
    count_phase_one,
    count_phase_two,
    is_superword,
    phase_two_allows,
    phase_two_pieces,
    words_in,
)
from bpe_core.families.superbpe_reference import reference_superbpe
from sample_corpora import load_corpus
from tests.conftest import require

PROFILE = {"max_examples": 120, "deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
# Small alphabets with spaces, a colon, punctuation, digits, newlines and a two-byte letter, so
# phase two meets every boundary the split keeps and both of the fork's rules.
CHUNKS = st.sampled_from([*"ab c:.\n1é", "a b", "b: c", " ab", ".."])
TEXTS = st.lists(st.lists(CHUNKS, max_size=25).map("".join), min_size=1, max_size=4).filter(lambda texts: any(texts))
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60) | st.text(
    alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000.,:;!?/'\"-0123456789abcXYZé😀")), max_size=80
)


@pytest.fixture(scope="module")
def english() -> tuple[str, str]:
    """(training text, held-out text): the English sample's first 300,000 characters and the next 100,000."""
    text = load_corpus("english", max_bytes=420_000)
    return text[:300_000], text[300_000:400_000]


@pytest.fixture(scope="module")
def model(english: tuple[str, str]) -> SuperBPEModel:
    return train_superbpe(english[0], vocab_size=2000, transition=1500)


# ---- the split and the rules ----------------------------------------------------------------


def test_phase_two_keeps_only_the_authors_boundaries() -> None:
    # Digits in threes, punctuation runs of two or more, spaces before other whitespace; the rest joins.
    assert phase_two_pieces("By the way, I paid 12345 dollars... Then  left.\n\nOK") == [
        "By the way, I paid ", "123", "45", " dollars", "...", " Then", " ", " left.\n\nOK",
    ]


def test_rules_and_superwords_are_exact() -> None:
    assert words_in("ĠaĠbĠcĠd") == 4 and words_in("ĠaĠbĠcĠdĠe") == 5 and words_in("ĠĠ") == 0
    assert phase_two_allows("ĠaĠbĠcĠd") and not phase_two_allows("ĠaĠbĠcĠdĠe")
    assert phase_two_allows("ĠaĠbĠcĠdĠe", max_words=None)
    assert not phase_two_allows("note:Ġsee") and phase_two_allows("note:Ġsee", colon_rule=False)
    assert [is_superword(t) for t in ("ĠofĠthe", "Ġthe", "theĠ", "ĠĠ", ".ĊĊThe", "aĉb")] == [
        True, False, False, False, True, True,
    ]


def test_by_the_way_pins_both_phases_and_the_word_limit() -> None:
    # Phase one (6 merges to a vocabulary of 262) spells " way" and " the": all pairs occur 3
    # times and count-pair takes the greatest pair, so pairs starting with "Ġ" (U+0120) go first.
    # Phase two sees one piece, the whole text, and joins across spaces; once every pair left
    # would make a token of more than four words, it stops short of the 270 asked for.
    tok = train_superbpe(["by the way, by the way, by the way"], vocab_size=270, transition=262)
    assert tok.merges == [
        ("Ġ", "w"), ("Ġw", "a"), ("Ġwa", "y"), ("Ġ", "t"), ("Ġt", "h"), ("Ġth", "e"),
        ("Ġthe", "Ġway"), ("y", "ĠtheĠway"), ("b", "yĠtheĠway"), ("Ġ", "byĠtheĠway"), (",", "ĠbyĠtheĠway"),
    ]
    assert tok.transition == 6 and tok.training is not None
    assert tok.training.stop_reason == "no pair is left that phase two may merge"
    assert [s.phase for s in tok.trace] == [1] * 6 + [2] * 5
    assert [s.superword for s in tok.trace] == [False] * 6 + [True] * 5
    assert [s.count for s in tok.trace] == [3] * 9 + [2, 2]
    assert tok.encode_tokens("by the way") == ["byĠtheĠway"]
    assert tok.encode_with_spans("x by the way") == [("x", 0, 1), ("ĠbyĠtheĠway", 1, 12)]


def test_word_limit_and_colon_rule_bind_phase_two() -> None:
    text = "key: value, one two three four five six. " * 40
    ruled = train_superbpe(text, vocab_size=400, transition=300)
    free = train_superbpe(text, vocab_size=400, transition=300, max_words=None, colon_rule=False)
    assert max(words_in(t) for t in ruled.vocab) == 4
    assert not any(":Ġ" in t for t in ruled.vocab)
    assert max(words_in(t) for t in free.vocab) > 4 and any(":Ġ" in t for t in free.vocab)


# ---- fast against slow ----------------------------------------------------------------------


@hyp_settings(**PROFILE)
@given(
    texts=TEXTS,
    tie_break=st.sampled_from(["count-pair", "first", "hf"]),
    extra=st.integers(0, 50),
    split=st.floats(0, 1),
    max_words=st.sampled_from([None, 1, 2, 4]),
    colon_rule=st.booleans(),
    pretokenizer=st.sampled_from(["superbpe", "gpt2", "o200k"]),
)
def test_fast_trainer_agrees_with_reference(
    texts: list[str], tie_break: str, extra: int, split: float, max_words: int | None, colon_rule: bool,
    pretokenizer: str,
) -> None:
    vocab_size = 256 + extra
    transition = 256 + int(extra * split)
    tok = train_superbpe(
        texts, vocab_size=vocab_size, transition=transition, tie_break=tie_break, max_words=max_words,
        colon_rule=colon_rule, pretokenizer=pretokenizer,
    )
    expected = reference_superbpe(
        count_phase_one(texts, pretokenizer), count_phase_two(texts),
        Settings(mode="bytes", pretokenizer="none", tie_break=tie_break),
        phase_one_merges=transition - 256, merges=extra,
        allows=lambda token: phase_two_allows(token, max_words=max_words, colon_rule=colon_rule),
        max_token_length=1000,
    )
    assert [(s.left, s.right, s.count, s.phase) for s in tok.trace] == expected
    assert tok.transition == sum(1 for *_, phase in expected if phase == 1)
    assert all(s.superword == is_superword(s.token) for s in tok.trace)


@hyp_settings(**PROFILE)
@given(
    one=st.dictionaries(st.text(alphabet="aĠb.Ċ", min_size=1, max_size=8), st.integers(1, 5), min_size=1, max_size=8),
    two=st.dictionaries(st.text(alphabet="aĠb.Ċ", min_size=1, max_size=20), st.integers(1, 5), min_size=1, max_size=8),
    extra=st.integers(0, 40),
    split=st.floats(0, 1),
)
def test_agreement_when_phase_one_tokens_hold_spaces(
    one: dict[str, int], two: dict[str, int], extra: int, split: float
) -> None:
    # Counts given directly may teach phase one tokens such as "aĠ" or ".Ċ": phase two's replay,
    # which cuts its pieces only where no phase-one token could join them, must still agree.
    transition = 256 + int(extra * split)
    tok = train_superbpe_from_counts(one, two, vocab_size=256 + extra, transition=transition, max_words=None)
    expected = reference_superbpe(
        one, two, Settings(mode="bytes", pretokenizer="none"), phase_one_merges=transition - 256, merges=extra,
        allows=lambda token: phase_two_allows(token, max_words=None), max_token_length=1000,
    )
    assert [(s.left, s.right, s.count, s.phase) for s in tok.trace] == expected


def test_replay_in_the_index_replays_merges_that_spell_a_token_twice() -> None:
    # The fallback phase two uses when two phase-one merges make the same token ("abc" from
    # ab + c and from a + bc): the merges replayed in order, as the reference does.
    from bpe_core.families.superbpe_trainer import SuperBPEStep, _replay_in_index
    from bpe_core.reference import apply_merge

    merges = [("b", "c"), ("a", "b"), ("ab", "c"), ("a", "bc"), ("abc", "abc"), ("bc", "a")]
    steps = [SuperBPEStep(r, a, b, a + b, 1, 0, 1, False, 0) for r, (a, b) in enumerate(merges)]
    ids = {t: i for i, t in enumerate(dict.fromkeys([*"abc", *(a + b for a, b in merges)]))}
    parts = ["abcabc", "abbca", "cabcab", "bcabc"]
    expected = []
    for part in parts:
        symbols = list(part)
        for pair in merges:
            symbols = apply_merge(symbols, pair)
        expected.append([ids[t] for t in symbols])
    assert _replay_in_index(parts, steps, ids) == expected == [[6], [4, 7], [2, 5, 4], [3, 5]]


def test_from_counts_trains_the_same_model(english: tuple[str, str]) -> None:
    texts = [english[0][:20_000], english[0][20_000:40_000]]
    direct = train_superbpe(texts, vocab_size=500, transition=400)
    counted = train_superbpe_from_counts(count_phase_one(texts), count_phase_two(texts), vocab_size=500, transition=400)
    assert counted.merges == direct.merges and counted.transition == direct.transition == 144


def test_trace_marks_the_transition_and_superwords(model: SuperBPEModel) -> None:
    trace = model.trace
    assert len(trace) == len(model.merges) == 2000 - 256 and model.transition == 1500 - 256
    assert {s.phase for s in trace[: model.transition]} == {1} and {s.phase for s in trace[model.transition:]} == {2}
    assert not any(s.superword for s in trace[: model.transition])  # phase one never crosses a space
    assert sum(s.superword for s in trace) > 100  # most phase-two merges bridge words in prose
    assert [s.vocab_size for s in trace] == list(range(257, 2001))
    assert all(s.count >= t.count for s, t in zip(trace[model.transition:], trace[model.transition + 1:]))
    assert model.superwords[0] == trace[next(i for i, s in enumerate(trace) if s.superword)].token


# ---- encoding ---------------------------------------------------------------------------------


@hyp_settings(**PROFILE)
@given(text=ANY_TEXT)
def test_round_trip_is_exact(model: SuperBPEModel, text: str) -> None:
    ids = model.encode_ids(text)
    assert model.decode(ids) == text
    spans = model.encode_with_spans(text)
    assert [t for t, _, _ in spans] == model.encode_tokens(text) == [model.tokenizer.id_to_token[i] for i in ids]
    assert all(0 <= s < e <= len(text) for _, s, e in spans)


@hyp_settings(**PROFILE)
@given(text=ANY_TEXT)
def test_export_encodes_identically_in_tokenizers(model: SuperBPEModel, hf_model: object, text: str) -> None:
    found = hf_model.encode(text)  # type: ignore[attr-defined]
    assert (found.tokens, found.ids) == (model.encode_tokens(text), model.encode_ids(text))


def test_export_matches_on_held_out_prose(model: SuperBPEModel, hf_model: object, english: tuple[str, str]) -> None:
    held = english[1]
    for start in range(0, len(held), 5000):
        piece = held[start:start + 5000]
        found = hf_model.encode(piece)  # type: ignore[attr-defined]
        assert found.ids == model.encode_ids(piece)


@pytest.fixture(scope="module")
def hf_model(model: SuperBPEModel) -> object:
    tokenizers = require("tokenizers")
    return tokenizers.Tokenizer.from_str(json.dumps(model.to_hf_dict()))


@hyp_settings(**PROFILE)
@given(text=st.text(alphabet="abc .", max_size=40))
def test_merges_that_spell_a_token_twice_encode_as_in_tokenizers(text: str) -> None:
    # "abc" is made by ab + c and by a + bc: encoding falls back to merging whole pieces by rank.
    merges = [["b", "c"], ["a", "b"], ["ab", "c"], ["a", "bc"], ["Ġ", "abc"], ["abc", "Ġabc"], ["bc", "a"]]
    tok = SuperBPEModel.from_dict({**GOOD, "transition": 3, "merges": merges})
    hf = require("tokenizers").Tokenizer.from_str(json.dumps(tok.to_hf_dict()))
    assert hf.encode(text).ids == tok.encode_ids(text)
    assert tok.decode(tok.encode_ids(text)) == text


def test_fewer_tokens_than_bpe_on_held_out_prose(english: tuple[str, str]) -> None:
    train_text, held = english
    bpe = train(train_text, Settings(mode="bytes", pretokenizer="o200k"), vocab_size=2000)
    sup = train_superbpe(train_text, vocab_size=2000, transition=1500, pretokenizer="o200k")
    assert len(bpe.vocab) == len(sup.vocab) == 2000
    bpe_n, sup_n = len(bpe.encode_ids(held)), len(sup.encode_ids(held))
    saved = 100 * (bpe_n - sup_n) / bpe_n
    assert sup_n < bpe_n, f"SuperBPE {sup_n:,} tokens vs BPE {bpe_n:,}: {saved:.1f}% fewer"
    print(f"held-out prose: SuperBPE {sup_n:,} tokens, BPE {bpe_n:,}: {saved:.1f}% fewer")


# ---- files and errors ------------------------------------------------------------------------


def test_our_json_round_trip(model: SuperBPEModel, english: tuple[str, str]) -> None:
    again = SuperBPEModel.from_json(model.to_json())
    assert again.to_dict() == model.to_dict()
    assert again.merges == model.merges and again.transition == model.transition and again.vocab == model.vocab
    held = english[1][:20_000]
    assert again.encode_ids(held) == model.encode_ids(held)
    assert again.steps == model.steps and again.trace == []


GOOD = {
    "format": "bpe-explorer", "model": "superbpe", "version": 1, "transition": 1, "merges": [["a", "b"], ["ab", "c"]],
}


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "expected a JSON object"),
        ({**GOOD, "model": "bpe"}, '"model"'),
        ({**GOOD, "version": 2}, "version 2"),
        ({**GOOD, "merges": "a b"}, '"merges" must be a list'),
        ({**GOOD, "merges": [["a", "b", "c"]]}, "merge 1 is not"),
        ({**GOOD, "merges": [["a", "€"]]}, "not a byte-level symbol"),
        ({**GOOD, "merges": [["ab", "c"]]}, "which no earlier merge makes"),
        ({**GOOD, "merges": [["a", ""]]}, "non-empty string"),
        ({**GOOD, "transition": 3}, '"transition" must be'),
        ({**GOOD, "transition": True}, '"transition" must be'),
        ({**GOOD, "tie_break": "random"}, '"tie_break"'),
        ({**GOOD, "max_words": 0}, '"max_words"'),
        ({**GOOD, "colon_rule": "yes"}, '"colon_rule"'),
        ({**GOOD, "phase_two_split": " +"}, "split"),
    ],
)
def test_malformed_json_is_one_line_error(data: object, fragment: str) -> None:
    SuperBPEModel.from_dict(GOOD)  # the good one loads
    with pytest.raises(BPEError) as caught:
        SuperBPEModel.from_dict(data)
    message = str(caught.value)
    assert message.startswith("not a SuperBPE JSON file: ") and fragment in message and "\n" not in message


def test_broken_json_text_is_one_line_error() -> None:
    with pytest.raises(BPEError, match=r"^not a SuperBPE JSON file: ") as caught:
        SuperBPEModel.from_json('{"format": ')
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: train_superbpe("a b", vocab_size=100), "at least 256"),
        (lambda: train_superbpe("a b", vocab_size="300"), "vocabulary size"),
        (lambda: train_superbpe("a b", vocab_size=300, transition=200), "transition"),
        (lambda: train_superbpe("a b", vocab_size=300, transition=301), "transition"),
        (lambda: train_superbpe("a b", vocab_size=300, pretokenizer="whitespace"), "phase-one pre-tokenizer"),
        (lambda: train_superbpe("a b", vocab_size=300, tie_break="random"), "tie-break"),
        (lambda: train_superbpe("a b", vocab_size=300, max_words=0), "max_words"),
        (lambda: train_superbpe("a b", vocab_size=300, colon_rule="yes"), "colon_rule"),
        (lambda: train_superbpe("a b", vocab_size=300, min_frequency=0), "minimum frequency"),
        (lambda: train_superbpe("a b", vocab_size=300, top_k=0), "top_k"),
        (lambda: train_superbpe("a b", vocab_size=300, max_token_length=0), "longest token"),
        (lambda: train_superbpe(b"a b", vocab_size=300), "not bytes"),
        (lambda: train_superbpe(["a", "\ud800"], vocab_size=300), "lone surrogate"),
        (lambda: train_superbpe("", vocab_size=300), "empty"),
        (lambda: train_superbpe_from_counts({"ab": 1}, [("ab", 1)], vocab_size=300), "mapping"),
        (lambda: train_superbpe_from_counts({"ab": 1}, {"a€": 1}, vocab_size=300), "byte symbol"),
        (lambda: train_superbpe_from_counts({"ab": 0}, {"ab": 1}, vocab_size=300), "whole numbers"),
        (lambda: train_superbpe("a b", vocab_size=300).decode([10**9]), "not in this tokenizer's vocabulary"),
        (lambda: train_superbpe("a b", vocab_size=300).encode(None), "must be a str"),
    ],
)
def test_bad_arguments_are_one_line_errors(call: object, fragment: str) -> None:
    with pytest.raises(BPEError) as caught:
        call()  # type: ignore[operator]
    assert fragment in str(caught.value) and "\n" not in str(caught.value)
