"""The Compare page's data and drawings: which tokenizers, their chips, the disputed places. Pure.

No Streamlit here. `bpe_core.analysis.compare_segmentations` finds the disputed places; this
module turns them into escaped HTML (chips outlined in red where boundaries disagree, and the
text with a red bar at each disputed cut), a table of counts and the token-count curves.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_core import Settings, Tokenizer
from bpe_core.analysis import Column, ComparedToken, Comparison, hex_bytes, visible_whitespace
from bpe_core.families.registry import family
from explorer.data.any_model import AnyModel, overlap_keys
from explorer.data.training import Trained, TrainRequest
from explorer.display.charts import chart_font, figure
from explorer.display.render import Chip, chip_html, escape, hue
from explorer.display.vocabulary import marked_chip
from explorer.families import explorer_family

if TYPE_CHECKING:  # imported where a table is made: a worker that tokenizes makes none
    import pandas as pd
    import plotly.graph_objects as go

MAX_ENTRIES = 4
MAX_TEXT = 5_000  # characters compared; four columns of chips for more would be slow to draw
CURVE_POINTS = 40
KINDS = ("sidebar", "trained", "file", "builtin")


@dataclass(frozen=True, eq=False)
class Entry:
    """One tokenizer on the Compare page.

    kind "sidebar": whatever the sidebar trained (follows it); "trained": a bundle trained for this
    page; "file": an upload, found by `key` among the session's uploads; "builtin": a built-in
    tokenizer (`key` is the picker's, "builtin:<name>").
    """

    kind: str
    key: str
    label: str
    trained: Trained | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown entry kind {self.kind!r}")


SIDEBAR_ENTRY_KEY = "sidebar"


def sidebar_entry() -> Entry:
    return Entry("sidebar", SIDEBAR_ENTRY_KEY, "the tokenizer trained in the sidebar")


def add_entry(entries: Sequence[Entry], entry: Entry) -> tuple[list[Entry], str]:
    """The entries with `entry` appended, or unchanged with a message saying why not."""
    if any(e.key == entry.key for e in entries):
        return list(entries), f"{entry.label} is already being compared."
    if len(entries) >= MAX_ENTRIES:
        return list(entries), f"At most {MAX_ENTRIES} tokenizers side by side: remove one first."
    return [*entries, entry], ""


def unavailable(entries: Sequence[Entry], key: str | None = None) -> str:
    """Why the tokenizer with `key` (None: any more) cannot be added now, as a short sentence ("" when it can).

    >>> unavailable([Entry("builtin", "builtin:gpt2", "GPT-2")], "builtin:gpt2")
    'Already being compared.'
    """
    if key is not None and any(e.key == key for e in entries):
        return "Already being compared."
    if len(entries) >= MAX_ENTRIES:
        return f"{MAX_ENTRIES} of {MAX_ENTRIES} in use: remove one to add another."
    return ""


def short_description(request: TrainRequest) -> str:
    """A training request in a few words, naming only what differs from the mode's defaults.

    >>> short_description(TrainRequest(Settings(mode="bytes", tie_break="first"), "merges", 20))
    'bytes mode, tie-break first, 20 merges'
    """
    if "mode" not in explorer_family(request.family).options:  # a vocabulary size, the family's own splitting
        return (f"{family(request.family).title}, vocabulary {request.amount:,}"
                + (f", transition {request.transition:,}" if request.transition else ""))
    s, defaults = request.settings, Settings(mode=request.settings.mode)
    bits = [f"{s.mode} mode"]
    if s.mode == "word" and s.eow != defaults.eow:
        bits.append(f"end-of-word {s.eow}")
    if s.pretokenizer != defaults.pretokenizer:
        bits.append(f"pre-tokenizer {s.pretokenizer}")
    if s.tie_break != defaults.tie_break:
        bits.append(f"tie-break {s.tie_break}")
    bits.append(f"{request.amount:,} merges" if request.target == "merges" else f"vocabulary {request.amount:,}")
    return ", ".join(bits)


def is_byte_level(tok: Tokenizer | AnyModel) -> bool:
    return as_any(tok).byte_level


def as_any(tok: Tokenizer | AnyModel) -> AnyModel:
    return tok if isinstance(tok, AnyModel) else AnyModel.of(tok)


# ---- chips -----------------------------------------------------------------------------------

def _hex_chip(data: bytes, label: str, token_id: int, birth: int | None) -> str:
    """A token as its bytes in hex, `<e6 97 a5>`, coloured like `render.chip_html` (`label`: its shown text)."""
    shown = hex_bytes(data)
    style = f' style="background:hsl({hue(birth)},75%,86%)"' if birth is not None else ""
    base = "" if birth is not None else " bpe-base"
    title = escape(f"token {label!r} · id {token_id} · bytes {shown}")
    return (f'<span class="bpe-chip{base}"{style} title="{title}"><span class="bpe-hex">{escape(shown)}</span>'
            f'<sub class="bpe-id">{token_id}</sub></span>')


def token_chip(tok: Tokenizer | AnyModel, text: str, item: ComparedToken, *, as_hex: bool = False,
               unknown: bool | None = None, special: bool = False) -> str:
    """One compared token as an escaped chip with its id; red-outlined when a disputed place touches it.

    `unknown`: whether the token stands for text the model does not know (None: a merge list's
    unknown id); `special`: an added or special token cut out of the text whole, drawn as its text
    in its own style; `as_hex`: a token with bytes of its own (`AnyModel.draws_bytes`) as those bytes.
    A token its family marks (a superword) is underlined in purple.
    """
    model = as_any(tok)
    birth = model.birth.get(item.token)
    if unknown is None:
        unknown = _is_unknown(model, item.id)
    if unknown:
        chip = chip_html(Chip(text[item.start:item.end] or item.token, token_id=item.id, unknown=True,
                                   unk_label=model.unk_token or "<unk>"), show_id=True)
    elif as_hex and model.draws_bytes and not special:
        chip = _hex_chip(model.token_bytes(item.token), model.shown(item.token), item.id, birth)
    else:
        spelling, byte_level = model.drawn(item.token)
        chip = chip_html(Chip(spelling, token_id=item.id, birth=birth, special=special), byte_level=byte_level,
                         show_id=True)
    if item.disputed:  # the outline's rule wants the chip as its direct child
        chip = f'<span class="cmp-disputed" title="the tokenizers cut this part of the text differently">{chip}</span>'
    return marked_chip(chip, model.mark) if model.mark is not None and model.is_marked(item.token) else chip


def _is_unknown(model: AnyModel, token_id: int) -> bool:
    unk = model.unk_token
    return unk is not None and token_id == model.vocab.get(unk)


def column_html(tok: Tokenizer | AnyModel, text: str, column: Column, *, as_hex: bool = False,
                unknown: Sequence[bool] | None = None, special: Sequence[bool] | None = None) -> str:
    """One tokenizer's chips for the whole text (`unknown`, `special`: per token, from `AnyModel.segment`)."""
    model = as_any(tok)
    inner = "".join(token_chip(model, text, item, as_hex=as_hex, unknown=None if unknown is None else unknown[i],
                               special=special is not None and special[i])
                    for i, item in enumerate(column.tokens))
    return f'<span class="bpe-chips">{inner or "<em>no tokens</em>"}</span>'


def marked_text_html(comparison: Comparison) -> str:
    """The text with a red bar at every disputed cut and disputed split characters shaded."""
    text = comparison.text
    cuts, chars = comparison.disputed_cuts, comparison.disputed_chars
    bar = '<span class="cmp-cut" title="token boundaries disagree here"></span>'
    out = []
    for i, ch in enumerate(text):
        if i in cuts:
            out.append(bar)
        shown = escape(visible_whitespace(ch))
        if ch.isspace():
            shown = f'<span class="bpe-ws">{shown}</span>'
        if i in chars:
            shown = f'<span class="cmp-split" title="some tokenizers split this character\'s bytes">{shown}</span>'
        out.append(shown)
        if ch == "\n":
            out.append("<br>")
    if len(text) in cuts:
        out.append(bar)
    return f'<div class="cmp-text">{"".join(out)}</div>'


CSS = """
<style>
.cmp-disputed > .bpe-chip { outline: 3px solid #d62728; outline-offset: 1px; }
.cmp-text { font-family: "Source Code Pro", ui-monospace, monospace; line-height: 2; word-break: break-word;
  padding: 6px 10px; border: 1px solid rgba(0,0,0,.12); border-radius: 8px; }
.cmp-cut { display: inline-block; width: 0; height: 1.25em; border-left: 3px solid #d62728; margin: 0 1px;
  vertical-align: middle; }
.cmp-split { background: #ffc9c9; border-radius: 3px; }
</style>
"""


# ---- numbers and curves ------------------------------------------------------------------------

def counts_table(labels: Sequence[str], tokenizers: Sequence[Tokenizer | AnyModel], comparison: Comparison, *,
                 unknown: Sequence[int] | None = None) -> pd.DataFrame:
    """Per tokenizer: family, tokens, characters per token, vocabulary, merges, cuts the others lack,
    unknowns (`unknown`: counted by the caller from `AnyModel.segment`; else the tokens of the unknown id)."""
    import pandas as pd

    models = [as_any(t) for t in tokenizers]
    if unknown is None:
        unknown = [sum(1 for t in column.tokens if _is_unknown(m, t.id))
                   for m, column in zip(models, comparison.columns)]
    return pd.DataFrame(
        {
            "tokenizer": list(labels),
            "family": [m.title for m in models],
            "tokens": [c.token_count for c in comparison.columns],
            "characters per token": [round(c.chars_per_token, 2) for c in comparison.columns],
            "vocabulary": [m.vocab_size for m in models],
            "merges": pd.Series([m.merge_count for m in models], dtype="Int64"),
            "cuts the others lack": [c.unshared_cuts for c in comparison.columns],
            "unknown tokens": list(unknown),
        }
    )


def overlap_table(labels: Sequence[str], models: Sequence[AnyModel]) -> pd.DataFrame:
    """Every pair's vocabulary overlap, tokens compared by the text they stand for (`overlap_key`:
    the markers "##" and "▁", GPT-2's byte letters and the space of a word's start or end read away)."""
    import pandas as pd

    keys = [overlap_keys(m) for m in models]
    rows = []
    for i in range(len(models)):
        for j in range(i + 1, len(models)):
            shared = len(keys[i] & keys[j])
            union = len(keys[i] | keys[j])
            rows.append({"first": labels[i], "second": labels[j], "shared": shared,
                         "only first": len(keys[i]) - shared, "only second": len(keys[j]) - shared,
                         "shared % (Jaccard)": round(100 * shared / union, 1) if union else 0.0})
    return pd.DataFrame(rows, columns=["first", "second", "shared", "only first", "only second",
                                       "shared % (Jaccard)"])


PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
DASHES = ("solid", "dash", "dot", "dashdot")


def curve_figure(curves: Sequence[tuple[str, Sequence[tuple[int, int]]]], *, presenter: bool = False) -> go.Figure:
    """This text's token count against the number of merges used, one line per trained tokenizer."""
    font = chart_font(presenter)
    data = []
    for i, (name, points) in enumerate(curves):
        colour = PALETTE[i % len(PALETTE)]
        data.append({
            "type": "scatter",
            "x": [k for k, _ in points],
            "y": [n for _, n in points],
            "name": escape(name),
            "mode": "lines+markers",
            "line": {"color": colour, "width": 3, "dash": DASHES[i % len(DASHES)]},  # equal curves stay visible
            "marker": {"size": 5},
            "hovertemplate": "%{x:,} merges: %{y:,} tokens<extra></extra>",
        })
    layout = {
        "title": {"text": "Tokens in this text after the first k merges", "font": font},
        "font": font,
        "height": 380 if presenter else 320,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": "merges used (the vocabulary grows by one per merge)"}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": "tokens"}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.25},
    }
    return figure(data, layout)
