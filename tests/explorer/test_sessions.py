"""What one session may hold and ask of the server: its own corpora, trained bundles, trainings."""
from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings
from explorer.data.tasks import time_message
from explorer.data.training import TrainRequest, train_corpus
from explorer.data.worker import WorkerPool
from explorer.display.render import md_escape
from explorer.ui import state, store
from sample_corpora import load_corpus


def paste(at, text: str):
    at.text_area(key=state.W_PASTE).input(text)
    at.button(key=state.B_USE_PASTE).click()
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def corpus_page(app):
    app.switch_page("views/corpus.py")
    app.run()
    return app


def test_the_fourth_corpus_drops_the_oldest_with_a_message(corpus_page):
    at = corpus_page
    texts = [f"first {i} " + "lorem ipsum " * 5 for i in range(4)]
    for text in texts:
        paste(at, text)
    kept = at.session_state[state.USER_CORPORA]
    assert [c.text for c in kept.values()] == texts[1:]
    assert at.session_state[state.CORPUS] == list(kept)[-1]
    assert [s.value for s in at.success] == [md_escape(
        "Using the pasted text: 68 characters. “Pasted: first 0 lorem ipsum lorem ipsum lorem ip…” was dropped "
        "from this session: a session keeps at most 3 corpora of its own; upload or paste it again to use it."
    )]
    options = at.selectbox(key=state.W_CORPUS).options
    assert not any("first 0" in o for o in options)
    assert sum("first" in o for o in options) == 3


def test_corpora_over_the_session_budget_drop_the_oldest_item_with_a_message(corpus_page, monkeypatch):
    at = corpus_page
    paste(at, "a" * 1500)
    assert len(at.session_state[state.USER_CORPORA]) == 1
    # Room for one pasted text and its training, not for two: the oldest items go, whatever their kind.
    held = at.session_state[state.BUDGET]
    monkeypatch.setattr(held, "limit", held.total + 100)
    paste(at, "b" * 1500)
    assert [c.text for c in at.session_state[state.USER_CORPORA].values()] == ["b" * 1500]
    # Said where it happened: the paste's notice (the lesson's training made room for b's text), then a
    # toast when b's training made room for itself (a's text, with its training).
    said = " ".join([at.success[0].value, *(t.value for t in at.toast)])
    assert md_escape("“Lesson: low, lower, newest, widest: word mode") in said
    assert md_escape("“Pasted: " + "a" * 40 + "…” (corpus, ") in said
    assert said.count("dropped from this session to keep it within its share of the server") == 2
    kinds = [item.kind for item in held.items()]
    assert kinds.count("corpus") == 1 and held.total <= held.limit
    digest = next(iter(at.session_state[state.USER_CORPORA].values())).digest
    assert all(k[0] == digest for k in at.session_state[state.TRAIN_CACHE])  # a's trainings went with a


def test_one_corpus_over_the_whole_budget_is_refused_and_the_previous_one_stays(corpus_page, monkeypatch):
    at = corpus_page
    paste(at, "zq zq zqx " * 20)
    before = dict(at.session_state[state.USER_CORPORA])
    monkeypatch.setattr(at.session_state[state.BUDGET], "limit", 2000)
    paste(at, "c" * 5000)
    assert at.session_state[state.USER_CORPORA] == before
    assert [e.value for e in at.error][0].startswith(md_escape("Pasted: " + "c" * 40))
    assert at.error[0].value.endswith(md_escape(
        "… takes about 5 KB of memory, more than one session may hold here (2 KB in all, for corpora, trainings "
        "and tokenizer files); try a smaller corpus"))


def test_a_dropped_corpus_takes_its_trained_bundles_with_it(corpus_page):
    at = corpus_page
    paste(at, "zq zq zqx " * 20)
    dropped_digest = next(iter(at.session_state[state.USER_CORPORA].values())).digest
    assert any(k[0] == dropped_digest for k in at.session_state[state.TRAIN_CACHE])
    for i in range(3):
        paste(at, f"other {i} " * 20)
    assert not any(k[0] == dropped_digest for k in at.session_state[state.TRAIN_CACHE])


