"""Heavy work in worker processes: a long job slows no other user's page and cannot take the server down.

Pure: no Streamlit here. The server shares one `WorkerPool`. Each job (a `Task`: a training,
reading an uploaded tokenizer file, training every family) runs in a fresh Python process of its
own (`python -c`, not `multiprocessing`: its spawn and forkserver methods re-run the main module
in the child, and under Streamlit that is the app script; `worker_child.py` is that process's side;
a task that allows it, Tokenize's, may take a process kept from the last such job instead:
`kept_workers.py`), with

* a memory limit (`RLIMIT_AS`): a runaway job dies alone, with a message in words;
* a time limit, of processor time (read from /proc where there is one): past it the process is
  terminated. A job that waits for the cores on a busy machine is not charged for the wait, so the
  same request succeeds or fails alike on a quiet and a loaded machine. A job whose processor time
  stops growing for `STALL_AFTER` seconds is taken as hung and stopped, and one still at work after
  `WALL_FACTOR` times the limit by the clock (a server far too busy) too, each with its own message
  (neither kept as the settings' fault: a retry may succeed);
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path

from explorer.data.job import MAX_TRAININGS, Job
from explorer.data.kept_workers import Kept, KeptWorkers
from explorer.data.tasks import LONG, SHORT, Task, training_task, with_hint
from explorer.data.training import TrainRequest
from explorer.data.worker_child import send_task

SHORT_WORKERS = 2  # short jobs at once, server-wide, beside the long ones
LONG_NICENESS = 10  # long jobs run at this lower priority: a page or a short job comes first
TIME_LIMIT = 120.0  # seconds of processor time one job may use
STALL_AFTER = 120.0  # seconds by the clock in which a running job must use some processor time, or it is hung
STALL_CPU = 0.05  # seconds of processor time that count as progress
WALL_FACTOR = 20  # and it is stopped anyway after this many times its time limit by the clock
MEMORY_LIMIT = 3 * 1024**3  # bytes of address space one job may use
ABANDON_AFTER = 20.0  # seconds without anyone waiting for a job before it is stopped
PREPARE_PAUSE = 60.0  # seconds `prepare` starts nothing after a preparation failed
ROOT = Path(__file__).resolve().parents[2]  # so that the worker imports this checkout's explorer
# The worker's program: read pipe descriptors, the memory limit and the niceness from argv, then run the task.
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from explorer.data.worker_child import main; "
         "main(sys.argv[2:])")


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
        stall_after: float = STALL_AFTER,
    ) -> None:
        if workers < 1 or short_workers < 1:
            raise ValueError("a worker pool needs at least one worker in each lane")
        self.lanes = {LONG: Lane(LONG, workers, long_niceness), SHORT: Lane(SHORT, short_workers, 0)}
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.abandon_after = abandon_after
        self.stall_after = stall_after
        self._cond = threading.Condition()
        self._queues: dict[str, deque[Job]] = {name: deque() for name in self.lanes}
        self._running = dict.fromkeys(self.lanes, 0)
        self.processes: dict[Job, subprocess.Popen] = {}  # the workers running (tests read it)
        self.kept = KeptWorkers(self._stop)  # processes kept between jobs that allow it (`Task.keep`)
        self._starter: ThreadPoolExecutor | None = None  # starts the processes that may be kept (`_start`)
        self._shared: dict[Hashable, Job] = {}  # the jobs `share` handed out, until they end
        self._preparing: list[Job] = []  # the jobs `prepare` started, until they end
        self._prepare_after = 0.0  # the time before which `prepare` starts nothing (one failed)

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

    def prepare(self, key: Hashable, task: Task) -> list[Job]:
        """Start processes for tasks of `task`'s kind before they are needed: run `task` (one that may be
        kept, such as loading the built-ins a page shows), each in a new process, in as many as its lane
        would still keep and has free slots for, so that the next such tasks find them ready. Nothing
        starts while jobs wait in the lane (they come first), nor for PREPARE_PAUSE after a preparation
        failed. Nobody waits for these jobs; each is stopped like any other one nobody waits for."""
        if not task.keep:
            raise ValueError("only a task whose process may be kept prepares one")
        lane = task.lane
        with self._cond:
            ended = [job for job in self._preparing if job.finished.is_set()]
            self._preparing = [job for job in self._preparing if not job.finished.is_set()]
            now = time.monotonic()
            if any(job.error for job in ended):  # a preparation that failed is not tried again at once
                self._prepare_after = now + PREPARE_PAUSE
            if now < self._prepare_after or self._queues[lane]:
                return []  # real work waits in the lane: it comes first
            free = self.lanes[lane].workers - self._running[lane]
            wanted = min(free, self.lanes[lane].workers - self.kept.idle(lane) - len(self._preparing))
            started = [self.submit(key, task, new_process=True) for _ in range(max(0, wanted))]
            self._preparing += started
            return started

    def submit(self, key: Hashable, task: Task, *, new_process: bool = False) -> Job:
        """Queue a task and return its job at once; a thread of the pool runs it (`new_process`: in a
        process of its own, even when one is kept for its kind)."""
        if task.lane not in self.lanes:
            raise ValueError(f"no lane {task.lane!r}")
        job = Job(key, task)
        job.new_process = new_process
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

    def _start(self, task: Task) -> Kept:
        """A new worker process for `task`'s lane. One that may be kept is started by the pool's starter
        thread, which lives as long as the server: a worker dies with the thread that started it (so
        with the server, even mid-job), and a job's watching thread ends with its job."""
        if not task.keep:
            return self._popen(task)
        with self._cond:
            if self._starter is None:
                self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bpe-worker-starter")
        return self._starter.submit(self._popen, task).result()

    def _popen(self, task: Task) -> Kept:
        from_parent, to_child = os.pipe()  # (read end, write end)
        from_child, to_parent = os.pipe()
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(ROOT), str(from_parent), str(to_parent),
                 str(self.memory_limit or 0), str(self.lanes[task.lane].niceness)],
                pass_fds=(from_parent, to_parent), stdin=subprocess.DEVNULL, close_fds=True,
            )
        except BaseException:
            for fd in (to_child, from_child):
                os.close(fd)
            raise
        finally:
            os.close(from_parent)
            os.close(to_parent)
        return Kept(process, Connection(to_child, readable=False), Connection(from_child, writable=False))

    def _run(self, job: Job) -> None:
        task = job.task
        worker = self.kept.take(task.lane) if task.keep and not job.new_process else None
        kept = False
        job.started = time.monotonic()
        job.stage = "running"
        try:
            try:
                if worker is not None and self._handed(worker, task):
                    self.processes[job] = worker.process
                else:  # none kept, or it ended while idle
                    worker = self._start(task)
                    self.processes[job] = worker.process  # before the send: a test may look for it
                    send_task(worker.send, task.function, task.payload, task.texts)
            except (pickle.PicklingError, AttributeError, TypeError) as exc:  # a model that cannot travel
                job.unsendable = True
                job._fail(f"the {task.noun} could not be sent to a worker ({type(exc).__name__})", lasting=False)
                return
            job.task = _forget_texts(task)  # the pool keeps no copy of a corpus once it is sent
            del task
            process = worker.process
            self._follow(job, process, worker.conn, cpu_before=_cpu_seconds(process.pid) or 0.0)
            if job.stage == "done" and job.task.keep:
                kept = self.kept.give_back(job.task.lane, worker, most=self.lanes[job.task.lane].workers)
        except (BrokenPipeError, EOFError, ConnectionResetError):
            if not job.error and worker is not None:
                self._died(job, worker.process)
        finally:
            if worker is not None and not kept:
                worker.close(self._stop)
            self.processes.pop(job, None)

    def _handed(self, worker: Kept, task: Task) -> bool:
        """Send `task` to a kept process; False when it has ended meanwhile (killed from outside while
        idle), closed: the task then goes to a new process instead of failing."""
        try:
            send_task(worker.send, task.function, task.payload, task.texts)
        except (BrokenPipeError, ConnectionResetError):
            worker.close(self._stop)
            return False
        return True

    def _follow(self, job: Job, process, conn: Connection, *, cpu_before: float = 0.0) -> None:
        """Follow the job to its end under the limits; its processor time counts from `cpu_before`
        (where a kept process stood when the job began)."""
        task = job.task
        measured = _cpu_seconds(process.pid) is not None
        deadline = job.started + self.time_limit * (WALL_FACTOR if measured else 1)
        moved_at, cpu_then = time.monotonic(), 0.0  # when the job last used processor time, and how much
        while True:
            if job.cancelled.is_set() or self._abandoned(job):
                job._fail(f"the {task.noun} was cancelled", lasting=False)
                return
            now = time.monotonic()
            cpu = (_cpu_seconds(process.pid) or 0.0) - cpu_before if measured else 0.0
            if cpu > self.time_limit or (not measured and now >= deadline):
                job._fail(task.time_text(self.time_limit), lasting=True)
                return
            if cpu - cpu_then >= STALL_CPU:
                moved_at, cpu_then = now, cpu
            elif measured and now - moved_at > self.stall_after:
                job._fail(f"the {task.noun} stopped making progress (no processor time for "
                          f"{self.stall_after:,.0f} s) and was stopped; try again", lasting=False)
                return
            if measured and now >= deadline:
                waited = now - job.started
                took = f"{waited / 60:,.0f} minutes" if waited >= 90 else f"{waited:,.0f} s"
                job._fail(f"the server was too busy to finish the {task.noun} in {took}, so it was stopped; "
                          "try again later", lasting=False)
                return
            if not conn.poll(min(0.2, max(deadline - now, 0.01))):
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
