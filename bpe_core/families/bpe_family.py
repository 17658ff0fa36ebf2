"""Byte-pair encoding, the engine's own family (`bpe_core.Tokenizer`), in the registry."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..model import Tokenizer
from ..trainer import DEFAULT_MERGES
from .registry import COUNTING, Family, LessonRow, Trained

if TYPE_CHECKING:
    import argparse


def trace_rows(tok: Tokenizer) -> Iterator[dict[str, Any]]:
    """Each merge: rank, pair, token and its count (None for a model read without its training)."""
    if tok.trace:
        for m in tok.trace:
            yield {"rank": m.rank, "left": m.left, "right": m.right, "token": m.token, "count": m.count}
        return
    for rank, (left, right) in enumerate(tok.merges):
        yield {"rank": rank, "left": left, "right": right, "token": left + right, "count": None}


def _from_dict(data: Any) -> Tokenizer:
    from ..formats.ours import from_json_dict

    return from_json_dict(data)


def _to_dict(tok: Tokenizer) -> dict[str, Any]:
    from ..formats.ours import to_json_dict

    return to_json_dict(tok)


def _to_hf_dict(tok: Tokenizer) -> dict[str, Any]:
    from ..formats.huggingface import to_hf_dict

    return to_hf_dict(tok)


def _as_parts(tok: Tokenizer) -> Any:
    from ..presets import as_parts

    return as_parts(tok)


def _train_cli(args: argparse.Namespace) -> Trained:
    from .bpe_cli import train

    return train(args)


def _unreachable(tok: Tokenizer) -> int:
    from ..analysis.undertrained import unreachable_tokens

    return len(unreachable_tokens(tok))


def _write_gpt2(tok: Tokenizer, output: str) -> list[str]:
    """GPT-2's vocab.json and merges.txt in the directory `output` (a BPEError for settings they cannot hold)."""
    from ..formats.gpt2 import save_gpt2

    return [str(path) for path in save_gpt2(tok, output)]


FAMILY = Family(
    name="bpe",
    title="BPE",
    model_class=Tokenizer,
    summary="merges the most frequent neighbouring pair, again and again",
    lesson=LessonRow("bottom-up merging", "pair frequency", "replay the merges in order", "only with dropout"),
    cli_options=frozenset({
        "mode", "pretokenizer", "lowercase", "normalization", "merges", "tie_break", "eow", "min_frequency",
        "max_token_length", "counts", *COUNTING,
    }),
    from_dict=_from_dict,
    to_dict=_to_dict,
    to_hf_dict=_to_hf_dict,
    as_parts=_as_parts,
    unreachable=_unreachable,
    trace_rows=trace_rows,
    cli_help=f"learns --merges N (default: {DEFAULT_MERGES}) or merges up to --vocab-size N tokens",
    train_cli=_train_cli,
    trace_help='each merge as {"rank", "left", "right", "token", "count"}, "count" null for a tokenizer '
               "imported rather than trained",
    exports={"gpt2": _write_gpt2},
)
