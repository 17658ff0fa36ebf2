"""A text through a tokenizer's parts, stage by stage, as a table. Pure: no Streamlit here.

Each row is one part (normalizer, pre-tokenizer, model, decoder, post-processor) with its name
and what it made of the start of the text: the normalized text, the pieces the pre-tokenizer cut,
the tokens. Every tokenizer has such a pipeline (`AnyModel.pipeline`): one read from a file is
one, one trained here is shown as the parts its settings or its `tokenizer.json` make. The cells
are plain text (a table shows them as text, never as markup).
"""
from __future__ import annotations

import pandas as pd

from bpe_core.analysis import visible_whitespace
from bpe_core.parts.stages import Stretch, stages
from bpe_core.presets import describe
from explorer.data.any_model import AnyModel

STAGE_CHARS = 2_000  # characters of the text followed through the parts (each stage is drawn whole)
SHOWN_ITEMS = 60  # pieces or tokens listed in a cell, then "… (+N more)"
SEPARATOR = " | "


def _listed(items: list[str]) -> str:
    shown = SEPARATOR.join(visible_whitespace(item) for item in items[:SHOWN_ITEMS])
    more = len(items) - SHOWN_ITEMS
    return shown + (f"{SEPARATOR}… (+{more:,} more)" if more > 0 else "")


def _stretches(found: list[Stretch]) -> str:
    return _listed([f"[{s.text}]" if s.added else s.text for s in found])


def stages_frame(model: AnyModel, text: str) -> pd.DataFrame:
    """One row a part: "stage", "part" (its `tokenizer.json` type, a Sequence's members joined),
    "on this text" (what it made of the text's first `STAGE_CHARS` characters)."""
    pipeline = model.pipeline
    seen = stages(pipeline, text[:STAGE_CHARS])
    made = {
        "normalizer": _stretches(seen.normalized),
        "pre-tokenizer": _stretches(seen.pieces),
        "model": _listed(seen.encoding.tokens),
        "decoder": visible_whitespace(pipeline.decode(seen.encoding.ids, skip_special_tokens=False)[:400]),
    }
    parts = dict(describe(pipeline))
    stages_shown = [*made, *(stage for stage in parts if stage not in made)]  # a post-processor after the rest
    return pd.DataFrame([{"stage": stage, "part": parts.get(stage, "none"), "on this text": made.get(stage, "")}
                         for stage in stages_shown])


def stages_note(text: str) -> str:
    """What the table shows, in words, and how much of the text."""
    cut = f" (its first {STAGE_CHARS:,} characters)" if len(text) > STAGE_CHARS else ""
    return ("Each part of the tokenizer in the order text meets it, and what it makes of the text" + cut +
            ": the normalizer's text (added tokens cut out first, in [brackets]), the pre-tokenizer's pieces, "
            "the model's tokens, and the decoder's text from those tokens. · marks a space; a byte-level part "
            "writes each byte as one letter, GPT-2's (Ġ is a space, æĹ¥ the three bytes of 日).")
