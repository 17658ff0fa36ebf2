from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings
from explorer.data.lessons import LESSONS
from explorer.data.training import TrainRequest
from explorer.ui import link, state

SAMPLES = {"seed000", "seed003", "english"}


def _open(session: dict, params: dict, *, samples) -> None:
    """What the app does at the start of every run: fill in defaults, read the link once."""
    state.init(session)
    link.read_once(session, params, samples=samples)


def test_defaults_make_the_seed000_lesson():
    assert state.request_from_values(state.DEFAULTS) == TrainRequest(Settings(), "merges", 10)


def test_link_round_trip():
    values = dict(state.DEFAULTS)
    values.update(
        {
            state.CORPUS: "sample:seed003",
            state.W_CORPUS: "sample:seed003",
            state.W_MODE: "text",
            state.W_TIE: "first",
            state.W_TARGET: "vocab",
            state.W_VOCAB: 25,
            state.STEP: 4,
            state.WORDS: "like lovely",
            state.W_PRESENTER: True,
        }
    )
    params = link.url_from_values(values)
    assert params == {
        "corpus": "seed003",
        "mode": "text",
        "tie": "first",
        "present": "1",
        "vocab": "25",
        "step": "4",
        "words": "like lovely",
    }
    back, problems = link.values_from_url(params, samples=SAMPLES)
    assert not problems
    for key, value in back.items():
        if key != state.PLAYING:
            assert values[key] == value, key
    assert back[state.PLAYING] is False  # a link to a step does not start playing


def test_bad_link_values_are_reported_not_applied():
    values, problems = link.values_from_url(
        {"corpus": "nope", "mode": "chaos", "merges": "lots", "step": "-2", "lower": "maybe", "eow": "none"},
        samples=SAMPLES,
    )
    assert values == {state.W_EOW: "none"}
    assert len(problems) == 5 and any("corpus" in p for p in problems)


def test_uploaded_corpora_are_not_in_links():
    values = dict(state.DEFAULTS, **{state.CORPUS: "upload:abc"})
    assert "corpus" not in link.url_from_values(values)


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
    _open(session, {"merges": "20", "step": "3"}, samples=SAMPLES)
    assert session[state.W_MERGES] == 20 and session[state.STEP] == 3 and session[state.PLAYING] is False
    session[state.STEP] = 5
    _open(session, {"step": "3"}, samples=SAMPLES)
    assert session[state.STEP] == 5


def test_sync_url_leaves_other_parameters_alone():
    params = {"cmp": "1", "step": "9", "vocab": "25"}
    link.sync_url(params, dict(state.DEFAULTS, **{state.STEP: 3}))
    assert params == {"cmp": "1", "step": "3", "corpus": "seed000", "merges": "10"}


# ---- what a link may ask, said in words (issue 8, section 4) ----------------------------------


def test_a_link_value_that_is_not_a_number_is_said_in_words():
    values, problems = link.values_from_url({"merges": "abc", "mode": "text"}, samples=SAMPLES)
    assert values == {state.W_MODE: "text"}
    assert problems == ["merges=abc in the link is not a whole number."]
    assert link.link_notice(problems) == (
        "The link asked for something this app could not do. merges=abc in the link is not a whole number. "
        "The link's other settings were used."
    )


@pytest.mark.parametrize(
    ("name", "key", "raw"), [("merges", state.W_MERGES, "1000000"), ("vocab", state.W_VOCAB, "99999999999999999999")]
)
def test_a_link_cannot_ask_for_more_than_a_session_may_train(name, key, raw):
    values, problems = link.values_from_url({"corpus": "english", "mode": "text", name: raw}, samples=SAMPLES)
    assert values[key] == state.MAX_APP_MERGES == 50_000
    assert values[state.W_TARGET] == name
    assert problems == [
        f"{name}={raw} in the link is more than this app allows (50,000 "
        f"{'merges' if name == 'merges' else 'tokens'}), so 50,000 was used."
    ]
    state.request_from_values({**state.DEFAULTS, **values})  # and that request is allowed


def test_the_settings_cannot_ask_for_more_either():
    with pytest.raises(BPEError, match=r"^1,000,000 merges is more than this app trains for one visitor \(50,000"):
        state.request_from_values({**state.DEFAULTS, state.W_MERGES: 1_000_000})


def test_a_crafted_value_is_quoted_short_and_unchanged():
    crafted = "[Reload here](https://example.invalid) and a great deal more text after it"
    _, problems = link.values_from_url({"mode": crafted}, samples=SAMPLES)
    assert problems == ["mode=[Reload here](https://example.invalid) a… in the link is not one of word, text, bytes."]


def test_a_small_pasted_corpus_travels_in_the_link_and_comes_back():
    values = dict(state.DEFAULTS, **{state.CORPUS: "paste:abc", state.STEP: 2})
    params = link.url_from_values(values, corpus_text="low lower lowest")
    assert params["text"] == "low lower lowest" and "corpus" not in params and "own" not in params
    back, problems = link.values_from_url(params, samples=SAMPLES)
    assert back[state.LINK_TEXT] == "low lower lowest" and problems == []


