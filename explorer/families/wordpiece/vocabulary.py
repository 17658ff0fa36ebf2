"""WordPiece on the Vocabulary page: what its columns mean, and a token's training step and score."""
from __future__ import annotations

from explorer.data.any_model import AnyModel
from explorer.display.render import md_escape, token_text
from explorer.display.vocabulary import FamilyRow


def columns_note(model: AnyModel) -> str:
    return ("A token starting with ## continues a word; step: the training step that added it; score: "
            "count(ab) / (count(a) · count(b)) of that step.")


def details(model: AnyModel, row: FamilyRow) -> list[str]:
    """The token's captions: special, an alphabet entry, or the step that added it with its score."""
    wp = model.model
    out = []
    if row.token == wp.unk_token or row.token in wp.special_tokens:
        out.append("A special token: it is in the vocabulary from the start; no step made it.")
    elif row.step is None:
        out.append("An alphabet entry: in the vocabulary from the start (a single character"
                   + (", continuing a word)." if row.continuation else ")."))
    else:
        step = wp.trace[row.step - 1]
        out.append(md_escape(
            f"Added at step {row.step:,} by merging {token_text(step.left)} + {token_text(step.right)}: "
            f"score {step.pair_count:,} / ({step.left_count:,} · {step.right_count:,}) = {step.score:.3g}."))
    if row.continuation:
        out.append("A continuation piece: used only inside a word, after another piece.")
    return out
