"""A tokenizer read from a file into parts: named by its model's kind and its file's, drawn from its bytes.

Never trained here; its model may be BPE, WordPiece, Unigram or WordLevel (`PartsTokenizer.kind`),
and what it has (merges, scores, a continuation prefix, added tokens) is its model's.
"""
from __future__ import annotations

from typing import Any

from explorer.families import ADDED_CUT, ExplorerFamily

SOURCE_TITLES = {"huggingface": "tokenizer.json", "sentencepiece": "SentencePiece", "tekken": "Tekken",
                 "tiktoken": "tiktoken"}  # where a tokenizer of parts was read from, as its title says it


def title(parts: Any) -> str:
    """Its model and file kind: "Unigram (tokenizer.json)"."""
    return f"{parts.kind} ({SOURCE_TITLES.get(parts.source, parts.source or 'file')})"


def added_rule(parts: Any) -> str:
    """What happens to its added tokens in a text: cut out whole (`tokenizers`), or read as ordinary
    text (sentencepiece and Tekken, which give them ids only when a program asks for them)."""
    if not parts.split_added:
        return "read as ordinary text when they appear in a text, as the reference library does"
    return ADDED_CUT


FAMILY = ExplorerFamily(
    name="parts",
    continuation=lambda parts: getattr(parts.model, "continuing_subword_prefix", None),
    scores=lambda parts: getattr(parts.model, "scores", None),
    vocab_filter="special",
    special=lambda parts: frozenset(t.content for t in parts.added_tokens if t.special),
    added_tokens=lambda parts: parts.added_tokens,
    added_rule=added_rule,
    title=title,
    kind=lambda parts: parts.kind,
    draws_bytes=True,
)
