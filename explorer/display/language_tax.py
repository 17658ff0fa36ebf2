"""The language tax drawn: a grouped bar chart and tables from `bpe_core.analysis.language_tax` rows.

Pure functions (no Streamlit). Rows name tokenizers and languages by key; the callers pass the
labels to show for them (a tokenizer's title, "Hindi · Devanagari"), which may be outside text
(an uploaded file's name, a corpus title): charts pass them through `plotly_text`.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from bpe_core import BPEError
from bpe_core.analysis.language_tax import TaxRow
from explorer.data.any_model import AnyModel
from explorer.display.charts import FONT_SIZE, PRESENTER_FONT_SIZE, figure, legend_text, plotly_text
from explorer.display.render import escape
from explorer.display.tokenize import chips_html, tokenized

PREMIUM, PER_CHARACTER = "premium", "per_character"
METRICS = {PREMIUM: "Premium over English (tokens ÷ English's tokens)", PER_CHARACTER: "Tokens per character"}
COLUMNS = ["Language", "Script", "Tokenizer", "Bytes", "Characters", "Tokens", "Unknown tokens",
           "Tokens per character", "Tokens per byte", "Premium over English"]
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
               tokenizers: Mapping[str, str], unknown: Mapping[str, Mapping[str, int]] | None = None) -> pd.DataFrame:
    """Every number, one row per tokenizer and language; ``languages`` maps a code to (name, script);
    ``unknown``: tokenizer key -> language -> its unknown tokens (`unknown_counts`; none given: 0)."""
    names = unique_labels(tokenizers)
    unknown = unknown or {}
    records = [
        [*languages[r.language], names[r.tokenizer], r.stats.bytes, r.stats.characters, r.stats.tokens,
         unknown.get(r.tokenizer, {}).get(r.language, 0),
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


def short_headers(tokenizers: Mapping[str, str], short: Mapping[str, str]) -> dict[str, str]:
    """The wide table's column (a tokenizer's unique label) -> a shorter header, for the keys in `short`.

    >>> short_headers({"a": "GPT-2 (gpt2)", "b": "mine"}, {"a": "GPT-2"})
    {'GPT-2 (gpt2)': 'GPT-2'}
    """
    names = unique_labels(tokenizers)
    return {names[key]: header for key, header in short.items() if key in names}


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


# ---- unknown tokens: where a count is too low ------------------------------------------------------

NOTE_LANGUAGES = 5  # languages named in an unknown-token note, the worst first


def unknown_counts(model: AnyModel, texts: Mapping[str, str]) -> dict[str, int]:
    """Each text's unknown tokens through `model`: tokens standing for text its vocabulary cannot spell.

    A model without an unknown token never makes one ({} at once, nothing encoded). The counts come
    from the ids (`count_unknown`), which the token counts have just cached: no spans are made.
    """
    if model.unk_token is None:
        return {}
    return {code: model.count_unknown(text) for code, text in texts.items()}


def unknown_note(label: str, unknown: Mapping[str, int], rows: Sequence[TaxRow],
                 languages: Mapping[str, tuple[str, str]], *, token: str) -> str:
    """Plain text: which languages a tokenizer (`label`) met with unknown tokens (`token`), how many of
    how many, and why its count and premium are then too low. "" when it made none."""
    tokens = {r.language: r.stats.tokens for r in rows}
    hit = [(code, n) for code, n in unknown.items() if n and code in tokens]
    if not hit:
        return ""
    hit.sort(key=lambda item: -item[1] / max(tokens[item[0]], 1))  # the largest share first
    shown = ", ".join(f"{languages[code][0]} {n:,} of {tokens[code]:,} tokens ({100 * n / max(tokens[code], 1):.0f}%)"
                      for code, n in hit[:NOTE_LANGUAGES])
    if len(hit) > NOTE_LANGUAGES:
        shown += f" and {len(hit) - NOTE_LANGUAGES:,} more (every count is under \"Every number\")"
    return (f"{label} made unknown tokens ({token}) in {len(hit):,} of {len(tokens):,} texts: {shown}. "
            f"Each {token} stands for text this vocabulary cannot spell (a character, or a whole word) in one "
            "token, where a tokenizer that knows the script needs several: these counts, and the premiums "
            "built on them, are too low, so these languages look cheaper than they are.")


# ---- the same sentence in each language, token by token ---------------------------------------------

SENTENCE_WORDS = 8  # a message reads as a sentence from this many English words
SENTENCE_CHARS = 110
_NOT_PROSE = re.compile(r'[%{}<>"_=\n]')  # a placeholder, markup or a line break


def sentence_choices(messages: Mapping[str, Sequence[str]], *, reference: str = "en") -> list[int]:
    """The messages that read as one short sentence: in English a capital first, a full stop last,
    at least SENTENCE_WORDS words and no placeholder or markup; in no language a line break.

    >>> sentence_choices({"en": ["Save", "No file was submitted. Check the form, then save it.", "Done."],
    ...                   "fr": ["Enregistrer", "Aucun fichier n'a été soumis.", "Fini."]})
    [1]
    """
    out = []
    for i, english in enumerate(messages[reference]):
        if (len(english.split()) >= SENTENCE_WORDS and len(english) <= SENTENCE_CHARS and english[:1].isupper()
                and english.endswith(".") and not _NOT_PROSE.search(english)
                and all("\n" not in texts[i] for texts in messages.values())):
            out.append(i)
    return out


@dataclass(frozen=True)
class SentenceRow:
    """One tokenizer's tokens of one sentence: its label (outside text), the drawn chips (escaped
    HTML), its token count and unknown tokens; `error`: why it could not encode the sentence."""

    label: str
    chips: str
    tokens: int
    unknown: int
    error: str = ""


def sentence_rows(models: Sequence[tuple[str, AnyModel]], sentence: str) -> list[SentenceRow]:
    """The sentence through each (label, model), drawn with the Tokenize page's chips."""
    rows = []
    for label, model in models:
        try:
            result = tokenized(model, sentence)
        except BPEError as exc:  # e.g. a file's tokenizer without an unknown token meets an unseen character
            rows.append(SentenceRow(label, "", 0, 0, str(exc)))
            continue
        rows.append(SentenceRow(label, chips_html(model, sentence, result), result.count, result.unknown))
    return rows


