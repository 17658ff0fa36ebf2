"""Data -> Plotly figures. Pure: no Streamlit here, so every figure is tested on its own.

Plotly reads a few HTML-like tags (`<b>`, `<br>`, `<a href>`) and entities (`&amp;`, `&#34;`) in every
string it draws, so every string that came from outside (a corpus, a tokenizer, a file name) goes
through `plotly_text` first: Plotly then shows `<b>` and `&quot;` as those characters.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bpe_core.analysis import Curve
from explorer.display.render import isolate, token_text

if TYPE_CHECKING:  # imported where a table or a chart is made: a worker that only tokenizes makes none
    import plotly.graph_objects as go

CHOSEN = "#d62728"
OTHER = "#9ecae1"
MAX_CURVE_POINTS = 500  # enough for a smooth line; more makes every frame slower


FONT_SIZE = 13
PRESENTER_FONT_SIZE = 18  # every chart's type in presenter mode (the page's own type is in render.PRESENTER_CSS)
# The curve under the training animation stands beside the player in presenter mode, in a column
# about 400 px wide: this tall, it ends inside a 1280x720 screen; its title breaks into lines.
PRESENTER_CURVE_HEIGHT = 560
PRESENTER_TITLE_WIDTH = 30  # characters a line of such a title


def chart_font(presenter: bool) -> dict:
    """The font size of every chart, normal or in presenter mode."""
    return {"size": PRESENTER_FONT_SIZE if presenter else FONT_SIZE}


def curve_layout(title: str, *, presenter: bool, height: int) -> dict:
    """What every curve under the training animation's layout starts from: title, type, height and
    margins. In presenter mode (a narrow column beside the player) the title breaks into lines of
    about `PRESENTER_TITLE_WIDTH` characters, the top margin makes room for them, and the height is
    `PRESENTER_CURVE_HEIGHT`.

    >>> layout = curve_layout("Compression: tokens after each merge", presenter=True, height=400)
    >>> layout["title"]["text"], layout["margin"]["t"], layout["height"]
    ('Compression: tokens after each<br>merge', 82, 560)
    """
    font = chart_font(presenter)
    if not presenter:
        return {"title": {"text": plotly_text(title), "font": font}, "font": font, "height": height,
                "margin": {"l": 10, "r": 10, "t": 40, "b": 10}}
    text = legend_text(title, width=PRESENTER_TITLE_WIDTH)
    lines = text.count("<br>") + 1
    return {"title": {"text": text, "font": font}, "font": font, "height": PRESENTER_CURVE_HEIGHT,
            "margin": {"l": 10, "r": 10, "t": 30 + 26 * lines, "b": 10}}


def plotly_text(text: str) -> str:
    """Outside text for any Plotly string (tick label, hover text, annotation, title), shown literally.

    Only `&`, `<` and `>` are escaped: Plotly decodes `&lt;`, `&gt;` and `&amp;` but not `&quot;`,
    so escaping quotes would show the entity itself. Never put the result in a hover *template*
    (where `%{...}` is read); use `hovertext` for outside text. Right-to-left text and bidirectional
    controls are isolated (`render.isolate`), as on the page.

    >>> plotly_text('<b>"x" & y</b>')
    '&lt;b&gt;"x" &amp; y&lt;/b&gt;'
    """
    return isolate(str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def legend_text(text: str, *, width: int = 40) -> str:
    """Outside text for a legend entry, escaped and broken into lines of about `width` characters at
    spaces: Plotly never wraps a legend, so a long name would run past the chart's edge.

    >>> legend_text("Trained here: <b>lesson</b>, word mode, 10 merges", width=20)
    'Trained here:<br>&lt;b&gt;lesson&lt;/b&gt;, word<br>mode, 10 merges'
    """
    lines: list[str] = []
    for word in str(text).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(plotly_text(line) for line in lines)


def label(token: str, *, byte_level: bool = False) -> str:
    """A token as a chart label: visible whitespace, escaped for Plotly."""
    return plotly_text(token_text(token, byte_level=byte_level))


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure from plain dicts, skipping Plotly's per-property validation.

    Validation costs tens of milliseconds per figure, too slow for an animation frame; the tests
    validate every figure these functions make (`go.Figure(fig.to_dict())`).

    Every axis's tick labels and the legend are drawn at the layout's type size: Streamlit's theme
    would draw them at 7/8 of it, under the size presenter mode promises (`PRESENTER_FONT_SIZE`).
    """
    import plotly.graph_objects as go

    size = (layout.get("font") or {}).get("size")
    if size:
        layout = dict(layout)
        for name in [k for k in layout if k.startswith(("xaxis", "yaxis"))] or ["xaxis", "yaxis"]:
            axis = dict(layout.get(name) or {})
            axis["tickfont"] = {"size": size, **(axis.get("tickfont") or {})}
            layout[name] = axis
        legend = dict(layout.get("legend") or {})
        legend["font"] = {"size": size, **(legend.get("font") or {})}
        layout["legend"] = legend
    return go.Figure(data=data, layout=layout, _validate=False)


