"""Worker processes kept for the next job of a kind that allows it (`Task.keep`: Tokenize's encodings).

A job's process is otherwise new and ends with it: under the limits, and holding nothing of a user's
afterwards. For Tokenize that start is most of the wait: a new process imports the engine, loads its
built-in from the disk cache and encodes a megabyte with an empty word cache (0.4-0.5 s), where one
that has encoded English before takes 0.1 s. So a process that sent a result for such a task may go
back to the pool's `KeptWorkers` instead of ending, and the next such task of its lane takes it.

Each job in a kept process keeps every limit of a new one (its time is its own processor time: the
pool counts from where the process stood when the job began; the memory limit is the process's). A
process is kept only after a result (one that failed ends), at most as many a lane as it runs at
once, and it is ended after `IDLE_SECONDS` without a job, after `MOST_JOBS` jobs, or when it holds
more than `MOST_RSS` (its built-ins and caches are its memory, not the server's; they count against
the job's memory limit, so a job in a kept process has at least the limit less `MOST_RSS`). What it
keeps between jobs is the built-ins' word caches: words of earlier texts, which no result shows.
Where /proc cannot tell a process's memory (not Linux), no process is kept.

A worker process dies with the thread that started it: a kept one is started by a thread that lives
as long as the server (`WorkerPool._start`), not by its first job's, so it is never left running
without the server that enforces its limits.
"""
from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from explorer.data.budget import resident_bytes

IDLE_SECONDS = 120.0  # a kept process without a job for this long ends
MOST_JOBS = 200  # and one that has run this many
MOST_RSS = 600 * 1024**2  # bytes: and one that holds more than this after a job (five built-ins: ~230 MB)


@dataclass(eq=False)
class Kept:
    """A worker process between jobs: the pipes to it and from it, and how many jobs it has run."""

    process: subprocess.Popen
    send: Connection
    conn: Connection
    jobs: int = 0
    idle_since: float = field(default_factory=time.monotonic)
    timer: threading.Timer | None = None  # ends it once idle too long

    def close(self, stop: Callable[[subprocess.Popen], None]) -> None:
        """Close its pipes (it ends at that: no more tasks) and reap it with `stop`."""
        self.send.close()
        self.conn.close()
        stop(self.process)


class KeptWorkers:
    """The kept processes of each lane, idle until a job takes one."""

    def __init__(self, stop: Callable[[subprocess.Popen], None], *, idle_seconds: float = IDLE_SECONDS,
                 most_jobs: int = MOST_JOBS, most_rss: int = MOST_RSS) -> None:
        self._stop = stop
        self.idle_seconds = idle_seconds
        self.most_jobs = most_jobs
        self.most_rss = most_rss
        self._lock = threading.Lock()
        self._idle: dict[str, list[Kept]] = {}

    def idle(self, lane: str) -> int:
        with self._lock:
            return len(self._idle.get(lane, ()))

    def take(self, lane: str) -> Kept | None:
        """An idle process of `lane` that still runs (the longest idle first), or None."""
        while True:
            with self._lock:
                waiting = self._idle.get(lane)
                if not waiting:
                    return None
                kept = waiting.pop(0)
            if kept.timer is not None:
                kept.timer.cancel()
            if kept.process.poll() is None:
                return kept
            kept.close(self._stop)  # it ended meanwhile (killed from outside): the next one

    def give_back(self, lane: str, kept: Kept, *, most: int) -> bool:
        """Keep `kept` (it has just sent a result) for the next job of `lane`; False when it is not
        kept (too many jobs, too much memory, `most` idle already in the lane): the caller ends it."""
        kept.jobs += 1
        rss = resident_bytes(kept.process.pid)
        if kept.process.poll() is not None or kept.jobs >= self.most_jobs or rss is None or rss > self.most_rss:
            return False
        kept.idle_since = time.monotonic()
        with self._lock:
            waiting = self._idle.setdefault(lane, [])
            if len(waiting) >= most:
                return False
            waiting.append(kept)
        kept.timer = threading.Timer(self.idle_seconds, self._end_if_idle, args=(lane, kept, kept.idle_since))
        kept.timer.daemon = True
        kept.timer.start()
        return True

    def _end_if_idle(self, lane: str, kept: Kept, since: float) -> None:
        with self._lock:
            waiting = self._idle.get(lane, [])
            if kept not in waiting or kept.idle_since != since:
                return  # a job took it meanwhile
            waiting.remove(kept)
        kept.close(self._stop)

    def end_all(self) -> int:
        """End every idle process (a pool no longer used); how many."""
        with self._lock:
            every = [kept for waiting in self._idle.values() for kept in waiting]
            self._idle.clear()
        for kept in every:
            if kept.timer is not None:
                kept.timer.cancel()
            kept.close(self._stop)
        return len(every)
