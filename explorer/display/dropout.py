"""The BPE-dropout page's table and chart. Pure: no Streamlit here."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis import DropoutDistribution
from explorer.display.charts import CHOSEN, OTHER, chart_font, figure, label
from explorer.display.render import token_text

TOP_SHOWN = 15  # segmentations in the chart; the table holds them all


def segmentation_text(tokens: tuple[str, ...], *, byte_level: bool = False) -> str:
    """A segmentation as plain text, pieces separated by ` | `: `ne | we | st</w>`."""
    return " | ".join(token_text(t, byte_level=byte_level) for t in tokens)


def outcomes_frame(dist: DropoutDistribution, *, byte_level: bool = False) -> pd.DataFrame:
    """Every segmentation sampled, most frequent first, with its share and whether it is the deterministic one."""
    return pd.DataFrame(
        {
            "segmentation": [segmentation_text(o.tokens, byte_level=byte_level) for o in dist.outcomes],
            "tokens": [len(o.tokens) for o in dist.outcomes],
            "times": [o.count for o in dist.outcomes],
            "share %": [round(100 * o.count / dist.samples, 2) for o in dist.outcomes],
            "deterministic": ["yes" if o.deterministic else "" for o in dist.outcomes],
        }
    )


def deterministic_share(dist: DropoutDistribution) -> float:
    """How often dropout still gave the segmentation without dropout (0.0 to 1.0)."""
    return sum(o.count for o in dist.outcomes if o.deterministic) / dist.samples


def outcomes_figure(dist: DropoutDistribution, *, byte_level: bool = False, presenter: bool = False) -> go.Figure:
    """Horizontal bars of the most frequent segmentations; the deterministic one in red."""
    shown = dist.outcomes[:TOP_SHOWN]
    font = chart_font(presenter)
    ys = list(range(len(shown)))
    labels = [" | ".join(label(t, byte_level=byte_level) for t in o.tokens) for o in shown]
    bar = {
        "type": "bar",
        "orientation": "h",
        "x": [o.count for o in shown],
        "y": ys,
        "marker": {"color": [CHOSEN if o.deterministic else OTHER for o in shown]},
        "text": [f"{100 * o.count / dist.samples:.1f}%" for o in shown],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertext": labels,
        "hoverinfo": "text+x",
    }
    layout = {
        "title": {"text": f"{dist.samples:,} samples with p = {dist.p:g} (red: the segmentation without dropout)",
                  "font": font},
        "font": font,
        "height": (34 if presenter else 26) * len(shown) + 100,
        "margin": {"l": 10, "r": 30, "t": 40, "b": 30},
        "yaxis": {"tickmode": "array", "tickvals": ys, "ticktext": labels, "autorange": "reversed",
                  "tickfont": {"family": "monospace"}},
        "xaxis": {"title": {"text": "times sampled"}, "range": [0, max((o.count for o in shown), default=1) * 1.18]},
        "showlegend": False,
    }
    return figure([bar], layout)
