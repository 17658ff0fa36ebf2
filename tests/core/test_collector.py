"""The cycle collector's pause is one per process: blocks in several threads share it."""
from __future__ import annotations

import gc
import threading

from bpe_core.collector import collector_paused


def test_overlapping_pauses_in_two_threads_leave_the_collector_on():
    """One session's block ends while another's runs, then that one ends: the collector is off
    until the last block ends, then on again (two pauses that each restored what they saw would
    leave it off for good, and the server's cyclic garbage would pile up)."""
    assert gc.isenabled()
    inside, leave = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other() -> None:
        with collector_paused():
            inside.set()
            leave.wait(10)
            seen.append(gc.isenabled())

    with collector_paused():
        thread = threading.Thread(target=other)
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other block still runs
    leave.set()
    thread.join(10)
    assert seen == [False] and gc.isenabled()


def test_a_pause_inside_a_pause_and_a_collector_already_off():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()