def test_the_app_refuses_more_merges_than_its_limit():
    assert store.MAX_APP_MERGES == 50_000
    store.check_request(TrainRequest(Settings(), "merges", 50_000))
    with pytest.raises(
        BPEError, match=r"^1,000,000 merges is more than this app trains for one visitor \(50,000 at most\)"
    ):
        store.check_request(TrainRequest(Settings(), "merges", 1_000_000))
    with pytest.raises(BPEError, match=r"^a vocabulary of 50,001 is more than this app trains"):
        store.check_request(TrainRequest(Settings(), "vocab", 50_001))


def test_only_tiny_corpora_train_in_the_page_thread():
    from explorer.data.corpus import pasted_corpus

    lesson = pasted_corpus(load_corpus("seed000"))
    assert store.trains_in_thread(lesson, TrainRequest(Settings(), "merges", 10))
    assert not store.trains_in_thread(lesson, TrainRequest(Settings(), "merges", 50_000))
    big = pasted_corpus("word " * 30_000)  # 150,000 characters
    assert not store.trains_in_thread(big, TrainRequest(Settings(), "merges", 1))


def test_a_large_corpus_trains_in_a_worker_and_matches(app):
    at = app
    at.query_params["corpus"] = "english"
    at.query_params["merges"] = "20"
    at.session_state[state.URL_READ] = False  # read the link again, as a fresh visit would
    at.run()
    assert not at.exception, at.exception
    assert at.session_state[state.TRAIN_ERROR] == ""
    assert at.session_state[state.TRAIN_JOB] is None  # followed to the end, then forgotten
    trained = at.session_state[state.TRAINED]
    here = train_corpus([load_corpus("english")], TrainRequest(Settings(), "merges", 20))
    assert trained.tokenizer.merges == here.tokenizer.merges
    assert not store.trains_in_thread(_english_corpus(), TrainRequest(Settings(), "merges", 20))


def _english_corpus():
    from explorer.data.corpus import sample_corpus

    return sample_corpus("english", "English", load_corpus("english"))


def test_a_training_over_the_time_limit_shows_a_message_and_is_not_retried(app, monkeypatch):
    pool = WorkerPool(workers=1, time_limit=1.0)
    submitted = []
    original = pool.submit
    monkeypatch.setattr(pool, "submit", lambda *a, **k: submitted.append(a[0]) or original(*a, **k))
    monkeypatch.setattr(store, "worker_pool", lambda: pool)
    at = app
    at.query_params["corpus"] = "english"
    at.query_params["mode"] = "text"
    at.query_params["merges"] = "2000"
    at.session_state[state.URL_READ] = False
    at.run()
    assert not at.exception, at.exception
    assert at.session_state[state.TRAIN_ERROR] == time_message(1.0)
    assert [e.value for e in at.error] == [
        md_escape(
            "Could not train. The training took longer than 1 s, the limit for one training here, and was stopped; "
            "try fewer merges, a pre-tokenizer (without one, text and bytes modes treat the whole corpus as one word) "
            "or a smaller corpus. The previous result is still shown."
        )
    ]
    assert at.session_state[state.TRAINED].request.amount == 10  # the lesson's result stays on screen
    at.run()  # another run (any click): the same request is not started again
    assert len(submitted) == 1
    assert at.session_state[state.TRAIN_ERROR] == time_message(1.0)


def test_a_new_request_cancels_the_session_s_training_under_way(app):
    class Running:
        key = ("another corpus", ())
        cancelled = False

        def cancel(self):
            self.cancelled = True

    at = app
    running = Running()
    at.session_state[state.TRAIN_JOB] = running
    at.query_params["corpus"] = "english"
    at.session_state[state.URL_READ] = False
    at.run()
    assert not at.exception, at.exception
    assert running.cancelled
    assert at.session_state[state.TRAIN_JOB] is None
