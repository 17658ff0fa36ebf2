"""Why WordPiece splits a word as it does: greedy longest match, step by step. Pure.

WordPiece encodes a word by greedy longest match from its start: at each position the longest
piece of the vocabulary that the rest of the word begins with (after the first piece, spelled with
the continuation prefix "##"); when no piece matches at some position, the whole word becomes the
unknown token, as BERT does (and so does a word longer than `max_input_chars_per_word`). The
tokens themselves always come from the engine (`encode_word`); this module only records the
search's steps, and how training built each piece (`built_tree`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bpe_core import MergeNode
from bpe_core.families import WordPieceModel
from bpe_core.families.wordpiece_text import normalize, split_words
from bpe_core.families.wordpiece_train import WordPieceStep

MAX_TRIED_SHOWN = 6  # candidates listed per position (the count says how many in all)
MAX_EXPLAINED_WORD = 100  # characters of a word whose candidates are listed


@dataclass(frozen=True)
class MatchStep:
    """One position of a greedy longest match: the piece found there (None: nothing matched) and
    how many longer candidates were tried first (the first few of them, longest first)."""

    start: int
    end: int
    piece: str | None
    tried: int
    tried_shown: tuple[str, ...]


@dataclass(frozen=True)
class LongestMatch:
    """A word's greedy longest match: its steps, the engine's tokens and why it is unknown ("" if not)."""

    word: str
    steps: tuple[MatchStep, ...]
    tokens: tuple[str, ...]
    unknown_reason: str


def wordpiece_words(model: WordPieceModel, text: str) -> list[str]:
    """The words of `text` as the model cuts them (BERT's pre-tokenizer, lowercased if the model is)."""
    return split_words(normalize(text, lowercase=model.lowercase))


def longest_match(model: WordPieceModel, word: str) -> LongestMatch:
    """The greedy longest match of one (normalized) word, step by step.

    >>> model = WordPieceModel(["[UNK]", "un", "##aff", "##able", "a"])
    >>> [(s.piece, s.tried) for s in longest_match(model, "unaffable").steps]
    [('un', 7), ('##aff', 4), ('##able', 0)]
    >>> longest_match(model, "unx").unknown_reason
    "no piece of the vocabulary matches at character 3 ('##x'), so the whole word is [UNK]"
    """
    tokens = tuple(piece[0] for piece in model.encode_word(word))
    n, prefix, vocab = len(word), model.prefix, model.vocab
    if n > model.max_input_chars_per_word:
        reason = (f"the word has {n:,} characters, more than max_input_chars_per_word "
                  f"({model.max_input_chars_per_word:,}), so it is {model.unk_token} whole")
        return LongestMatch(word, (), tokens, reason)
    steps: list[MatchStep] = []
    start = 0
    while start < n:
        tried: list[str] = []
        end = n
        while end > start:
            candidate = word[start:end] if start == 0 else prefix + word[start:end]
            if candidate in vocab:
                break
            if len(tried) < MAX_TRIED_SHOWN:
                tried.append(candidate)
            end -= 1
        count = n - end if end > start else n - start
        if end == start:  # nothing matched here: the word is unknown
            steps.append(MatchStep(start, start, None, count, tuple(tried)))
            first = word[start] if start == 0 else prefix + word[start]
            reason = (f"no piece of the vocabulary matches at character {start + 1} ({first!r}), "
                      f"so the whole word is {model.unk_token}")
            return LongestMatch(word, tuple(steps), tokens, reason)
        steps.append(MatchStep(start, end, candidate, count, tuple(tried)))
        start = end
    return LongestMatch(word, tuple(steps), tokens, "")


def steps_adding(trace: Sequence[WordPieceStep]) -> dict[str, WordPieceStep]:
    """Each token a training step added -> that step (a later step that made it again added nothing)."""
    return {step.token: step for step in trace if step.added}


def built_tree(made: Mapping[str, WordPieceStep], token: str) -> MergeNode:
    """How training built `token`: the step that added it, over the trees of its two parts; a leaf for an
    alphabet entry or a special token. Each node's rank is its step - 1, as a merge's rank is (a piece
has at most `max_input_chars_per_word` characters, so the recursion stays shallow).

    >>> from bpe_core.families import train_wordpiece
    >>> model = train_wordpiece(["hug hug hug pug"], vocab_size=12)
    >>> tree = built_tree(steps_adding(model.trace), "hug")
    >>> tree.leaves(), tree.depth()
    (['h', '##u', '##g'], 2)
    """
    step = made.get(token)
    if step is None:
        return MergeNode(token)
    return MergeNode(token, step.step - 1, built_tree(made, step.left), built_tree(made, step.right))
