"""The server's sessions: what an idle one holds is dropped, and memory freed goes back to the system.

Every script run checks its session in (`checkin`). A thread, started once per server, looks at
the sessions every `SWEEP_EVERY` seconds:

* a session without a run for `IDLE_SECONDS` (a tab left open, or closed: Streamlit keeps a
  closed session a while for a reconnect) has everything heavy in its state dropped: corpora,
  trainings, tokenizer files, the pages' results. Its settings, its step and its words stay, and
  its next run says what happened (`show_notice`) and trains its corpus again;
* the server's shared caches and built-in tokenizers that no run has used for as long are let go
  of too (`explorer/ui/server_caches.py`);
* once sessions have ended or were dropped, or something was let go of, unreachable objects are
  collected and the C allocator is asked to give free memory back (`malloc_trim`), so the
  server's resident memory falls back after many visitors instead of staying at its peak (the C
  allocator is also told to return large blocks at once: `explorer/data/allocator.py`).
"""
from __future__ import annotations

import gc
import os
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

import streamlit as st

from explorer.data import allocator
from explorer.ui import server_caches, state

IDLE_SECONDS = float(os.environ.get("EXPLORER_IDLE_SECONDS", 20 * 60))
SWEEP_EVERY = max(0.5, min(60.0, IDLE_SECONDS / 4))
IDLE_NOTICE = "idle_notice"  # set by the sweeper: the session's heavy state was dropped while it sat idle
HANDLE = "session_handle"  # the session's `Handle`, which the registry knows it by
SMALL_TEXT = 10_000  # characters of a string value kept in an idle session (the pasted text boxes)
SMALL_ITEMS = 100  # items of a tuple or list kept (settings, chosen tokenizers)


def plain(value: Any, depth: int = 0) -> bool:
    """A value cheap to keep: numbers, short strings, small tuples and lists of them.

    >>> plain(("sample:seed000", 10, True)), plain("x" * 20_000), plain({"a": 1}), plain([[1], [2]])
    (True, False, False, True)
    """
    if value is None or isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, str):
        return len(value) <= SMALL_TEXT
    if isinstance(value, (tuple, list, frozenset)) and depth < 3:
        return len(value) <= SMALL_ITEMS and all(plain(v, depth + 1) for v in value)
    return False


def drop_heavy(session: Any, keys: list[str]) -> list[str]:
    """Delete the keys of `session` whose values are not `plain`; a corpus of the session's own
    gives way to the default one. Returns the keys dropped."""
    dropped = []
    for key in keys:
        try:
            if not plain(session[key]):
                del session[key]
                dropped.append(key)
        except (KeyError, AttributeError, TypeError, ValueError):
            continue  # a widget's value Streamlit keeps its own way
    if not str(session[state.CORPUS]).startswith("sample:"):
        session[state.CORPUS] = session[state.W_CORPUS] = state.DEFAULT_CORPUS
    # Empty places again at once: a widget's callback may run before the next run fills them.
    for key, value in state.DEFAULTS.items():
        if key not in session:
            session[key] = value
    for key, fresh in state.FRESH.items():
        if key not in session:
            session[key] = fresh()
    session[IDLE_NOTICE] = True
    return dropped


def _connected(session_id: str) -> bool:
    """Whether a browser tab still shows the session (True when that cannot be told)."""
    try:
        from streamlit.runtime import Runtime

        return Runtime.instance().is_active_session(session_id)
    except Exception:  # noqa: BLE001 - not running under a Streamlit server
        return True


def _forget_callbacks(session: Any) -> None:
    """Let go of a closed session's widget callbacks: through their globals they hold every
    top-level value of the page that last ran (a tokenizer, a corpus). Only for a closed session:
    an open tab's next click must still run its callback; a tab that reconnects reruns first,
    which registers them again."""
    metadata = getattr(getattr(session, "_new_widget_state", None), "widget_metadata", None)
    if isinstance(metadata, dict):
        metadata.clear()


def _expire_closed_sessions() -> None:
    """Ask Streamlit to let go now of closed sessions past its reconnect time (it would otherwise do
    so only when the next session is stored)."""
    try:
        from streamlit.runtime import Runtime

        storage = Runtime.instance()._session_mgr._session_storage  # noqa: SLF001 - no public way
        expire = getattr(getattr(storage, "_cache", None), "expire", None)
        if expire is not None:
            expire()
    except Exception:  # noqa: BLE001 - not running under a Streamlit server, or another version of it
        return


class Handle:
    """What the registry refers to, weakly: the session's state, for the sweeper to reach."""

    def __init__(self, state: Any) -> None:
        self.state = state


