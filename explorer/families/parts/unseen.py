"""A tokenizer read from a file on the Unseen words page: the whole text encoded once, its pieces of
each word, with merge trees where its model has merges."""
from __future__ import annotations

from explorer.data.any_model import AnyModel, Piece, pieces_by_word
from explorer.display import merge_trees
from explorer.display.render import cap_token, md_escape
from explorer.display.unseen import Card
from explorer.display.vocabulary import family_chips_html

COUNT = None
TREES_SHOWN = 12  # merge trees drawn per word
HOW = {  # by its model's kind
    "BPE": "its BPE model merges each piece's symbols, the pair of lowest rank first",
    "WordPiece": "its WordPiece model takes the longest piece of its vocabulary that fits, from the start of each "
                 "word (a continuation prefix marks a piece inside a word)",
    "Unigram": "its Unigram model picks the segmentation whose pieces are most probable together (Viterbi)",
    "WordLevel": "its WordLevel model looks each piece up whole: a piece it lacks is the unknown token",
}


def how(model: AnyModel) -> str:
    """How it splits text, in one paragraph (and that it has no merge trees when it has no merges)."""
    said = (f"{model.title}: read from a file, it normalizes the text, cuts out its added and special tokens whole, "
            f"splits the rest with its pre-tokenizer, and {HOW.get(model.kind, 'its model splits each piece')}. "
            "The words below are cut from the whole text as it encodes it.")
    if not model.merges:
        said += (f" {model.title} has no merges, so there is no merge tree: its model splits each piece of text "
                 "directly.")
    return said


def words(model: AnyModel, text: str) -> list[str]:
    """The text's words (runs of non-space) that its encoding of the whole text has pieces of."""
    return [word for word, _ in pieces_by_word(text, model.segment(text))]


def cards(model: AnyModel, text: str, shown: list[str], *, n: int | None = None, presenter: bool = False
          ) -> list[Card]:
    """A card for each word shown: its pieces of the whole text's encoding, and their merge trees."""
    by_word = pieces_by_word(text, model.segment(text))[:len(shown)]
    return [_card(model, word, pieces, text, presenter) for word, pieces in by_word]


def _card(model: AnyModel, word: str, pieces: list[Piece], text: str, presenter: bool) -> Card:
    notes = []
    if any(p.unknown for p in pieces):
        notes.append(("caption", f"Red: text the vocabulary cannot spell; it becomes the unknown token "
                                 f"{md_escape(model.unk_token or '')}."))
    special = [p.token for p in pieces if p.special]
    if special:
        names = ", ".join(md_escape(cap_token(model.shown(t))) for t in special)
        notes.append(("caption", f"Cut out of the text whole, before the model: {names} (added or special tokens)."))
    merged = [p for p in pieces if not (p.unknown or p.special)]
    title = trees = ""
    if model.merges and merged:
        title = "**Merge trees** (each node: its token and the merge that made it, in rank order)"
        trees = merge_trees.trees_html([model.drawn_tree(p.token) for p in merged[:TREES_SHOWN]],
                                       byte_level=model.draws_bytes)
    return Card(word, len(pieces), family_chips_html(model, pieces, text), notes, trees_title=title,
                trees_html=trees)
