"""The segmentation lattice of one word: Viterbi, forward-backward, n-best and sampling.

A word of L characters has positions 0..L; an *edge* ``(start, end, piece_id)`` says that the
characters ``word[start:end]`` are the piece ``piece_id``. Edges are kept sorted by ``(end,
start)``: a forward pass over that order sees every edge into ``start`` before any edge out of
it, and the reversed order serves the backward pass. Scores are natural-log probabilities.

Viterbi ties are broken as Hugging Face `tokenizers` breaks them (its ``encode_optimized``):
for each end position the candidates are tried by start, smallest first, and a later one wins
only when strictly better, so among equal paths the last piece is the longest, then the one
before it, and so on. Sums run left to right, as there, so the floats agree bit for bit.
"""
from __future__ import annotations

import heapq
import math
import random
from collections.abc import Mapping, Sequence

Edge = tuple[int, int, int]
NEG_INF = float("-inf")


def build_edges(word: str, piece_ids: Mapping[str, int], max_len: int, *, skip_whole: bool = False) -> list[Edge]:
    """Every ``(start, end, piece_id)`` whose text is a piece, sorted by (end, start).

    With ``skip_whole`` the piece spanning the whole word is left out (its alternatives).

    >>> build_edges("abc", {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, 3)
    [(0, 1, 0), (0, 2, 3), (1, 2, 1), (0, 3, 4), (2, 3, 2)]
    """
    n = len(word)
    edges: list[Edge] = []
    get = piece_ids.get
    for end in range(1, n + 1):
        for start in range(max(0, end - max_len), end):
            pid = get(word[start:end])
            if pid is not None:
                edges.append((start, end, pid))
    if skip_whole:
        edges = [e for e in edges if e[0] != 0 or e[1] != n]
    return edges


def build_edges_closed(word: str, piece_ids: Mapping[str, int], max_len: int) -> list[Edge]:
    """`build_edges` for a piece set closed under suffixes (every suffix of a piece is one).

    The pieces ending at a position grow leftwards until their text is no piece; the seed set is
    closed (a suffix occurs at least as often as the text, and is followed by whatever follows
    it), which saves most lookups.

    >>> build_edges_closed("abc", {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 5, "abc": 4}, 3)
    [(0, 1, 0), (0, 2, 3), (1, 2, 1), (0, 3, 4), (1, 3, 5), (2, 3, 2)]
    """
    edges: list[Edge] = []
    get = piece_ids.get
    for end in range(1, len(word) + 1):
        group = []
        for start in range(end - 1, max(0, end - max_len) - 1, -1):
            pid = get(word[start:end])
            if pid is None:
                break
            group.append((start, end, pid))
        group.reverse()
        edges += group
    return edges


def viterbi(length: int, edges: Sequence[Edge], scores: Sequence[float]) -> tuple[list[Edge], float]:
    """The best path's edges and its score (``([], -inf)`` when no path covers the word)."""
    best = [NEG_INF] * (length + 1)
    best[0] = 0.0
    back: list[Edge | None] = [None] * (length + 1)
    for edge in edges:
        start, end, pid = edge
        value = best[start] + scores[pid]
        if value > best[end]:
            best[end] = value
            back[end] = edge
    path: list[Edge] = []
    pos = length
    while pos > 0:
        step = back[pos]
        if step is None:
            return [], NEG_INF
        path.append(step)
        pos = step[0]
    path.reverse()
    return path, best[length]


def log_partition(length: int, edges: Sequence[Edge], scores: Sequence[float]) -> tuple[list[float], float]:
    """Forward log-probabilities alpha (log-sum-exp at each position) and log Z = alpha[length]."""
    alpha = [NEG_INF] * (length + 1)
    alpha[0] = 0.0
    for start, end, pid in edges:
        alpha[end] = log_add(alpha[end], alpha[start] + scores[pid])
    return alpha, alpha[length]


def log_add(a: float, b: float) -> float:
    """log(exp(a) + exp(b)) without overflow."""
    if a < b:
        a, b = b, a
    if b == NEG_INF:
        return a
    return a + math.log1p(math.exp(b - a))


