"""Merge trees: how a token was built, merge by merge, down to base symbols."""
from __future__ import annotations

from dataclasses import dataclass

from .model import Tokenizer


@dataclass(frozen=True)
class MergeNode:
    """A token; for a merged token, the rank of the merge that made it and its two parts."""

    token: str
    rank: int | None = None
    left: MergeNode | None = None
    right: MergeNode | None = None

    @property
    def is_base(self) -> bool:
        return self.rank is None

    def leaves(self) -> list[str]:
        if self.left is None or self.right is None:
            return [self.token]
        return self.left.leaves() + self.right.leaves()

    def depth(self) -> int:
        if self.left is None or self.right is None:
            return 0
        return 1 + max(self.left.depth(), self.right.depth())


def merge_tree(tokenizer: Tokenizer, token: str) -> MergeNode:
    """The binary tree of merges that built `token` (a leaf for a base symbol or unknown token).

    A token some merge spells is split by the first merge that made it (its `birth`). A rank
    file's token no merge builds (`Tokenizer.unreachable`) is a leaf too.
    """
    birth, merges = tokenizer.birth, tokenizer.merges
    memo: dict[str, MergeNode] = {}

    def build(t: str) -> MergeNode:
        node = memo.get(t)
        if node is None:
            rank = birth.get(t)
            if rank is None:
                node = MergeNode(t)
            else:
                a, b = merges[rank]
                node = MergeNode(t, rank, build(a), build(b))
            memo[t] = node
        return node

    return build(token)
