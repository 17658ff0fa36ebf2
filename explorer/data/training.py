"""Training a corpus into everything the pages draw from. Pure: no Streamlit here.

A `TrainRequest` says what to train; a `Trained` bundle holds the trained model and what the
animation needs at every step: the compression curve and the corpus's most frequent words (as the
tokenizer splits them). Each family trains in its own folder (`explorer/families/<name>/training.py`,
found by `train_corpus`); what a request of it may ask, and how it is said, comes from its
`explorer.families.ExplorerFamily`.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bpe_core import BPEError, Settings, Tokenizer, check_target, first_merges
from bpe_core.analysis import Curve, collapse_step
from bpe_core.families.registry import family
from bpe_core.pretokenize import count_words
from bpe_core.sources import cut_pieces
from explorer.families import check_trainable, explorer_family, part, taking, titles

Progress = Callable[[int, int], None]  # (done, total): merges made, or bytes of text counted

TARGETS = ("merges", "vocab")
DEFAULT_FAMILY = "bpe"  # the family of a request that names none (every request before there were families)
SETTING_OPTIONS = ("mode", "eow", "pretokenizer", "tie_break", "lowercase", "normalization", "min_frequency")
TOP_WORDS = 40  # words kept for the animation's word panel
LONG_WORD = 300  # characters of a very long word (a whole text without pre-tokenizer) shown
COUNT_PIECE_CHARS = 1_000_000  # characters counted between two reports of counting progress


@dataclass(frozen=True)
class TrainRequest:
    """What to train: a family (`explorer.families.trainable`), its settings, and a target: a number
    of merges or a vocabulary size (the families without the "target" option train to a vocabulary size)."""

    settings: Settings = field(default_factory=Settings)
    target: str = "merges"
    amount: int = 10
    family: str = DEFAULT_FAMILY
    transition: int | None = None  # the families with phases: the vocabulary size where phase two starts (None: 90%)

    def __post_init__(self) -> None:
        options = check_trainable(self.family).options
        if self.target not in TARGETS:
            raise BPEError(f"unknown target {self.target!r}; choose merges or vocab")
        if "target" not in options and self.target != "vocab":
            raise BPEError(f"{self.family} trains to a vocabulary size, not to a number of merges")
        if self.transition is not None and "transition" not in options:
            raise BPEError(f"only {titles(taking('transition'))} has a transition")
        if self.transition is not None and not 256 <= self.transition <= self.amount:
            raise BPEError(f"the transition must be from 256 (the bytes) to the vocabulary size "
                           f"({self.amount:,}), not {self.transition:,}")
        if self.target == "merges":
            check_target(merges=self.amount)
        else:
            check_target(vocab_size=self.amount)

    def key(self) -> tuple:
        return (tuple(sorted(self.settings.to_dict().items())), self.target, self.amount, self.family,
                self.transition)

    def describe(self) -> str:
        """The request in words, as its family says it ("word mode, end-of-word separate, ...")."""
        describe = explorer_family(self.family).describe
        return describe(self) if describe is not None else family(self.family).title


def request_for(family_name: str, values: Mapping[str, Any], *, limit: int) -> TrainRequest:
    """The request `values` ask of a family, keeping only the options it takes (the sidebar turns the
    others off): settings by `Settings` field name, "target" ("merges" or "vocab") with "merges" or
    "vocab" its amount, "transition" (0 or None: the engine's 90%). `limit`: the most this app trains
    for one visitor. A one-line BPEError for what cannot be trained.

    >>> request_for("bpe", {"mode": "text", "target": "merges", "merges": 20}, limit=100).describe()
    'text mode, pre-tokenizer none, tie-break count-pair, 20 merges'
    """
    shows = check_trainable(family_name)
    chosen = {name: values[name] for name in SETTING_OPTIONS if name in shows.options and name in values}
    settings = Settings(**{**shows.fixed, **chosen})
    target = values.get("target", "merges") if "target" in shows.options else "vocab"
    amount = int(values[target])
    if amount > limit:
        asked = f"{amount:,} merges" if target == "merges" else f"a vocabulary of {amount:,}"
        raise BPEError(f"{asked} is more than this app trains for one visitor ({limit:,} at most); "
                       "the command line (python -m bpe_core train) has no such limit")
    transition = (int(values.get("transition") or 0) or None) if "transition" in shows.options else None
    return TrainRequest(settings, target, amount, family=family_name, transition=transition)


def family_request(family_name: str, vocab_size: int, *, limit: int, **options: Any) -> TrainRequest:
    """A request for a vocabulary size (`request_for` with `options` by their names)."""
    return request_for(family_name, {**options, "target": "vocab", "vocab": vocab_size}, limit=limit)


def progress_status(family_name: str, done: int, total: int) -> str:
    """Training progress in words, in true numbers of what the family's progress counts: merges,
    tokens added (each step adds one), pieces pruned (each round prunes some of the seed's pieces).

    >>> progress_status("bpe", 5, 10)
    'merge 5 of 10'
    >>> from explorer.families import trainable
    >>> [progress_status(name, 300, 1200) for name in trainable()]  # doctest: +ELLIPSIS
    ['merge 300 of 1,200', '300 of 1,200 tokens added', '300 of 1,200 pieces pruned', ...]
    """
    entry = family(family_name)
    if entry.progress_unit == entry.step_unit + "s":  # it counts its steps: "merge 5 of 10"
        return f"{entry.step_unit} {done:,} of {total:,}"
    return f"{done:,} of {total:,} {entry.progress_unit}"


@dataclass
class Trained:
    """A trained tokenizer with what the pages show about it.

    `model` is the trained model of the request's family (a `bpe_core.tokenizer_model.TokenizerModel`),
    None where `tokenizer` is the trained model itself (a BPE merge list); `tokenizer` is the engine's
    merge list over the model's merges (merge trees, ranks, vocabulary), None for a model without
    merges. `steps` counts the merges of that list, else the steps of the model's trace (training
    steps, pruning rounds); `curve` is the corpus's tokens after each step as the family's training
    tells them; `collapse_step` None where it is not known. `story` holds what the Watch page plays
    (the family's `training` module says what; None for a merge list, whose record is its own).
    """

    tokenizer: Tokenizer | None
    request: TrainRequest
    top_words: list[tuple[str, int]]  # most frequent words (normalized text), most frequent first
    curve: Curve
    collapse_step: int | None  # first step after which every corpus word is one token
    alphabet: int  # base symbols
    model: Any = None  # the family's model, None when `tokenizer` is the model
    story: Any = None  # the family's animation data (see the docstring)

    @property
    def family(self) -> str:
        return self.request.family

    @property
    def tokenizer_model(self) -> Any:
        """The trained model of any family: `model`, or the merge list that is the model."""
        return self.model if self.model is not None else self.tokenizer

    @property
    def steps(self) -> int:
        return len(self.tokenizer.merges) if self.tokenizer is not None else len(self.model.trace)

    @property
    def byte_level(self) -> bool:
        return self.tokenizer is not None and self.tokenizer.settings.mode == "bytes"

    @property
    def stop_reason(self) -> str:
        if self.story is not None:
            return getattr(self.story, "stop_reason", "")
        training = self.tokenizer.training if self.tokenizer is not None else None
        return training.stop_reason if training else ""

    def first_merges(self, merges: int) -> Trained:
        """This bundle as training with only its first `merges` merges would make it, at once.

        The Compare page's first visit shows the sidebar's tokenizer beside the same one with half
        its merges: cut here in no time, where training again on a large corpus takes seconds.
        """
        if not isinstance(self.tokenizer_model, Tokenizer):
            raise BPEError("only a BPE merge list can be cut to its first merges")
        tokenizer = first_merges(self.tokenizer, merges)
        return replace(self, tokenizer=tokenizer, request=TrainRequest(tokenizer.settings, "merges", merges),
                       curve=self.curve.first(len(tokenizer.merges)), collapse_step=collapse_step(tokenizer.training))


def counting_status(done: int, total: int) -> str:
    """Counting progress in words, in true numbers of UTF-8 bytes.

    >>> counting_status(12_345_678, 48_000_000)
    'counting words: 12.3 of 48.0 MB'
    >>> counting_status(2_500, 90_000)
    'counting words: 2.5 of 90.0 KB'
    """
    unit, scale = ("MB", 1e6) if total >= 1_000_000 else ("KB", 1e3)
    return f"counting words: {done / scale:,.1f} of {total / scale:,.1f} {unit}"


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def count_with_progress(texts: list[str], settings: Settings, progress: Progress) -> Counter[str]:
    """`count_words(texts, settings)`, counted a piece at a time, reporting (bytes counted, bytes in all).

    The pieces are cut where the settings' splitting always cuts (`sources.cut_pieces`), so the
    counts, their order included, are exactly those of counting each text whole. The bytes are
    the texts' UTF-8 bytes; the last report is (total, total).
    """
    total = sum(map(_utf8_len, texts))
    done = 0
    progress(0, total)

    def pieces() -> Iterator[str]:
        nonlocal done
        for text in texts:
            for piece in cut_pieces(text, settings, piece_chars=COUNT_PIECE_CHARS):
                yield piece
                done += _utf8_len(piece)  # runs once count_words has counted the piece
                progress(done, total)

    counts = count_words(pieces(), settings)
    if done < total:  # texts with nothing to cut (empty ones): report the end all the same
        progress(total, total)
    return counts


def count_per_text(texts: Sequence[str], count: Callable[[list[str]], Counter], progress: Progress | None) -> Counter:
    """The counts of all texts, one text at a time, reporting (bytes counted, bytes in all)."""
    total = sum(map(_utf8_len, texts))
    done = 0
    if progress is not None:
        progress(0, total)
    counts: Counter = Counter()
    for text in texts:
        counts.update(count([text]))  # Counter.update keeps first appearance order
        done += _utf8_len(text)
        if progress is not None:
            progress(done, total)
    return counts


def train_corpus(
    texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
    count_progress: Progress | None = None,
) -> Trained:
    """Count words, train, and gather what the pages show, as the request's family trains
    (`explorer/families/<name>/training.py`). Raises BPEError with a clear message.

    `progress(done, in all)` follows the training in the family's own numbers (`progress_status`);
    `count_progress(bytes counted, bytes in all)` the counting of the words before it (a large
    upload takes seconds).
    """
    if not any(text.strip() for text in texts):
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    trainer = part(request.family, "training")
    return trainer.train(texts, request, progress=progress, count_progress=count_progress)


def train_task(texts: list[str], request: TrainRequest, report: Any) -> Trained:
    """`train_corpus` in a worker process (`explorer.data.tasks.training_task`), its progress sent as it goes."""
    report.stage("counting")
    return train_corpus(texts, request, progress=report.sender("progress"), count_progress=report.sender("counted"))
