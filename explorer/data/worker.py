"""Heavy work in worker processes: a long job slows no other user's page and cannot take the server down.

Pure: no Streamlit here. The server shares one `WorkerPool`. Each job (a `Task`: a training,
reading an uploaded tokenizer file, training every family) runs in a fresh Python process of its
own (`python -c`, not `multiprocessing`: its spawn and forkserver methods re-run the main module
in the child, and under Streamlit that is the app script; `worker_child.py` is that process's side), with

* a memory limit (`RLIMIT_AS`): a runaway job dies alone, with a message in words;
* a time limit, of processor time (read from /proc where there is one): past it the process is
  terminated. A job that waits for the cores on a busy machine is not charged for the wait, so the
  same request succeeds or fails alike on a quiet and a loaded machine; a wall-clock backstop of
  `WALL_FACTOR` times the limit stops a job that hangs without computing;
* lanes: a cap on jobs at once in each lane, later ones wait their turn, first come first served.
  Big jobs take the "long" lane (as many as the cores, run at a lower priority: `nice`); small
  trainings, file reading and the like take the "short" lane, so they never wait behind two big
  trainings, and the pages (the server's own threads) keep the cores they need.

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
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path

from explorer.data.tasks import LONG, SHORT, Task, training_task, with_hint
from explorer.data.training import TrainRequest, counting_status
from explorer.data.worker_child import send_task

MAX_TRAININGS = max(1, min(2, os.cpu_count() or 1))  # long jobs at once, server-wide
SHORT_WORKERS = 2  # short jobs at once, server-wide, beside the long ones
LONG_NICENESS = 10  # long jobs run at this lower priority: a page or a short job comes first
TIME_LIMIT = 120.0  # seconds of processor time one job may use
WALL_FACTOR = 5  # and it is stopped anyway after this many times as long by the clock
MEMORY_LIMIT = 3 * 1024**3  # bytes of address space one job may use
ABANDON_AFTER = 20.0  # seconds without anyone waiting for a job before it is stopped
ROOT = Path(__file__).resolve().parents[2]  # so that the worker imports this checkout's explorer
# The worker's program: read pipe descriptors, the memory limit and the niceness from argv, then run the task.
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from explorer.data.worker_child import main; "
         "main(sys.argv[2:])")


# ---- a job, as the page sees it ----------------------------------------------------------------

class Job:
    """One task: its state while it waits and runs, then its result or the reason it failed.

    Written by the pool's watcher thread, read by the page's thread.
    """

    def __init__(self, key: Hashable, task: Task) -> None:
        self.key = key
        self.task = task
        self.cap = MAX_TRAININGS  # jobs of its lane the server runs at once (set by the pool)
        self.stage = "waiting"  # waiting, running, counting, training (progress), done, failed
        self.ahead = 0  # jobs before this one in its lane's queue
        self.done = 0  # progress so far ("progress" messages: merges made)
        self.counted = self.count_total = 0  # bytes of text counted so far, and in all (stage "counting")
        self.total = 0
        self.started = 0.0  # time.monotonic() when the worker started
        self.result: object = None
        self.result_bytes = 0  # size of the pickled result: a measure of its memory
        self.error = ""
        self.lasting = False  # the error comes from the input and settings (a retry fails the same way)
        self.unsendable = False  # its payload cannot be pickled (a model built with a closure): run it elsewhere
        self.finished = threading.Event()
        self.cancelled = threading.Event()
        self.watched = time.monotonic()
        self.followers = 0  # the sessions that share it (`WorkerPool.share`); 0 for a job of one caller
        self._lock = threading.Lock()

    @property
    def request(self) -> object:
        """The task's payload (a training's `TrainRequest`)."""
        return self.task.payload

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the job to finish; waiting also keeps it alive."""
        self.watched = time.monotonic()
        return self.finished.wait(timeout)

    def cancel(self) -> None:
        """The caller no longer wants the result: the job stops, once the last of its followers says so."""
        with self._lock:
            self.followers = max(0, self.followers - 1)
            if self.followers == 0:
                self.cancelled.set()

    def _follow_one_more(self) -> bool:
        """One more session follows the job; False if it is already stopped or done."""
        with self._lock:
            if self.cancelled.is_set() or self.finished.is_set():
                return False
            self.followers += 1
            return True

    def status(self) -> str:
        """The job's progress in words."""
        noun = self.task.noun
        if self.stage == "waiting":
            ahead = f" ({self.ahead:,} {noun}s ahead)" if self.ahead > 1 else ""
            return f"waiting for another {noun} to finish{ahead}; the server runs {self.cap:,} at a time"
        seconds = time.monotonic() - self.started if self.started else 0.0
        if self.stage == "counting":
            if self.count_total:
                return f"{counting_status(self.counted, self.count_total)}, {seconds:.0f} s"
            return f"counting words… {seconds:.0f} s"
        if self.stage == "training" and self.task.progress_text is not None:
            return f"{self.task.progress_text(self.done, self.total)}, {seconds:.0f} s"
        if self.stage in ("running", "training"):
            return f"{self.task.title}… {seconds:.0f} s"
        return self.stage

    def fraction(self) -> float:
        if self.stage == "counting" and self.count_total:
            return min(1.0, self.counted / self.count_total)
        return min(1.0, self.done / self.total) if self.stage == "training" and self.total else 0.0

    def _fail(self, message: str, *, lasting: bool) -> None:
        self.error, self.lasting, self.stage = message, lasting, "failed"


