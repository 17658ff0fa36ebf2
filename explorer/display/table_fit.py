"""Column widths that fit a table into the page's main column (`st.dataframe(column_config=...)`). Pure.

Streamlit sizes each column of a dataframe to its longest cell or header (up to 500 px) and
scrolls whatever does not fit out of sight: at a 1400 px window with the sidebar open the main
column is about 940 px wide, and a table of long labels ran past it, cut at the frame's right edge
with nothing saying more lay beyond. `fit_columns` estimates each column's width from its text
(the grid draws 14 px Source Sans) and, when the sum is too wide, first lets long text wrap onto
up to six lines (taller rows), then narrows long headers wider than their cells (shortened, the
whole header in its tooltip). A table that cannot fit even so scrolls inside its frame, every
column reachable.
"""
from __future__ import annotations

import math
import numbers
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from explorer.display.render import md_escape

FIT_WIDTH = 880  # px: the main column at a 1400 px window with the sidebar open (~940), less a margin
MAX_AUTO = 500  # Streamlit's widest column sized to its content
MIN_WIDTH = 56  # no column narrower: a number or a short word stays whole
MIN_WRAP = 150  # a column of wrapped text keeps at least this width
WRAP_LINES = 6  # a cell wraps onto at most this many lines
WRAP_ROW_HEIGHT = 66  # px: Streamlit wraps a cell's text only in rows taller than 64 px (three lines)
LINE_PX, ROW_PAD = 19, 10  # a wrapped line of 14 px text, and a row's padding above and below its lines
CELL_PAD, HEADER_PAD = 20, 26  # the grid's padding each side of a cell, and of a header (its sort arrow)
INDEX = "_index"  # column_config's name for the index column
# px: presenter mode's root type size (`render.PRESENTER_CSS`), and the browser's own: the grid's type scales with it
PRESENTER_ROOT_PX, BROWSER_ROOT_PX = 21, 16
_NARROW = frozenset(" .,:;'|!()[]ijlft")
# Whole numbers are counts, drawn with thousands separators in the reader's locale ("100,256"), as the
# page's own text writes them; an identifier is drawn as it is written in code ("100255").
COUNT_FORMAT = {"type": "number", "format": "localized"}
IDENTIFIERS = frozenset({"id"})


def text_px(text: str) -> float:
    """About how wide `text` is drawn in the grid, in pixels (measured on 14 px Source Sans in Chromium).

    >>> text_px("characters per token") > text_px("tokens") > 0
    True
    """
    width = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in "WF":
            width += 14.0
        elif ch in _NARROW:
            width += 4.2
        elif ch.isdigit():
            width += 7.0
        elif ch.isupper():
            width += 7.9
        else:
            width += 6.9
    return width


def _shown(value: object, *, count: bool = True) -> str:
    """A cell as the grid writes it, near enough to measure (a missing value as its placeholder, one dash;
    a whole number with its thousands separators, as `COUNT_FORMAT` draws it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "—"
    if count and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def cut_label(label: str, room: float) -> str:
    """`label` shortened to about `room` pixels at a word's end (inside a word only when its first
    word is wider), ending in "…" when anything was left out.

    >>> cut_label("Trained here: Lesson: low, lower", 90), cut_label("Tokens per character", 70)
    ('Trained here…', 'Tokens…')
    """
    if text_px(label) <= room:
        return label
    words = label.split(" ")
    while len(words) > 1 and text_px(" ".join(words) + "…") > room:
        words.pop()
    label = " ".join(words)
    while len(label) > 1 and text_px(label + "…") > room:
        label = label[:-1]
    return label.rstrip(" ,:;(") + "…"


def _shrink(widths: dict[str, float], floors: Mapping[str, float], excess: float) -> float:
    """Narrow the widest of the columns in `floors` to one level (none below its floor) until `excess`
    pixels are saved, or as many as the floors allow; returns what is still too wide."""
    room = {n: widths[n] - floors[n] for n in floors if widths[n] > floors[n]}
    if excess <= 0 or not room:
        return excess

    def saved(level: float) -> float:
        return sum(widths[n] - max(level, floors[n]) for n in room if widths[n] > level)

    if saved(0) <= excess:
        for n in room:
            widths[n] = floors[n]
        return excess - saved(0)
    low, high = 0.0, max(widths[n] for n in room)
    for _ in range(40):  # bisect the level: saved() falls as the level rises
        mid = (low + high) / 2
        low, high = (mid, high) if saved(mid) >= excess else (low, mid)
    level = low
    for n in room:
        widths[n] = min(widths[n], max(level, floors[n]))
    return 0.0


@dataclass(frozen=True)
class Fit:
    """How to draw a table so it fits: `st.dataframe(frame, column_config=fit.columns, row_height=fit.row_height)`."""

    columns: dict[str, dict[str, object]] = field(default_factory=dict)  # each column's label, width, help
    row_height: int | None = None  # taller rows, where a column's text wraps

    @property
    def width(self) -> int:
        """The columns' total width in pixels (0 when Streamlit sizes them itself)."""
        return sum(int(c.get("width", 0)) for c in self.columns.values())  # type: ignore[call-overload]


