"""Training in worker processes: a long training slows no other user's page and cannot take the server down.

Pure: no Streamlit here. The server shares one `TrainingPool`. Each training runs in a fresh
Python process of its own (`python -c`, not `multiprocessing`: its spawn and forkserver methods
re-run the main module in the child, and under Streamlit that is the app script), with

* a memory limit (`RLIMIT_AS`): a runaway training dies alone, with a message in words;
* a time limit: past it the process is terminated;
* a cap on trainings at once (the cores): later ones wait in turn, first come first served.

A thread in the server watches each job: it reads the progress the process sends, enforces
the limits and always reaps the process, so a slot is freed even when nobody waits for the
result any more (a job nobody has looked at for `abandon_after` seconds is stopped).
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Hashable
from multiprocessing.connection import Connection
from pathlib import Path

from bpe_core import BPEError
from explorer.data.training import (
    DEFAULT_FAMILY,
    Progress,
    Trained,
    TrainRequest,
    counting_status,
    progress_status,
    train_corpus,
)
from explorer.families import explorer_family

MAX_TRAININGS = max(1, min(2, os.cpu_count() or 1))  # trainings at once, server-wide
TIME_LIMIT = 120.0  # seconds one training may run
MEMORY_LIMIT = 3 * 1024**3  # bytes of address space one training may use
ABANDON_AFTER = 20.0  # seconds without anyone waiting for a job before it is stopped
PROGRESS_EVERY = 0.1  # seconds between progress messages from a worker
ROOT = Path(__file__).resolve().parents[2]  # so that the worker imports this checkout's explorer
# The worker's program: read pipe descriptors and the memory limit from argv, then train.
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from explorer.data.worker import _main; _main(sys.argv[2:])"


def _gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GB" if n >= 1024**3 else f"{n / 1024**2:,.0f} MB"


def time_message(seconds: float, family: str = DEFAULT_FAMILY) -> str:
    """A training stopped for its time, with what to try for this family."""
    return (f"the training took longer than {seconds:,.0f} s, the limit for one training here, and was stopped; "
            f"{explorer_family(family).slow_hint}")


def memory_message(limit: int) -> str:
    return (
        f"this corpus with these settings needs more than {_gib(limit)} of memory, the limit for one training "
        "here, so the training was stopped; try fewer merges, a pre-tokenizer or a smaller corpus"
    )


# ---- the worker process ------------------------------------------------------------------------

CHUNK = 1 << 20  # characters of corpus text per message to a worker


def _send_texts(conn: Connection, texts: list[str], request: TrainRequest) -> None:
    """Send the request, then each text as UTF-8 a megabyte at a time: never a second whole copy in the server."""
    conn.send((request, len(texts)))
    for text in texts:
        for start in range(0, len(text), CHUNK):
            conn.send_bytes(text[start:start + CHUNK].encode("utf-8", errors="surrogatepass"))
        conn.send_bytes(b"")  # end of this text


def _receive_texts(conn: Connection) -> tuple[list[str], TrainRequest]:
    request, count = conn.recv()
    texts = []
    for _ in range(count):
        parts = []
        while chunk := conn.recv_bytes():
            parts.append(chunk.decode("utf-8", errors="surrogatepass"))
        texts.append("".join(parts))
    return texts, request


def _main(argv: list[str]) -> None:
    """Entry point of a worker process: `<read fd> <write fd> <memory limit in bytes, 0 for none>`."""
    read_fd, write_fd, memory_limit = (int(a) for a in argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on the server stops the server, which stops us
    try:  # Linux: die with the thread that started us, even if the server itself is killed
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if memory_limit:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    inbox = Connection(read_fd, writable=False)
    conn = Connection(write_fd, readable=False)
    try:
        _child(inbox, conn)
    finally:
        inbox.close()


def _child(inbox: Connection, conn: Connection) -> None:
    """Receive (texts, request), train, and send progress, then the pickled bundle or what went wrong."""
    outcome: tuple | None = None
    try:
        texts, request = _receive_texts(inbox)
        conn.send(("stage", "counting"))
        last = [0.0]

        def sender(kind: str) -> Progress:  # "counted": bytes of text counted; "progress": merges made
            def send(done: int, total: int) -> None:
                now = time.monotonic()
                if now - last[0] >= PROGRESS_EVERY or done >= total:
                    last[0] = now
                    conn.send((kind, done, total))
            return send

        trained = train_corpus(texts, request, progress=sender("progress"), count_progress=sender("counted"))
        del texts
        data = pickle.dumps(trained, protocol=pickle.HIGHEST_PROTOCOL)
        del trained
        conn.send(("result", len(data)))
        conn.send_bytes(data)
    # Outcomes are sent after the except clause: until it ends, the traceback keeps the failed
    # training's memory alive, and even a small message may then fail to allocate.
    except MemoryError:
        outcome = ("memory", "")
    except BPEError as exc:
        outcome = ("error", str(exc))
    except (EOFError, BrokenPipeError):
        return  # the server stopped waiting
    except Exception as exc:  # noqa: BLE001 - one line for the page, never a traceback
        outcome = ("error", f"the training failed ({type(exc).__name__}: {exc})")
    try:
        if outcome is not None:
            conn.send(outcome)
    except (OSError, EOFError):
        pass
    finally:
        conn.close()


# ---- a job, as the page sees it ----------------------------------------------------------------

class TrainingJob:
    """One training: its state while it waits and runs, then its result or the reason it failed.

    Written by the pool's watcher thread, read by the page's thread.
    """

    def __init__(self, key: Hashable, request: TrainRequest) -> None:
        self.key = key
        self.request = request
        self.cap = MAX_TRAININGS  # trainings the server runs at once (set by the pool)
        self.stage = "waiting"  # waiting, counting, training, done, failed
        self.ahead = 0  # jobs before this one in the queue
        self.done = 0  # merges made so far
        self.counted = self.count_total = 0  # bytes of text counted so far, and in all (stage "counting")
        self.total = 0
        self.started = 0.0  # time.monotonic() when the worker started
        self.result: Trained | None = None
        self.result_bytes = 0  # size of the pickled bundle: a measure of its memory
        self.error = ""
        self.lasting = False  # the error comes from the corpus and settings (a retry fails the same way)
        self.finished = threading.Event()
        self.cancelled = threading.Event()
        self.watched = time.monotonic()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the job to finish; waiting also keeps it alive."""
        self.watched = time.monotonic()
        return self.finished.wait(timeout)

    def cancel(self) -> None:
        self.cancelled.set()

    def status(self) -> str:
        """The job's progress in words."""
        if self.stage == "waiting":
            ahead = f" ({self.ahead:,} trainings ahead)" if self.ahead > 1 else ""
            return f"waiting for another training to finish{ahead}; the server runs {self.cap:,} at a time"
        seconds = time.monotonic() - self.started if self.started else 0.0
        if self.stage == "counting":
            if self.count_total:
                return f"{counting_status(self.counted, self.count_total)}, {seconds:.0f} s"
            return f"counting words… {seconds:.0f} s"
        if self.stage == "training":
            return f"{progress_status(self.request.family, self.done, self.total)}, {seconds:.0f} s"
        return self.stage

    def fraction(self) -> float:
        if self.stage == "counting" and self.count_total:
            return min(1.0, self.counted / self.count_total)
        return min(1.0, self.done / self.total) if self.stage == "training" and self.total else 0.0

    def _fail(self, message: str, *, lasting: bool) -> None:
        self.error, self.lasting, self.stage = message, lasting, "failed"


