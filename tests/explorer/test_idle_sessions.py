"""A session's budget covers everything it holds, and an idle session's holdings are let go."""
from __future__ import annotations

import time
from collections import OrderedDict

import pytest

from bpe_core import BPEError
from explorer.data import budget as budget_module
from explorer.data.budget import Budget, dropped_message
from explorer.ui import sessions, state
from tests.explorer.test_sessions import paste

# ---- the budget ---------------------------------------------------------------------------------

def test_the_budget_drops_the_oldest_items_of_any_kind_never_the_newest():
    held = Budget(limit=1000)
    assert held.add("corpus", "c1", "first corpus", 400) == []
    assert held.add("training", ("d1", "r"), "its training", 300) == []
    held.touch("corpus", "c1")  # used again: now the newest, so the training is the oldest
    dropped = held.add("tokenizer", "f1", "a file", 500)
    assert [(d.kind, d.key) for d in dropped] == [("training", ("d1", "r"))]
    assert [i.title for i in held.items()] == ["first corpus", "a file"] and held.total == 900
    dropped = held.add("tokenizer", "f2", "a big file", 1000)  # exactly the budget: the others make room
    assert [d.title for d in dropped] == ["first corpus", "a file"] and held.total == 1000
    assert held.add("tokenizer", "f2", "a big file", 1000) == []  # the same item again is not charged twice


def test_one_item_over_the_whole_budget_is_refused_and_nothing_is_dropped():
    held = Budget(limit=1000)
    held.add("corpus", "c1", "first corpus", 400)
    with pytest.raises(BPEError, match=r"^huge\.json takes about 2 KB of memory, more than one session may hold "
                                       r"here \(1 KB in all, for corpora, trainings and tokenizer files\); "
                                       r"try a smaller tokenizer file$"):
        held.add("tokenizer", "f", "huge.json", 2048)
    assert [i.title for i in held.items()] == ["first corpus"]


def test_the_dropped_message_names_each_item_its_kind_and_size():
    held = Budget(limit=3 * 1024**2)
    held.add("corpus", "c", "My <b>corpus</b>", 2 * 1024**2)
    dropped = held.add("tokenizer", "t", "tok.json", 2 * 1024**2)
    assert dropped_message(dropped, held.limit) == (
        "“My <b>corpus</b>” (corpus, 2 MB) was dropped from this session to keep it within its share of the "
        "server's memory (a session holds at most 3 MB of corpora, trainings and tokenizer files, oldest dropped "
        "first); bring back what you need again.")
    assert dropped_message([], held.limit) == ""


def test_a_session_s_budget_default_is_read_when_the_session_starts(monkeypatch):
    monkeypatch.setattr(budget_module, "SESSION_BUDGET", 1234)
    assert Budget().limit == 1234


# ---- idle sessions ---------------------------------------------------------------------------------

def test_an_idle_session_keeps_its_settings_and_loses_what_is_heavy():
    session = {state.CORPUS: "paste:abc", state.W_CORPUS: "paste:abc", state.W_MERGES: 500, state.STEP: 7,
               state.WORDS: "lowest newer", state.USER_CORPORA: {"paste:abc": object()},
               state.TRAIN_CACHE: OrderedDict(a=1), state.TRAINED: object(), state.TRAINED_FOR: ("paste:abc", ("k",)),
               state.TOK_TEXT: "x" * 20_000, state.TOK_CHOSEN: ("builtin:gpt2", "sidebar")}
    dropped = sessions.drop_heavy(session, list(session))
    assert sorted(dropped) == sorted([state.USER_CORPORA, state.TRAIN_CACHE, state.TRAINED, state.TOK_TEXT])
    # Their places are filled again at once, empty: a widget's callback may run before the next run.
    assert (session[state.USER_CORPORA], session[state.TRAINED], session[state.TOK_TEXT]) == (
        {}, None, state.TOK_DEFAULT_TEXT)
    assert len(session[state.TRAIN_CACHE]) == 0 and session[state.BUDGET].items() == []
    assert session[state.CORPUS] == session[state.W_CORPUS] == state.DEFAULT_CORPUS  # its own corpus is gone
    assert (session[state.W_MERGES], session[state.STEP], session[state.WORDS]) == (500, 7, "lowest newer")
    assert session[state.TOK_CHOSEN] == ("builtin:gpt2", "sidebar")
    assert session[sessions.IDLE_NOTICE] is True


def test_the_sweeper_drops_only_sessions_idle_past_the_limit():
    registry = sessions._Registry()
    registry._thread = object()  # no sweeping thread: this test sweeps by hand
    busy = _Ref({state.CORPUS: "sample:seed000", state.TRAINED: object()})
    idle = _Ref(busy)
    handles = (sessions.Handle(busy), sessions.Handle(idle))  # each session's state keeps its handle
    registry.checkin("busy", handles[0])
    registry.checkin("idle", handles[1])
    registry.active("idle", running=False)  # its run ended; "busy" is still in a run (waiting for a job)
    now = time.monotonic() + sessions.IDLE_SECONDS + 1
    assert registry.sweep(now) == 1
    assert idle[state.TRAINED] is None and idle[sessions.IDLE_NOTICE]
    assert busy[state.TRAINED] is not None
    assert registry.sessions() == 1  # the idle one checks in again at its next run
    # A run that never said it ended (its thread killed) counts as ended after six idle limits.
    assert registry.sweep(now + 4 * sessions.IDLE_SECONDS) == 0
    assert registry.sweep(now + 6 * sessions.IDLE_SECONDS) == 1 and busy[state.TRAINED] is None


