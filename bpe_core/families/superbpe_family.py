"""SuperBPE in the registry: byte-level BPE in two phases, the second merging across spaces."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .registry import Family, LessonRow, Trained
from .superbpe_model import SuperBPEModel

if TYPE_CHECKING:
    import argparse


def trace_rows(model: SuperBPEModel) -> Iterator[dict[str, Any]]:
    """Each merge with its phase, whether it made a superword, and its count when trained here."""
    counts = [step.count for step in model.trace] if len(model.trace) == len(model.merges) else None
    for rank, left, right, token, phase, superword in model.steps:
        yield {"rank": rank, "left": left, "right": right, "token": token,
               "count": counts[rank] if counts else None, "phase": phase, "superword": superword}


def _train_cli(args: argparse.Namespace) -> Trained:
    from .superbpe_cli import train

    return train(args)


def _cli_arguments(command: argparse.ArgumentParser) -> None:
    from .superbpe_cli import add_arguments

    add_arguments(command)


FAMILY = Family(
    name="superbpe",
    title="SuperBPE",
    model_class=SuperBPEModel,
    summary="byte-level BPE inside pre-tokens up to the transition, then merges across spaces (superwords)",
    step_unit="merge",
    byte_level=True,
    lesson=LessonRow("bottom-up merging, in two phases", "pair frequency; after the transition, pairs may cross spaces",
                     "replay the merges in order", "only with dropout"),
    cli_options=frozenset({"pretokenizer", "merges", "tie_break", "min_frequency", "max_token_length", "transition",
                           "text_field", "errors"}),
    from_dict=SuperBPEModel.from_dict,
    trace_rows=trace_rows,
    cli_arguments=_cli_arguments,
    cli_help="needs --vocab-size N (the 256 bytes included) or --merges N (a size of 256 + N); see --transition",
    train_cli=_train_cli,
    trace_help='each merge as {"rank", "left", "right", "token", "count", "phase", "superword"}, "count" '
               "null when its file keeps no counts",
)