def expected_counts_log(length: int, edges: Sequence[Edge], scores: Sequence[float]) -> tuple[list[float], float]:
    """Posterior probability of each edge (in the order given) and log Z, in log space."""
    alpha, log_z = log_partition(length, edges, scores)
    beta = [NEG_INF] * (length + 1)
    beta[length] = 0.0
    posts = [0.0] * len(edges)
    for i in range(len(edges) - 1, -1, -1):
        start, end, pid = edges[i]
        inner = scores[pid] + beta[end]
        beta[start] = log_add(beta[start], inner)
        posts[i] = math.exp(alpha[start] + inner - log_z)
    return posts, log_z


def nbest(length: int, edges: Sequence[Edge], scores: Sequence[float], n: int) -> list[tuple[list[Edge], float]]:
    """The ``n`` best paths, best first, with their scores (k-best Viterbi over the DAG).

    Ties: by score, then the Viterbi rule (longer last piece first), then the earlier-listed edge.
    """
    # best[pos] holds up to n entries (score, order, edge, rank of the entry it extends).
    best: list[list[tuple[float, tuple[int, ...], Edge | None, int]]] = [[] for _ in range(length + 1)]
    best[0] = [(0.0, (), None, -1)]
    incoming: dict[int, list[Edge]] = {}
    for edge in edges:
        incoming.setdefault(edge[1], []).append(edge)
    for pos in range(1, length + 1):
        candidates = []
        for edge in incoming.get(pos, ()):
            start, _, pid = edge
            for rank, entry in enumerate(best[start]):
                # key: higher score first; then smaller start (= the Viterbi rule), recursively
                candidates.append((-(entry[0] + scores[pid]), (start,) + entry[1], edge, rank))
        candidates.sort(key=lambda c: (c[0], c[1]))
        best[pos] = [(-c[0], c[1], c[2], c[3]) for c in candidates[:n]]
    out = []
    for entry in best[length]:
        path: list[Edge] = []
        pos, cur = length, entry
        while cur[2] is not None:
            path.append(cur[2])
            pos = cur[2][0]
            cur = best[pos][cur[3]]
        path.reverse()
        out.append((path, entry[0]))
    return out


def sample(length: int, edges: Sequence[Edge], scores: Sequence[float], alpha_power: float,
           rng: random.Random) -> list[Edge]:
    """One path drawn with probability proportional to P(path) ** alpha_power.

    Forward filtering, backward sampling: log-sum-exp forward with the scores times
    ``alpha_power``, then from the end an incoming edge is drawn in proportion to
    ``exp(alpha[start] + alpha_power * score)``, back to position 0.
    """
    scaled = [alpha_power * s for s in scores]
    alpha, log_z = log_partition(length, edges, scaled)
    if log_z == NEG_INF:
        return []
    incoming: dict[int, list[Edge]] = {}
    for edge in edges:
        incoming.setdefault(edge[1], []).append(edge)
    path: list[Edge] = []
    pos = length
    while pos > 0:
        options = [e for e in incoming.get(pos, []) if alpha[e[0]] > NEG_INF]
        weights = [math.exp(alpha[e[0]] + scaled[e[2]] - alpha[pos]) for e in options]
        pick = rng.random() * math.fsum(weights)
        chosen = options[-1]
        acc = 0.0
        for edge, weight in zip(options, weights):
            acc += weight
            if pick < acc:
                chosen = edge
                break
        path.append(chosen)
        pos = chosen[0]
    path.reverse()
    return path


def digamma(x: float) -> float:
    """The digamma function psi(x) for x > 0 (recurrence up to 6, then the asymptotic series).

    >>> round(digamma(1.0), 10)  # minus the Euler-Mascheroni constant
    -0.5772156649
    """
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return result + math.log(x) - 0.5 * inv - series


def quantize(x: float) -> float:
    """``x`` to 12 significant digits: values equal in exact arithmetic compare equal.

    The fast trainer and the reference reach the same quantities by different float
    operations; every decision (a threshold, a ranking) is taken on quantized values, so both
    decide alike and ties fall to the stated tie-break instead of to rounding noise.
    """
    return float(f"{x:.12g}")


def top_n(items: Sequence[tuple[str, float]], n: int) -> list[tuple[str, float]]:
    """The ``n`` items with the highest value, ties by the string (ascending)."""
    return heapq.nsmallest(n, items, key=lambda item: (-item[1], item[0]))