@pytest.mark.parametrize(
    ("key", "own", "said"), [("paste:abc", "paste", "pasted text"), ("upload:abc", "upload", "an uploaded file")]
)
def test_a_link_made_with_a_big_corpus_says_what_it_opened(key, own, said):
    big = "word " * 1000  # 5,000 bytes: over what a link carries
    assert not link.link_carries(big) and link.link_carries("word " * 400)
    params = link.url_from_values(dict(state.DEFAULTS, **{state.CORPUS: key}), corpus_text=big)
    assert params["own"] == own and "text" not in params and "corpus" not in params
    _, problems = link.values_from_url(params, samples={"seed000": "Lesson: low, lower, newest, widest"})
    assert problems == [
        f"This link was made while {said} was in use; a link cannot carry it, so it opened the "
        "sample corpus \u201cLesson: low, lower, newest, widest\u201d instead."
    ]


def test_a_link_with_too_much_text_opens_a_sample_and_says_so():
    values, problems = link.values_from_url({"text": "x" * 2001}, samples=SAMPLES)
    assert state.LINK_TEXT not in values
    assert problems == [
        "The text in the link is longer than a link may carry (2,000 bytes), so it opened a sample corpus."
    ]


def test_the_link_notice_belongs_to_the_moment_the_link_was_opened():
    session: dict = {}
    _open(session, {"merges": "abc"}, samples=SAMPLES)
    assert session[state.URL_NOTICE][0] == "warning"
    link.expire_link_notice(session, "watch")  # the first run: the moment is recorded
    session[state.STEP] = 7  # the animation moves on by itself: still the same moment
    link.expire_link_notice(session, "watch")
    assert session[state.URL_NOTICE] is not None
    link.expire_link_notice(session, "unseen-words")  # the user went to another page
    assert session[state.URL_NOTICE] is None
    _open(session, {"merges": "abc"}, samples=SAMPLES)  # a rerun does not read the link again
    assert session[state.URL_NOTICE] is None


def test_the_link_notice_goes_when_a_setting_changes():
    session: dict = {}
    _open(session, {"mode": "chaos"}, samples=SAMPLES)
    link.expire_link_notice(session, "watch")
    session[state.W_MERGES] = 12
    link.expire_link_notice(session, "watch")
    assert session[state.URL_NOTICE] is None


# ---- the Tokenize page's text and tokenizers ------------------------------------------------------

def test_the_tokenize_page_travels_in_the_link_and_comes_back():
    values = dict(state.DEFAULTS)
    values[state.TOK_TEXT] = "naïve <b>日本語</b>"
    values[state.TOK_CHOSEN] = ["builtin:gpt2", "file:abc", "sidebar", "builtin:qwen3"]  # as the multiselect has it
    params = link.url_from_values(values)
    assert params["input"] == "naïve <b>日本語</b>"
    assert params["tokenizers"] == "gpt2,sidebar,qwen3"  # an uploaded file cannot travel
    back, problems = link.values_from_url(params, samples=SAMPLES)
    assert problems == []
    assert back[state.TOK_TEXT] == "naïve <b>日本語</b>"
    assert back[state.TOK_CHOSEN] == ("builtin:gpt2", "sidebar", "builtin:qwen3")


def test_the_tokenize_defaults_stay_out_of_the_link_and_old_links_still_open():
    params = link.url_from_values(state.DEFAULTS)
    assert "input" not in params and "tokenizers" not in params
    values = dict(state.DEFAULTS)
    values[state.TOK_CHOSEN] = list(state.TOK_DEFAULT_CHOSEN)  # a list equal to the default tuple
    assert "tokenizers" not in link.url_from_values(values)
    back, problems = link.values_from_url({"corpus": "seed003", "step": "2"}, samples=SAMPLES)
    assert problems == [] and state.TOK_TEXT not in back and state.TOK_CHOSEN not in back


def test_a_tokenize_text_too_long_for_a_link_is_not_carried_and_a_crafted_one_is_refused():
    values = dict(state.DEFAULTS)
    values[state.TOK_TEXT] = "日" * 667  # 2,001 bytes
    assert "input" not in link.url_from_values(values)
    values[state.TOK_TEXT] = "日" * 666  # 1,998 bytes
    assert link.url_from_values(values)["input"] == "日" * 666
    assert link.tokenize_link_carries("a" * 2_000) and not link.tokenize_link_carries("a" * 2_001)
    back, problems = link.values_from_url({"input": "x" * 2_001}, samples=SAMPLES)
    assert state.TOK_TEXT not in back
    assert problems == ["The Tokenize page's text in the link is longer than a link may carry (2,000 bytes), so "
                        "that page opened with its example text."]


def test_unknown_tokenizer_names_in_a_link_are_named_and_the_rest_used():
    back, problems = link.values_from_url({"tokenizers": "o200k_base, nope ,sidebar,o200k_base,"}, samples=SAMPLES)
    assert back[state.TOK_CHOSEN] == ("builtin:o200k_base", "sidebar")
    assert problems == ["tokenizers=nope in the link names no tokenizer this app has (it has gpt2, cl100k_base, "
                        "o200k_base, llama3, qwen3, mistral_v1, tekken, deepseek_v4, qwen3_6, o200k_harmony "
                        "and sidebar)."]
    back, problems = link.values_from_url({"tokenizers": "builtin:gpt2"}, samples=SAMPLES)  # a key, not a name
    assert state.TOK_CHOSEN not in back and len(problems) == 1  # nothing usable: the page's own choice stays
    back, problems = link.values_from_url({"tokenizers": ""}, samples=SAMPLES)
    assert back[state.TOK_CHOSEN] == () and problems == []  # the link chose none
