"""Sessions that ask for the same training share it: one job while it runs, one bundle once it is done."""
from __future__ import annotations

import gc
import time

from apptest_helpers import APP
from streamlit.testing.v1 import AppTest

from bpe_core import Settings
from explorer.data.corpus import digest
from explorer.data.shared_trainings import SharedTrainings
from explorer.data.tasks import training_task
from explorer.data.training import TrainRequest, train_corpus
from explorer.data.worker import WorkerPool
from explorer.ui import state
from sample_corpora import load_corpus


def finish(job, seconds: float = 120.0):
    """Wait for the job a second at a time (each wait keeps it watched)."""
    deadline = time.monotonic() + seconds
    while not job.wait(1.0):
        assert time.monotonic() < deadline, f"the job did not finish in {seconds} s (stage {job.stage})"
    return job


def test_a_job_under_way_is_shared_and_stops_only_when_every_follower_cancels():
    pool = WorkerPool(workers=1)
    text = load_corpus("english")[:300_000]
    request = TrainRequest(Settings(mode="bytes"), "merges", 300)

    def make():
        return training_task([text], request)

    first = pool.share("same", make)
    second = pool.share("same", make)
    assert second is first and first.followers == 2
    first.cancel()  # one session moved on to other settings: the other still waits for it
    finish(second)
    assert second.error == "" and second.result.tokenizer.merges == train_corpus([text], request).tokenizer.merges

    third = pool.share("same", make)  # a job that has ended is not handed out again
    assert third is not first
    other = pool.share("same", make)
    third.cancel()
    other.cancel()  # the last follower gone: the job stops
    finish(third)
    assert third.error == "the training was cancelled" and not third.lasting
    assert pool.running == 0 and pool.waiting == 0


def test_the_registry_holds_a_bundle_only_while_someone_does():
    shared = SharedTrainings()
    bundle = train_corpus([load_corpus("seed000")], TrainRequest(Settings(), "merges", 10))
    shared.put(("digest", "request"), bundle, 1234)
    assert shared.get(("digest", "request")) == (bundle, 1234) and len(shared) == 1
    assert shared.get(("digest", "other")) is None
    del bundle
    gc.collect()
    assert shared.get(("digest", "request")) is None and len(shared) == 0


def test_a_second_session_opening_the_same_link_gets_the_first_ones_training(monkeypatch):
    """A classroom opening one link: the 5 MB sample trains once, in one worker; the next session's
    page shows the same bundle at once, charged to its own budget."""
    jobs = []
    share = WorkerPool.share

    def counted(pool, key, make):
        job = share(pool, key, make)
        jobs.append(job)
        return job

    monkeypatch.setattr(WorkerPool, "share", counted)
    link = {"corpus": "english", "merges": "12", "step": "3"}
    sessions = []
    for _ in range(2):
        at = AppTest.from_file(str(APP), default_timeout=180)
        at.query_params.update(link)
        at.run()
        assert not at.exception, at.exception
        sessions.append(at)
    first, second = (at.session_state[state.TRAINED] for at in sessions)
    assert len(jobs) == 1  # the second session started no training
    assert second is first and first.steps == 12
    key = (digest(load_corpus("english")), first.request.key())
    for at in sessions:
        held = at.session_state[state.BUDGET]
        assert ("training", key) in {(item.kind, item.key) for item in held.items()}
