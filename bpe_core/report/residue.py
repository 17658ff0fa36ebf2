"""Intermediate tokens: merged tokens that later merges almost always consume.

Every token a merge-based tokenizer produces was built by merges, and each merge below the last
one made a token of its own on the way (encoding "lowest" with low + est made "low" and "es"
first). Per token, on a text: *emitted* is how often the encoding ends with it, *inside* how
often it was made and then consumed by a later merge, counted down the merge tree of every
emitted token. Its *consumed share* is inside / (inside + emitted), PickyBPE's
intersection-over-self (Chizhov et al., 2024) measured on the encoding rather than in training;
a token made often enough and consumed nearly always is *residue* (LiteToken's term): it spends
a vocabulary slot and an embedding on a step of the merging, not on text.

Each token is split by the first merge that makes it, as `bpe_core.hierarchy.merge_tree` does;
base symbols (a merge's leaves) are never residue.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MIN_MADE = 10  # a token made fewer times on the text is not judged
RESIDUE_SHARE = 0.9  # consumed at least this share of the times it was made: residue


@dataclass(frozen=True)
class IntermediateToken:
    """One merged token on a text: emitted whole, and made only to be consumed by a later merge."""

    token: str
    emitted: int
    inside: int

    @property
    def made(self) -> int:
        return self.emitted + self.inside

    @property
    def consumed_share(self) -> float:
        """inside / (inside + emitted); 0.0 for a token never made."""
        return self.inside / self.made if self.made else 0.0


@dataclass(frozen=True)
class Residue:
    """The merged tokens made on a text, and those that are residue (most made first, then by token)."""

    tokens: dict[str, IntermediateToken]  # every merged token made at least once
    residue: tuple[IntermediateToken, ...]
    judged: int  # merged tokens made at least `min_made` times
    vocabulary_size: int
    min_made: int
    threshold: float

    @property
    def share(self) -> float:
        """Residue tokens over the whole vocabulary."""
        return len(self.residue) / self.vocabulary_size if self.vocabulary_size else 0.0


def inside_counts(merges: Sequence[tuple[str, str]], emitted: Mapping[str, int]) -> Counter[str]:
    """How often each merged token is made inside the emitted tokens' merge trees (the roots not
    counted, base symbols not counted).

    >>> merges = [("l", "o"), ("lo", "w"), ("e", "s"), ("es", "t"), ("low", "est")]
    >>> sorted(inside_counts(merges, {"lowest": 2, "low": 1}).items())
    [('es', 2), ('est', 2), ('lo', 3), ('low', 2)]
    """
    split: dict[str, tuple[str, str]] = {}
    for a, b in merges:
        split.setdefault(a + b, (a, b))
    memo: dict[str, Counter[str]] = {}

    def below(token: str) -> Counter[str]:
        """The merged tokens strictly below `token` in its tree, with multiplicity."""
        found = memo.get(token)
        if found is None:
            found = Counter()
            stack = list(split.get(token, ()))
            while stack:
                part = stack.pop()
                halves = split.get(part)
                if halves is not None:
                    found[part] += 1
                    stack.extend(halves)
            memo[token] = found
        return found

    inside: Counter[str] = Counter()
    for token, n in emitted.items():
        for part, k in below(token).items():
            inside[part] += n * k
    return inside


def residue(
    merges: Sequence[tuple[str, str]],
    emitted: Mapping[str, int],
    *,
    vocabulary_size: int,
    min_made: int = MIN_MADE,
    threshold: float = RESIDUE_SHARE,
) -> Residue:
    """Measure every merged token on a text's emitted counts; residue is made ≥ `min_made` times
    and consumed ≥ `threshold` of them.

    >>> merges = [("l", "o"), ("lo", "w"), ("e", "s"), ("es", "t"), ("low", "est")]
    >>> found = residue(merges, {"lowest": 9, "low": 1}, vocabulary_size=10, min_made=5)
    >>> [(t.token, t.emitted, t.inside) for t in found.residue], found.share
    ([('lo', 0, 10), ('low', 1, 9), ('es', 0, 9), ('est', 0, 9)], 0.4)
    """
    merged = {a + b for a, b in merges}
    inside = inside_counts(merges, emitted)
    made = {t for t, n in emitted.items() if n} | set(inside)
    tokens = {t: IntermediateToken(t, emitted.get(t, 0), inside.get(t, 0)) for t in sorted(made & merged)}
    judged = [t for t in tokens.values() if t.made >= min_made]
    found = sorted((t for t in judged if t.consumed_share >= threshold), key=lambda t: (-t.made, t.token))
    return Residue(tokens, tuple(found), len(judged), vocabulary_size, min_made, threshold)
