"""What the explorer shows of each tokenizer family, one folder a family, and the lookup that finds them.

`explorer/families/<name>/` holds everything the pages show of the family named `<name>` in
`bpe_core.families.registry`, in modules of the same names and functions in every folder:

* `family.py` (every folder): its `ExplorerFamily` (`FAMILY`): the training options it takes, its
  texts, how a model of it is drawn; what several pages and the data layer ask;
* `unseen.py` (every folder): how it splits the words of the Unseen words page (`how`, `words`)
  and, for a family without a merge view, each word's card in its own terms (`COUNT`, `cards`);
* `vocabulary.py` (a family without a merge view): what its columns mean and what is known of a
  token on the Vocabulary page (`columns_note`, `details`);
* `training.py`, `player.py`, `families.py` (every family this app trains): its training for the
  pages (`train`: a `training.Trained` bundle with what the Watch page plays), the Watch page, and
  its part of the Families page (`train_on`, `NOTE`, `SEGMENTATIONS`).

tests/explorer/test_family_folders.py checks that every family of the registry has these.

The pages and the data layer ask `explorer_family(name)` and `part(name, module)` and never name
a family themselves. This module is only the lookup: it imports no folder until one is asked for,
so every layer may use it.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from bpe_core import BPEError
from bpe_core.families.registry import families, family

ADDED_CUT = "cut out of the text whole, before the model"


def _nothing(_: Any) -> None:
    return None


def _no_added(_: Any) -> Sequence[Any]:
    return ()


def _no_notes(model: Any, trained: Any, word: str) -> Sequence[tuple[str, str]]:
    return ()


@dataclass(frozen=True)
class Mark:
    """Tokens a family marks wherever they are drawn (underlined, ringed) and can be filtered by."""

    name: str  # "superword"
    plural: str  # "superwords"
    note: str  # what makes one, as a phrase: "one token across a space"
    test: Callable[[str], bool]


@dataclass(frozen=True)
class ExplorerFamily:
    """What the explorer shows of one family beyond its registry entry (title, units, lesson row).

    Training: `options` are the training options it takes, by `Settings` field name, plus "target"
    (it can train to a number of merges as well as to a vocabulary size) and "transition"; every
    other option of the sidebar is off for it, and `off_reason` says why in one clause. `fixed`:
    settings it always trains with. `describe(request)` is a request in words, `made(trained)` what
    a training made, in one line of plain text.

    A model of it: `merge_view(model)` is the engine's merge-list `Tokenizer` over its merges
    (merge trees, ranks, life stories), None for a model without one; `birth(model)` maps a token
    to the 0-based step that made it when that step is no merge rank (None: its merges' ranks);
    `step_scores(model)` the score of each training step, when its steps are scored; `phase_one(model)`
    how many of its merges are phase one (within words; the rest, phase two, may cross spaces), None
    for a model of one phase; `continuation(model)` is the prefix of a piece that continues a word;
    `mark` the tokens it marks; `scores(model)` each id's log-probability; `vocab_filter` the filter
    its vocabulary list offers (`display.vocabulary.FLAGS`); `title(model)` and `kind(model)` name a
    model whose kind varies (a tokenizer file's); `draws_bytes`: its tokens are drawn from the bytes
    they stand for (`TokenizerModel.token_bytes`), not from their spelling. `word_notes(model, trained,
    word)`: what the Unseen words page says of one word beyond its card, as `display.unseen.Card.notes`
    ((kind, Markdown)); `trained` is the sidebar's `Trained` bundle when the model is its model (its
    corpus's numbers can be told), None for a file or a built-in.
    """

    name: str
    describe: Callable[[Any], str] | None = None  # None for a family that is never trained here
    made: Callable[[Any], str] | None = None
    options: frozenset[str] = frozenset()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    off_reason: str = ""
    option_help: Mapping[str, str] = field(default_factory=dict)  # help of options only it takes
    slow_hint: str = "try a smaller vocabulary size or a smaller corpus"  # a training stopped for its time
    ours_holds: str = ""  # what our model.json keeps of it (Import and export)
    gpt2_note: str = ""  # why GPT-2's vocab.json + merges.txt cannot hold it ("" when they can)
    merge_view: Callable[[Any], Any] = _nothing
    birth: Callable[[Any], dict[str, int]] | None = None
    step_scores: Callable[[Any], Sequence[float]] | None = None
    phase_one: Callable[[Any], int | None] = _nothing
    continuation: Callable[[Any], str | None] = _nothing
    mark: Mark | None = None
    scores: Callable[[Any], Sequence[float] | None] = _nothing
    vocab_filter: str | None = None
    special: Callable[[Any], frozenset[str]] = lambda model: frozenset()  # its special tokens
    added_tokens: Callable[[Any], Sequence[Any]] = _no_added  # a file's added tokens (`AddedToken`)
    added_rule: Callable[[Any], str] = lambda model: ADDED_CUT  # what happens to them in a text
    title: Callable[[Any], str] | None = None  # None: the registry's title
    kind: Callable[[Any], str] | None = None  # the model as files name it; None: the title
    draws_bytes: bool = False
    word_notes: Callable[[Any, Any, str], Sequence[tuple[str, str]]] = _no_notes


def part(family: str, name: str) -> ModuleType:
    """The module `name` of a family's folder (`part("unigram", "player")`)."""
    return importlib.import_module(f"{__name__}.{family}.{name}")


@cache
def explorer_family(name: str) -> ExplorerFamily:
    """The `ExplorerFamily` of the family named `name` (a BPEError for a name that is none)."""
    family(name)  # the one-line error for a name that is no family
    found: ExplorerFamily = part(name, "family").FAMILY
    return found


def trainable() -> tuple[str, ...]:
    """The names of the families this app trains, in the registry's order."""
    return tuple(one.name for one in families(trainable=True))


def check_trainable(name: str) -> ExplorerFamily:
    """The `ExplorerFamily` of a family this app trains; a one-line BPEError for any other name."""
    if name not in trainable():
        raise BPEError(f"unknown tokenizer family {name!r}; choose one of {', '.join(trainable())}")
    return explorer_family(name)


def titles(names: Sequence[str], last: str = "and") -> str:
    """Families' titles in a phrase, `last` before the last one.

    >>> titles(["wordpiece", "unigram", "superbpe"]), titles(["bpe", "unigram"], "or")
    ('WordPiece, Unigram and SuperBPE', 'BPE or Unigram')
    """
    shown = [family(name).title for name in names]
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + f" {last} " + shown[-1]


def taking(option: str) -> tuple[str, ...]:
    """The trainable families that take a training option ("transition": the families with phases)."""
    return tuple(name for name in trainable() if option in explorer_family(name).options)
