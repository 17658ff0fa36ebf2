"""What a server's first visitor would wait for, done as soon as the server runs (`python -m explorer`).

Under `streamlit run` the server runs none of our code until its first visitor's first run: that
run imports the app's modules and the libraries behind them, loads the built-in tokenizers its page
shows and derives their merges and the steps that made each token. So a link to Language tax that
was the server's first visit took 4.0-4.8 s, where the same page visited next takes 1.3 s. The
launcher (`explorer/ui/launch.py`) starts `start()`'s thread instead, which once the server runs:

1. starts the built-in tokenizers' cache warming (`explorer/data/warm.py`; the first run would);
2. imports every module the pages use (`modules()`) and draws one small chart and table, the
   libraries' own first-use work;
3. loads each built-in some page shows before its visitor chooses (`default_builtins()`), once the
   warming has written its tables (it never builds them beside the warming), with its merges and
   token births.

A visitor who comes meanwhile goes first: each step waits for the visitors' runs under way to end
(up to `GIVE_WAY` seconds in all), so a page that needs none of it is not slowed, and one that does shares
what is done and does the rest itself (a module is imported once; `load_builtin` loads a built-in
once). The built-ins are then kept as any page's are: let go of after the sessions' idle time with
nobody asking (explorer/ui/sessions.py). Nothing here writes to any session, and a failure is logged
and stops only the preloading.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

log = logging.getLogger("explorer")

RUNTIME_WAIT = 120.0  # seconds to wait for the server to run before giving up (it did not start)
GIVE_WAY = 30.0  # seconds the steps wait at most, in all, for the visitors' runs under way to end
SCRIPT_THREAD = "ScriptRunner.scriptThread"  # the name of the thread of a visitor's run (Streamlit's)
_SKIPPED = ("explorer.views", "explorer.app", "explorer.__main__", "explorer.ui.launch")


@dataclass
class Preloaded:
    """What `run` did, for the log and the tests."""

    modules: int = 0
    builtins: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # one line each: a built-in whose package is missing
    seconds: float = 0.0


def modules() -> list[str]:
    """The modules the pages import: every module of `explorer` but the page scripts (run, never imported)
    and the launcher; what they import of `bpe_core` and the libraries comes with them."""
    import explorer

    return [info.name for info in pkgutil.walk_packages(explorer.__path__, "explorer.")
            if not info.name.startswith(_SKIPPED)]


def default_builtins() -> list[str]:
    """The built-ins some page shows before its visitor chooses: those among the pages' default choices."""
    from explorer.ui import state
    from explorer.ui.tokenizer_picker import builtin_of

    names: list[str] = []
    for value in state.DEFAULTS.values():
        for key in value if isinstance(value, (tuple, list)) else (value,):
            name = builtin_of(key) if isinstance(key, str) else None
            if name is not None and name not in names:
                names.append(name)
    return names


def _first_use() -> None:
    """A small chart and table through the libraries, as a page's first would go."""
    import pandas as pd
    import plotly.graph_objects as go
    import plotly.io as pio
    import pyarrow as pa

    figure = go.Figure([go.Bar(x=[2, 1], y=["a", "b"], orientation="h"), go.Scatter(x=[1, 2], y=[1, 2])])
    figure.add_annotation(x=1, y=1, text="a")
    pio.to_json(figure, validate=False)
    pa.Table.from_pandas(pd.DataFrame({"token": ["a"], "count": [1]}))


def _load(name: str, waiting: Callable[[str], str], poll: float) -> None:
    from bpe_core.builtin import load_builtin
    from explorer.data.any_model import AnyModel

    while waiting(name):  # the warming is writing its tables: load what it wrote, not a copy beside it
        time.sleep(poll)
    AnyModel.of(load_builtin(name)).birth  # noqa: B018 - derives and keeps its merges and births


def _visitor_running() -> bool:
    """Whether a visitor's script run is under way in this server (Streamlit runs each in a thread of
    this name, which ends with the run)."""
    return any(t.name == SCRIPT_THREAD for t in threading.enumerate())


def _after_visitors(most: float) -> float:
    """Wait, at most `most` seconds, until no visitor's run is under way: a visitor who came while the
    server preloads is served first. The seconds waited."""
    began = time.monotonic()
    while _visitor_running() and time.monotonic() - began < most:
        time.sleep(0.02)
    return time.monotonic() - began


def run(*, names: Iterable[str] | None = None, waiting: Callable[[str], str] | None = None,
        poll: float = 0.2, give_way: float = 0.0) -> Preloaded:
    """Import, draw once and load (the steps above but the first); `names` defaults to `default_builtins()`,
    `waiting` to the warming's `waiting_for`. Before each step, wait for the visitors' runs under way
    to end: theirs come first, for `give_way` seconds in all (a run that waits for a training's job in
    a worker is let be)."""
    from bpe_core import BPEError

    began = time.perf_counter()
    done = Preloaded()
    left = give_way

    def after_visitors() -> None:
        nonlocal left
        left -= _after_visitors(max(0.0, left))

    for module in modules():
        after_visitors()
        importlib.import_module(module)
        done.modules += 1
    after_visitors()
    _first_use()
    if waiting is None:
        from explorer.data import warm

        waiting = warm.waiting_for
    for name in default_builtins() if names is None else names:
        after_visitors()
        try:
            _load(name, waiting, poll)
            done.builtins.append(name)
        except (BPEError, OSError) as exc:  # a package not installed: its page says so as before
            done.failed.append(f"{name}: {exc}")
    done.seconds = time.perf_counter() - began
    return done


def _when_running() -> None:
    from streamlit.runtime import Runtime

    deadline = time.monotonic() + RUNTIME_WAIT
    while not Runtime.exists():
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
    try:
        from explorer.data import warm

        warm.start()
        done = run(give_way=GIVE_WAY)
    except Exception:  # noqa: BLE001 - the first visitor's run does it all again, and says what fails
        log.exception("preloading stopped")
        return
    log.info("preloaded %d modules and the built-ins %s in %.1f s%s", done.modules, ", ".join(done.builtins),
             done.seconds, "".join(f"; not {line}" for line in done.failed))


def start() -> threading.Thread:
    """Preload in a thread of its own, once the server runs."""
    thread = threading.Thread(target=_when_running, name="bpe-explorer-preload", daemon=True)
    thread.start()
    return thread
