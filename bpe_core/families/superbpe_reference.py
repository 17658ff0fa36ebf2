"""SuperBPE's slow, obviously correct trainer: recount every pair and rewrite every word at each
step, in both phases. Tests compare the fast trainer against this one; nothing else should use it.

Phase one is the engine's reference BPE on the phase-one words. Phase two takes the phase-two
pieces, replays phase one's merges on them in order (as the authors' fork does), then merges the
most frequent pair whose token the rules allow, with the same tie-break as phase one.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..pretokenize import byte_to_char
from ..reference import apply_merge, count_pairs, rank_pairs, reference_train
from ..settings import Settings


def reference_superbpe(
    phase_one: Mapping[str, int],
    phase_two: Mapping[str, int],
    settings: Settings,
    *,
    phase_one_merges: int,
    merges: int,
    allows: Callable[[str], bool],
    max_token_length: int | None = None,
) -> list[tuple[str, str, int, int]]:
    """(left, right, count, phase) of each merge: `phase_one_merges` at most in phase one, then
    phase two up to `merges` in all (or until no allowed pair is left)."""
    first = reference_train(phase_one, settings, merges=phase_one_merges, max_token_length=max_token_length)
    out = [(a, b, n, 1) for a, b, n, _ in first]
    order = {s: i for i, s in enumerate(sorted(byte_to_char()))}  # ids: bytes, then tokens by birth
    words = [(list(w), n) for w, n in phase_two.items() if w and n > 0]
    for a, b, _, _ in out:
        order.setdefault(a + b, len(order))
        words = [(apply_merge(symbols, (a, b)), n) for symbols, n in words]
    while len(out) < merges:
        pairs = {
            p: n for p, n in count_pairs(words).items()
            if (max_token_length is None or len(p[0]) + len(p[1]) <= max_token_length) and allows(p[0] + p[1])
        }
        if not pairs:
            break
        best = rank_pairs(pairs, settings, order)[0]
        if pairs[best] < settings.min_frequency:
            break
        order.setdefault(best[0] + best[1], len(order))
        words = [(apply_merge(symbols, best), n) for symbols, n in words]
        out.append((best[0], best[1], pairs[best], 2))
    return out