def top_pairs_figure(
    pairs: Sequence[tuple[str, str, int]],
    *,
    chosen: int | None = 0,
    byte_level: bool = False,
    presenter: bool = False,
    title: str = "Highest pair counts at this step",
) -> go.Figure:
    """Horizontal bars, best pair on top, the chosen pair in red."""
    labels = [f"{label(a, byte_level=byte_level)}  +  {label(b, byte_level=byte_level)}" for a, b, _ in pairs]
    counts = [n for _, _, n in pairs]
    # Positions, not labels, on the axis: two pairs could look alike once whitespace is made visible.
    ys = list(range(len(pairs)))
    bar = {
        "type": "bar",
        "x": counts,
        "y": ys,
        "orientation": "h",
        "marker": {"color": [CHOSEN if i == chosen else OTHER for i in ys]},
        "text": [f"{n:,}" for n in counts],
        "textposition": "outside",
        "textangle": 0,
        "cliponaxis": False,
        "hovertext": labels,
        "hoverinfo": "text+x",
    }
    layout = {
        "title": {"text": plotly_text(title), "font": chart_font(presenter)},
        "font": chart_font(presenter),
        "height": (34 if presenter else 26) * len(pairs) + 90,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 30},
        "yaxis": {"tickmode": "array", "tickvals": ys, "ticktext": labels, "autorange": "reversed"},
        "xaxis": {"title": {"text": "count"}, "range": [0, max(counts, default=1) * 1.15]},
        "showlegend": False,
    }
    return figure([bar], layout)


def thin_steps(steps: int, *, keep: Sequence[int] = (), limit: int = MAX_CURVE_POINTS) -> list[int]:
    """At most about `limit` evenly spread steps from 0..steps, always with the ends and `keep`."""
    if steps + 1 <= limit:
        return list(range(steps + 1))
    stride = steps / (limit - 1)
    chosen = {round(i * stride) for i in range(limit)} | {0, steps}
    chosen |= {k for k in keep if 0 <= k <= steps}
    return sorted(chosen)


