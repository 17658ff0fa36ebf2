"""BPE in the explorer: every option of the sidebar, its request in words, what its training made."""
from __future__ import annotations

from typing import Any

from explorer.families import ExplorerFamily


def describe(request: Any) -> str:
    """The request's settings in words, the mode's own ones only ("word mode, end-of-word separate, ...")."""
    s = request.settings
    bits = [f"{s.mode} mode"]
    if s.mode == "word":
        bits.append(f"end-of-word {s.eow}")
    else:
        bits.append(f"pre-tokenizer {s.pretokenizer}")
    bits.append(f"tie-break {s.tie_break}")
    if s.lowercase:
        bits.append("lowercase")
    if s.normalization != "none":
        bits.append(s.normalization)
    if s.min_frequency > 1:
        bits.append(f"min frequency {s.min_frequency}")
    bits.append(f"{request.amount:,} merges" if request.target == "merges" else f"vocabulary {request.amount:,}")
    return ", ".join(bits)


def made(trained: Any) -> str:
    """Merges learned and where the vocabulary's tokens come from."""
    tok = trained.tokenizer
    made_by_merges = tok.vocab_size - trained.alphabet - bool(tok.unk_token)
    return (f"{trained.steps:,} merges learned · vocabulary {tok.vocab_size:,} tokens: {trained.alphabet:,} base "
            f"symbols + {made_by_merges:,} made by merges{' + the unknown token' if tok.unk_token else ''}")


FAMILY = ExplorerFamily(
    name="bpe",
    describe=describe,
    made=made,
    options=frozenset({"mode", "eow", "pretokenizer", "tie_break", "lowercase", "normalization", "min_frequency",
                       "target"}),
    slow_hint=("try fewer merges, a pre-tokenizer (without one, text and bytes modes treat the whole corpus as "
               "one word) or a smaller corpus"),
    ours_holds="Everything: settings, merges and the training trace.",
    merge_view=lambda tok: tok,
)
