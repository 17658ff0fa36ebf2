"""BPE on the Unseen words page: its merges replayed on each word (the page's merge cards)."""
from __future__ import annotations

from explorer.data.any_model import AnyModel


def how(model: AnyModel) -> str:
    return "BPE replays the learned merges, in the order they were learned, on each new word."


def words(model: AnyModel, text: str) -> list[str]:
    """The words of `text` as its merge list's settings cut them."""
    return model.tokenizer.words_of(text)
