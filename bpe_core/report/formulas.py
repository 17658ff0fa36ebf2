"""The report card's formulas, on plain numbers: entropies, efficiency and the Gini coefficient.

- Rényi entropy of order α of a distribution p: H_α = log(Σ p^α) / (1 − α); α = 1 is Shannon's
  entropy, −Σ p log p. Efficiency divides it by log |V|, the entropy of a uniform use of a
  vocabulary of |V| tokens, so 1.0 is every token used equally often (Zouhar et al., "Tokenization
  and the Noiseless Channel", ACL 2023; α = 2.5 tracked translation quality best there).
- The Gini coefficient of values c₁…cₙ: Σᵢ Σⱼ |cᵢ − cⱼ| / (2 n² μ), μ their mean: 0 when all are
  equal, towards 1 when one value holds everything.
Logarithms are natural; an efficiency does not depend on the base.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

DEFAULT_ALPHA = 2.5


def distribution(counts: Iterable[int]) -> list[float]:
    """Counts as probabilities (zeros dropped); empty for no counts.

    >>> distribution([3, 1, 0])
    [0.75, 0.25]
    """
    kept = [c for c in counts if c > 0]
    total = sum(kept)
    return [c / total for c in kept] if total else []


def renyi_entropy(probabilities: Sequence[float], alpha: float) -> float:
    """H_α in nats; α = 1 gives Shannon's entropy. A uniform p over n outcomes gives log n for every α.

    >>> round(renyi_entropy([0.25] * 4, 2.5), 12) == round(math.log(4), 12)
    True
    """
    if alpha < 0:
        raise ValueError(f"the order α is 0 or more, not {alpha}")
    if not probabilities:
        return 0.0
    if alpha == 1:
        return -sum(p * math.log(p) for p in probabilities if p > 0)
    return math.log(sum(p ** alpha for p in probabilities if p > 0)) / (1 - alpha)


def efficiency(probabilities: Sequence[float], vocabulary_size: int, alpha: float) -> float | None:
    """H_α / log |V|; None for a vocabulary of fewer than two tokens (log |V| is 0)."""
    if vocabulary_size < 2:
        return None
    return renyi_entropy(probabilities, alpha) / math.log(vocabulary_size)


def gini(values: Sequence[float]) -> float | None:
    """Σᵢ Σⱼ |cᵢ − cⱼ| / (2 n² μ); None for no values or a mean of 0.

    >>> gini([1, 1, 1]), gini([0, 0, 1])
    (0.0, 0.6666666666666666)
    """
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if not n or mean == 0:
        return None
    # Sorted, Σᵢ Σⱼ |cᵢ − cⱼ| = 2 Σᵢ (2i − n − 1) c₍ᵢ₎ for i from 1: no n² loop.
    ordered = sorted(values)
    spread = 2 * sum((2 * i - n - 1) * c for i, c in enumerate(ordered, start=1))
    return spread / (2 * n * n * mean)

