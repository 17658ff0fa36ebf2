"""Worker processes kept between jobs that allow it (explorer/data/kept_workers.py): Tokenize's encodings
take a process that has its built-ins loaded, each job under every limit of a new process."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_worker import finish

from bpe_core.builtin import load_builtin
from explorer.data.any_model import AnyModel
from explorer.data.tasks import LONG, SHORT, Task, model_ref, tokenize_task, tokenize_warm_up_task
from explorer.data.worker import WorkerPool
from explorer.display.tokenize import tokenized
from sample_corpora import load_corpus

ROOT = Path(__file__).resolve().parents[2]


def kept_task(function: str = "tests.worker_jobs:pid", payload: object = None, *, lane: str = SHORT) -> Task:
    return Task(function, payload, lane=lane, noun="test", what="the test", keep=True)


@pytest.fixture
def pool():
    made = WorkerPool(workers=1, short_workers=2)
    yield made
    made.kept.end_all()


def test_a_kept_process_serves_the_next_job_of_its_kind(pool):
    first = finish(pool.submit("a", kept_task())).result
    second = finish(pool.submit("b", kept_task())).result
    assert first[1] == 0 and second == (first[0], 1)  # the same process, its second task
    assert pool.kept.idle(SHORT) == 1


def test_jobs_that_do_not_allow_it_get_a_new_process_and_leave_none(pool):
    plain = Task("tests.worker_jobs:pid", lane=SHORT, noun="test", what="the test")
    first, second = (finish(pool.submit(k, plain)).result for k in "ab")
    assert first[0] != second[0] and first[1] == second[1] == 0
    assert pool.kept.idle(SHORT) == 0
    finish(pool.submit("c", kept_task()))
    assert finish(pool.submit("d", plain)).result[1] == 0  # a kept process serves only the tasks that allow it


def test_a_lane_keeps_its_own_processes(pool):
    short = finish(pool.submit("a", kept_task())).result
    long = finish(pool.submit("b", kept_task(lane=LONG))).result
    assert long[0] != short[0] and long[1] == 0  # the long lane's niceness is not the short lane's
    assert (pool.kept.idle(SHORT), pool.kept.idle(LONG)) == (1, 1)


def test_a_failed_job_ends_its_process(pool):
    first = finish(pool.submit("a", kept_task())).result
    failed = finish(pool.submit("b", kept_task("tests.worker_jobs:fail", "no such thing")))
    assert failed.error == "no such thing" and pool.kept.idle(SHORT) == 0
    assert finish(pool.submit("c", kept_task())).result[0] != first[0]


def test_each_job_in_a_kept_process_has_the_whole_time_limit():
    """Two jobs of 0.6 s of processor time each, in one process, under a 1 s limit: each job is charged
    its own time, not the process's."""
    pool = WorkerPool(workers=1, short_workers=1, time_limit=1.0)
    try:
        for key in "ab":
            job = finish(pool.submit(key, kept_task("tests.worker_jobs:spin", 0.6)))
            assert (job.error, job.result) == ("", "spun")
        assert pool.kept.idle(SHORT) == 1
        over = finish(pool.submit("c", kept_task("tests.worker_jobs:spin", 30.0)))
        assert over.error == "the test took longer than 1 s, the limit for one test here, and was stopped"
        assert pool.kept.idle(SHORT) == 0
    finally:
        pool.kept.end_all()


def test_an_idle_kept_process_ends(pool):
    pool.kept.idle_seconds = 0.2
    pid = finish(pool.submit("a", kept_task())).result[0]
    deadline = time.monotonic() + 60
    while _running(pid):
        assert time.monotonic() < deadline, "the idle kept process did not end"
        time.sleep(0.05)
    assert pool.kept.idle(SHORT) == 0


def test_a_process_past_its_jobs_or_memory_is_not_kept(pool):
    pool.kept.most_jobs = 2
    first = finish(pool.submit("a", kept_task())).result
    assert finish(pool.submit("b", kept_task())).result == (first[0], 1)
    assert pool.kept.idle(SHORT) == 0  # its second job was its last
    pool.kept.most_rss = 1  # byte: any process holds more
    finish(pool.submit("c", kept_task()))
    assert pool.kept.idle(SHORT) == 0


def test_tokenize_in_a_kept_process_gives_what_the_page_thread_gives(pool):
    text = load_corpus("english", max_bytes=150_000)
    model = AnyModel.of(load_builtin("o200k_base"))
    task = tokenize_task(model_ref(model.model, "o200k_base"), text, "GPT-4o")
    assert task.keep
    here = tokenized(model, text)
    for key in ("first", "again"):
        job = finish(pool.submit(key, task))
        assert job.error == "" and job.result == here
    assert pool.kept.idle(SHORT) == 1


