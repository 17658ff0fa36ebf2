"""Cached calls into the engine and the sample corpora, for the pages.

* Sample corpora are the same for everyone: `st.cache_resource` (global; the lessons' in `lesson_store`).
* Corpus statistics are keyed by the corpus digest: `st.cache_data`.
* Trained tokenizers are cached per session, keyed by (corpus digest, settings, target), in a small LRU
  in session state bounded by size, and offered to the other sessions for as long as one holds them
  (`explorer/data/shared_trainings.py`; a training under way is shared too). Not `st.cache_resource`:
  training draws a progress bar, and Streamlit replays whatever it drew on every later cache hit.
* Training of anything but a tiny corpus, and the pages' heavy jobs (`run_task`, `run_tasks`), run in
  worker processes (`explorer/data/worker.py`): the page's thread only waits and draws, so other
  sessions' pages stay quick, and a job past its time or memory limit is stopped alone, with a message.

What one session may hold or ask for is bounded: `MAX_APP_MERGES` merges (or tokens), `MAX_USER_CORPORA`
corpora of its own, `SESSION_CACHE_ENTRIES` trained bundles, one memory budget for its corpora,
trainings and tokenizer files together (`explorer/ui/holdings.py`: the oldest is dropped, with a
message), one training at a time, and the pool's time and memory limits for each job.
"""
from __future__ import annotations

import os
import pickle
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

import streamlit as st

from bpe_core import BPEError
from explorer.data.corpus import Corpus, sample_corpus
from explorer.data.shared_trainings import SharedTrainings
from explorer.data.tasks import Task, training_task
from explorer.data.training import Trained, TrainRequest, counting_status, progress_status, train_corpus
from explorer.data.worker import Job, WorkerPool
from explorer.display.render import isolate, md_escape
from explorer.ui import holdings, link, sessions, state
from explorer.ui.server_caches import kept_while_used
from sample_corpora import list_corpora, load_corpus

MAX_APP_MERGES = state.MAX_APP_MERGES  # merges, or tokens of a vocabulary, one training here may ask for
SESSION_CACHE_ENTRIES = 6  # trained bundles a session keeps, at most (and within the session's budget)
BUNDLE_MEMORY_PER_PICKLED_BYTE = 6  # a bundle in memory is 4-8x its pickle (measured)
MAX_USER_CORPORA = 3  # uploaded or pasted corpora a session keeps (within the session's budget)
IN_THREAD_CHARS = 100_000  # a corpus up to this size...
IN_THREAD_WORK = 2_000_000  # ...with characters x merges up to this trains in the page's thread (no process start)


# ---- corpora -------------------------------------------------------------------------------

@st.cache_resource(show_spinner=False)
def samples() -> dict[str, str]:
    """Sample corpus id -> title, in display order."""
    return {c.id: c.title for c in list_corpora()}


@st.cache_resource(show_spinner=False)
def sample_list() -> list:
    """The sample corpora's descriptions (`SampleCorpus`), in display order."""
    return list_corpora()


@kept_while_used(st.cache_resource(show_spinner="Loading the sample corpus (built on first use, a few seconds)…"))
def sample_text(sample_id: str) -> str:
    return load_corpus(sample_id)


def get_corpus(key: str) -> Corpus:
    """The corpus with this key: a sample, or one uploaded or pasted in this session."""
    if key.startswith("sample:"):
        sample_id = key.removeprefix("sample:")
        titles = samples()
        if sample_id not in titles:
            raise BPEError(f"there is no sample corpus {sample_id!r}")
        return _sample(sample_id, titles[sample_id])
    found = st.session_state[state.USER_CORPORA].get(key)
    if found is None:
        raise BPEError("that corpus is no longer in this session; pick another one")
    return found


def _sample(sample_id: str, title: str) -> Corpus:
    try:
        return _sample_cached(sample_id, title)
    except (OSError, RuntimeError, ValueError) as exc:  # a generated sample could not be built
        raise BPEError(f"could not load the sample corpus {title!r}: {exc}") from None


@kept_while_used(st.cache_resource(show_spinner=False))
def _sample_cached(sample_id: str, title: str) -> Corpus:
    return sample_corpus(sample_id, title, sample_text(sample_id))


def corpus_options() -> dict[str, str]:
    """Corpus key -> title for the corpus picker: the samples, then this session's own."""
    options = {f"sample:{sid}": title for sid, title in samples().items()}
    for key, corpus in st.session_state[state.USER_CORPORA].items():
        options[key] = isolate(corpus.title)  # plain text, its bidirectional controls kept inside it
    return options


