"""The Report card page drawn: the measures table, the checks, the charts and the residue. Pure.

The cards are `bpe_core.report.ReportCard`s keyed by picker key; `labels` maps a key to the name
shown, which may be outside text (an uploaded file's name): every table here is HTML made with
`escape`, every chart string goes through `plotly_text`. A value is formatted by its measure's
kind, so this module knows no measure by name.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis.language_tax import TaxRow
from bpe_core.report import MEASURES, Check, Measure, ReportCard
from bpe_core.report.checks import FAIL, NOT_CHECKED, PASS, WARN
from bpe_core.report.measures import COUNT, RATIO, SHARE, YES_NO
from explorer.display.charts import chart_font, figure, legend_text
from explorer.display.language_tax import PALETTE, unique_labels
from explorer.display.render import escape

MAX_TOKENIZERS = 4
MAX_PIECES = 5  # words of this many tokens or more share one bar
RESIDUE_ROWS = 200
MARKS = {PASS: "✓", WARN: "!", FAIL: "✗", NOT_CHECKED: "–"}  # drawn in the page's own font: no icon font needed

CSS = """
<style>
.rc-table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
.rc-table th, .rc-table td { border-bottom: 1px solid rgba(128,128,128,0.25); padding: 0.35rem 0.5rem;
  vertical-align: top; text-align: left; overflow-wrap: anywhere; }
