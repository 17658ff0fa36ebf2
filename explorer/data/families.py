"""The Families page's data: every family this app trains, trained on one corpus. Pure: no Streamlit.

All of them train on the same text (the corpus's first `TRAIN_CHARS` characters) to the same
vocabulary size, each with its own engine in `bpe_core`, as its folder's `families.train` says
(`explorer/families/<name>/families.py`: the settings it trains with here). Token counts are
measured on held-out text (the `HELD_OUT_CHARS` characters after the training text) or, for a
corpus no longer than the training text, on the training text itself.
"""
from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bpe_core import BPEError
from bpe_core.families.registry import family
from explorer.data.any_model import AnyModel
from explorer.data.tasks import Task, training_lane
from explorer.families import part, titles, trainable

FAMILIES = trainable()  # names, in the registry's order
TRAIN_CHARS = 250_000  # characters of the corpus every family trains on (its start)
HELD_OUT_CHARS = 50_000  # characters after them on which tokens are counted
MIN_VOCAB, MAX_VOCAB = 100, 8_000  # what the page lets one ask for
LONG_WORD = 100  # longer runs of non-whitespace are left out of training (a longest match's max_input_chars_per_word)
_LONG_WORD = re.compile(r"\S{%d,}" % (LONG_WORD + 1))
CACHE_ENTRIES = 4  # trained sets the server keeps (every session shares them)


@dataclass(frozen=True)
class FamilyRun:
    """One family trained: its model (None if it could not train), the seconds it took, the numbers."""

    family: str  # its name
    model: Any
    seconds: float
    error: str = ""
    vocab_size: int = 0  # tokens in the vocabulary reached (special tokens included)
    tokens: int = 0  # tokens of the measured text
    note: str = ""  # why the vocabulary reached is not the size asked for


@dataclass(frozen=True)
class Families:
    """Every family trained on one corpus with one vocabulary size."""

    runs: tuple[FamilyRun, ...]
    vocab_size: int
    transition: int
    corpus_chars: int
    train_chars: int
    measured_on: str  # "held-out" or "training"
    measured_chars: int
    measured_words: int  # whitespace-separated words of the measured text
    long_words: int = 0  # words longer than LONG_WORD characters left out of the training text

    def run(self, name: str) -> FamilyRun:
        """The run of the family named `name`."""
        return {r.family: r for r in self.runs}[name]

    def tokens_per_word(self, run: FamilyRun) -> float | None:
        return run.tokens / self.measured_words if run.model is not None and self.measured_words else None


def default_vocab_size(chars: int) -> int:
    """A vocabulary size that shows each family at work: above the 256 bytes, larger for larger corpora.

    At 80% the transition is then above the bytes, so a phase one learns merges.

    >>> default_vocab_size(300), default_vocab_size(10_000), default_vocab_size(5_000_000)
    (400, 500, 2000)
    """
    if chars < 5_000:
        return 400
    if chars < 100_000:
        return 500
    return 2_000


def transition_size(vocab_size: int, percent: int) -> int:
    """The vocabulary size where phase two starts: `percent` of the vocabulary, at least the 256 bytes.

    >>> transition_size(2000, 80), transition_size(300, 50)
    (1600, 256)
    """
    return max(256, min(vocab_size, round(vocab_size * percent / 100)))


def drop_long_words(text: str) -> tuple[str, int]:
    """The text with every run of more than `LONG_WORD` non-whitespace characters made a space, and their number.

    Encoding by longest match makes such a word its unknown token anyway, and training by pair
    scores takes time that grows with the square of a word's length (a 20,000-letter word: seconds).

    >>> drop_long_words("ok " + "x" * 101 + " fine")
    ('ok   fine', 1)
    """
    return _LONG_WORD.subn(" ", text)


def split_corpus(text: str) -> tuple[str, str, str]:
    """(training text, measured text, "held-out" or "training")."""
    train_text = text[:TRAIN_CHARS]
    held = text[TRAIN_CHARS:TRAIN_CHARS + HELD_OUT_CHARS]
    if held.strip():
        return train_text, held, "held-out"
    return train_text, train_text, "training"


def check_request(text: str, vocab_size: int) -> None:
    """A one-line BPEError for what no family can train."""
    if not text.strip():
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    if not MIN_VOCAB <= vocab_size <= MAX_VOCAB:
        raise BPEError(f"ask for a vocabulary of {MIN_VOCAB:,} to {MAX_VOCAB:,} tokens, not {vocab_size:,}")


def size_note(reached: int, asked: int) -> str:
    """Why a family's vocabulary is not the size asked for, in words ("" when it is).

    >>> size_note(380, 100)
    'more than asked: its base symbols alone are that many'
    """
    if reached > asked:
        return "more than asked: its base symbols alone are that many"
    if reached < asked:
        return "fewer than asked: this text offers no more tokens to learn"
    return ""