def _text_bytes(corpus: Corpus) -> int:
    return sys.getsizeof(corpus.text)


def add_user_corpus(corpus: Corpus) -> str:
    """Keep an uploaded or pasted corpus in this session and make it the one in use.

    The session keeps at most `MAX_USER_CORPORA` of its own corpora, and its budget drops the
    oldest items to make room. Returns a sentence naming what was dropped (or ""); a one-line
    BPEError if the corpus alone takes more than a session may hold.
    """
    ss = st.session_state
    corpora: dict[str, Corpus] = ss[state.USER_CORPORA]
    holdings.budget().check("corpus", corpus.title, _text_bytes(corpus))
    corpora.pop(corpus.key, None)  # a corpus brought again is the newest
    corpora[corpus.key] = corpus
    dropped = [corpora.pop(next(iter(corpora))) for _ in range(len(corpora) - MAX_USER_CORPORA)]
    for old in dropped:
        holdings.discard("corpus", old.key)
        holdings.forget_trainings(old.digest)
    message = eviction_message([old.title for old in dropped])
    message = " ".join(filter(None, [message, holdings.keep("corpus", corpus.key, corpus.title, _text_bytes(corpus))]))
    ss[state.CORPUS] = corpus.key
    ss[state.W_CORPUS] = corpus.key
    ss[state.STEP] = 1
    ss[state.PLAYING] = False
    return message


def release_uploads(files: list) -> None:
    """Let Streamlit drop uploaded files' bytes once they are read.

    Streamlit keeps every uploaded file in memory until the session ends (or the user removes
    it from the widget); the session keeps the corpus's text, so the bytes would be a second copy.
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    remove = getattr(getattr(ctx, "uploaded_file_mgr", None), "remove_file", None)
    if ctx is None or remove is None:
        return
    for f in files:
        file_id = getattr(f, "file_id", None)
        if file_id:
            remove(ctx.session_id, file_id)


def eviction_message(titles: list[str]) -> str:
    """The sentence that says which corpora a session dropped to keep at most MAX_USER_CORPORA."""
    if not titles:
        return ""
    names = ", ".join(f"“{t}”" for t in titles)
    verb, it = ("was", "it") if len(titles) == 1 else ("were", "them")
    return (f"{names} {verb} dropped from this session: a session keeps at most {MAX_USER_CORPORA} corpora of "
            f"its own; upload or paste {it} again to use {it}.")


# ---- training ------------------------------------------------------------------------------

@st.cache_resource(show_spinner=False)
def worker_pool() -> WorkerPool:
    """The server's one pool of worker processes, shared by every session."""
    return WorkerPool()


@st.cache_resource(show_spinner=False)
def shared_trainings() -> SharedTrainings:
    """The bundles some session holds, for the others that ask for the same."""
    return SharedTrainings()


def check_request(request: TrainRequest) -> None:
    """Refuse what one session may not ask of the server (links and the sidebar clamp before this)."""
    if request.amount > MAX_APP_MERGES:
        asked = f"{request.amount:,} merges" if request.target == "merges" else f"a vocabulary of {request.amount:,}"
        raise BPEError(f"{asked} is more than this app trains for one visitor ({MAX_APP_MERGES:,} at most); "
                       "the command line (python -m bpe_core train) has no such limit")


def trains_in_thread(corpus: Corpus, request: TrainRequest) -> bool:
    """Tiny corpora (the lessons) train at once in the page's thread; the rest in a worker process.

    EXPLORER_TRAIN_IN_THREAD=1 trains everything in the page's thread, without the pool's limits:
    only for `bench/bench_sessions.py --in-thread`, which measures what the worker saves.
    """
    if os.environ.get("EXPLORER_TRAIN_IN_THREAD") == "1":
        return True
    return small_enough_here(len(corpus.text), request.amount)


def small_enough_here(characters: int, amount: float) -> bool:
    """Whether training `characters` of text to `amount` merges or tokens (times a family's cost beside
    BPE's, where a page weighs several) is small enough for the page's thread: a process would take longer
    to start than the training takes."""
    return characters <= IN_THREAD_CHARS and characters * max(1.0, amount) <= IN_THREAD_WORK


def _bundle_memory(trained: Trained, pickled_bytes: int | None = None) -> int:
    if pickled_bytes is None:
        pickled_bytes = len(pickle.dumps(trained, protocol=pickle.HIGHEST_PROTOCOL))
    return pickled_bytes * BUNDLE_MEMORY_PER_PICKLED_BYTE


