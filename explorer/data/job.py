"""A job of the worker pool (`explorer/data/worker.py`), as the page sees it: its state while it waits
and runs, then its result or the reason it failed.

Pure: no Streamlit here.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Hashable

from explorer.data.tasks import Task
from explorer.data.training import counting_status

MAX_TRAININGS = max(1, min(2, os.cpu_count() or 1))  # long jobs at once, server-wide


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
        self.new_process = False  # it runs in a process of its own even where one is kept (`WorkerPool.prepare`)
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