def fit_columns(frame: pd.DataFrame, *, width: int = FIT_WIDTH, index: bool = False,
                labels: Mapping[str, str] | None = None, presenter: bool = False) -> Fit:
    """Column settings that fit `frame` into `width` pixels; `index`: the index is shown (as `INDEX`);
    `labels`: shorter headers for some columns (the column's name becomes its header's tooltip);
    `presenter`: under presenter mode's larger type, where the same text is wider."""
    scale = PRESENTER_ROOT_PX / BROWSER_ROOT_PX if presenter else 1.0

    def px(text: str) -> float:
        return text_px(text) * scale

    labels = labels or {}
    columns: dict[str, pd.Index | pd.Series] = {INDEX: frame.index} if index else {}
    columns.update((str(c), frame[c]) for c in frame.columns)
    names = list(columns)
    full = {n: n for n in names}
    if index:
        full[INDEX] = "" if frame.index.name is None else str(frame.index.name)
    header = {n: labels.get(n, full[n]) for n in names}
    head_px = {n: px(header[n]) + HEADER_PAD for n in names}
    counts = {n for n in names  # whole numbers drawn with separators (COUNT_FORMAT), and measured so
              if n != INDEX and n not in IDENTIFIERS and pd.api.types.is_integer_dtype(columns[n].dtype)}
    cell_px = {n: max((px(_shown(v, count=n in counts)) for v in columns[n]), default=0.0) + CELL_PAD for n in names}
    widths = {n: min(float(MAX_AUTO), max(MIN_WIDTH, head_px[n], cell_px[n])) for n in names}
    config: dict[str, dict[str, object]] = {}
    for n in names:
        if header[n] != full[n]:
            config[n] = {"label": header[n], "help": md_escape(full[n])}
        if n in counts:
            config.setdefault(n, {})["type_config"] = dict(COUNT_FORMAT)
    text = [n for n in names if not pd.api.types.is_numeric_dtype(columns[n].dtype)]
    excess = sum(widths.values()) - width
    if excess <= 0:  # it fits as Streamlit sizes it, but text wider than its widest column (MAX_AUTO) is cut:
        grown = dict(widths)  # such text gets the room to spare, and wraps if that makes it whole
        for n in (n for n in text if cell_px[n] > widths[n] + 0.5):
            grown[n] = min(cell_px[n], widths[n] + width - sum(grown.values()))
        lines = [math.ceil((cell_px[n] - CELL_PAD) / (grown[n] - CELL_PAD)) for n in text if grown[n] != widths[n]]
        if not lines or max(lines) > WRAP_LINES:  # nothing cut, or too long to show whole in any row
            return Fit(config)
        widths, excess = grown, 0.0
    # Text wraps where that saves room worth a taller row for every row: not a short name (a language's)
    wraps = {n: max(MIN_WRAP, head_px[n], cell_px[n] / WRAP_LINES) for n in text
             if cell_px[n] > max(head_px[n], 2 * MIN_WRAP) and widths[n] > MIN_WRAP}
    headers = {n: max(MIN_WIDTH, cell_px[n], min(widths[n], px(header[n].split(" ")[0] + "…") + HEADER_PAD))
               for n in names if n not in wraps}
    if sum(min(widths[n], wraps.get(n, headers.get(n, widths[n]))) for n in names) > width:
        return Fit(config)  # it cannot fit, however narrow: it scrolls inside its frame, every column reachable
    excess = _shrink(widths, wraps, excess)  # first: long text wraps onto more lines
    _shrink(widths, headers, excess)  # then: long headers wider than their cells are shortened
    for n in names:
        entry = config.setdefault(n, {})
        entry["width"] = round(widths[n])
        if head_px[n] > widths[n] + 0.5:
            entry["label"] = cut_label(header[n], (widths[n] - HEADER_PAD) / scale)
            entry["help"] = md_escape(full[n])
    lines = max((math.ceil((cell_px[n] - CELL_PAD) / (widths[n] - CELL_PAD)) for n in wraps
                 if cell_px[n] > widths[n] + 0.5), default=1)
    return Fit(config, max(WRAP_ROW_HEIGHT, round(ROW_PAD * 2 + LINE_PX * scale * lines)) if lines > 1 else None)




def shown_row_height(fit: Fit, *, presenter: bool) -> int | None:
    """`fit.row_height`, tall enough that Streamlit wraps the text at the page's type size: it wraps a cell
    only in rows taller than 4rem, 64 px at the browser's 16 px root but 84 px under presenter mode's.

    >>> shown_row_height(Fit({}, 66), presenter=False), shown_row_height(Fit({}, 66), presenter=True)
    (66, 86)
    """
    if fit.row_height is None or not presenter:
        return fit.row_height
    return max(fit.row_height, 4 * PRESENTER_ROOT_PX + 2)
