"""The tokenizer families, each described once: what it is called, its model, how it trains.

`NAMES` is the one list of families, in the order pages and commands show them. Each family's
`Family` lives in its own module, `bpe_core/families/<name>_family.py`, imported on first use,
so a page or a command asks the registry (`family`, `family_of`, `families`) and the model
itself (`bpe_core.tokenizer_model.TokenizerModel`) and never tests a family's name.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..settings import BPEError

if TYPE_CHECKING:
    import argparse

# "parts": a tokenizer read from a file people ship (tokenizer.json, SentencePiece, Tekken, a rank
# file), a pipeline of parts whatever its model; it is loaded, never trained here.
NAMES = ("bpe", "wordpiece", "unigram", "superbpe", "parts")
# The `train` options of word counting (`bpe_core.cli_count.COUNTING_OPTIONS`), for `Family.cli_options`.
COUNTING = frozenset({"text_field", "errors", "scheduler", "workers", "max_distinct", "min_count", "partition_size"})


@dataclass(frozen=True)
class LessonRow:
    """The family's row of the lesson's comparison table."""

    direction: str
    criterion: str
    encoding: str
    segmentations: str


@dataclass(frozen=True)
class Trained:
    """What `train --model NAME` made: the model (saved as our JSON) and the lines that tell the
    user about the run, printed on stderr once it is saved."""

    model: Any
    report: list[str]


@dataclass(frozen=True)
class Family:
    """One family. `name` is how files (our JSON's "model"), links and `--model` name it.

    For pages: `step_unit` names one step of its training as the player and tables count them
    ("merge", "step", "round"), from `first_step`; `progress_unit` what its training progress
    counts; `trace_rows` one JSON-ready row per training step of a model; `from_dict` reads our
    JSON of it and `to_dict` writes it (None: it has no file of ours); `to_hf_dict` a model's
    `tokenizer.json`; `special_tokens` a model's tokens that stand for no text of their own (the
    unknown token aside), which comparisons of vocabularies set apart.

    For the command line (`python -m bpe_core`): `cli_options` the `train` options it takes
    (their argparse dests; `--vocab-size`, `--progress` and the sources every family takes);
    `cli_arguments` adds the `train` options only it has; `cli_help` says how `train --model NAME`
    is sized; `train_cli` trains on the parsed arguments (None: it does not train); `trace_help`
    what `trace` prints for it; `exports` its `export` formats beside "hf" (every model writes its
    `tokenizer.json`), each with a writer that returns the paths it wrote; `hf_notes` where that
    `tokenizer.json` may encode differently from the model. `as_parts` a model as a tokenizer of
    parts (`bpe_core.parts.pipeline.PartsTokenizer`) that encodes as it does, so every model can
    show its pipeline stage by stage (by default: its `tokenizer.json`, read back).

    For the report card: `unreachable` counts a model's tokens that encoding their own text alone
    does not give (`bpe_core.analysis.undertrained`); None where the family has no such check.
    """

    name: str
    title: str
    model_class: type
    summary: str  # one line: how it builds its vocabulary
    trains: bool = True
    step_unit: str = "merge"
    first_step: int = 0
    progress_unit: str = "merges"
    byte_level: bool = False  # its trained tokens are byte symbols (GPT-2's letters)
    lesson: LessonRow | None = None
    cli_options: frozenset[str] = field(default_factory=frozenset)
    from_dict: Callable[[Any], Any] | None = None
    to_dict: Callable[[Any], dict[str, Any]] | None = lambda model: model.to_dict()
    to_hf_dict: Callable[[Any], dict[str, Any]] = lambda model: model.to_hf_dict()
    trace_rows: Callable[[Any], Iterable[Mapping[str, Any]]] = lambda model: ()
    special_tokens: Callable[[Any], Iterable[str]] = lambda model: ()
    cli_arguments: Callable[[argparse.ArgumentParser], None] = lambda command: None
    cli_help: str = ""
    train_cli: Callable[[argparse.Namespace], Trained] | None = None
    trace_help: str = ""
    exports: Mapping[str, Callable[[Any, str], list[str]]] = field(default_factory=dict)
    hf_notes: Callable[[Any], Sequence[str]] = lambda model: ()
    as_parts: Callable[[Any], Any] = lambda model: _parts_of_hf(model)
    unreachable: Callable[[Any], int] | None = None

    def count(self, n: int) -> str:
        """`n` of its steps in words.

        >>> family("unigram").count(1), family("bpe").count(2_000)
        ('1 round', '2,000 merges')
        """
        return f"{n:,} {self.step_unit}{'' if n == 1 else 's'}"

    @property
    def export_formats(self) -> tuple[str, ...]:
        """The `export --format` values it writes: "hf" first, then its own.

        >>> family("bpe").export_formats, family("unigram").export_formats
        (('hf', 'gpt2'), ('hf',))
        """
        return ("hf", *self.exports)


def _parts_of_hf(model: Any) -> Any:
    """A model as the tokenizer of parts its `tokenizer.json` describes."""
    from ..parts.hf_parts import read_hf_tokenizer

    return read_hf_tokenizer(family_of(model).to_hf_dict(model), name=f"its {family_of(model).title} tokenizer.json")


@cache
def family(name: str) -> Family:
    """The family named `name`; a one-line BPEError for a name that is none."""
    if name not in NAMES:
        raise BPEError(f"unknown tokenizer family {name!r}; choose one of {', '.join(NAMES)}")
    return importlib.import_module(f"{__package__}.{name}_family").FAMILY


def families(*, trainable: bool | None = None) -> tuple[Family, ...]:
    """Every family in `NAMES` order; with `trainable`, only those that train here (or not)."""
    found = tuple(family(name) for name in NAMES)
    return found if trainable is None else tuple(f for f in found if f.trains is trainable)


def family_of(model: object) -> Family:
    """The family of a tokenizer object (a SuperBPE model is no BPE `Tokenizer`, so the order of
    the checks does not matter)."""
    for one in families():
        if isinstance(model, one.model_class):
            return one
    raise BPEError(f"not a tokenizer of a known family: {type(model).__name__}")