def train_families(text: str, *, vocab_size: int, transition: int,
                   progress: Callable[[int, str], None] | None = None, names: Sequence[str] = FAMILIES) -> Families:
    """Train every family (or those `names`) on the corpus's start; `progress(index, family name)` before each.

    A family that cannot train with these settings keeps its message in `error`; the others go on.
    """
    check_request(text, vocab_size)
    train_text, measured, measured_on = split_corpus(text)
    train_text, long_words = drop_long_words(train_text)
    if not train_text.strip():
        raise BPEError(f"every word of the training text is longer than {LONG_WORD} characters: there is nothing "
                       "to train on")
    runs = []
    for index, name in enumerate(names):
        if progress is not None:
            progress(index, name)
        start = time.perf_counter()
        try:
            model = part(name, "families").train_on(train_text, vocab_size=vocab_size, transition=transition)
        except BPEError as exc:
            runs.append(FamilyRun(name, None, time.perf_counter() - start, error=str(exc)))
            continue
        seconds = time.perf_counter() - start
        runs.append(FamilyRun(name, model, seconds, vocab_size=len(model.vocab),
                              tokens=len(model.encode_tokens(measured)),
                              note=size_note(len(model.vocab), vocab_size)))
    return Families(tuple(runs), vocab_size, transition, len(text), len(train_text), measured_on,
                    len(measured), len(measured.split()), long_words)


def merged(parts: Sequence[Families]) -> Families:
    """The families trained apart (one `families_task` each) as one set, in the registry's order."""
    runs = {run.family: run for one in parts for run in one.runs}
    return replace(parts[0], runs=tuple(runs[name] for name in FAMILIES if name in runs))


def train_task(texts: list[str], job: tuple[int, int, int, tuple[str, ...]], report: Any) -> Families:
    """`train_families` in a worker process (`families_task`) on the start of a corpus: `job` is
    (vocabulary size, transition, the whole corpus's length in characters, the families to train)."""
    send = report.sender("progress")
    vocab_size, transition, corpus_chars, names = job
    found = train_families(texts[0], vocab_size=vocab_size, transition=transition, names=names,
                           progress=lambda index, name: send(index, len(names)))
    return replace(found, corpus_chars=corpus_chars)


def families_task(text: str, *, vocab_size: int, transition: int, where: str,
                  names: Sequence[str] = FAMILIES) -> Task:
    """Training the families `names` as a worker's task, in the lane of a training of that size
    (`training_lane`): a page that trains a few seconds' worth never waits behind two big trainings.
    The page gives each family a task of its own, so that two train at once (`merged` joins them)."""
    def status(done: int, total: int) -> str:
        title = family(names[min(done, total - 1)]).title
        return f"training {title}" + (f" ({done + 1} of {total})" if total > 1 else "") + f" on {where}"

    start = text[:TRAIN_CHARS + HELD_OUT_CHARS]  # all that is trained on and measured
    return Task("explorer.data.families:train_task", (vocab_size, transition, len(text), tuple(names)), [start],
                lane=training_lane(min(len(text), TRAIN_CHARS), vocab_size), noun="training",
                title=f"training {titles(names)}", what=f"training {titles(names)}",
                hint="try a smaller vocabulary size or a smaller corpus", progress_text=status)


class FamiliesCache:
    """The last `entries` trained sets, keyed by (corpus digest, vocabulary size, transition); locked."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self.entries = entries
        self._items: OrderedDict[tuple, Families] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Families | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple, value: Families) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)


# ---- vocabulary overlap --------------------------------------------------------------------

def surface(model: AnyModel, token: str) -> bytes:
    """The bytes a token stands for (`token_bytes`), the space of a word's start dropped unless it
    is the whole token: "Ġlow", "##low" and "▁low" are all b"low".

    >>> from bpe_core import Settings, train
    >>> byte_level = AnyModel.of(train(["low"], Settings(mode="bytes"), merges=0))
    >>> surface(byte_level, "Ġlow"), surface(byte_level, "Ġ")
    (b'low', b' ')
    """
    data = model.token_bytes(token)
    return data[1:] if data.startswith(b" ") and len(data) > 1 else data


def surfaces(model: AnyModel) -> frozenset[bytes]:
    """The distinct surfaces of a model's vocabulary, its unknown and special tokens left out."""
    unk = model.unk_token
    return frozenset(surface(model, t) for t in model.vocab if t != unk and not model.is_special(t))


@dataclass(frozen=True)
class Overlap:
    first: str
    second: str
    shared: int
    only_first: int
    only_second: int

    @property
    def jaccard(self) -> float:
        union = self.shared + self.only_first + self.only_second
        return self.shared / union if union else 0.0


def overlaps(families: Families) -> list[Overlap]:
    """Every pair of trained families (in `FAMILIES` order) compared by surfaces."""
    sets = {r.family: surfaces(AnyModel.of(r.model)) for r in families.runs if r.model is not None}
    names = [f for f in FAMILIES if f in sets]
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = len(sets[a] & sets[b])
            out.append(Overlap(a, b, shared, len(sets[a]) - shared, len(sets[b]) - shared))
    return out
