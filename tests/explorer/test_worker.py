"""The training pool: trainings run in worker processes, under a time and a memory limit, a few at a time."""
from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import replace

import pytest

from bpe_core import Settings
from explorer.data import worker
from explorer.data.tasks import LONG, SHORT, Task, memory_message, time_message, training_task
from explorer.data.training import TrainRequest, train_corpus
from explorer.data.worker import WorkerPool
from sample_corpora import load_corpus

# Text mode without a pre-tokenizer on the 5 MB English sample: each merge scans long "words",
# so 2,000 merges take many seconds and several hundred MB: a training to stop.
HEAVY = TrainRequest(Settings(mode="text"), "merges", 2000)


@pytest.fixture(scope="module")
def english() -> str:
    return load_corpus("english")


def finish(job, seconds: float = 120.0):
    """Wait up to `seconds` for the job, a second at a time: each wait keeps it watched, since the
    pool stops a job nobody has waited for in ABANDON_AFTER (20) seconds."""
    deadline = time.monotonic() + seconds
    while not job.wait(1.0):
        assert time.monotonic() < deadline, f"the job did not finish in {seconds} s (stage {job.stage})"
    return job


def wait_for_process(pool, job, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.wait(0.05)  # keeps the job watched
        process = pool.processes.get(job)
        if process is not None and process.pid:
            return process
    raise AssertionError("the worker process did not start")


def test_worker_trains_what_the_page_thread_trains(english):
    pool = WorkerPool(workers=1)
    for texts, request in (
        ([load_corpus("seed000")], TrainRequest(Settings(), "merges", 10)),
        ([load_corpus("seed003")], TrainRequest(Settings(mode="text", tie_break="first"), "vocab", 25)),
        ([english[:300_000]], TrainRequest(Settings(mode="bytes"), "merges", 300)),
        # Over a megabyte of Devanagari, in two texts: sent to the worker in pieces, joined back exactly.
        ([load_corpus("hindi") * 500, "\u0928\u092e\u0938\u094d\u0924\u0947 " * 1000],
         TrainRequest(Settings(), "merges", 30)),
    ):
        job = finish(pool.train("key", texts, request))
        here = train_corpus(texts, request)
        assert job.error == "" and job.stage == "done"
        assert job.result.tokenizer.merges == here.tokenizer.merges
        assert job.result.curve == here.curve
        assert job.result.top_words == here.top_words
        assert job.result.collapse_step == here.collapse_step
        assert job.result_bytes > 0
    assert pool.running == 0 and pool.waiting == 0


def test_a_bad_request_comes_back_as_its_message():
    pool = WorkerPool(workers=1)
    job = finish(pool.train("key", ["   \n "], TrainRequest()))
    assert job.result is None
    assert job.error == "the corpus is empty (or only whitespace): there is nothing to train on"
    assert job.lasting


def test_a_training_over_the_time_limit_is_stopped_with_a_message(english):
    pool = WorkerPool(workers=1, time_limit=1.0)
    job = pool.train("key", [english], HEAVY)
    process = wait_for_process(pool, job)
    finish(job)
    assert job.result is None
    assert job.error == time_message(1.0)
    assert job.error.startswith("the training took longer than 1 s, the limit for one training here, and was stopped")
    assert job.lasting  # the same request would fail the same way: the app does not retry it
    assert process.poll() is not None
    assert pool.running == 0


def test_a_training_over_the_memory_limit_is_reported_in_words(english):
    pool = WorkerPool(workers=1, memory_limit=400 * 1024**2)
    # 15 MB in text mode (three different texts), about 600 MB to train (5 MB now fits in 400 MB).
    job = finish(pool.train("key", [english, english[::-1], english.upper()], HEAVY))
    assert job.result is None
    assert job.error == memory_message(400 * 1024**2)
    assert job.error.startswith("this corpus with these settings needs more than 400 MB of memory")
    # The server (this process) is untouched, and the pool trains the next request.
    small = finish(pool.train("key", [load_corpus("seed000")], TrainRequest()))
    assert small.result.steps == 10


def test_the_pool_survives_a_killed_worker(english):
    pool = WorkerPool(workers=1)
    job = pool.train("key", [english], HEAVY)
    process = wait_for_process(pool, job)
    os.kill(process.pid, signal.SIGKILL)
    finish(job)
    assert job.error.startswith("the training process was killed by the system")
    assert not job.lasting  # the machine may have been short of memory for everyone: a retry is allowed
    assert pool.running == 0
    after = finish(pool.train("key", [load_corpus("seed000")], TrainRequest()))
    assert after.error == "" and after.result.steps == 10


def long_lane(texts, request):
    return replace(training_task(texts, request), lane=LONG)


def test_trainings_beyond_the_cap_wait_their_turn(english):
    pool = WorkerPool(workers=1)
    first = pool.train("first", [english], HEAVY)
    assert first.task.lane == LONG
    wait_for_process(pool, first)
    second = pool.submit("second", long_lane([load_corpus("seed000")], TrainRequest()))
    assert not second.wait(0.5)
    assert second.stage == "waiting"
    assert second.status() == "waiting for another training to finish; the server runs 1 at a time"
    third = pool.submit("third", long_lane([load_corpus("seed000")], TrainRequest()))
    third.wait(0.3)
    assert third.status() == ("waiting for another training to finish (2 trainings ahead); "
                              "the server runs 1 at a time")
    first.cancel()
    finish(first)
    assert first.error == "the training was cancelled" and not first.lasting
    assert finish(second).result.steps == 10
    assert finish(third).result.steps == 10
    assert pool.running == 0 and pool.waiting == 0


def test_a_job_nobody_waits_for_is_stopped(english):
    pool = WorkerPool(workers=1, abandon_after=0.5)
    job = pool.train("key", [english], HEAVY)
    assert job.finished.wait(60)  # not job.wait(): that would mean someone is still waiting
    assert job.error == "the training was cancelled"
    assert pool.running == 0


def test_a_small_training_does_not_wait_behind_big_ones(english):
    """The short lane: while the long lane is full (and one more big training waits), a small
    training runs at once, in a process of normal priority; the big ones run niced."""
    pool = WorkerPool(workers=1, short_workers=1)
    big = pool.train("big", [english], HEAVY)
    process = wait_for_process(pool, big)
    queued = pool.train("queued", [english], HEAVY)
    small = pool.train("small", [english[:200_000]], TrainRequest(Settings(), "merges", 100))
    assert (small.task.lane, queued.task.lane) == (SHORT, LONG)
    assert finish(small, 60).result.steps == 100
    assert queued.stage == "waiting" and big.stage != "done"
    assert os.getpriority(os.PRIO_PROCESS, process.pid) - os.getpriority(os.PRIO_PROCESS, 0) == 10
    big.cancel()
    queued.cancel()
    finish(big)
    finish(queued)
    assert pool.running == 0 and pool.waiting == 0


def test_a_job_that_stops_computing_is_stopped_as_hung_and_may_be_retried():
    """A sleeping job uses no processor time: past `stall_after` it is taken as hung, said so (not as a
    time limit it never met), and the settings are not blamed (a retry is allowed)."""
    pool = WorkerPool(workers=1, time_limit=60.0, stall_after=1.0)
    hung = finish(pool.submit("hung", Task("tests.worker_jobs:wait", payload=60.0, noun="test", what="the test")))
    assert hung.result is None and not hung.lasting
    assert hung.error == "the test stopped making progress (no processor time for 1 s) and was stopped; try again"


def test_a_job_slowed_by_a_busy_machine_is_not_told_it_met_the_time_limit(monkeypatch):
    """Past WALL_FACTOR times the limit by the clock, while still under it in processor time: the message
    says the server was busy, and a retry is allowed."""
    monkeypatch.setattr(worker, "WALL_FACTOR", 3)  # 3 x 1 s by the clock; its start uses far less processor time
    pool = WorkerPool(workers=1, time_limit=1.0, stall_after=60.0)
    slow = finish(pool.submit("slow", Task("tests.worker_jobs:wait", payload=30.0, noun="test", what="the test")))
    assert slow.result is None and not slow.lasting
    assert re.fullmatch(r"the server was too busy to finish the test in \d+ s, so it was stopped; try again later",
                        slow.error), slow.error  # seconds, not "0 minutes"


def test_the_time_limit_counts_the_processors_time_not_the_wait():
    """A job charged for waiting would fail on a busy machine and pass on a quiet one: one that
    sleeps past the limit finishes, one that computes past it is stopped with the time message."""
    pool = WorkerPool(workers=1, time_limit=1.0)
    waited = finish(pool.submit("wait", Task("tests.worker_jobs:wait", payload=2.5, noun="test", what="the test")))
    assert (waited.error, waited.result) == ("", "waited")
    spun = finish(pool.submit("spin", Task("tests.worker_jobs:spin", payload=30.0, noun="test", what="the test")))
    assert spun.result is None
    assert spun.error == "the test took longer than 1 s, the limit for one test here, and was stopped"
