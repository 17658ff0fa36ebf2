"""Pausing Python's cycle collector while a block makes a great many lasting containers."""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a block makes a great many lasting containers.

    Building a 200,000-token vocabulary's views makes hundreds of thousands of tuples, lists and
    rows, none of them garbage; each few hundred new containers set the collector walking them
    (and every so often the whole heap) again: about 40% of the time. Reference counting still
    frees what is dropped. The collector runs again afterwards, unless it was off already.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
