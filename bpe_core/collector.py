"""Pausing Python's cycle collector while a block makes a great many lasting containers."""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0  # blocks inside `collector_paused` now, in every thread
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a block makes a great many lasting containers.

    Building a 200,000-token vocabulary's views makes hundreds of thousands of tuples, lists and
    rows, none of them garbage; each few hundred new containers set the collector walking them
    (and every so often the whole heap) again: about 40% of the time. Reference counting still
    frees what is dropped. The collector is one per process: blocks in several threads at once
    (the app's sessions) share one pause, and it runs again when the last of them ends, unless it
    was off before the first began.
    """
    global _paused, _resume
    with _lock:
        if _paused == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()