# ---- the pool ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lane:
    name: str
    workers: int  # its jobs at once
    niceness: int  # added to its processes' niceness


class WorkerPool:
    """Jobs in their own processes, under the time and memory limits, at most `workers` long jobs
    and `short_workers` short ones at once."""

    def __init__(
        self,
        *,
        workers: int = MAX_TRAININGS,
        short_workers: int = SHORT_WORKERS,
        time_limit: float = TIME_LIMIT,
        memory_limit: int | None = MEMORY_LIMIT,
        abandon_after: float = ABANDON_AFTER,
        long_niceness: int = LONG_NICENESS,
    ) -> None:
        if workers < 1 or short_workers < 1:
            raise ValueError("a worker pool needs at least one worker in each lane")
        self.lanes = {LONG: Lane(LONG, workers, long_niceness), SHORT: Lane(SHORT, short_workers, 0)}
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.abandon_after = abandon_after
        self._cond = threading.Condition()
        self._queues: dict[str, deque[Job]] = {name: deque() for name in self.lanes}
        self._running = dict.fromkeys(self.lanes, 0)
        self.processes: dict[Job, subprocess.Popen] = {}  # the workers running (tests read it)
        self._shared: dict[Hashable, Job] = {}  # the jobs `share` handed out, until they end

    @property
    def workers(self) -> int:
        return self.lanes[LONG].workers

    @property
    def running(self) -> int:
        return sum(self._running.values())

    @property
    def waiting(self) -> int:
        return sum(map(len, self._queues.values()))

    def train(self, key: Hashable, texts: Sequence[str], request: TrainRequest) -> Job:
        """Queue a training (`training_task`) and return its job at once."""
        return self.submit(key, training_task(texts, request))

    def share(self, key: Hashable, make: Callable[[], Task]) -> Job:
        """The job for `key` if one is still under way (another session asked for the same work: a
        classroom opening one link trains once), else a new one of the task `make()` gives. The key
        names the work (the store's: corpus digest and settings). Each caller follows the job, and
        the job is stopped when every one of them has cancelled it (or none waits any more)."""
        with self._cond:
            job = self._shared.get(key)
            if job is None or not job._follow_one_more():
                job = self.submit(key, make())
                job._follow_one_more()
                self._shared[key] = job
            return job

    def submit(self, key: Hashable, task: Task) -> Job:
        """Queue a task and return its job at once; a thread of the pool runs it."""
        if task.lane not in self.lanes:
            raise ValueError(f"no lane {task.lane!r}")
        job = Job(key, task)
        job.cap = self.lanes[task.lane].workers
        with self._cond:
            self._queues[task.lane].append(job)
            self._update_positions(task.lane)
        thread = threading.Thread(target=self._watch, args=(job,), name=f"bpe-{task.noun}", daemon=True)
        thread.start()
        return job

    def _update_positions(self, lane: str) -> None:
        running = self._running[lane]
        free = self.lanes[lane].workers - running
        for i, job in enumerate(self._queues[lane]):
            job.ahead = 0 if i < free else running + i  # jobs running, then those queued before it

    def _abandoned(self, job: Job) -> bool:
        return time.monotonic() - job.watched > self.abandon_after

    def _take_slot(self, job: Job) -> bool:
        lane = job.task.lane
        queue = self._queues[lane]
        with self._cond:
            while True:
                if job.cancelled.is_set() or self._abandoned(job):
                    queue.remove(job)
                    self._update_positions(lane)
                    self._cond.notify_all()
                    return False
                free = self.lanes[lane].workers - self._running[lane]
                if free > 0 and job in list(queue)[:free]:
                    queue.remove(job)
                    self._running[lane] += 1
                    self._update_positions(lane)
                    return True
                self._cond.wait(0.25)

    def _free_slot(self, lane: str) -> None:
        with self._cond:
            self._running[lane] -= 1
            self._update_positions(lane)
            self._cond.notify_all()

    def _watch(self, job: Job) -> None:
        noun = job.task.noun
        try:
            if not self._take_slot(job):
                job._fail(f"the {noun} was cancelled", lasting=False)
                return
            try:
                self._run(job)
            finally:
                self._free_slot(job.task.lane)
        except Exception as exc:  # noqa: BLE001 - the page must hear of it, whatever it was
            job._fail(f"the {noun} could not run ({type(exc).__name__}: {exc})", lasting=False)
        finally:
            if job.stage != "done" and not job.error:
                job._fail(f"the {noun} stopped without a result", lasting=False)
            job.task = _forget_texts(job.task)
            with self._cond:
                if self._shared.get(job.key) is job:
                    del self._shared[job.key]
            job.finished.set()

    def _run(self, job: Job) -> None:
        task = job.task
        from_parent, to_child = os.pipe()  # (read end, write end)
        from_child, to_parent = os.pipe()
        job.started = time.monotonic()
        job.stage = "running"
        niceness = self.lanes[task.lane].niceness
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(ROOT), str(from_parent), str(to_parent),
                 str(self.memory_limit or 0), str(niceness)],
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
            try:
                send_task(send, task.function, task.payload, task.texts)
            except (pickle.PicklingError, AttributeError, TypeError) as exc:  # a model that cannot travel
                job.unsendable = True
                job._fail(f"the {task.noun} could not be sent to a worker ({type(exc).__name__})", lasting=False)
                return
            job.task = _forget_texts(task)  # the pool keeps no copy of a corpus once it is sent
            del task
            self._follow(job, process, conn)
        except (BrokenPipeError, EOFError, ConnectionResetError):
            if not job.error:
                self._died(job, process)
        finally:
            send.close()
            conn.close()
            self._stop(process)
            self.processes.pop(job, None)

    def _follow(self, job: Job, process, conn: Connection) -> None:
        task = job.task
        measured = _cpu_seconds(process.pid) is not None
        deadline = job.started + self.time_limit * (WALL_FACTOR if measured else 1)
        while True:
            if job.cancelled.is_set() or self._abandoned(job):
                job._fail(f"the {task.noun} was cancelled", lasting=False)
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (measured and (_cpu_seconds(process.pid) or 0.0) > self.time_limit):
                job._fail(task.time_text(self.time_limit), lasting=True)
                return
            if not conn.poll(min(0.2, remaining)):
                if process.poll() is not None and not conn.poll(0):
                    self._died(job, process)
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
                job._fail(task.memory_text(self.memory_limit or 0), lasting=True)
                return
            elif kind == "crash":
                job._fail(f"{task.what} failed ({message[1]})", lasting=True)
                return
            else:
                job._fail(message[1], lasting=True)
                return

    @staticmethod
    def _died(job: Job, process: subprocess.Popen) -> None:
        """Fail the job with why its process ended, and whether a retry would end the same way. A kill
        by the system would not: the machine may have run short of memory for everyone at that moment."""
        noun = job.task.noun
        try:
            code = process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0 and -code == signal.SIGKILL:
            job._fail(with_hint(f"the {noun} process was killed by the system, most likely because the machine "
                                "ran out of memory", job.task.hint), lasting=False)
        elif code is not None and code < 0:
            job._fail(f"the {noun} process was stopped by signal {-code}", lasting=True)
        else:
            job._fail(f"the {noun} process ended without a result (exit code {code})", lasting=True)

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


def _forget_texts(task: Task) -> Task:
    return replace(task, texts=()) if task.texts else task


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """The processor time (user and system) process `pid` has used; None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # after the command name, which may hold spaces
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime and stime: fields 14 and 15 of stat(5)
