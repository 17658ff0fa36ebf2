"""The worker process's side of a job: receive a task, run it, send progress and the result. Pure.

The server (`explorer/data/worker.py`) starts `python -c` with two pipe descriptors, the memory
limit and the niceness; the child reads the task's function name, its payload and its texts,
imports the function (`"module:attribute"`), calls `function(texts, payload, report)` and sends
back what happened, one message at a time:

* `("stage", name)`, `("counted", done, total)`, `("progress", done, total)`: how far it got;
* `("result", nbytes)` then the pickled result as `nbytes` raw bytes;
* `("memory", "")`: it ran out of memory; `("error", message)`: it failed, in one line (a
  `BPEError`'s own sentence); `("crash", "Type: detail")`: something else went wrong.
"""
from __future__ import annotations

import importlib
import os
import pickle
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

from bpe_core import BPEError

CHUNK = 1 << 20  # characters of text per message to a worker
PROGRESS_EVERY = 0.1  # seconds between progress messages from a worker


class Report:
    """What a task tells the server as it goes: its stage, and progress of a kind ("counted", "progress")."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._last = 0.0

    def stage(self, name: str) -> None:
        self._conn.send(("stage", name))

    def sender(self, kind: str) -> Callable[[int, int], None]:
        """A `(done, total)` callback that sends `(kind, done, total)` at most every PROGRESS_EVERY seconds."""
        def send(done: int, total: int) -> None:
            now = time.monotonic()
            if now - self._last >= PROGRESS_EVERY or done >= total:
                self._last = now
                self._conn.send((kind, done, total))
        return send


def send_task(conn: Connection, function: str, payload: object, texts: list[str] | tuple[str, ...]) -> None:
    """Send the function's name, the payload, then each text as UTF-8 a megabyte at a time:
    never a second whole copy of a corpus in the server."""
    conn.send((function, payload, len(texts)))
    for text in texts:
        for start in range(0, len(text), CHUNK):
            conn.send_bytes(text[start:start + CHUNK].encode("utf-8", errors="surrogatepass"))
        conn.send_bytes(b"")  # end of this text


def receive_task(conn: Connection) -> tuple[str, object, list[str]]:
    function, payload, count = conn.recv()
    texts = []
    for _ in range(count):
        parts = []
        while chunk := conn.recv_bytes():
            parts.append(chunk.decode("utf-8", errors="surrogatepass"))
        texts.append("".join(parts))
    return function, payload, texts


def resolve(function: str) -> Callable:
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


def main(argv: list[str]) -> None:
    """Entry point: `<read fd> <write fd> <memory limit in bytes, 0 for none> <niceness>`.

    Tasks are run one after another until the server closes the pipe: a process kept between jobs
    (explorer/data/kept_workers.py) is sent more than one."""
    read_fd, write_fd, memory_limit, niceness = (int(a) for a in argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on the server stops the server, which stops us
    try:  # Linux: die with the thread that started us, even if the server itself is killed
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if niceness:
        try:
            os.nice(niceness)  # long jobs yield the cores to pages and short jobs
        except OSError:
            pass
    if memory_limit:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    inbox = Connection(read_fd, writable=False)
    conn = Connection(write_fd, readable=False)
    try:
        while run(inbox, conn):
            pass
    finally:
        inbox.close()
        conn.close()


def run(inbox: Connection, conn: Connection) -> bool:
    """Receive a task, run it, and send its progress, then the pickled result or what went wrong; True
    when it sent a result and may take another task (a failed one's process ends)."""
    outcome: tuple | None = None
    try:
        function, payload, texts = receive_task(inbox)
        result = resolve(function)(texts, payload, Report(conn))
        del texts
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        del result
        conn.send(("result", len(data)))
        conn.send_bytes(data)
        return True
    # Outcomes are sent after the except clause: until it ends, the traceback keeps the failed
    # task's memory alive, and even a small message may then fail to allocate.
    except MemoryError:
        outcome = ("memory", "")
    except BPEError as exc:
        outcome = ("error", str(exc))
    except (EOFError, BrokenPipeError):
        return False  # the server stopped waiting, or closed the pipe: no more tasks
    except Exception as exc:  # noqa: BLE001 - one line for the page, never a traceback
        outcome = ("crash", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(outcome)
    except (OSError, EOFError):
        pass
    return False