def _running(pid: int) -> bool:
    """Whether `pid` runs (an ended child not yet reaped is a zombie: not running)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_kept_process_killed_while_idle_hands_its_job_to_a_new_one(pool):
    first = finish(pool.submit("a", kept_task())).result
    os.kill(first[0], signal.SIGKILL)
    while _running(first[0]):
        time.sleep(0.02)
    job = finish(pool.submit("b", kept_task()))
    assert job.error == "" and job.result[0] != first[0] and job.result[1] == 0


ORPHAN = """
import sys, time
sys.path.insert(0, sys.argv[1])
from explorer.data.tasks import SHORT, Task
from explorer.data.worker import WorkerPool
pool = WorkerPool(workers=1, short_workers=1)
finished = pool.submit("a", Task("tests.worker_jobs:pid", lane=SHORT, noun="test", what="the test", keep=True))
while not finished.wait(0.05):
    pass
spinning = pool.submit("b", Task("tests.worker_jobs:spin", 60.0, lane=SHORT, noun="test", what="the test", keep=True))
while spinning not in pool.processes:
    spinning.wait(0.01)
print(pool.processes[spinning].pid, flush=True)
spinning.wait(0.5)
import os
os._exit(0)  # the server dies mid-job, its threads with it
"""


def test_a_kept_process_dies_with_the_server_even_mid_job():
    """Its limits are the server's to enforce: a job left running without the server would have none."""
    done = subprocess.run([sys.executable, "-c", ORPHAN, str(ROOT)], capture_output=True, text=True, timeout=120)
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 60
    while _running(pid):
        assert time.monotonic() < deadline, "the kept worker outlived its server"
        time.sleep(0.05)


def test_prepared_processes_serve_the_next_jobs_and_no_more_are_started(pool):
    """A page that will need kept processes starts them beforehand, as many as the lane keeps; asking
    again while they are there (or still starting) starts none."""
    started = pool.prepare("ready", kept_task())
    assert len(started) == 2 and pool.prepare("ready", kept_task()) == []  # still starting: none more
    prepared = {finish(job).result[0] for job in started}
    assert len(prepared) == 2 and pool.kept.idle(SHORT) == 2
    assert pool.prepare("ready", kept_task()) == []
    first, second = (finish(pool.submit(key, kept_task())).result for key in "ab")
    assert {first[0], second[0]} <= prepared and first[1] == second[1] == 1  # each its second task
    with pytest.raises(ValueError):
        pool.prepare("plain", Task("tests.worker_jobs:pid", lane=SHORT, noun="test", what="the test"))


def test_a_preparation_starts_a_new_process_beside_a_kept_one(pool):
    """With one process kept, the lane's second is started anew: a preparation never reuses the kept one."""
    kept = finish(pool.submit("a", kept_task())).result[0]
    deadline = time.monotonic() + 60
    while pool.kept.idle(SHORT) < 1:  # the process goes back to the kept ones just after its result
        assert time.monotonic() < deadline
        time.sleep(0.02)
    (job,) = pool.prepare("ready", kept_task())
    assert finish(job).result[0] != kept and pool.kept.idle(SHORT) == 2


def test_nothing_is_prepared_while_real_work_waits_or_after_a_failure(pool):
    waiting = [pool.submit(k, Task("tests.worker_jobs:wait", 1.0, lane=SHORT, noun="test", what="the test"))
               for k in "abc"]  # two run, one waits
    while not any(job.stage == "running" for job in waiting[:2]):
        waiting[0].wait(0.05)
    assert pool.prepare("ready", kept_task()) == []
    for job in waiting:
        finish(job)
    (failed,) = pool.prepare("ready", kept_task("tests.worker_jobs:fail", "cannot load"))[:1]
    finish(failed)
    assert failed.error == "cannot load"
    assert pool.prepare("ready", kept_task()) == []  # not again at once, nor on the next page run


def test_tokenize_prepares_processes_with_its_built_ins_loaded(pool):
    """Tokenize's preparation loads the built-ins and draws a text with each, in processes its long texts
    then take: the encoding there gives what the page's thread gives."""
    refs = [model_ref(None, "gpt2"), model_ref(None, "cl100k_base")]
    assert all(finish(job).error == "" for job in pool.prepare("ready", tokenize_warm_up_task(refs)))
    assert pool.kept.idle(SHORT) == 2
    held = [finish(pool.submit(k, kept_task("tests.worker_jobs:loaded_builtins"))).result for k in "ab"]
    assert held == [["cl100k_base", "gpt2"]] * 2
    # and their split patterns' twins made, which a first long text would otherwise wait for
    twins = [finish(pool.submit(k, kept_task("tests.worker_jobs:twins_made"))).result for k in "ab"]
    assert twins == [["gpt2", "gpt4"]] * 2
    text = load_corpus("english", max_bytes=120_000)
    model = AnyModel.of(load_builtin("gpt2"))
    job = finish(pool.submit("long", tokenize_task(model_ref(model.model, "gpt2"), text, "GPT-2")))
    assert job.error == "" and job.result == tokenized(model, text)
    assert pool.kept.idle(SHORT) == 2  # it went back, as did the other one, untouched