class _Ref(dict):
    """A dict that can be weakly referred to, as Streamlit's session state can."""


def test_an_idle_session_comes_back_to_a_notice_and_its_corpus_trained_again(app):
    at = app
    at.switch_page("views/corpus.py")
    at.run()
    paste(at, "zq zq zqx " * 30)
    assert at.session_state[state.CORPUS].startswith("paste:")
    # The AppTest session checked in at each run; sweep as if it had sat idle past the limit.
    assert sessions.REGISTRY.sweep(time.monotonic() + sessions.IDLE_SECONDS + 1) >= 1
    at.run()
    assert not at.exception, at.exception
    assert [i.value for i in at.info if "sat idle" in i.value] == [
        "This page sat idle for more than 20 minutes, so what it held (corpora of your own, trainings, tokenizer "
        "files, results) was let go to free the server's memory for others. Your settings are kept; the corpus is "
        "trained again. Upload your own files again to use them."]
    assert at.session_state[state.CORPUS] == state.DEFAULT_CORPUS
    assert at.session_state[state.USER_CORPORA] == {}
    assert at.session_state[state.TRAINED] is not None and at.session_state[state.TRAIN_ERROR] == ""
    assert at.session_state[state.BUDGET].items()  # the lesson's training, charged to a new budget
    at.run()
    assert not any("sat idle" in i.value for i in at.info)  # said once


def test_a_widget_s_callback_still_works_right_after_an_idle_drop(app):
    """The first click after the drop runs its callback (before the run that refills the state)."""
    at = app
    at.switch_page("views/corpus.py")
    at.run()
    assert sessions.REGISTRY.sweep(time.monotonic() + sessions.IDLE_SECONDS + 1) >= 1
    paste(at, "zq zq zqx " * 30)
    assert at.session_state[state.CORPUS].startswith("paste:")
    assert [c.text for c in at.session_state[state.USER_CORPORA].values()] == ["zq zq zqx " * 30]


# ---- the server's shared caches -----------------------------------------------------------------

def test_a_shared_cache_no_run_used_for_the_idle_time_is_emptied_and_made_again_when_asked():
    import streamlit as st

    from explorer.ui.server_caches import kept_while_used, let_go_idle

    made = []

    @kept_while_used(st.cache_resource(show_spinner=False))
    def table(name: str) -> list[str]:
        made.append(name)
        return [name] * 3

    first = table("o200k")
    assert table("o200k") is first and made == ["o200k"]
    name = f"{table.__module__}.{table.__qualname__}"
    used = time.monotonic()
    assert name not in let_go_idle(60, now=used + 30)  # in use: kept
    assert table("o200k") is first and made == ["o200k"]
    gone = let_go_idle(60, now=time.monotonic() + 61)
    assert name in gone
    assert table("o200k") == first and table("o200k") is not first and made == ["o200k", "o200k"]


def test_the_sweeper_lets_go_of_the_pages_caches_and_built_ins_the_visitors_left(app):
    """After the visitors of Tokenize, Vocabulary overlap and Families have left, the server keeps
    neither their built-ins nor the families trained for them; a visitor who comes back gets the page
    as before. (What still holds a built-in, here the AppTest session's widgets, gets the same object
    back: `test_builtin.py` checks that.)"""
    from bpe_core.formats import builtin
    from explorer.ui import page_caches

    at = app
    at.switch_page("views/tokenize.py").run()
    assert not at.exception
    tables = [df.value.to_dict() for df in at.dataframe]
    at.switch_page("views/overlap.py").run()
    at.switch_page("views/families.py").run(timeout=120)
    assert not at.exception and {"cl100k_base", "o200k_base", "gpt2"} <= set(builtin._loaded)
    trained = page_caches.families()
    sessions.REGISTRY.sweep(time.monotonic() + sessions.IDLE_SECONDS + 1)
    assert builtin._loaded == {}
    assert page_caches.families() is not trained  # the Families results went too
    at.switch_page("views/tokenize.py").run()
    assert not at.exception and [df.value.to_dict() for df in at.dataframe] == tables


def test_a_shared_cache_defined_in_a_page_s_script_is_refused():
    """A page's script runs in a namespace of its own; a shared cache defined there would keep the page's
    last run (a visitor's corpus, the built-ins it showed) alive through the registry."""
    import streamlit as st

    from explorer.ui.server_caches import kept_while_used

    def table() -> list[int]:
        return [1]

    table.__module__ = "__main__"  # as a function of a page's script is
    with pytest.raises(TypeError, match="define a shared cache in a module, not in a page's script"):
        kept_while_used(st.cache_resource(show_spinner=False))(table)
