"""WordPiece in the registry: BERT's family, trained by likelihood gain, encoded by longest match."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .registry import COUNTING, Family, LessonRow, Trained
from .wordpiece_model import WordPieceModel

if TYPE_CHECKING:
    import argparse


def trace_rows(model: WordPieceModel) -> Iterator[dict[str, Any]]:
    """Each training step: the pair, the token, the counts behind its score, whether it was new."""
    for step in model.trace:
        yield {"step": step.step, "left": step.left, "right": step.right, "token": step.token,
               "score": step.score, "pair_count": step.pair_count, "left_count": step.left_count,
               "right_count": step.right_count, "added": step.added}


def _train_cli(args: argparse.Namespace) -> Trained:
    from .wordpiece_cli import train

    return train(args)


FAMILY = Family(
    name="wordpiece",
    title="WordPiece",
    model_class=WordPieceModel,
    summary="merges the pair with the highest score count(ab) / (count(a) · count(b)); encodes by longest match",
    step_unit="step",
    first_step=0,
    progress_unit="tokens added",
    lesson=LessonRow("bottom-up merging", "likelihood gain of the pair: count(ab) / (count(a) · count(b))",
                     "greedy longest match", "no"),
    cli_options=frozenset({"lowercase", "counts", *COUNTING}),
    from_dict=WordPieceModel.from_dict,
    trace_rows=trace_rows,
    special_tokens=lambda model: model.special_tokens,
    cli_help="needs --vocab-size N (its special tokens included)",
    train_cli=_train_cli,
    trace_help='each step as {"step", "left", "right", "token", "score", "pair_count", "left_count", '
               '"right_count", "added"}',
)
