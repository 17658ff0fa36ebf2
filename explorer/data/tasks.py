"""What the worker processes run (`explorer/data/worker.py`): each kind of job as a `Task`. Pure.

A task names a function by "module:attribute"; the worker process imports it and calls
`function(texts, payload, report)` (`worker_child.Report`: its stage and progress). A task also
says how the page speaks of it: its noun, its status line, and its message at each limit.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.data.training import DEFAULT_FAMILY, TrainRequest, progress_status
from explorer.families import explorer_family

LONG, SHORT = "long", "short"  # the lanes
SHORT_TRAINING_WORK = 1_000_000_000  # characters x merges up to which a training takes the short lane
LONG_TEXT_BYTES = 5_000_000  # a computation over this much text (an audit, a report card) takes the long lane
TOKENIZE_HERE_BYTES = 100_000  # Tokenize encodes a text below this size in the page's thread, a longer one in workers
# A corpus below this many characters has its statistics counted in the page's thread (about 0.15 s at the
# limit); a longer one in a worker (50 MB: 1.6 s that would hold the server's interpreter from every session).
STATS_HERE_CHARS = 5_000_000
# A report card over a text below this size is graded in the page's thread (about 0.2 s a tokenizer at the
# limit, against a worker's start and model load of 0.5-2 s), one over a longer text in a worker.
GRADE_HERE_BYTES = 100_000


def _gib(n: int) -> str:
    return f"{n / 1024**3:.1f} GB" if n >= 1024**3 else f"{n / 1024**2:,.0f} MB"


def time_message(seconds: float, family: str = DEFAULT_FAMILY) -> str:
    """A training stopped for its time, with what to try for this family."""
    return (f"the training took longer than {seconds:,.0f} s, the limit for one training here, and was stopped; "
            f"{explorer_family(family).slow_hint}")


def memory_message(limit: int) -> str:
    return (
        f"this corpus with these settings needs more than {_gib(limit)} of memory, the limit for one training "
        "here, so the training was stopped; try fewer merges, a pre-tokenizer or a smaller corpus"
    )


@dataclass(frozen=True)
class Task:
    """Work for a worker: `function(texts, payload, report)`, named "module:attribute" (the process
    imports it), and how the page speaks of it. Texts go a megabyte at a time; payload and result are pickled."""

    function: str
    payload: object = None
    texts: Sequence[str] = ()
    lane: str = LONG
    noun: str = "job"  # "training", "reading": waiting for another <noun> to finish
    title: str = "working"  # what the status line says while it runs: "reading tokenizer.json"
    what: str = "the job"  # the subject of its messages: "reading tokenizer.json took longer than…"
    hint: str = ""  # what to try when it hits a limit
    # A limit's message; None: "<what> took longer than 60 s, the limit for one <noun> here…"
    on_time: Callable[[float], str] | None = None
    on_memory: Callable[[int], str] | None = None
    progress_text: Callable[[int, int], str] | None = None  # the status line from ("progress", done, total)
    keep: bool = False  # its process may serve the next such task of its lane (explorer/data/kept_workers.py)

    def time_text(self, seconds: float) -> str:
        if self.on_time is not None:
            return self.on_time(seconds)
        return with_hint(f"{self.what} took longer than {seconds:,.0f} s, the limit for one {self.noun} here, "
                         "and was stopped", self.hint)

    def memory_text(self, limit: int) -> str:
        if self.on_memory is not None:
            return self.on_memory(limit)
        return with_hint(f"{self.what} needed more than {_gib(limit)} of memory, the limit for one {self.noun} "
                         "here, and was stopped", self.hint)


def with_hint(sentence: str, hint: str) -> str:
    return f"{sentence}; {hint}" if hint else sentence


def training_task(texts: Sequence[str], request: TrainRequest) -> Task:
    """A training as a task: the long lane unless it is small (characters x merges)."""
    return Task(
        "explorer.data.training:train_task", request, texts,
        lane=training_lane(sum(map(len, texts)), request.amount), noun="training", what="the training",
        hint="try fewer merges, a pre-tokenizer or a smaller corpus",
        on_time=lambda seconds: time_message(seconds, request.family), on_memory=memory_message,
        progress_text=lambda done, total: progress_status(request.family, done, total),
    )




# ---- a tokenizer sent to a worker ----------------------------------------------------------------

def model_ref(model: object, builtin: str | None = None) -> tuple[str, object]:
    """How a task names its tokenizer: a built-in by its name (the worker loads it from the disk
    cache, never pickled), any other model as itself (pickled)."""
    return ("builtin", builtin) if builtin is not None else ("model", model)


def resolve_model(ref: tuple[str, object]) -> object:
    """The tokenizer a `model_ref` names, in the worker."""
    kind, value = ref
    if kind == "builtin":
        from bpe_core.builtin import load_builtin

        return load_builtin(str(value))
    return value


def training_lane(characters: int, amount: int) -> str:
    """The lane of a training of `characters` to `amount` merges or tokens: the short one up to
    SHORT_TRAINING_WORK (a lesson, a paste, the Families page's 250,000 characters to a few thousand)."""
    return SHORT if characters * max(1, amount) <= SHORT_TRAINING_WORK else LONG


def heavy_lane(nbytes: int) -> str:
    """The lane of a computation over `nbytes` of text: the long lane from LONG_TEXT_BYTES up."""
    return LONG if nbytes >= LONG_TEXT_BYTES else SHORT


def tokenize_task(ref: tuple[str, object], text: str, label: str) -> Task:
    """Tokenize's encoding of a long text (`explorer.display.tokenize.tokenized`) as a worker's task: the
    short lane (the page caps its text at a megabyte), the limits of every job, in a process kept for the
    next one (it holds its built-ins loaded and its words encoded)."""
    return Task("explorer.display.tokenize:tokenized_in_worker", ref, [text], lane=SHORT, noun="tokenization",
                title=f"tokenizing with {label}", what=f"tokenizing with {label}", hint="try a shorter text",
                keep=True)


def tokenize_warm_up_task(refs: Sequence[tuple[str, object]]) -> Task:
    """What a Tokenize visit starts before any long text comes: processes for `tokenize_task`, with the built-ins
    `refs` names loaded and drawn once (`explorer.display.tokenize.warm_up_in_worker`), kept for the text."""
    return Task("explorer.display.tokenize:warm_up_in_worker", tuple(refs), lane=SHORT, noun="preparation",
                title="preparing the tokenizers", what="preparing the tokenizers", keep=True)


def corpus_stats_task(text: str) -> Task:
    """A corpus's statistics (`explorer.data.corpus.corpus_stats`) as a worker's task: the short lane (a few
    seconds at the upload limit), so that it never waits behind the long trainings."""
    return Task("explorer.data.tasks:corpus_stats_in_worker", None, [text], lane=SHORT, noun="count",
                title="counting the corpus's words", what="counting the corpus's words",
                hint="try a smaller corpus")


def corpus_stats_in_worker(texts: list[str], payload: object, report: object) -> object:
    from explorer.data.corpus import corpus_stats

    return corpus_stats(texts[0])


def report_card_task(ref: tuple[str, object], text: str, *, parallel: object, alpha: float, min_made: int,
                     share: float, label: str, checked: object = None) -> Task:
    """A report card (`bpe_core.report.report_card`) as a worker's task (`checked`: its vocabulary checks,
    when already known)."""
    nbytes = len(text.encode("utf-8", errors="surrogatepass"))
    payload = (ref, parallel, alpha, min_made, share, checked)
    return Task("explorer.data.tasks:report_card_in_worker", payload, [text],
                lane=heavy_lane(nbytes), noun="report card", title=f"grading {label}", what=f"grading {label}",
                hint="try a smaller reference text")


def report_card_in_worker(texts: list[str], payload: tuple, report: object) -> object:
    from bpe_core.report import report_card

    ref, parallel, alpha, min_made, share, checked = payload
    return report_card(resolve_model(ref), texts[0], parallel=parallel, alpha=alpha, min_made=min_made,
                       residue_share=share, checked=checked)