def compression_figure(
    curve: Curve, *, step: int, collapse: int | None, presenter: bool = False
) -> go.Figure:
    """Total tokens and tokens per word after each merge, step t marked, the collapse annotated.

    Tokens per word is total tokens over a fixed word count, so it is the same line: its axis (on
    the right) is scaled to match. Below, the distinct words still split into several tokens; the
    collapse is where that reaches 0.
    """
    xs = thin_steps(curve.steps, keep=[step] + ([collapse] if collapse is not None else []))
    top = max(curve.total_tokens) * 1.08 or 1
    per_word = curve.tokens_per_word[0] / curve.total_tokens[0] if curve.total_tokens[0] else 1.0
    data = [
        {
            "type": "scatter",
            "x": xs,
            "y": [curve.total_tokens[i] for i in xs],
            "name": "total tokens (left axis)",
            "mode": "lines",
            "line": {"color": "#1f77b4", "width": 3},
        },
        {
            "type": "scatter",
            "x": xs,
            "y": [round(curve.tokens_per_word[i], 4) for i in xs],
            "name": "tokens per word (right axis)",
            "mode": "lines",
            "line": {"color": "#ff7f0e", "width": 2, "dash": "dot"},
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "x": xs,
            "y": [curve.multi_token_words[i] for i in xs],
            "name": "distinct words still in several tokens",
            "mode": "lines",
            "line": {"color": "#2ca02c", "width": 2, "shape": "hv"},
            "yaxis": "y3",
        },
        {
            "type": "scatter",
            "x": [step],
            "y": [curve.total_tokens[step]],
            "name": f"step {step}",
            "mode": "markers",
            "marker": {"color": CHOSEN, "size": 12},
            "showlegend": False,
            "hovertext": [
                f"step {step}: {curve.total_tokens[step]:,} tokens, {curve.tokens_per_word[step]:.2f} per word"
            ],
            "hoverinfo": "text",
        },
    ]
    shapes = [_vline(step, CHOSEN, "solid")]
    annotations = []
    if collapse is not None:
        shapes.append(_vline(collapse, "#2ca02c", "dash"))
        annotations.append(
            {
                # In the lower panel, where the green line has just reached 0.
                "x": collapse,
                "y": 1,
                "xref": "x",
                "yref": "y3 domain",
                "text": f"collapse at step {collapse:,}:<br>every word is one token",
                "showarrow": False,
                "align": "right" if collapse > curve.steps / 2 else "left",
                "xanchor": "right" if collapse > curve.steps / 2 else "left",
                "yanchor": "top",
                "font": {"color": "#2ca02c", **chart_font(presenter)},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    layout = {
        **curve_layout("Compression: tokens in the corpus after each merge", presenter=presenter, height=410),
        "xaxis": {"title": {"text": "merges (step)"}, "range": [0, max(1, curve.steps)], "anchor": "y3"},
        "yaxis": {"title": {"text": "total tokens"}, "domain": [0.42, 1], "range": [0, top]},
        "yaxis2": {
            "title": {"text": "tokens per word"},
            "overlaying": "y",
            "side": "right",
            "range": [0, top * per_word],
            "showgrid": False,
        },
        "yaxis3": {"title": {"text": "split words"}, "domain": [0, 0.3], "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.22},
        "shapes": shapes,
        "annotations": annotations,
    }
    return figure(data, layout)


def compression_under_player(curve: Curve, *, step: int, collapse: int | None, playing: bool,
                             presenter: bool = False) -> go.Figure:
    """The compression curve under the player: the step marked only when paused (the browser plays
    on its own, so the server does not know the step while it plays); no per-word axis without words."""
    fig = compression_figure(curve, step=step, collapse=collapse, presenter=presenter)
    words = curve.has_words  # per word means nothing when the whole text is one "word"
    marker = f"step {step}"
    keep = [t for t in fig.data if not (playing and t.name == marker) and (words or t.yaxis != "y2")]
    if len(keep) != len(fig.data):
        fig.data = keep
    if playing and fig.layout.shapes:
        fig.layout.shapes = fig.layout.shapes[1:]  # the step's vertical line
    if not words:
        fig.layout.yaxis2 = None
        for trace in fig.data:
            if trace.name == marker:
                trace.hovertext = [f"step {step:,}: {curve.total_tokens[step]:,} tokens"]
    return fig


def _vline(x: float, colour: str, dash: str) -> dict:
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "xref": "x",
        "y0": 0,
        "y1": 1,
        "yref": "paper",
        "line": {"color": colour, "width": 2, "dash": dash},
    }
