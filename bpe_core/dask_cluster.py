"""The Dask client `dask_counting` counts on: a cluster at an address, checked before it is
trusted, or a LocalCluster started here and shut down after the run, whatever happens.

Every way a cluster fails to answer or to start is one BPEError line; so is Ctrl-C, also while
a LocalCluster is still starting (`_start_quietly`).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .dask_tasks import MISSING_DASK
from .settings import BPEError

_SILENT = logging.CRITICAL + 1  # above every level: Dask prints nothing on its own
# Run in each local worker process as it starts: Ctrl-C in a terminal reaches the whole process
# group, and workers that die of it print tracebacks; this process catches it and shuts them down.
_IGNORE_CTRL_C = (
    "import signal, threading\n"
    "if threading.current_thread() is threading.main_thread():\n"
    "    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
)
# How long a LocalCluster interrupted by Ctrl-C is given to finish starting, to be shut down cleanly.
_START_SECONDS = 60.0


@contextmanager
def dask_client(address: str | None, n_workers: int) -> Iterator[Any]:
    """A Dask client: on the cluster at `address`, or on a LocalCluster started and shut down here."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BPEError(MISSING_DASK) from None
    if address is not None:
        _probe(address)
        try:
            client = Client(address)  # waits distributed.comm.timeouts.connect (30 s) at most
        except Exception as exc:  # noqa: BLE001  # whatever Dask raises, the user gets one line
            raise BPEError(f"cannot reach the Dask scheduler at {address}: {one_line(exc)}") from None
        with client:
            _wait_for_a_worker(client, address)
            yield client
        return
    # Port 0 for the dashboard: any free port, so runs side by side never clash (nor warn).
    # Dask's own log lines are silenced: a task that fails on a bad file is logged by its worker,
    # and closing the client after that error makes the scheduler log lost messages, while the
    # caller already gets the error as one BPEError line. A cluster that cannot start still
    # raises, and that becomes a BPEError too.
    def start() -> Any:
        return LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=_SILENT,
            preload=[_IGNORE_CTRL_C],
        )

    with _noting_ctrl_c():
        cluster = _start_quietly(start)
        with cluster, Client(cluster) as client:
            yield client


# Set by Ctrl-C while a local cluster runs (`_noting_ctrl_c`); the waiting loops look at it.
_PRESSED = threading.Event()


def check_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed while a local cluster ran."""
    if _PRESSED.is_set():
        raise KeyboardInterrupt


@contextmanager
def _noting_ctrl_c() -> Iterator[None]:
    """Meanwhile Ctrl-C only sets a flag, which the loops waiting on Dask look at (several times
    a second) and turn into KeyboardInterrupt at a point of their own. Raised wherever this thread
    happens to be, it can land in one of Dask's callbacks (its scheduler, in this process, watches
    the garbage collector), which prints it as "Exception ignored" and goes on counting. Only the
    main thread receives signals; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _PRESSED.clear()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: _PRESSED.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    check_interrupted()  # pressed while the cluster shut down


def _start_quietly(start: Callable[[], Any]) -> Any:
    """`start()` (a LocalCluster) run in a thread of its own while this one waits, with the
    standard error of the processes it spawns on the null device.

    Ctrl-C in a terminal reaches every process of the group. A worker process still starting
    (importing Dask, before the preload that makes it ignore Ctrl-C has run) dies of it with a
    traceback of its own, so the workers are given the null device as their standard error (Dask
    logs nothing anyway: the caller gets each failure as one BPEError line); this process's is put
    back as soon as the cluster has started. On Ctrl-C this thread lets the cluster finish
    starting (up to _START_SECONDS), shuts it down quietly, then passes Ctrl-C on: a cluster left
    half started is closed by Dask at exit, which fails an assertion with another traceback.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["cluster"] = start()
        except BaseException as exc:  # noqa: BLE001  # handed to the waiting thread below
            box["error"] = exc

    thread = threading.Thread(target=run, name="bpe-dask-start", daemon=True)
    with _stderr_to_null():
        thread.start()
        try:
            while thread.is_alive():
                thread.join(0.1)
                check_interrupted()
        except KeyboardInterrupt:
            _wait_out(thread, _START_SECONDS)
            with contextlib.suppress(Exception):
                if "cluster" in box:
                    box["cluster"].close()
            raise
    if "error" in box:
        raise BPEError(f"could not start a local Dask cluster: {one_line(box['error'])}") from None
    return box["cluster"]


@contextmanager
def _stderr_to_null() -> Iterator[None]:
    """File descriptor 2 on the null device meanwhile (what processes spawned now inherit)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield  # no standard error to speak of (a closed or replaced one): nothing to hide
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _wait_out(thread: threading.Thread, seconds: float) -> None:
    """Wait for `thread` up to `seconds`, a further Ctrl-C only cutting the wait short."""
    try:
        thread.join(seconds)
    except KeyboardInterrupt:
        pass


def _connect_seconds() -> float:
    """How long Dask may take to connect (its distributed.comm.timeouts.connect, 30 s by default)."""
    try:
        import dask
        from dask.utils import parse_timedelta
    except ImportError:
        raise BPEError(MISSING_DASK) from None
    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds") or 30)


def _probe(address: str) -> None:
    """Check, within the connect timeout (30 s by default), that a Dask scheduler answers at
    `address`. Dask's own Client waits forever for the handshake of a server that accepts the
    connection but never answers (an HTTP server, such as the dashboard's port 8787), and fails
    with a traceback on one that answers something else; this turns both into one line.

    The handshake runs on its own event loop in a thread of its own, so it works the same when
    the caller's thread already runs a loop (a notebook, or a test session that drove a browser).
    """
    try:
        from distributed.comm import connect
    except ImportError:
        raise BPEError(MISSING_DASK) from None
    seconds = _connect_seconds()

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=seconds), seconds + 1)
        await comm.close()

    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(handshake())
        except BaseException as exc:  # noqa: BLE001  # reported by the caller's thread below
            failures.append(exc)

    thread = threading.Thread(target=run, name="bpe-dask-probe", daemon=True)
    thread.start()
    thread.join(seconds + 5)
    no_answer = f"cannot reach the Dask scheduler at {address}: no answer within {seconds:g} s"
    if thread.is_alive():
        raise BPEError(no_answer)
    if not failures:
        return
    exc = failures[0]
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        raise BPEError(no_answer)
    if isinstance(exc, (OSError, ValueError)):  # refused, unreachable, or a bad address
        raise BPEError(f"cannot reach the Dask scheduler at {address}: {one_line(exc)}")
    raise BPEError(
        f"cannot reach the Dask scheduler at {address}: what answers there is no Dask scheduler; "
        "give the scheduler's address (tcp://host:8786), not the dashboard's"
    )


def _wait_for_a_worker(client: Any, address: str) -> None:
    """A cluster without workers would take the job and never run it: wait for one worker as long
    as a connection may take (30 s by default), then say so in one line."""
    seconds = _connect_seconds()
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (TimeoutError, OSError):
        raise BPEError(
            f"the Dask scheduler at {address} has no workers (none joined within {seconds:g} s): start some "
            f"with `dask worker {address}`"
        ) from None


def one_line(exc: BaseException) -> str:
    """The first line of an exception's text, or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
