"""A tokenizer read from a file on the Vocabulary page: what its columns mean, and what its model
says about a token (added or special, unknown, a merge's step, a log-probability)."""
from __future__ import annotations

import math

from explorer.data.any_model import AnyModel
from explorer.display.render import md_escape
from explorer.display.vocabulary import FamilyRow


def columns_note(model: AnyModel) -> str:
    notes = ["Token: as the file writes it (GPT-2's byte letters read, so Ġthe is ·the); surface text: the text it "
             "stands for (· a space, hex like <e6 97> for bytes of no whole character)."]
    if model.added_tokens:
        notes.append(f"Special: an added token, {model.added_rule}.")
    if model.merges:
        notes.append("Step (merge): the merge that makes the token, in rank order.")
    if model.scores is not None:
        notes.append("Log-probability: the piece's score; Viterbi picks the segmentation whose scores sum highest.")
    return " ".join(notes)


def details(model: AnyModel, row: FamilyRow) -> list[str]:
    """The token's captions, from what its model has."""
    out = []
    if row.special:
        out.append(f"A special token: {model.added_rule}.")
    elif row.id in {t.id for t in model.added_tokens}:
        out.append(f"An added token: {model.added_rule}.")
    if row.unknown:
        out.append("The unknown token: it stands for text the vocabulary cannot spell.")
    if row.continuation:
        out.append("A continuation piece: used only inside a word, after another piece.")
    if row.step is not None:
        out.append(f"Made by merge {row.step:,} of {model.merge_count:,} (merges are applied in rank order).")
    elif model.merges and not (row.special or row.unknown):
        out.append("No merge makes it: it is one of the symbols the merges start from.")
    if row.score is not None:
        out.append(md_escape(f"Log-probability {row.score:.4f} (probability {math.exp(row.score):.3g})."))
    if not model.merges and model.scores is None and not (row.special or row.unknown):
        out.append(md_escape(f"A {model.title} vocabulary entry: the model has no merges and no scores, so "
                             "nothing more is known about how it was made."))
    return out
