"""Cached calls into the engine and the sample corpora, for the pages.

* Sample corpora and lesson results are the same for everyone: `st.cache_resource` (global).
* Corpus statistics are keyed by the corpus digest: `st.cache_data`.
* Trained tokenizers are cached per session, keyed by (corpus digest, settings, target), in a
  small LRU in session state. Not `st.cache_resource`: training draws a progress bar, and
  Streamlit replays whatever a cached function drew on every later cache hit, so the bar would
  come back (or fail to) each time. Each session trains in its own script thread, so training
  never blocks other sessions.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

import streamlit as st

from bpe_core import BPEError, Settings, Tokenizer
from sample_corpora import list_corpora, load_corpus

from . import lessons, state
from .corpus import Corpus, CorpusStats, corpus_stats, sample_corpus
from .training import Trained, TrainRequest, train_corpus

SESSION_CACHE_ENTRIES = 6


# ---- corpora -------------------------------------------------------------------------------

@st.cache_resource(show_spinner=False)
def samples() -> dict[str, str]:
    """Sample corpus id -> title, in display order."""
    return {c.id: c.title for c in list_corpora()}


@st.cache_resource(show_spinner=False)
def sample_list() -> list:
    """The sample corpora's descriptions (`SampleCorpus`), in display order."""
    return list_corpora()


@st.cache_resource(show_spinner="Loading the sample corpus (built on first use, a few seconds)…")
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
    found = st.session_state.get(state.USER_CORPORA, {}).get(key)
    if found is None:
        raise BPEError("that corpus is no longer in this session; pick another one")
    return found


def _sample(sample_id: str, title: str) -> Corpus:
    try:
        return _sample_cached(sample_id, title)
    except (OSError, RuntimeError, ValueError) as exc:  # a generated sample could not be built
        raise BPEError(f"could not load the sample corpus {title!r}: {exc}") from None


@st.cache_resource(show_spinner=False)
def _sample_cached(sample_id: str, title: str) -> Corpus:
    return sample_corpus(sample_id, title, sample_text(sample_id))


def corpus_options() -> dict[str, str]:
    """Corpus key -> title for the corpus picker: the samples, then this session's own."""
    options = {f"sample:{sid}": title for sid, title in samples().items()}
    for key, corpus in st.session_state.get(state.USER_CORPORA, {}).items():
        options[key] = corpus.title
    return options


def add_user_corpus(corpus: Corpus) -> None:
    """Keep an uploaded or pasted corpus in this session and make it the one in use."""
    st.session_state[state.USER_CORPORA][corpus.key] = corpus
    st.session_state[state.CORPUS] = corpus.key
    st.session_state[state.W_CORPUS] = corpus.key
    st.session_state[state.STEP] = 1
    st.session_state[state.PLAYING] = False


@st.cache_data(show_spinner=False, max_entries=32)
def stats(digest: str, _text: str) -> CorpusStats:
    """Statistics of a corpus; the digest is the cache key (hashing 50 MB on every call is slow)."""
    return corpus_stats(_text)


# ---- training ------------------------------------------------------------------------------

def _progress_bar(slot: st.delta_generator.DeltaGenerator, title: str) -> Callable[[int, int], None]:
    bar = slot.progress(0.0, text=f"Training on {title}: counting words…")
    last = [0.0]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1 and done < total:
            return
        last[0] = now
        bar.progress(min(1.0, done / max(1, total)), text=f"Training on {title}: merge {done:,} of {total:,}")

    return update


def train_cached(corpus: Corpus, request: TrainRequest, *, slot: st.delta_generator.DeltaGenerator | None = None) -> Trained:
    """The trained bundle for (corpus, request), from this session's cache or trained now."""
    cache: OrderedDict = st.session_state.setdefault(state.TRAIN_CACHE, OrderedDict())
    key = (corpus.digest, request.key())
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        return hit
    progress = _progress_bar(slot, corpus.title) if slot is not None else None
    try:
        trained = train_corpus([corpus.text], request, progress=progress)
    finally:
        if slot is not None:
            slot.empty()
    cache[key] = trained
    while len(cache) > SESSION_CACHE_ENTRIES:
        cache.popitem(last=False)
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
            ss[state.STEP] = max(0, min(ss[state.STEP], trained.steps))
        ss[state.TRAIN_ERROR] = ""
    except BPEError as exc:
        ss[state.TRAIN_ERROR] = str(exc)
    except MemoryError:
        ss[state.TRAIN_ERROR] = "the machine ran out of memory; try a smaller corpus or fewer merges"
    return ss[state.TRAINED]


def corpus_title(key: str) -> str:
    try:
        return get_corpus(key).title
    except BPEError:
        return key


# ---- lessons (the same for everyone) ---------------------------------------------------------

@st.cache_resource(show_spinner=False)
def lesson_trained(lesson_key: str) -> Trained:
    lesson = lessons.LESSONS[lesson_key]
    return train_corpus([sample_text(lesson.corpus_id)], lesson.request)


@st.cache_resource(show_spinner=False)
def try_it_yourself() -> lessons.TryIt:
    return lessons.try_it_yourself(sample_text("seed000"))


@st.cache_resource(show_spinner=False)
def seed000_variant(eow: str) -> Tokenizer:
    """Seed 000's 10 merges trained with another end-of-word style."""
    trained = train_corpus([sample_text("seed000")], TrainRequest(Settings(eow=eow), "merges", 10))
    return trained.tokenizer


MISMATCH_BYTES = 400_000


@st.cache_resource(show_spinner="Training on English prose and on Python code (a few seconds)…")
def mismatch() -> lessons.Mismatch:
    """Tokens per word when the tokenizer was trained on other text: English vs Python."""
    english = sample_text("english")
    python = sample_text("python")
    # Held-out test texts: the end of each corpus, never seen in training.
    train_texts = {"English prose": english[:MISMATCH_BYTES], "Python code": python[:MISMATCH_BYTES]}
    test_texts = {"English prose": english[-100_000:], "Python code": python[-100_000:]}
    return lessons.mismatch(train_texts, test_texts, merges=1000)
