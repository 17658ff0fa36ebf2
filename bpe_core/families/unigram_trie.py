"""Every word's segmentation lattice at once, merged over the words' shared prefixes.

The forward pass of a word's lattice at position ``i`` depends only on its first ``i``
characters, so words that share a prefix share those values: "▁the", "▁there" and "▁these"
compute ``alpha("▁th")`` once. Here the lattices of all the distinct words are one graph whose
nodes are the words' prefixes (the nodes of their prefix tree, node 0 the empty prefix) and
whose edges ``(u, v, piece_id)`` say that prefix ``v`` is prefix ``u`` followed by the piece. On
English words this has 2.3 times fewer edges than the words' lattices taken one by one.

The backward pass shares too. For a node ``v`` let ``G(v)`` be the sum, over the words ``W``
that start with ``v``, of ``count(W) / Z(W)`` times ``beta_W(v)`` (the total weight of W's
segmentations of the rest after ``v``). Then ``G(v) = [v is a word W] count(W) / Z(W) + sum over
edges v -> x of weight(piece) * G(x)``, and a piece's expected count is the sum over its edges
``u -> v`` of ``alpha(u) * weight(piece) * G(v)``: one pass over the edges in reverse.

Nodes are numbered in the preorder of the sorted words, so an edge always ends at a higher node
than it starts from, and the edges are listed by (end node, start position): the order of
`unigram_lattice`, which makes every forward value and every Viterbi choice the same float as
word by word. Only the expected counts are summed in another order (they agree to 12 digits,
the precision every decision is taken at).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .unigram_lattice import build_edges, expected_counts_log

TrieEdge = tuple[int, int, int]  # (start node, end node, piece id)
NEG_INF = float("-inf")


class PrefixLattice:
    """The merged lattice of ``words`` over the pieces ``piece_ids`` (``max_len`` characters at most).

    ``closed``: the piece set is closed under suffixes, so the pieces ending at a position are
    found by growing leftwards until a text is no piece (as `unigram_lattice.build_edges_closed`).

    >>> lattice = PrefixLattice(["▁ab", "▁a"], {"▁": 0, "a": 1, "b": 2, "▁a": 3}, 3, closed=True)
    >>> lattice.edges, lattice.word_nodes
    ([(0, 1, 0), (0, 2, 3), (1, 2, 1), (2, 3, 2)], [3, 2])
    """

    def __init__(self, words: Sequence[str], piece_ids: Mapping[str, int], max_len: int, *, closed: bool) -> None:
        get = piece_ids.get
        edges: list[TrieEdge] = []
        word_nodes = [0] * len(words)
        path = [0]  # the nodes of the previous word's prefixes, by length
        previous = ""
        nodes = 1
        for index in sorted(range(len(words)), key=words.__getitem__):
            word = words[index]
            shared, top = 0, min(len(word), len(previous))
            while shared < top and word[shared] == previous[shared]:
                shared += 1
            del path[shared + 1:]
            for end in range(shared + 1, len(word) + 1):
                node = nodes
                nodes += 1
                path.append(node)
                group = []
                for start in range(end - 1, max(0, end - max_len) - 1, -1):
                    pid = get(word[start:end])
                    if pid is not None:
                        group.append((path[start], node, pid))
                    elif closed:
                        break
                group.reverse()
                edges += group
            word_nodes[index] = path[len(word)]
            previous = word
        self.words = words
        self.edges = edges
        self.word_nodes = word_nodes
        self.nodes = nodes
        self.max_len = max_len

    def keep(self, live: Sequence[bool]) -> None:
        """Drop the edges of the pieces whose ``live[piece_id]`` is false."""
        self.edges = [e for e in self.edges if live[e[2]]]

    def expected_counts(self, counts: Sequence[int], weight: Sequence[float], log_scores: Sequence[float],
                        live_ids: Mapping[str, int], lam: float) -> tuple[list[float], list[float]]:
        """Each piece id's expected count (times the words' counts) and each word's log-likelihood.

        ``weight[pid]`` is ``exp(log_scores[pid] + lam * len(piece))``: every path of a word of n
        characters is scaled by ``exp(lam * n)``, which keeps the sums near 1. A word whose total
        leaves the float range is redone in log space on its own lattice (its pieces in
        ``live_ids``); so is every word below a prefix whose total overflowed (a long run of one
        character), whose total then overflowed too: that prefix counts as 0 in the shared pass.
        """
        alpha = [0.0] * self.nodes
        alpha[0] = 1.0
        for u, v, p in self.edges:
            alpha[v] += alpha[u] * weight[p]
        if not sum(alpha) < math.inf:  # an infinite or NaN prefix: its words go below, in log space
            alpha = [a if a < math.inf else 0.0 for a in alpha]
        grad = [0.0] * self.nodes
        expected = [0.0] * len(weight)
        terms = []
        for word, count, node in zip(self.words, counts, self.word_nodes):
            z = alpha[node]
            if 1e-250 < z < 1e250:
                grad[node] += count / z  # += : a word given twice is two words at one node
                terms.append(count * (math.log(z) - lam * len(word)))
                continue
            edges = build_edges(word, live_ids, self.max_len)
            posts, log_z = expected_counts_log(len(word), edges, log_scores)
            for (_, _, p), post in zip(edges, posts):
                expected[p] += post * count
            terms.append(count * log_z)
        for u, v, p in reversed(self.edges):
            x = weight[p] * grad[v]
            grad[u] += x
            expected[p] += alpha[u] * x
        return expected, terms

    def viterbi_uses(self, counts: Sequence[int], scores: Sequence[float]) -> list[int]:
        """How often each piece id is used when every word takes its best segmentation (times its count).

        Ties as `unigram_lattice.viterbi`: among a node's incoming edges, by start, a later one
        wins only when strictly better. Each word's count flows back along its best path.
        """
        best = [NEG_INF] * self.nodes
        best[0] = 0.0
        back_node = [-1] * self.nodes
        back_piece = [-1] * self.nodes
        for u, v, p in self.edges:
            value = best[u] + scores[p]
            if value > best[v]:
                best[v] = value
                back_node[v] = u
                back_piece[v] = p
        flow = [0] * self.nodes
        for node, count in zip(self.word_nodes, counts):
            flow[node] += count
        uses = [0] * len(scores)
        for v in range(self.nodes - 1, 0, -1):
            f = flow[v]
            if f and back_piece[v] >= 0:
                uses[back_piece[v]] += f
                flow[back_node[v]] += f
        return uses
