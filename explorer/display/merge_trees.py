"""A word's merge trees as escaped HTML whose nodes never overlap, however long their labels. Pure.

Each piece's tree is drawn upside down as nested spans: the piece's symbols in the bottom row, and
each merge above them, as wide as the symbols it joins (an icicle chart). A tree is a CSS grid of
one column per symbol: a node spans its own symbols' columns, in the row of its height (the
symbols' row is 0, a merge's is one above its higher part). Two nodes of one row hold no symbol in
common (neither holds the other), so they share no column; and the browser sizes every column to
fit the labels that span it, so no label is cut. The pieces' trees follow one another like words,
wrapping onto the next line; a tree wider than the page scrolls sideways.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import MergeNode
from explorer.display.render import escape, hue, token_html, token_text

CSS = """
<style>
.bpe-trees { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 10px 14px; }
.bpe-tree-box { overflow-x: auto; max-width: 100%; padding-bottom: 2px; }
.bpe-tree { display: inline-grid; grid-auto-columns: max-content; gap: 4px 2px; }
.bpe-node { padding: 1px 5px; border: 1px solid #777; border-radius: 5px; text-align: center; color: #1b1b1b;
  font-family: "Source Code Pro", ui-monospace, monospace; font-size: 0.92em; white-space: pre; line-height: 1.4; }
.bpe-node.bpe-piece { border: 2px solid #222; }
.bpe-node small { display: block; font-size: 0.7em; line-height: 1.2; color: #333; }
.bpe-node-base { background: #ececec; }
.bpe-node-unknown { background: #ffd9d9; border-color: #c33; }
</style>
"""


@dataclass(frozen=True)
class Cell:
    """One node in the grid: its token and rank (None for a symbol), the columns it spans
    (`first`, `last`, from 0), its row (0: the symbols) and whether it is one of the word's pieces."""

    token: str
    rank: int | None
    first: int
    last: int
    row: int
    piece: bool = False


def layout_cells(tree: MergeNode) -> list[Cell]:
    """The cells of one piece's tree, every node after its parts. Without recursion: a token of a
    thousand characters has a tree a thousand deep.

    >>> from bpe_core import MergeNode
    >>> cells = layout_cells(MergeNode("abc", 1, MergeNode("ab", 0, MergeNode("a"), MergeNode("b")), MergeNode("c")))
    >>> [(c.token, c.first, c.last, c.row) for c in cells], cells[-1].piece
    ([('a', 0, 0, 0), ('b', 1, 1, 0), ('ab', 0, 1, 1), ('c', 2, 2, 0), ('abc', 0, 2, 2)], True)
    """
    cells: list[Cell] = []
    column = 0
    stack: list[tuple[MergeNode, bool]] = [(tree, False)]
    done: list[Cell] = []  # finished subtrees, the last on top
    while stack:
        node, expanded = stack.pop()
        if node.left is None or node.right is None:
            done.append(Cell(node.token, node.rank, column, column, 0))
            column += 1
        elif not expanded:
            stack += [(node, True), (node.right, False), (node.left, False)]
            continue
        else:
            right, left = done.pop(), done.pop()
            done.append(Cell(node.token, node.rank, left.first, right.last, 1 + max(left.row, right.row)))
        cells.append(done[-1])
    root = cells[-1]
    cells[-1] = Cell(root.token, root.rank, root.first, root.last, root.row, piece=True)
    return cells


def _node_html(cell: Cell, top: int, *, counts: dict[int, int], byte_level: bool, unknown: Sequence[str]) -> str:
    shown = token_text(cell.token, byte_level=byte_level)
    classes = ["bpe-node", *(["bpe-piece"] if cell.piece else [])]
    style = f"grid-column:{cell.first + 1} / {cell.last + 2};grid-row:{top - cell.row + 1};"
    body = token_html(cell.token, byte_level=byte_level)
    if cell.rank is None:
        unseen = cell.token in unknown
        classes.append("bpe-node-unknown" if unseen else "bpe-node-base")
        title = f"{shown} · {'never seen in training: <unk>' if unseen else 'base symbol'}"
    else:
        style += f"background:hsl({hue(cell.rank)},75%,82%);"
        count = counts.get(cell.rank)
        title = f"{shown} · made at step {cell.rank + 1}" + (
            f" · seen {count:,} times in training" if count is not None else "")
        body += f"<small>step {cell.rank + 1}</small>"  # a person counts steps from 1
    return f'<div class="{" ".join(classes)}" style="{style}" title="{escape(title)}">{body}</div>'


def trees_html(
    trees: Sequence[MergeNode],
    *,
    counts: dict[int, int] | None = None,
    byte_level: bool = False,
    unknown: Sequence[str] = (),
) -> str:
    """A word's pieces as merge trees (`layout_cells`), each node its token and the step that made it.

    `counts` maps a merge's rank (0-based, as in the trace) to its count, told on hover; every token is
    escaped (`render.token_html`). The page adds `CSS` once.
    """
    drawn = []
    for tree in trees:
        cells = layout_cells(tree)
        top = cells[-1].row
        nodes = "".join(_node_html(c, top, counts=counts or {}, byte_level=byte_level, unknown=unknown)
                        for c in cells)
        drawn.append(f'<div class="bpe-tree-box"><div class="bpe-tree">{nodes}</div></div>')
    return f'<div class="bpe-trees">{"".join(drawn)}</div>' if drawn else ""
