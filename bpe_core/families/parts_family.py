"""A tokenizer read from a file people ship, in the registry: a pipeline of parts, never trained here.

Its model may be BPE, WordPiece, Unigram or WordLevel (`PartsTokenizer.kind`); a BPE model's
merge list is its trace, without counts (a file keeps none).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..parts.pipeline import PartsTokenizer
from ..settings import BPEError
from .registry import Family


def trace_rows(tok: PartsTokenizer) -> Iterator[dict[str, Any]]:
    """A file's merge list as trace rows; a model without merges is a one-line BPEError."""
    merges = tok.merges
    if merges is None:
        raise BPEError(f"{tok.name or 'this tokenizer'} has a {tok.kind} model: it has no merges or trace")
    for rank, (left, right) in enumerate(merges):
        yield {"rank": rank, "left": left, "right": right, "token": None, "count": None}


FAMILY = Family(
    name="parts",
    title="tokenizer file",
    model_class=PartsTokenizer,
    summary="a tokenizer read from its file: normalizer, pre-tokenizer, model and decoder, as its library runs them",
    trains=False,
    to_dict=None,
    trace_rows=trace_rows,
    special_tokens=lambda tok: [added.content for added in tok.added_tokens if added.special],
    trace_help='its merges, if its model has any, as {"rank", "left", "right", "token": null, "count": null}',
    hf_notes=lambda tok: tok.hf_caveats,
    as_parts=lambda tok: tok,
)