class _Registry:
    """Each session's state (weakly: a closed session goes when Streamlit lets it go), when it was
    last active, and whether a run of it is under way (a run is never idle, however long it waits)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[weakref.ref, float]] = {}
        self._running: set[str] = set()
        self._freed = threading.Event()
        self._thread: threading.Thread | None = None

    def checkin(self, session_id: str, handle: Handle) -> None:
        with self._lock:
            known = self._seen.get(session_id)
            if known is None or known[0]() is not handle:
                weakref.finalize(handle, self._freed.set)  # the session is gone: its memory may go back
            self._seen[session_id] = (weakref.ref(handle), time.monotonic())
            self._running.add(session_id)
            if self._thread is None:  # the server's first run: once per server
                allocator.tune()  # once per server (explorer/data/allocator.py)
                self._thread = threading.Thread(target=self._sweep_forever, name="bpe-sessions", daemon=True)
                self._thread.start()

    def active(self, session_id: str, *, running: bool) -> None:
        """The session is still at work (waiting for a job), or its run has ended (`running=False`)."""
        with self._lock:
            if session_id in self._seen:
                self._seen[session_id] = (self._seen[session_id][0], time.monotonic())
            (self._running.add if running else self._running.discard)(session_id)

    def sessions(self) -> int:
        with self._lock:
            return sum(1 for ref, _ in self._seen.values() if ref() is not None)

    def _sweep_forever(self) -> None:
        while True:
            time.sleep(SWEEP_EVERY)
            try:
                self.sweep()
            except Exception:  # noqa: BLE001 - the sweeper must not die; the next round tries again
                continue

    def sweep(self, now: float | None = None) -> int:
        """Drop what idle sessions hold; give freed memory back. Returns the sessions dropped."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = []
            for session_id, (ref, seen) in list(self._seen.items()):
                handle = ref()
                session = None if handle is None else handle.state
                # A run cut short without saying so (its process killed) counts as ended after a while.
                limit = IDLE_SECONDS * (6 if session_id in self._running else 1)
                if session is None:
                    del self._seen[session_id]
                    self._running.discard(session_id)
                    self._freed.set()
                elif now - seen > limit:
                    idle.append((session, _connected(session_id)))
                    del self._seen[session_id]  # checked in again at its next run
                    self._running.discard(session_id)
        for session, connected in idle:
            drop_heavy(session, list(_keys(session)))
            if not connected:
                _forget_callbacks(session)
        _expire_closed_sessions()
        let_go = server_caches.let_go_idle(IDLE_SECONDS, now=now)
        if idle or let_go or self._freed.is_set():
            self._freed.clear()
            give_back_memory()
        return len(idle)


def _keys(session: Any) -> Mapping[str, Any]:
    return session.filtered_state if hasattr(session, "filtered_state") else dict(session)


def give_back_memory() -> None:
    """Collect unreachable objects, then ask glibc to return free pages to the system."""
    gc.collect()
    allocator.give_back()


REGISTRY = _Registry()


def checkin() -> None:
    """Note this session's run (from the app, every run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return
    # Streamlit wraps the session's state anew for each run: the handle holds the state itself,
    # which lives as long as the session (and the state holds the handle: they go together).
    session = getattr(ctx.session_state, "_state", ctx.session_state)
    handle = st.session_state.get(HANDLE)
    if not isinstance(handle, Handle) or handle.state is not session:
        handle = Handle(session)
        st.session_state[HANDLE] = handle
    REGISTRY.checkin(ctx.session_id, handle)


def idle_time(seconds: float | None = None) -> str:
    """
    >>> idle_time(20 * 60), idle_time(90), idle_time(60)
    ('20 minutes', '90 seconds', '1 minute')
    """
    seconds = IDLE_SECONDS if seconds is None else seconds
    if seconds < 120 and seconds != 60:
        return f"{seconds:,.0f} seconds"
    minutes = round(seconds / 60)
    return f"{minutes:,} minute{'s' * (minutes != 1)}"


def _session_id() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.session_id


def still_working() -> None:
    """Called while a page waits for a worker: the session is active, even before its run checked in."""
    session_id = _session_id()
    if session_id is not None:
        REGISTRY.active(session_id, running=True)


def checkout() -> None:
    """This run has ended (from the app, in a `finally`): the session's idle time starts now."""
    session_id = _session_id()
    if session_id is not None:
        REGISTRY.active(session_id, running=False)


def show_notice() -> None:
    """Say once that this session's results were dropped while it sat idle."""
    if st.session_state.pop(IDLE_NOTICE, False):
        st.info(f"This page sat idle for more than {idle_time()}, so what it held "
                "(corpora of your own, trainings, tokenizer files, results) was let go to free the server's memory "
                "for others. Your settings are kept; the corpus is trained again. Upload your own files again to use "
                "them.")
