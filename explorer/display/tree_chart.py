"""A merge tree as a Plotly figure: each token above the two it was merged from, down to the base
symbols. Pure, as `charts` is (whose escaping, labels and type sizes it uses).
"""
from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from bpe_core import MergeNode
from explorer.display.charts import chart_font, figure, label
from explorer.display.render import hue


def layout_tree(trees: Sequence[MergeNode]) -> tuple[list[dict], list[tuple[int, int]]]:
    """Node positions for a forest: leaves left to right, each parent above its children.

    Returns nodes (token, rank, x, y) and edges (parent index, child index).
    """
    nodes: list[dict] = []
    edges: list[tuple[int, int]] = []
    next_leaf = [0]

    def place(node: MergeNode) -> int:
        if node.left is None or node.right is None:
            index = len(nodes)
            nodes.append({"token": node.token, "rank": node.rank, "x": float(next_leaf[0]), "y": 0})
            next_leaf[0] += 1
            return index
        left = place(node.left)
        right = place(node.right)
        index = len(nodes)
        nodes.append(
            {
                "token": node.token,
                "rank": node.rank,
                "x": (nodes[left]["x"] + nodes[right]["x"]) / 2,
                "y": 1 + max(nodes[left]["y"], nodes[right]["y"]),
            }
        )
        edges.extend([(index, left), (index, right)])
        return index

    for tree in trees:
        place(tree)
    return nodes, edges


def _piece_roots(nodes: list[dict], edges: list[tuple[int, int]]) -> set[int]:
    """Indexes of the nodes no edge points to: the word's final pieces."""
    children = {child for _, child in edges}
    return {i for i in range(len(nodes)) if i not in children}


def merge_tree_figure(
    trees: Sequence[MergeNode],
    *,
    counts: dict[int, int] | None = None,
    byte_level: bool = False,
    presenter: bool = False,
    unknown: Sequence[str] = (),
) -> go.Figure:
    """A word's pieces as trees of merges: each node shows its token and the step that made it.

    `counts` maps a merge's rank (0-based, as in the trace) to its count; a person reads steps (rank + 1).
    """
    nodes, edges = layout_tree(trees)
    counts = counts or {}
    ex: list[float | None] = []
    ey: list[float | None] = []
    for parent, child in edges:
        ex += [nodes[parent]["x"], nodes[child]["x"], None]
        ey += [nodes[parent]["y"], nodes[child]["y"], None]
    hovers: list[str] = []
    boxes: list[dict] = []
    tops = _piece_roots(nodes, edges)
    for index, n in enumerate(nodes):
        shown = label(n["token"], byte_level=byte_level)
        if n["rank"] is None:
            unseen = n["token"] in unknown
            text = shown
            hovers.append(f"{shown}<br>{'never seen in training: &lt;unk&gt;' if unseen else 'base symbol'}")
            colour = "#ffd9d9" if unseen else "#ececec"
        else:
            r = n["rank"]
            text = f"{shown}<br><sub>step {r + 1}</sub>"
            count = counts.get(r)
            extra = f"<br>seen {count:,} times in training" if count is not None else ""
            hovers.append(f"{shown}<br>made at step {r + 1}{extra}")
            colour = f"hsl({hue(r)},75%,82%)"
        boxes.append(
            {
                "x": n["x"],
                "y": n["y"],
                "xref": "x",
                "yref": "y",
                "text": text,
                "showarrow": False,
                "bgcolor": colour,
                "bordercolor": "#222" if index in tops else "#777",
                "borderwidth": 2 if index in tops else 1,
                "borderpad": 4,
                "font": {"family": "monospace", "color": "#1b1b1b", **chart_font(presenter)},
            }
        )
    data = [
        {
            "type": "scatter",
            "x": ex,
            "y": ey,
            "mode": "lines",
            "line": {"color": "#999", "width": 1.5},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [n["x"] for n in nodes],
            "y": [n["y"] for n in nodes],
            "mode": "markers",
            "text": [b["text"] for b in boxes],
            "hovertext": hovers,
            "hoverinfo": "text",
            "marker": {"size": 30, "opacity": 0},
        },
    ]
    height = max((n["y"] for n in nodes), default=0)
    layout = {
        "showlegend": False,
        "height": (100 if presenter else 78) * (height + 1) + 40,
        "margin": {"l": 10, "r": 10, "t": 20, "b": 10},
        "xaxis": {"visible": False, "range": [-0.7, max(0.7, max((n["x"] for n in nodes), default=0) + 0.7)]},
        "yaxis": {"visible": False, "range": [-0.5, height + 0.5]},
        "font": chart_font(presenter),
        "plot_bgcolor": "rgba(0,0,0,0)",
        "annotations": boxes,
    }
    return figure(data, layout)
