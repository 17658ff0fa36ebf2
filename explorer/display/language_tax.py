"""The language tax drawn: a grouped bar chart and tables from `bpe_core.analysis.language_tax` rows.

Pure functions (no Streamlit). Rows name tokenizers and languages by key; the callers pass the
labels to show for them (a tokenizer's title, "Hindi · Devanagari"), which may be outside text
(an uploaded file's name, a corpus title): charts pass them through `plotly_text`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis.language_tax import TaxRow
from explorer.display.charts import FONT_SIZE, PRESENTER_FONT_SIZE, figure, legend_text, plotly_text

PREMIUM, PER_CHARACTER = "premium", "per_character"
METRICS = {PREMIUM: "Premium over English (tokens ÷ English's tokens)", PER_CHARACTER: "Tokens per character"}
COLUMNS = ["Language", "Script", "Tokenizer", "Bytes", "Characters", "Tokens", "Tokens per character",
           "Tokens per byte", "Premium over English"]
# Colours of the tokenizers' bars, in order (Plotly's default qualitative set, readable on white).
PALETTE = ["#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880"]


def unique_labels(labels: Mapping[str, str]) -> dict[str, str]:
    """The labels with a " (2)", " (3)"… added to repeats, so no two keys share a column or a legend entry.

    >>> unique_labels({"a": "x", "b": "x", "c": "y"})
    {'a': 'x', 'b': 'x (2)', 'c': 'y'}
    """
    seen: dict[str, int] = {}
    out = {}
    for key, label in labels.items():
        seen[label] = seen.get(label, 0) + 1
        out[key] = label if seen[label] == 1 else f"{label} ({seen[label]})"
    return out


def value(row: TaxRow, metric: str) -> float | None:
    """The row's number for a metric: its premium (None when the text is not parallel) or tokens per character."""
    if metric == PREMIUM:
        return row.premium
    if metric == PER_CHARACTER:
        return row.stats.tokens_per_character
    raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")


def long_frame(rows: Sequence[TaxRow], languages: Mapping[str, tuple[str, str]],
               tokenizers: Mapping[str, str]) -> pd.DataFrame:
    """Every number, one row per tokenizer and language; ``languages`` maps a code to (name, script)."""
    names = unique_labels(tokenizers)
    records = [
        [*languages[r.language], names[r.tokenizer], r.stats.bytes, r.stats.characters, r.stats.tokens,
         round(r.stats.tokens_per_character, 4), round(r.stats.tokens_per_byte, 4),
         None if r.premium is None else round(r.premium, 3)]
        for r in rows
    ]
    return pd.DataFrame(records, columns=COLUMNS)


def wide_frame(rows: Sequence[TaxRow], metric: str, languages: Mapping[str, tuple[str, str]],
               tokenizers: Mapping[str, str]) -> pd.DataFrame:
    """One row per language (in the rows' order), one column per tokenizer: the metric's value."""
    names = unique_labels(tokenizers)
    digits = 3 if metric == PREMIUM else 4
    table: dict[str, dict[str, float | None]] = {}
    for r in rows:
        number = value(r, metric)
        table.setdefault(r.language, {})[names[r.tokenizer]] = None if number is None else round(number, digits)
    frame = pd.DataFrame.from_dict(table, orient="index")
    frame.insert(0, "Script", [languages[code][1] for code in frame.index])
    frame.index = pd.Index([languages[code][0] for code in frame.index], name="Language")
    return frame


def tax_figure(rows: Sequence[TaxRow], metric: str, languages: Mapping[str, tuple[str, str]],
               tokenizers: Mapping[str, str], *, presenter: bool = False) -> go.Figure:
    """Grouped bars: a group per language, a bar per tokenizer; for the premium a dashed line at 1
    (English). Languages without a value for the metric (a corpus that is not parallel) are left out."""
    names = unique_labels(tokenizers)
    order = list(dict.fromkeys(r.language for r in rows if value(r, metric) is not None))
    data = []
    for index, key in enumerate(tokenizers):
        mine = {r.language: value(r, metric) for r in rows if r.tokenizer == key}
        x = [code for code in order if mine.get(code) is not None]
        y = [mine[code] for code in x]
        label = legend_text(names[key])
        data.append({
            "type": "bar", "name": label, "x": [plotly_text(languages[code][0]) for code in x], "y": y,
            "marker": {"color": PALETTE[index % len(PALETTE)]},
            "hovertext": [f"{label}<br>{plotly_text(languages[code][0])}: {v:.3f}" for code, v in zip(x, y)],
            "hoverinfo": "text",
        })
    size = PRESENTER_FONT_SIZE if presenter else FONT_SIZE
    layout: dict = {
        "barmode": "group", "height": 500, "margin": {"l": 60, "r": 20, "t": 30, "b": 40},
        "font": {"size": size}, "yaxis": {"title": {"text": METRICS[metric]}, "rangemode": "tozero"},
        "xaxis": {"tickangle": -30, "automargin": True},
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"}, "bargap": 0.2,
    }
    if metric == PREMIUM:
        layout["shapes"] = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1,
                             "line": {"color": "#444", "dash": "dash", "width": 1}}]
    return figure(data, layout)


def sources_frame(languages: Sequence, texts: Mapping[str, str]) -> pd.DataFrame:
    """The sample set's languages (`sample_corpora.SampleLanguage`s): size, source and licence of each."""
    records = [[lang.name, lang.script, len(texts[lang.code].encode("utf-8")), len(texts[lang.code]), lang.source,
                lang.licence] for lang in languages]
    return pd.DataFrame(records, columns=["Language", "Script", "Bytes", "Characters", "Source", "Licence"])