def sentence_html(language: str, script: str, sentence: str, rows: Sequence[SentenceRow]) -> str:
    """A language's sentence, then a row per tokenizer: its name, its tokens as chips, the count."""
    lines = []
    for row in rows:
        if row.error:
            body = f'<span class="tax-error">cannot encode it: {escape(row.error)}</span>'
            count = ""
        else:
            body = row.chips
            count = f"{row.tokens:,} token{'s' * (row.tokens != 1)}" + (
                f', <span class="tax-unk">{row.unknown:,} unknown</span>' if row.unknown else "")
        lines.append(f'<div class="tax-row"><span class="tax-name">{escape(row.label)}</span>{body}'
                     f'<span class="bpe-count">{count}</span></div>')
    return (f'<div class="tax-sentence"><div class="tax-lang"><b>{escape(language)}</b> · {escape(script)}: '
            f'<span dir="auto" class="tax-text">{escape(sentence)}</span></div>{"".join(lines)}</div>')


CSS = """<style>
.tax-sentence { margin: 0.3rem 0 0.9rem 0; }
.tax-lang { margin-bottom: 0.2rem; }
.tax-text { color: #333; unicode-bidi: isolate; }
.tax-row { display: flex; align-items: center; gap: 8px; padding: 3px 0; border-top: 1px solid rgba(0,0,0,.06); }
.tax-name { flex: 0 0 9.5em; color: #444; font-size: 0.85em; overflow-wrap: anywhere; }
.tax-row .bpe-chips { flex: 1 1 auto; }
.tax-row .bpe-count { flex: 0 0 auto; min-width: 6em; }
.tax-unk { color: #c33; }
.tax-error { color: #c33; font-style: italic; }
</style>"""
