"""The server's shared caches, kept while visitors use them and let go of once nobody has for a while.

`st.cache_resource` and `st.cache_data` keep what they made for the server's life. What one visitor
asked for (a built-in's 200,000-row table, an overlap of two built-ins, the statistics of an
uploaded corpus, the families trained on it) would then stay after every visitor has left, and the
built-in tokenizers with it (o200k alone holds 50 MB). So each such cache is made by
`kept_while_used`, which remembers when a run last called it, and the sessions' sweeper
(`explorer/ui/sessions.py`) calls `let_go_idle` with the same idle time it gives sessions: a cache
no run called for that long is cleared, and the built-ins no run asked for are let go of
(`bpe_core.builtin.let_go_unused`). A visitor who comes back later waits for them to be made again,
as the first visitor did.

The time is kept per cached function, not per entry: a function in use keeps all its entries (as
many as its `max_entries`, or every sample corpus opened while any is in use). The functions live in
modules (`explorer/ui/page_caches.py` has the pages'): the registry refers to each function, and
through it to the namespace it was defined in.
"""
from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from bpe_core.builtin import let_go_unused

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_used: dict[str, float] = {}  # a cached function's name -> the monotonic time a run last called it
_clear: dict[str, Callable[[], Any]] = {}  # its name -> what empties it


def kept_while_used(cache: Callable[[F], Any]) -> Callable[[F], F]:
    """`cache` (a Streamlit cache decorator, such as `st.cache_resource(max_entries=2)`) around the
    function, which `let_go_idle` empties once no run has called it for the idle time."""

    def wrap(func: F) -> F:
        if func.__module__ == "__main__":  # a page's script: see explorer/ui/page_caches.py
            raise TypeError(f"{func.__qualname__}: define a shared cache in a module, not in a page's script, whose "
                            "last run it would keep alive")
        cached = cache(func)
        name = f"{func.__module__}.{func.__qualname__}"
        with _lock:
            _clear[name] = cached.clear

        @functools.wraps(func)
        def use(*args: Any, **kwargs: Any) -> Any:
            with _lock:
                _used[name] = time.monotonic()
            return cached(*args, **kwargs)

        use.clear = cached.clear  # type: ignore[attr-defined]
        return use  # type: ignore[return-value]

    return wrap


def let_go_idle(seconds: float, *, now: float | None = None) -> list[str]:
    """Empty the caches no run has called for `seconds`, and let go of the built-ins no run asked for;
    returns what was let go of (cached functions' names, then "built-in NAME")."""
    now = time.monotonic() if now is None else now
    with _lock:
        idle = [name for name, used in _used.items() if now - used >= seconds]
        for name in idle:
            del _used[name]
        clears = [_clear[name] for name in idle]
    for clear in clears:
        clear()
    return idle + [f"built-in {name}" for name in let_go_unused(seconds, now=now)]