.rc-table th.rc-tok { min-width: 7rem; }
.rc-table tr.rc-group td { font-weight: 600; padding-top: 0.8rem; border-bottom: 2px solid rgba(128,128,128,0.4); }
.rc-def { font-size: 0.8rem; opacity: 0.75; }
.rc-best { font-weight: 700; }
.rc-none { opacity: 0.6; }
.rc-checks { display: grid; gap: 0.75rem; }
.rc-check { display: grid; grid-template-columns: 1.6rem 1fr; gap: 0.2rem 0.4rem; margin-bottom: 0.45rem; }
.rc-mark { font-weight: 700; text-align: center; border-radius: 0.3rem; line-height: 1.5rem; }
.rc-pass { background: #d8f3dc; color: #1b5e20; }
.rc-warn { background: #fff3cd; color: #7a4f00; }
.rc-fail { background: #fde2e1; color: #9b1c1c; }
.rc-not-checked { background: #eceff1; color: #455a64; }
.rc-reason { font-size: 0.85rem; opacity: 0.85; grid-column: 2; }
</style>
"""


def format_value(measure: Measure, value: float | int | str | bool | None) -> str:
    """A value as the table shows it, by the measure's kind.

    >>> from bpe_core.report import measure
    >>> format_value(measure("continued_word_rate"), 0.23456), format_value(measure("never_produced"), 40700)
    ('23.5%', '40,700')
    >>> format_value(measure("cut_character_rate"), 0.00002), format_value(measure("round_trip"), False)
    ('<0.01%', 'no')
    """
    if value is None:
        return "—"
    if measure.kind == SHARE:
        share = float(value)
        return "<0.01%" if 0 < share < 0.0001 else f"{share:.2%}" if share < 0.1 else f"{share:.1%}"
    if measure.kind == RATIO:
        return f"{float(value):.3f}"
    if measure.kind == COUNT:
        return f"{int(value):,}"
    if measure.kind == YES_NO:
        return "yes" if value else "no"
    return str(value)


def _best(measure: Measure, found: Sequence[float | int | str | bool | None]) -> set[int]:
    """Which columns hold the best value of a row (none when the measure has no better side or all tie)."""
    numbers = [(i, float(v)) for i, v in enumerate(found) if isinstance(v, (int, float)) and not isinstance(v, bool)
               and not math.isnan(float(v))]
    if measure.better is None or len(numbers) < 2 or len({v for _, v in numbers}) < 2:
        return set()
    pick = max if measure.better == "higher" else min
    top = pick(v for _, v in numbers)
    return {i for i, v in numbers if v == top}


def card_table_html(cards: Mapping[str, ReportCard], labels: Mapping[str, str]) -> str:
    """Every measure a row (grouped, with its definition and source), every tokenizer a column."""
    keys = list(cards)
    names = unique_labels({k: labels[k] for k in keys})
    head = "".join(f'<th class="rc-tok">{escape(names[k])}</th>' for k in keys)
    rows = [f"<thead><tr><th>Measure</th>{head}</tr></thead><tbody>"]
    group = None
    for one in MEASURES:
        if one.group != group:
            group = one.group
            rows.append(f'<tr class="rc-group"><td colspan="{len(keys) + 1}">{escape(group)}</td></tr>')
        found = [one.value(cards[k]) for k in keys]
        best = _best(one, found)
        cells = []
        for i, value in enumerate(found):
            if value is None:
                cells.append(f'<td class="rc-none">— <span class="rc-def">{escape(one.why_missing)}</span></td>')
            else:
                cells.append(f'<td class="{"rc-best" if i in best else ""}">{escape(format_value(one, value))}</td>')
        better = f" ({one.better} is better)" if one.better else ""
        rows.append(f'<tr><td>{escape(one.title)}<div class="rc-def">{escape(one.definition)}{escape(better)}. '
                    f"Source: {escape(one.source)}.</div></td>{''.join(cells)}</tr>")
    rows.append("</tbody>")
    return f'<table class="rc-table">{"".join(rows)}</table>'


def checks_html(found: Sequence[Check]) -> str:
    """One tokenizer's checks: a mark, the check's name and its reason."""
    items = []
    for check in found:
        kind = check.status.replace(" ", "-")
        items.append(f'<div class="rc-check"><span class="rc-mark rc-{kind}" title="{escape(check.status)}">'
                     f"{MARKS[check.status]}</span><span>{escape(check.name)}: {escape(check.status)}</span>"
                     f'<span class="rc-reason">{escape(check.reason)}</span></div>')
    return "".join(items)


def pieces_figure(cards: Mapping[str, ReportCard], labels: Mapping[str, str], *, presenter: bool = False) -> go.Figure:
    """Grouped bars: the share of words cut into 1, 2, … tokens (MAX_PIECES and more together)."""
    names = unique_labels({k: labels[k] for k in cards})
    bins = [str(n) for n in range(1, MAX_PIECES)] + [f"{MAX_PIECES}+"]
    data = []
    for index, (key, card) in enumerate(cards.items()):
        counts = [0] * MAX_PIECES
        for pieces, n in card.text.pieces.items():
            if pieces >= 1:
                counts[min(pieces, MAX_PIECES) - 1] += n
        total = card.text.words or 1
        shares = [c / total for c in counts]
        label = legend_text(names[key])
        data.append({"type": "bar", "name": label, "x": bins, "y": shares,
                     "marker": {"color": PALETTE[index % len(PALETTE)]},
                     "hovertext": [f"{label}<br>{b} tokens: {s:.1%} of words" for b, s in zip(bins, shares)],
                     "hoverinfo": "text"})
    layout = {"barmode": "group", "height": 360, "margin": {"l": 60, "r": 20, "t": 30, "b": 50},
              "font": chart_font(presenter), "yaxis": {"title": {"text": "share of words"}, "tickformat": ".0%"},
              "xaxis": {"title": {"text": "tokens in the word"}, "type": "category"},
              "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"}}
    return figure(data, layout)


def tax_rows(cards: Mapping[str, ReportCard]) -> list[TaxRow]:
    """The parallel set's languages of every card that has them, as the Language tax chart draws them."""
    return [TaxRow(key, row.code, row.stats, row.premium)
            for key, card in cards.items() if card.fairness is not None for row in card.fairness.languages]


def residue_frame(card: ReportCard, shown: Callable[[str], str]) -> pd.DataFrame:
    """A card's residue tokens, most made first: the token as the page draws it, and its counts."""
    columns = ["token", "made", "emitted whole", "made inside longer tokens", "consumed share"]
    if card.residue is None:
        return pd.DataFrame([], columns=columns)
    records = [[shown(t.token), t.made, t.emitted, t.inside, round(t.consumed_share, 4)]
               for t in card.residue.residue[:RESIDUE_ROWS]]
    return pd.DataFrame(records, columns=columns)
