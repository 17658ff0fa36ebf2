"""SuperBPE in the explorer: bytes, a transition between its two phases, superword tokens marked."""
from __future__ import annotations

from typing import Any

from bpe_core.families.superbpe import is_superword
from explorer.families import ExplorerFamily, Mark

SUPERWORD = Mark("superword", "superwords", "one token across a space", is_superword)


def describe(request: Any) -> str:
    """"SuperBPE, bytes, the paper's pre-tokenizer in phase one, tie-break count-pair, ..., vocabulary 500"."""
    s = request.settings
    bits = ["SuperBPE", "bytes, the paper's pre-tokenizer in phase one", f"tie-break {s.tie_break}"]
    if s.min_frequency > 1:
        bits.append(f"min frequency {s.min_frequency}")
    bits.append("transition at 90%" if request.transition is None else f"transition {request.transition:,}")
    bits.append(f"vocabulary {request.amount:,}")
    return ", ".join(bits)


def made(trained: Any) -> str:
    transition = trained.model.transition
    return (f"{trained.steps:,} merges ({transition:,} in phase one, {trained.steps - transition:,} in phase two) "
            f"· vocabulary {len(trained.model.vocab):,} tokens, {len(trained.model.superwords):,} of them superwords")


FAMILY = ExplorerFamily(
    name="superbpe",
    describe=describe,
    made=made,
    options=frozenset({"tie_break", "min_frequency", "transition"}),
    fixed={"mode": "bytes"},
    off_reason="SuperBPE works on bytes with the paper's pre-tokenizer in phase one",
    option_help={"transition": "The vocabulary size where SuperBPE's phase two starts (merges across spaces); at "
                               "least 256 (the bytes) and at most the vocabulary size. 0: 90% of the vocabulary, the "
                               "paper's best ratio."},
    ours_holds="The merges, the transition and the phase-two rules.",
    gpt2_note="GPT-2's files hold byte-level BPE split GPT-2's way, not SuperBPE's phase-two split",
    merge_view=lambda model: model.tokenizer,
    phase_one=lambda model: model.transition,
    mark=SUPERWORD,
    vocab_filter="superword",
)
