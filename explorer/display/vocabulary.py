"""The Vocabulary page's table, histogram and life-story pieces. Pure: no Streamlit here.

Rows come from `bpe_core.analysis.vocabulary_table`. Tables show tokens as text with visible
whitespace (dataframes show text as text: no HTML escaping); chart labels are escaped.
"""
from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from itertools import compress, repeat
from operator import itemgetter

import numpy as np
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
    """The whole vocabulary, one row per token in id order; empty cells where a number is unknown.

    A tokenizer without a training record (the built-ins, most files) has no merge counts and no
    uses: those columns are left out rather than sent empty. Built a column at a time, in 32-bit
    numbers where they fit: o200k's 200,000 rows take a tenth of a second and ~5 MB to the browser.
    """
    index = VocabRow._fields.index
    field = {name: list(map(itemgetter(index(name)), rows))
             for name in ("id", "display", "rank", "count", "chars", "n_bytes", "uses")}
    columns: dict[str, object] = {
        "id": _whole(field["id"]),
        "token": field["display"],
        "step": _nullable([None if r is None else r + 1 for r in field["rank"]]),
    }
    if any(map(operator.is_not, field["count"], repeat(None))):
        columns["count when merged"] = _nullable(field["count"])
    columns["characters"] = _whole(field["chars"])
    columns["bytes"] = _whole(field["n_bytes"])
    if any(map(operator.is_not, field["uses"], repeat(None))):
        columns["uses after training"] = _nullable(field["uses"])
        columns["kept %"] = pd.Series([None if r.kept is None else round(100 * r.kept, 1) for r in rows],
                                      dtype="Float64")
    return pd.DataFrame(columns)


def _whole(values: list[int]) -> np.ndarray:
    """Whole numbers as 32-bit integers where they fit (half the bytes sent to the browser)."""
    wide = bool(values) and (max(values) >= 2**31 or min(values) < -(2**31))
    return np.array(values, dtype=np.int64 if wide else np.int32)


def _nullable(values: list[int | None]) -> pd.Series:
    """Whole numbers with gaps as a nullable integer column, without pandas looking at each value."""
    n = len(values)
    missing = np.fromiter(map(operator.is_, values, repeat(None)), dtype=bool, count=n)
    known = values if not missing.any() else [0 if v is None else v for v in values]
    data = _whole(known)  # type: ignore[arg-type]  # no None left
    return pd.Series(pd.arrays.IntegerArray(data, missing))


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
    field = VocabRow._fields.index
    lengths = list(map(itemgetter(field("chars" if unit == "chars" else "n_bytes")), rows))
    made = list(map(operator.is_not, map(itemgetter(field("rank")), rows), repeat(None)))
    unbuilt = list(map(itemgetter(field("unreachable")), rows))
    merged = Counter(compress(lengths, made))
    unmade = Counter(compress(lengths, unbuilt))
    base = Counter(lengths) - merged - unmade
    xs = sorted(set(base) | set(merged) | set(unmade))
    font = chart_font(presenter)
    data = [
        {"type": "bar", "name": "base symbols", "x": xs, "y": [base.get(x, 0) for x in xs],
         "marker": {"color": "#bdbdbd"}, "hovertemplate": "%{y:,} base symbols of length %{x}<extra></extra>"},
        {"type": "bar", "name": "merged tokens", "x": xs, "y": [merged.get(x, 0) for x in xs],
         "marker": {"color": "#1f77b4"}, "hovertemplate": "%{y:,} merged tokens of length %{x}<extra></extra>"},
    ]
    if unmade:  # a rank file's tokens no merge builds (Llama 3 has 678)
        data.append({"type": "bar", "name": "no merge builds them", "x": xs, "y": [unmade.get(x, 0) for x in xs],
                     "marker": {"color": "#ff7f0e"},
                     "hovertemplate": "%{y:,} tokens no merge builds, of length %{x}<extra></extra>"})
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
    made = f" (step {row.rank + 1})" if row.rank is not None else " (no merge)" if row.unreachable else " (base)"
    return f"{row.id} · {shown(row)}{made}"


def default_token(rows: Sequence[VocabRow]) -> int | None:
    """The id to show first: the token the last merge made, else the first token."""
    merged = [r for r in rows if r.rank is not None]
    if merged:
        return max(merged, key=lambda r: r.rank).id
    return rows[0].id if rows else None
