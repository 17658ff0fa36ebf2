"""Unigram on the Unseen words page: each word by Viterbi, its best pieces' log-probabilities, and the
n best segmentations with their probabilities."""
from __future__ import annotations

import pandas as pd

from explorer.data.any_model import AnyModel
from explorer.display.render import md_escape, token_text
from explorer.display.unseen import Card
from explorer.display.vocabulary import family_chips_html
from explorer.families.unigram import explain

COUNT = "Best segmentations listed per word"  # the page asks how many


def how(model: AnyModel) -> str:
    return ("Unigram picks the segmentation whose pieces are most probable together (Viterbi over every way to "
            "cut the word); the runners-up are listed with their probabilities.")


def words(model: AnyModel, text: str) -> list[str]:
    """The user's words, cut at spaces as the meta-space rule cuts them."""
    return explain.unigram_words(text)


def cards(model: AnyModel, text: str, shown: list[str], *, n: int | None = None, presenter: bool = False
          ) -> list[Card]:
    """A card for each word shown: its best pieces and its `n` best segmentations."""
    return [_card(model, word, n or 1) for word in shown]


def _card(model: AnyModel, word: str, n: int) -> Card:
    um = model.model
    pieces = model.segment(word)
    best = explain.unigram_nbest(um, word, n)
    notes = []
    if any(p.unknown for p in pieces):
        notes.append(("caption", f"Red: characters no piece covers; they become the unknown token "
                                 f"{md_escape(um.unk_token)}."))
    if best and best[0].pieces:
        scores = " + ".join(f"({explain.piece_score(um, p):.2f})" for p in best[0].pieces)
        notes.append(("caption", md_escape(f"Viterbi's choice: the segmentation whose pieces' log-probabilities sum "
                                           f"highest, {scores} = {best[0].log_probability:.2f}.")))
    title = (f"**The {len(best)} best segmentation{'s' * (len(best) != 1)}** (share: the probability among "
             "these alone)")
    table = pd.DataFrame({
        "rank": list(range(1, len(best) + 1)),
        "segmentation": [" ".join(token_text(p) for p in seg.pieces) for seg in best],
        "pieces": [len(seg.pieces) for seg in best],
        "log-probability": [round(seg.log_probability, 3) for seg in best],
        "probability": [explain.probability(seg.log_probability) for seg in best],
        "share": [f"{100 * seg.share:.1f}%" for seg in best],
    })
    return Card(word, len(pieces), family_chips_html(model, pieces, word), notes, title, table)
