"""Do two merge lists agree? Where they first differ, recount both choices to say why."""
from __future__ import annotations

from collections import Counter
from typing import Any

from _common import CASES


def recount(
    text: str, settings_dict: dict[str, Any], prefix: list[tuple[str, str]], pairs: list[tuple[str, str]]
) -> dict[str, int]:
    """How often each of `pairs` occurs once the merges in `prefix` are applied to the corpus."""
    from bpe_core import RankTable, Settings, encode_ranked
    from bpe_core.pretokenize import count_words, word_symbols

    settings = Settings(**settings_dict)
    table = RankTable({pair: rank for rank, pair in reversed(list(enumerate(prefix)))})
    wanted = set(pairs)
    found: Counter[tuple[str, str]] = Counter()
    for word, n in count_words([text], settings).items():
        symbols = encode_ranked(word_symbols(word, settings), table)
        for pair in zip(symbols, symbols[1:]):
            if pair in wanted:
                found[pair] += n
    return {f"{a} {b}": found[(a, b)] for a, b in pairs}


def compare(ours: list[list[str]], peer: list[list[str]], wanted: int) -> dict[str, Any]:
    a = [tuple(p) for p in ours[:wanted]]
    b = [tuple(p) for p in peer[:wanted]]
    n = min(len(a), len(b))
    first = next((i for i in range(n) if a[i] != b[i]), None)
    out: dict[str, Any] = {
        "ours_made": len(ours),
        "peer_made": len(peer),
        "compared": n,
        "agree": first is None and len(a) == len(b) == wanted,
        "first_disagreement": None,
    }
    if first is not None:
        out["first_disagreement"] = {"rank": first, "ours": list(a[first]), "peer": list(b[first])}
    elif len(a) != len(b):
        out["note"] = f"one side stopped early: ours {len(a)}, peer {len(b)} of {wanted}"
    if len(peer) > wanted:
        out["note"] = (
            f"peer made {len(peer)} merges for vocab_size = alphabet + {wanted}: some merges "
            "spell a token that already exists (no new vocabulary entry); first "
            f"{wanted} compared"
        )
    return out


def explain(text: str, case: str, cmp: dict[str, Any], ours: list[list[str]]) -> str:
    """Recount the two picks at the first disagreement to tell a tie from a miscount."""
    d = cmp["first_disagreement"]
    rank = d["rank"]
    prefix = [tuple(p) for p in ours[:rank]]
    picks = [tuple(d["ours"]), tuple(d["peer"])]
    counts = recount(text, CASES[case]["ours"], prefix, picks)
    d["recount"] = counts
    c_ours, c_peer = counts[" ".join(picks[0])], counts[" ".join(picks[1])]
    if c_ours == c_peer:
        why = "a tie broken differently"
    elif c_peer < c_ours:
        why = "the peer picked a less frequent pair (its counts had drifted)"
    else:
        why = "OUR pick is less frequent: a bug in our trainer"
    d["why"] = why
    return (
        f"first disagreement at merge #{rank}: ours {picks[0]!r} (count {c_ours}), "
        f"peer {picks[1]!r} (count {c_peer}) after the common prefix: {why}"
    )


# ============================================================================================
# subword-nmt and tabs
# ============================================================================================
