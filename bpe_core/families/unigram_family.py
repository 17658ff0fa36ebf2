"""Unigram in the registry: sentencepiece's family, a vocabulary pruned round by round."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .registry import Family, LessonRow, Trained
from .unigram_model import UnigramModel

if TYPE_CHECKING:
    import argparse


def trace_rows(model: UnigramModel) -> Iterator[dict[str, Any]]:
    """Each pruning round as our JSON writes it."""
    for one in model.trace:
        yield one.to_dict()


def _train_cli(args: argparse.Namespace) -> Trained:
    from .unigram_cli import train

    return train(args)


FAMILY = Family(
    name="unigram",
    title="Unigram",
    model_class=UnigramModel,
    summary="starts from many candidate pieces and removes those the corpus's likelihood misses least",
    step_unit="round",
    first_step=1,
    progress_unit="pieces pruned",
    lesson=LessonRow("top-down pruning", "likelihood loss from removal", "Viterbi (most probable segmentation)",
                     "natively (n-best, sampling)"),
    cli_options=frozenset({"text_field", "errors", "min_count"}),
    from_dict=UnigramModel.from_dict,
    trace_rows=trace_rows,
    cli_help="needs --vocab-size N (its unknown piece included)",
    train_cli=_train_cli,
    trace_help='each pruning round as {"round", "vocab_size_before", "log_likelihood", "dropped", "removed", '
               '"vocab_size", "final"}',
)
