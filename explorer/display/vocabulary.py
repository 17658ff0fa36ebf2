"""The Vocabulary page's table, histogram and life-story pieces. Pure: no Streamlit here.

Rows come from `bpe_core.analysis.vocabulary_table`. Tables show tokens as text with visible
whitespace (dataframes show text as text: no HTML escaping); chart labels are escaped.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis import VocabRow, nearly_unused, visible_whitespace
from explorer.display.charts import chart_font, figure
from explorer.display.tables import EMPTY  # noqa: F401 - the pages' tables show it for unknown numbers

MAX_PICKER = 5_000  # above this many tokens the life story is picked by id, not from a list
UNITS = {"chars": "characters", "bytes": "bytes"}


def shown(row: VocabRow) -> str:
    """A token as every page shows it: `display_token`'s text (whitespace visible, hex groups)."""
    return row.display


def vocab_frame(rows: Sequence[VocabRow]) -> pd.DataFrame:
    """The whole vocabulary, one row per token in id order; empty cells where a number is unknown."""
    def nullable(values: list[int | None]) -> pd.Series:
        return pd.Series(values, dtype="Int64")

    return pd.DataFrame(
        {
            "id": [r.id for r in rows],
            "token": [shown(r) for r in rows],
            "step": nullable([None if r.rank is None else r.rank + 1 for r in rows]),
            "count when merged": nullable([r.count for r in rows]),
            "characters": [r.chars for r in rows],
            "bytes": [r.n_bytes for r in rows],
            "uses after training": nullable([r.uses for r in rows]),
            "kept %": pd.Series([None if r.kept is None else round(100 * r.kept, 1) for r in rows], dtype="Float64"),
        }
    )


def search(rows: Sequence[VocabRow], query: str) -> list[VocabRow]:
    """Rows whose token contains `query` (case-insensitive; `·` or a space both match a space)."""
    if not query:
        return list(rows)
    q = query.casefold()
    q_visible = visible_whitespace(query).casefold()
    return [r for r in rows if q in r.display.casefold() or q_visible in shown(r).casefold()]


def length_histogram(rows: Sequence[VocabRow], *, unit: str = "chars", presenter: bool = False) -> go.Figure:
    """How many tokens have each length, base symbols and merged tokens stacked."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}")
    length = (lambda r: r.chars) if unit == "chars" else (lambda r: r.n_bytes)
    base = Counter(length(r) for r in rows if r.rank is None)
    merged = Counter(length(r) for r in rows if r.rank is not None)
    xs = sorted(set(base) | set(merged))
    font = chart_font(presenter)
    data = [
        {"type": "bar", "name": "base symbols", "x": xs, "y": [base.get(x, 0) for x in xs],
         "marker": {"color": "#bdbdbd"}, "hovertemplate": "%{y:,} base symbols of length %{x}<extra></extra>"},
        {"type": "bar", "name": "merged tokens", "x": xs, "y": [merged.get(x, 0) for x in xs],
         "marker": {"color": "#1f77b4"}, "hovertemplate": "%{y:,} merged tokens of length %{x}<extra></extra>"},
    ]
    layout = {
        "barmode": "stack",
        "title": {"text": f"Token lengths in {UNITS[unit]}", "font": font},
        "font": font,
        "height": 340 if presenter else 300,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": f"length ({UNITS[unit]})"}, "dtick": 1 if len(xs) <= 30 else None},
        "yaxis": {"title": {"text": "tokens"}},
        "legend": {"orientation": "h", "y": -0.25},
    }
    return figure(data, layout)


def unused_frame(rows: Sequence[VocabRow], *, threshold: float = 0.25) -> pd.DataFrame:
    """Merged tokens that later merges left nearly unused, and the tokens that took their place."""
    by_token = {r.token: r for r in rows}
    found = nearly_unused(rows, threshold=threshold)
    return pd.DataFrame(
        {
            "id": [r.id for r in found],
            "token": [shown(r) for r in found],
            "step": pd.Series([None if r.rank is None else r.rank + 1 for r in found], dtype="Int64"),
            "count when merged": pd.Series([r.count for r in found], dtype="Int64"),
            "uses after training": pd.Series([r.uses for r in found], dtype="Int64"),
            "built into": [_children_text(r, by_token) for r in found],
        }
    )


def _children_text(row: VocabRow, by_token: dict[str, VocabRow], *, shown_max: int = 6) -> str:
    names = [shown(by_token[c]) if c in by_token else visible_whitespace(c) for c in row.children[:shown_max]]
    return ", ".join(names) + (", …" if len(row.children) > shown_max else "")


def token_label(row: VocabRow) -> str:
    """How a token is named in a picker: `17 · lo (step 7)`, the step that made it."""
    made = f" (step {row.rank + 1})" if row.rank is not None else " (base)"
    return f"{row.id} · {shown(row)}{made}"


def default_token(rows: Sequence[VocabRow]) -> int | None:
    """The id to show first: the token the last merge made, else the first token."""
    merged = [r for r in rows if r.rank is not None]
    if merged:
        return max(merged, key=lambda r: r.rank).id
    return rows[0].id if rows else None