def _cache_put(cache: OrderedDict, key: tuple, trained: Trained, memory: int, title: str) -> None:
    """Keep the newest bundle; drop the oldest beyond SESSION_CACHE_ENTRIES, and what the session's
    budget no longer holds (said in a toast)."""
    cache[key] = (trained, memory)
    cache.move_to_end(key)
    while len(cache) > SESSION_CACHE_ENTRIES:
        holdings.discard("training", cache.popitem(last=False)[0])
    dropped = holdings.keep("training", key, title, memory)
    if dropped:
        st.toast(md_escape(dropped))


def _train_here(corpus: Corpus, request: TrainRequest, slot: st.delta_generator.DeltaGenerator | None) -> Trained:
    title = md_escape(corpus.title)
    bar = slot.progress(0.0, text=f"Training on {title}: counting words…") if slot is not None else None
    last = [0.0]

    def updater(words: Callable[[int, int], str]) -> Callable[[int, int], None]:
        def update(done: int, total: int) -> None:
            now = time.monotonic()
            if bar is None or (now - last[0] < 0.1 and done < total):
                return
            last[0] = now
            bar.progress(min(1.0, done / max(1, total)), text=f"Training on {title}: {words(done, total)}")
        return update

    try:
        status = updater(lambda d, t: progress_status(request.family, d, t))
        return train_corpus([corpus.text], request, progress=status, count_progress=updater(counting_status))
    finally:
        if slot is not None:
            slot.empty()


def prepare(task: Task) -> None:
    """Start processes for tasks like `task` before a page needs them (`WorkerPool.prepare`); returns at once."""
    worker_pool().prepare(("prepare", task.function, task.payload), task)


class PassingError(BPEError):
    """A job's failure that may not come again (a busy server, a stall, a process the system stopped for
    memory): worth another try later, unlike a limit its input hits."""


def run_task(key: tuple, task: Task, slot: st.delta_generator.DeltaGenerator | None = None,
             here: Callable[[], object] | None = None, *, at_once: bool = False) -> object:
    """One task of `run_tasks`: its result, or a one-line BPEError when it fails or hits a limit
    (a PassingError when a later try may not fail)."""
    ((result, error, lasting),) = _run([(key, task, here)], slot, at_once=at_once)
    if error:
        raise (BPEError if lasting else PassingError)(error)
    return result


def run_tasks(work: Sequence[tuple[tuple, Task, Callable[[], object] | None]],
              slot: st.delta_generator.DeltaGenerator | None = None, *,
              at_once: bool = False) -> list[tuple[object, str]]:
    """Run (key, task, here) in the pool, all at once (a lane runs as many as it has workers), and wait for
    them, the first unfinished one's status in `slot` if given: each one's (result, "") or (None, the
    one-line reason it failed). `here` computes the same in this thread, for a payload that cannot
    travel to a worker, and for all of them when `at_once` (work smaller than a worker's start, as
    `small_enough_here` tells). (A rerun that interrupts the wait leaves the jobs alone; nobody waiting
    stops them.)"""
    return [(result, error) for result, error, _ in _run(work, slot, at_once=at_once)]


def _run(work: Sequence[tuple[tuple, Task, Callable[[], object] | None]],
         slot: st.delta_generator.DeltaGenerator | None, *, at_once: bool) -> list[tuple[object, str, bool]]:
    """`run_tasks`, each failure with whether it would come again (`Job.lasting`; a BPEError here: yes)."""
    heres = [here for _, _, here in work]
    if at_once and None not in heres:
        return [(*_here(here), True) for here in heres if here is not None]
    jobs = [worker_pool().submit(key, task) for key, task, _ in work]
    bar = slot.progress(0.0, text=md_escape(jobs[0].status())) if slot is not None and jobs else None
    try:
        while unfinished := [job for job in jobs if not job.finished.is_set()]:
            for job in unfinished[1:]:
                job.wait(0)  # waiting keeps a job alive: one nobody waits for is stopped
            unfinished[0].wait(0.25)
            sessions.still_working()
            if bar is not None:
                bar.progress(unfinished[0].fraction(), text=md_escape(unfinished[0].status()))
    finally:
        if slot is not None:
            slot.empty()
    return [(*_here(here), True) if job.unsendable and here is not None else (None, job.error, job.lasting)
            if job.error else (job.result, "", True) for job, (_, _, here) in zip(jobs, work)]


