"""Unigram in the explorer: no option to choose, pruning rounds, a log-probability for every piece."""
from __future__ import annotations

from typing import Any

from explorer.families import ExplorerFamily


def describe(request: Any) -> str:
    """"Unigram, vocabulary 500"."""
    return f"Unigram, vocabulary {request.amount:,}"


def made(trained: Any) -> str:
    return (f"{trained.steps:,} pruning rounds · vocabulary {len(trained.model.vocab):,} pieces (the unknown token "
            "included)")


FAMILY = ExplorerFamily(
    name="unigram",
    describe=describe,
    made=made,
    off_reason="Unigram splits text at spaces (marked ▁) and prunes pieces by likelihood",
    ours_holds="The pieces with their log-probabilities and every pruning round.",
    gpt2_note="GPT-2's files hold BPE merges, and Unigram has none",
    scores=lambda model: model.scores,
    vocab_filter="word start",
    special=lambda model: frozenset({model.unk_token}),
)
