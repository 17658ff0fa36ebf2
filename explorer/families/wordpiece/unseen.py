"""WordPiece on the Unseen words page: each word by greedy longest match, the match step by step, or why
the whole word is unknown; how training built its pieces (their merge trees)."""
from __future__ import annotations

import pandas as pd

from explorer.data.any_model import AnyModel
from explorer.display import merge_trees
from explorer.display.render import md_escape, token_text
from explorer.display.tables import EMPTY
from explorer.display.unseen import Card
from explorer.display.vocabulary import family_chips_html
from explorer.families.wordpiece import explain

COUNT = None  # no number to choose: longest match gives one segmentation


def how(model: AnyModel) -> str:
    return ("WordPiece takes, from the start of each word, the longest piece of its vocabulary that fits "
            "(\"##\" marks a piece inside a word); if at some point nothing fits, the whole word becomes "
            "the unknown token.")


def words(model: AnyModel, text: str) -> list[str]:
    """The words of `text` as the model cuts them (BERT's pre-tokenizer)."""
    return explain.wordpiece_words(model.model, text)


def cards(model: AnyModel, text: str, shown: list[str], *, n: int | None = None, presenter: bool = False
          ) -> list[Card]:
    """A card for each word shown: its pieces, the match step by step, or why it is unknown."""
    made = explain.steps_adding(model.model.trace)
    counts = {step.step - 1: step.pair_count for step in made.values()}
    return [_card(model, word, made, counts) for word in shown]


def _card(model: AnyModel, word: str, made: dict, counts: dict[int, int]) -> Card:
    match = explain.longest_match(model.model, word)
    notes = [("warning", md_escape(f"Unknown: {match.unknown_reason}."))] if match.unknown_reason else []
    table = None
    if match.steps and len(word) <= explain.MAX_EXPLAINED_WORD:
        table = pd.DataFrame([{
            "position": step.start + 1,
            "longest piece found": EMPTY if step.piece is None else token_text(step.piece),
            "longer candidates tried first": step.tried,
            "the first of them": ", ".join(token_text(t) for t in step.tried_shown)
            + (", …" if step.tried > len(step.tried_shown) else ""),
        } for step in match.steps])
    trees, title = "", ""
    if not match.unknown_reason and any(piece in made for piece in match.tokens):
        title = ("**How training built each piece** (each node: its piece and the step that added it; the word "
                 "itself is split by longest match, not by replaying these steps)")
        trees = merge_trees.trees_html([explain.built_tree(made, piece) for piece in match.tokens], counts=counts)
    return Card(word, len(match.tokens), family_chips_html(model, model.segment(word), word), notes, table=table,
                trees_title=title, trees_html=trees)