def _here(compute: Callable[[], object]) -> tuple[object, str]:
    """(result, "") of computing in this thread, or (None, its BPEError's one line)."""
    try:
        return compute(), ""
    except BPEError as exc:
        return None, str(exc)


def _train_in_worker(corpus: Corpus, request: TrainRequest, key: tuple,
                     slot: st.delta_generator.DeltaGenerator | None) -> tuple[Trained, int]:
    """Hand the training to the pool (or follow this session's one already under way) and wait for it."""
    ss = st.session_state
    job: Job | None = ss.get(state.TRAIN_JOB)
    if job is not None and (job.key != key or (job.finished.is_set() and job.error)):
        job.cancel()  # one training at a time per session: the newest request wins
        job = None
    if job is None:
        job = worker_pool().share(key, lambda: training_task([corpus.text], request))
        ss[state.TRAIN_JOB] = job
    title = md_escape(corpus.title)
    bar = slot.progress(0.0, text=f"Training on {title}: {job.status()}") if slot is not None else None
    try:
        # A rerun (the user clicked something) interrupts this loop at a Streamlit call; the job
        # goes on, and the next run follows it again. Nobody following it at all stops it.
        while not job.wait(0.25):
            sessions.still_working()
            if bar is not None:
                bar.progress(job.fraction(), text=f"Training on {title}: {job.status()}")
    finally:
        if slot is not None and job.finished.is_set():
            slot.empty()
    ss[state.TRAIN_JOB] = None
    if job.error:
        if job.lasting:
            ss[state.TRAIN_FAILED] = (key, job.error)
        raise BPEError(job.error)
    assert job.result is not None
    return job.result, _bundle_memory(job.result, job.result_bytes)


def train_cached(
    corpus: Corpus, request: TrainRequest, *, slot: st.delta_generator.DeltaGenerator | None = None
) -> Trained:
    """The trained bundle for (corpus, request), from this session's cache or trained now."""
    check_request(request)
    ss = st.session_state
    cache: OrderedDict = ss[state.TRAIN_CACHE]
    key = (corpus.digest, request.key())
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        holdings.touch("training", key)
        return hit[0]
    failed = ss.get(state.TRAIN_FAILED)
    if failed is not None and failed[0] == key:
        raise BPEError(failed[1])  # the same corpus and settings would fail the same way again
    shared = shared_trainings().get(key)
    if shared is not None:
        trained, memory = shared
    else:
        if trains_in_thread(corpus, request):
            trained = _train_here(corpus, request, slot)
            memory = _bundle_memory(trained)
        else:
            trained, memory = _train_in_worker(corpus, request, key, slot)
        shared_trainings().put(key, trained, memory)
    _cache_put(cache, key, trained, memory, f"{corpus.title}: {request.describe()}")
    return trained


def ensure_trained(slot: st.delta_generator.DeltaGenerator) -> Trained | None:
    """Train the current corpus with the current settings if needed; keep the last good result.

    A problem (bad settings, empty corpus) is stored in TRAIN_ERROR for the pages to show, and
    the previous tokenizer stays on screen.
    """
    ss = st.session_state
    request, problem = state.request_or_error(ss)
    try:
        if request is None:
            raise BPEError(problem)
        corpus = get_corpus(ss[state.CORPUS])
        wanted = (corpus.key, request.key())
        if ss[state.TRAINED_FOR] != wanted or ss[state.TRAINED] is None:
            trained = train_cached(corpus, request, slot=slot)
            previous = ss[state.TRAINED_FOR]
            ss[state.TRAINED] = trained
            ss[state.TRAINED_FOR] = wanted
            if previous is not None and previous[0] != corpus.key:
                ss[state.STEP] = 1  # a new corpus starts at its first merge
            if previous is None:  # the session's first training: a link's step past its end is said
                link.note_step_past_end(ss, st.query_params, trained.steps)
            ss[state.STEP] = max(0, min(ss[state.STEP], trained.steps))
        ss[state.TRAIN_ERROR] = ""
    except BPEError as exc:
        ss[state.TRAIN_ERROR] = str(exc)
    except MemoryError:
        ss[state.TRAIN_ERROR] = "the server ran out of memory; try a smaller corpus or fewer merges"
    return ss[state.TRAINED]


def corpus_title(key: str) -> str:
    try:
        return get_corpus(key).title
    except BPEError:
        return key
