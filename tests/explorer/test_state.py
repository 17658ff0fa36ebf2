from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings

from explorer import state
from explorer.lessons import LESSONS
from explorer.training import TrainRequest

SAMPLES = {"seed000", "seed003", "english"}


def test_defaults_make_the_seed000_lesson():
    assert state.request_from_values(state.DEFAULTS) == TrainRequest(Settings(), "merges", 10)


def test_link_round_trip():
    values = dict(state.DEFAULTS)
    values.update({state.CORPUS: "sample:seed003", state.W_CORPUS: "sample:seed003", state.W_MODE: "text", state.W_TIE: "first",
                   state.W_TARGET: "vocab", state.W_VOCAB: 25, state.STEP: 4, state.WORDS: "like lovely",
                   state.W_PRESENTER: True})
    params = state.url_from_values(values)
    assert params == {"corpus": "seed003", "mode": "text", "tie": "first", "present": "1", "vocab": "25",
                      "step": "4", "words": "like lovely"}
    back, problems = state.values_from_url(params, samples=SAMPLES)
    assert not problems
    for key, value in back.items():
        if key != state.PLAYING:
            assert values[key] == value, key
    assert back[state.PLAYING] is False  # a link to a step does not start playing


def test_bad_link_values_are_reported_not_applied():
    values, problems = state.values_from_url(
        {"corpus": "nope", "mode": "chaos", "merges": "lots", "step": "-2", "lower": "maybe", "eow": "none"},
        samples=SAMPLES,
    )
    assert values == {state.W_EOW: "none"}
    assert len(problems) == 5 and any("corpus" in p for p in problems)


def test_uploaded_corpora_are_not_in_links():
    values = dict(state.DEFAULTS, **{state.CORPUS: "upload:abc"})
    assert "corpus" not in state.url_from_values(values)


def test_invalid_combination_raises_a_clear_message():
    with pytest.raises(BPEError, match="word mode"):
        state.request_from_values({**state.DEFAULTS, state.W_PRETOK: "gpt2"})


@pytest.mark.parametrize("key", list(LESSONS))
def test_values_for_request_round_trips(key):
    request = LESSONS[key].request
    assert state.request_from_values({**state.DEFAULTS, **state.values_for_request(request)}) == request


def test_bind_writes_back():
    session = {"words": "a b"}
    write_back = state.bind(session, "w_words", "words")
    assert session["w_words"] == "a b"
    session["w_words"] = "c"
    write_back()
    assert session["words"] == "c"


def test_init_reads_the_link_once():
    session: dict = {}
    state.init(session, {"merges": "20", "step": "3"}, samples=SAMPLES)
    assert session[state.W_MERGES] == 20 and session[state.STEP] == 3 and session[state.PLAYING] is False
    session[state.STEP] = 5
    state.init(session, {"step": "3"}, samples=SAMPLES)
    assert session[state.STEP] == 5


def test_sync_url_leaves_other_parameters_alone():
    link = {"cmp": "1", "step": "9", "vocab": "25"}
    state.sync_url(link, dict(state.DEFAULTS, **{state.STEP: 3}))
    assert link == {"cmp": "1", "step": "3", "corpus": "seed000", "merges": "10"}
