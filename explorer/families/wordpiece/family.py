"""WordPiece in the explorer: lowercase its one option, its training steps, its "##" continuation pieces."""
from __future__ import annotations

from typing import Any

from explorer.families import ExplorerFamily
from explorer.families.wordpiece import why


def describe(request: Any) -> str:
    """"WordPiece, lowercase, vocabulary 500"."""
    bits = ["WordPiece", *(["lowercase"] if request.settings.lowercase else []), f"vocabulary {request.amount:,}"]
    return ", ".join(bits)


def made(trained: Any) -> str:
    return f"{trained.steps:,} merge steps · vocabulary {len(trained.model.vocab):,} tokens"


def birth(model: Any) -> dict[str, int]:
    """Each token a training step added -> that step, from 0 (a step that made no new token adds none)."""
    return {step.token: step.step - 1 for step in model.trace if step.added}


def word_notes(model: Any, trained: Any, word: str) -> list[tuple[str, str]]:
    """Why the word stays in several pieces, with the training's corpus counts when `trained` is at hand."""
    note = why.word_note(model, None if trained is None else trained.story, word)
    return [("caption", note)] if note else []


FAMILY = ExplorerFamily(
    name="wordpiece",
    describe=describe,
    made=made,
    options=frozenset({"lowercase"}),
    off_reason="WordPiece splits text as BERT does (whitespace, then punctuation) and merges characters",
    ours_holds="The vocabulary, its options and every training step with its score.",
    gpt2_note="GPT-2's files hold BPE merges, and WordPiece has none",
    birth=birth,
    step_scores=lambda model: [step.score for step in model.trace],
    continuation=lambda model: model.prefix,
    vocab_filter="continuation",
    special=lambda model: frozenset({model.unk_token, *model.special_tokens}),
    word_notes=word_notes,
)