# ---- the pool ----------------------------------------------------------------------------------

class TrainingPool:
    """At most `workers` trainings at once, each in its own process, under the time and memory limits."""

    def __init__(
        self,
        *,
        workers: int = MAX_TRAININGS,
        time_limit: float = TIME_LIMIT,
        memory_limit: int | None = MEMORY_LIMIT,
        abandon_after: float = ABANDON_AFTER,
    ) -> None:
        if workers < 1:
            raise ValueError("a training pool needs at least one worker")
        self.workers = workers
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.abandon_after = abandon_after
        self._cond = threading.Condition()
        self._queue: deque[TrainingJob] = deque()
        self._running = 0
        self.processes: dict[TrainingJob, subprocess.Popen] = {}  # the workers running (tests read it)

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def submit(self, key: Hashable, texts: list[str], request: TrainRequest) -> TrainingJob:
        """Queue a training and return its job at once; a thread of the pool runs it."""
        job = TrainingJob(key, request)
        job.cap = self.workers
        with self._cond:
            self._queue.append(job)
            self._update_positions()
        thread = threading.Thread(target=self._watch, args=(job, texts, request), name="bpe-training", daemon=True)
        thread.start()
        return job

    def _update_positions(self) -> None:
        free = self.workers - self._running
        for i, job in enumerate(self._queue):
            job.ahead = 0 if i < free else self._running + i  # trainings running, then those queued before it

    def _abandoned(self, job: TrainingJob) -> bool:
        return time.monotonic() - job.watched > self.abandon_after

    def _take_slot(self, job: TrainingJob) -> bool:
        with self._cond:
            while True:
                if job.cancelled.is_set() or self._abandoned(job):
                    self._queue.remove(job)
                    self._update_positions()
                    self._cond.notify_all()
                    return False
                free = self.workers - self._running
                if free > 0 and job in list(self._queue)[:free]:
                    self._queue.remove(job)
                    self._running += 1
                    self._update_positions()
                    return True
                self._cond.wait(0.25)

    def _free_slot(self) -> None:
        with self._cond:
            self._running -= 1
            self._update_positions()
            self._cond.notify_all()

    def _watch(self, job: TrainingJob, texts: list[str], request: TrainRequest) -> None:
        try:
            if not self._take_slot(job):
                job._fail("the training was cancelled", lasting=False)
                return
            try:
                self._run(job, texts, request)
            finally:
                self._free_slot()
        except Exception as exc:  # noqa: BLE001 - the page must hear of it, whatever it was
            job._fail(f"the training could not run ({type(exc).__name__}: {exc})", lasting=False)
        finally:
            if job.stage != "done" and not job.error:
                job._fail("the training stopped without a result", lasting=False)
            job.finished.set()

    def _run(self, job: TrainingJob, texts: list[str], request: TrainRequest) -> None:
        from_parent, to_child = os.pipe()  # (read end, write end)
        from_child, to_parent = os.pipe()
        job.started = time.monotonic()
        job.stage = "counting"
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(ROOT), str(from_parent), str(to_parent), str(self.memory_limit or 0)],
                pass_fds=(from_parent, to_parent), stdin=subprocess.DEVNULL, close_fds=True,
            )
        except BaseException:
            for fd in (to_child, from_child):
                os.close(fd)
            raise
        finally:
            os.close(from_parent)
            os.close(to_parent)
        send = Connection(to_child, readable=False)
        conn = Connection(from_child, writable=False)
        self.processes[job] = process
        try:
            _send_texts(send, texts, request)
            del texts
            self._follow(job, process, conn)
        except (BrokenPipeError, EOFError, ConnectionResetError):
            if not job.error:
                job._fail(self._death(process), lasting=True)
        finally:
            send.close()
            conn.close()
            self._stop(process)
            self.processes.pop(job, None)

    def _follow(self, job: TrainingJob, process, conn: Connection) -> None:
        deadline = job.started + self.time_limit
        while True:
            if job.cancelled.is_set() or self._abandoned(job):
                job._fail("the training was cancelled", lasting=False)
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                job._fail(time_message(self.time_limit, job.request.family), lasting=True)
                return
            if not conn.poll(min(0.2, remaining)):
                if process.poll() is not None and not conn.poll(0):
                    job._fail(self._death(process), lasting=True)
                    return
                continue
            message = conn.recv()
            kind = message[0]
            if kind == "stage":
                job.stage = message[1]
            elif kind == "counted":
                job.counted, job.count_total = message[1], message[2]
            elif kind == "progress":
                job.done, job.total, job.stage = message[1], message[2], "training"
            elif kind == "result":
                data = conn.recv_bytes()
                job.result = pickle.loads(data)
                job.result_bytes = len(data)
                job.stage = "done"
                return
            elif kind == "memory":
                job._fail(memory_message(self.memory_limit or 0), lasting=True)
                return
            else:
                job._fail(message[1], lasting=True)
                return

    def _death(self, process: subprocess.Popen) -> str:
        try:
            code = process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0 and -code == signal.SIGKILL:
            return ("the training process was killed by the system, most likely because the machine ran out "
                    "of memory; try fewer merges, a pre-tokenizer or a smaller corpus")
        if code is not None and code < 0:
            return f"the training process was stopped by signal {-code}"
        return f"the training process ended without a result (exit code {code})"

    @staticmethod
    def _stop(process: subprocess.Popen) -> None:
        """Reap the worker: let it exit, else terminate it, else kill it."""
        for stop, grace in ((None, 0.5), (process.terminate, 2.0), (process.kill, 5.0)):
            if stop is not None:
                stop()
            try:
                process.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue
