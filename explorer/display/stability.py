"""The Training stability page's chart, divergence chips and table. Pure: no Streamlit here.

The comparison is `bpe_core.analysis.stability`; this module draws it. The chart holds no
outside text (fractions and percentages only); the chips are escaped HTML (`render`); the table
shows tokens as text (dataframes show text as text).
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis import FractionStability, Stability, token_text
from explorer.display.charts import chart_font, figure
from explorer.display.render import TOKEN_CAP, Chip, cap_token, chip_html, escape

VOCAB_COLOUR = "#d62728"
FIRST_COLOURS = ("#9ecae1", "#6baed6", "#3182bd", "#08519c", "#08306b")
Pair = tuple[str, str]


def fraction_label(fraction: float) -> str:
    """0.01 -> '1%', 0.5 -> '50%', 0.025 -> '2.5%'.

    >>> fraction_label(0.01), fraction_label(1.0), fraction_label(0.025)
    ('1%', '100%', '2.5%')
    """
    return f"{fraction * 100:.4g}%"


def shares_figure(found: Stability, *, presenter: bool = False) -> go.Figure:
    """For each fraction: the share of the final vocabulary it has, and of the full run's first N merges."""
    xs = [fraction_label(f.fraction) for f in found.fractions]
    data = [{"type": "scatter", "mode": "lines+markers", "name": "final vocabulary (merged tokens)", "x": xs,
             "y": [100 * f.vocabulary_share for f in found.fractions],
             "line": {"color": VOCAB_COLOUR, "width": 3}, "marker": {"size": 10},
             "hovertemplate": "trained on %{x}: %{y:.1f}% of the final vocabulary<extra></extra>"}]
    for i, n in enumerate(found.checkpoints):
        data.append({
            "type": "scatter", "mode": "lines+markers", "name": f"first {n:,} merges", "x": xs,
            "y": [100 * dict(f.first_shares)[n] for f in found.fractions],
            "line": {"color": FIRST_COLOURS[i % len(FIRST_COLOURS)], "dash": "dot"},
            "hovertemplate": f"trained on %{{x}}: %{{y:.1f}}% of the full run's first {n:,} merges<extra></extra>"})
    font = chart_font(presenter)
    layout = {
        "title": {"text": "How much of the full run each prefix already learned", "font": font},
        "font": font,
        "height": 400 if presenter else 360,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": "share of the corpus trained on (its start)"}, "type": "category"},
        "yaxis": {"title": {"text": "% already learned"}, "range": [0, 105]},
        "legend": {"orientation": "h", "y": -0.25},
    }
    return figure(data, layout)


def _chip(token: str, run: Sequence[Pair], *, byte_level: bool, new: bool = False) -> str:
    """A token as a chip coloured by the step of `run` that made it; a long token cut to TOKEN_CAP characters."""
    birth = next((i for i, (a, b) in enumerate(run) if a + b == token), None)
    shown = token_text(token, byte_level=byte_level)
    if len(shown) > TOKEN_CAP:
        return f'<span class="bpe-chip" title="{escape(cap_token(shown, 200))}">{escape(cap_token(shown))}</span>'
    return chip_html(Chip(token, birth=birth, new=new), byte_level=byte_level)


def merge_html(merge: Pair | None, run: Sequence[Pair], *, byte_level: bool) -> str:
    """`left` + `right` -> `token` as chips, or a note when that run had no merge left."""
    if merge is None:
        return '<span class="bpe-note">no merge (training ran out of pairs)</span>'
    left, right = merge
    return (f'{_chip(left, run, byte_level=byte_level)} + {_chip(right, run, byte_level=byte_level)} → '
            f'{_chip(left + right, run, byte_level=byte_level, new=True)}')


def divergence_html(one: FractionStability, found: Stability, *, byte_level: bool) -> str:
    """One fraction's first difference from the full run, its merge and the full run's side by side."""
    label = escape(fraction_label(one.fraction))
    if one.divergence is None:
        return f'<div class="bpe-stab"><b>{label}</b>: the same merges as the full run, in the same order.</div>'
    d = one.divergence
    same = "no merge in common yet" if d.step == 1 else f"the first {d.step - 1:,} merges agree"
    return (f'<div class="bpe-stab"><b>{label}</b> diverges at step {d.step:,} ({same}):<br>'
            f'trained on {label}: {merge_html(d.merge, one.merges, byte_level=byte_level)}<br>'
            f'trained on 100%: {merge_html(d.full_merge, found.full_merges, byte_level=byte_level)}</div>')


def stability_frame(found: Stability, *, byte_level: bool) -> pd.DataFrame:
    """One row per fraction: what it trained on, its shares, agreement and first difference.

    A run whose merges are the full run's has no first difference: its cells are missing values,
    which the page shows as `tables.EMPTY` (`st.dataframe(placeholder=...)`), never as "None".
    """
    rows = []
    for one in found.fractions:
        row: dict[str, object] = {
            "trained on": fraction_label(one.fraction),
            "characters": one.characters,
            "merges": len(one.merges),
            "final vocabulary %": round(100 * one.vocabulary_share, 1),
        }
        for n, share in one.first_shares:
            row[f"first {n:,} merges %"] = round(100 * share, 1)
        for k, agree in one.agreement:
            row[f"first {k:,} agree (as sets)"] = f"{agree:,} of {k:,}"
        d = one.divergence  # None: the same merges as the full run (the full run itself among them)
        row["first difference at step"] = d.step if d is not None else None
        row["its merge"] = _pair_text(d.merge, byte_level) if d is not None else None
        row["full run's merge"] = _pair_text(d.full_merge, byte_level) if d is not None else None
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["first difference at step"] = frame["first difference at step"].astype("Int64")
    return frame


def _pair_text(pair: Pair | None, byte_level: bool) -> str:
    if pair is None:
        return "(none: ran out of pairs)"
    return " + ".join(cap_token(token_text(t, byte_level=byte_level)) for t in pair)


CSS = """<style>
.bpe-stab { margin: 0.4rem 0 0.8rem 0; line-height: 2.1; }
.bpe-note { color: #666; font-style: italic; }
</style>"""
