"""The Vocabulary overlap page's chart, search and tables. Pure: no Streamlit here.

The comparison itself is `bpe_core.analysis.overlap.vocabulary_overlap`; this module draws it.
Tables show tokens as text (dataframes show text as text: no HTML escaping); the chart holds no
outside text, only counts.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from bpe_core.analysis.overlap import Key, Overlap, key_length, key_text
from explorer.display.charts import chart_font, figure
from explorer.display.tables import EMPTY  # noqa: F401 - the page's table shows it for an id a side lacks

MAX_ROWS = 2_000  # rows a list shows; the caption says how many more matched
MAX_LENGTH = 32  # the chart's last bar: tokens of this many bytes or more
LISTS = {"shared": "Shared", "only_a": "Only in A", "only_b": "Only in B"}
COLOURS = {"shared": "#2ca02c", "only_a": "#1f77b4", "only_b": "#ff7f0e"}
# Shown whitespace back to the character it stands for, so `·the` finds " the".
_SHOWN_WHITESPACE = str.maketrans({"·": " ", "↵": "\n", "→": "\t", "␍": "\r"})


def keys_of(overlap: Overlap, which: str) -> tuple[Key, ...]:
    """The keys of one list: "shared", "only_a" or "only_b"."""
    if which not in LISTS:
        raise ValueError(f"which must be one of {', '.join(LISTS)}")
    return getattr(overlap, which)


def length_figure(overlap: Overlap, *, presenter: bool = False) -> go.Figure:
    """Shared, A-only and B-only tokens for each length in bytes, stacked; lengths from
    MAX_LENGTH on share the last bar (a few very long tokens would squeeze the rest)."""
    counts: dict[int, list[int]] = {}
    for row in overlap.by_length:
        bar = counts.setdefault(min(row.length, MAX_LENGTH), [0, 0, 0])
        for i, which in enumerate(LISTS):
            bar[i] += getattr(row, which)
    xs = sorted(counts)
    names = [f"{n}+" if n == MAX_LENGTH else str(n) for n in xs]
    font = chart_font(presenter)
    data = [
        {"type": "bar", "name": LISTS[which], "x": names, "y": [counts[n][i] for n in xs],
         "marker": {"color": COLOURS[which]},
         "hovertemplate": f"%{{y:,}} tokens of %{{x}} bytes: {LISTS[which].lower()}<extra></extra>"}
        for i, which in enumerate(LISTS)
    ]
    layout = {
        "barmode": "stack",
        "title": {"text": "Tokens by length in bytes", "font": font},
        "font": font,
        "height": 360 if presenter else 320,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": f"length in bytes (0: &lt;unk&gt;, special tokens, a lone &lt;/w&gt;; "
                                    f"{MAX_LENGTH}+: {MAX_LENGTH} bytes or more)"}, "type": "category"},
        "yaxis": {"title": {"text": "tokens"}},
        "legend": {"orientation": "h", "y": -0.3, "traceorder": "normal"},
    }
    return figure(data, layout)


def search_texts(overlap: Overlap, keys: Sequence[Key]) -> list[str]:
    """Each key's plain text and its spelling (`Ġthe`), casefolded, for `search` (made once per list)."""
    return [f"{key_text(k)}\x00{overlap.spelling(k)}".casefold() for k in keys]


def search(keys: Sequence[Key], texts: Sequence[str], query: str) -> list[Key]:
    """Keys whose text or spelling contains `query` (case-insensitive; `·` matches a space, `↵` a newline).

    >>> from bpe_core.analysis.overlap import EOW
    >>> keys = [b" the", (EOW, b"the"), b"then"]
    >>> texts = [" the|Ġthe", "the</w>|the</w>", "then|then"]
    >>> search(keys, texts, "·the"), search(keys, texts, "E</W>"), len(search(keys, texts, ""))
    ([b' the'], [('</w>', b'the')], 3)
    """
    if not query:
        return list(keys)
    q = query.translate(_SHOWN_WHITESPACE).casefold()
    return [k for k, text in zip(keys, texts) if q in text]


def token_frame(
    overlap: Overlap, keys: Sequence[Key], vocab_a: Mapping[str, int], vocab_b: Mapping[str, int], *,
    limit: int = MAX_ROWS,
) -> pd.DataFrame:
    """The first `limit` keys as rows: the token as shown, its length in bytes, its id in A and in B."""
    shown = keys[:limit]
    return pd.DataFrame(
        {
            "token": [overlap.shown(k) for k in shown],
            "bytes": [key_length(k) for k in shown],
            "id in A": pd.Series([_id(overlap.spelling_a, vocab_a, k) for k in shown], dtype="Int64"),
            "id in B": pd.Series([_id(overlap.spelling_b, vocab_b, k) for k in shown], dtype="Int64"),
        }
    )


def _id(spelling: Mapping[Key, str], vocab: Mapping[str, int], key: Key) -> int | None:
    token = spelling.get(key)
    return None if token is None else vocab.get(token)


def jaccard_text(value: float) -> str:
    """Jaccard with three significant digits, so a small overlap is not shown as 0.000.

    >>> jaccard_text(10 / 274), jaccard_text(0.5006), jaccard_text(1.0), jaccard_text(0.0)
    ('0.0365', '0.501', '1', '0')
    """
    return f"{value:.3g}"


def list_caption(which: str, shown: int, found: int, total: int, query: str) -> str:
    """What a list shows, in words: '2,000 of 48,120 tokens shared (the first, in id order)'."""
    what = {"shared": "shared tokens", "only_a": "tokens only in A", "only_b": "tokens only in B"}[which]
    order = "B's" if which == "only_b" else "A's"
    matched = f" matching the search, of {total:,}" if query else ""
    if shown < found:
        return f"Showing the first {shown:,} of {found:,} {what}{matched}, in {order} id order."
    return f"{found:,} {what}{matched}, in {order} id order."
