"""Tokens as readable text and as escaped HTML chips. Pure: no Streamlit here.

What a token looks like (`·` for a space, `<e6 97>` for part of a character) is the engine's rule,
`bpe_core.analysis.segments`; this module draws its parts, each kind in its own style.

Every string that came from a corpus or a user goes through `html.escape` (via `token_html`
or `escape`) before it becomes HTML, so a corpus containing `<script>` shows that text and runs
nothing.
"""
from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

# Tables, charts and the player take these two from here, beside the chips drawn from them.
from bpe_core.analysis import token_segments, token_text

# Outside text may hold right-to-left letters and bidirectional controls (U+202A-U+202E embeddings
# and overrides, U+2066-U+2069 isolates, the marks U+200E, U+200F and U+061C). Inside the app's own
# sentence they could reorder the app's words: a right-to-left override in a title reverses the rest
# of its line. Such text is shown as a first-strong isolate (FSI ... PDI), which the words around it
# cannot be reordered by, and its own controls are kept only where they open and close in pairs.
FSI, PDI, PDF = "\u2068", "\u2069", "\u202c"
_EMBEDDINGS = frozenset("\u202a\u202b\u202d\u202e")  # LRE, RLE, LRO, RLO: each closed by a PDF
_ISOLATES = frozenset("\u2066\u2067\u2068")  # LRI, RLI, FSI: each closed by a PDI
_CONTROLS = _EMBEDDINGS | _ISOLATES | {PDF, PDI}
_NEEDS_ISOLATION = frozenset({"R", "AL", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_MARKS = frozenset("\u200e\u200f\u061c")  # LRM, RLM, ALM


def _needs_isolation(text: str) -> bool:
    """Whether `text` holds a right-to-left letter or a bidirectional control (plain ASCII never does)."""
    return not text.isascii() and any(
        ch in _MARKS or unicodedata.bidirectional(ch) in _NEEDS_ISOLATION for ch in text if ord(ch) > 0x7F)


def _paired_controls(text: str) -> str:
    """`text` without the bidirectional controls that do not open and close in pairs inside it.

    A PDF closes the embedding or override opened last (unless an isolate opened after it), a PDI
    the isolate opened last; an embedding still open at that PDI, an opener never closed and a
    closer with nothing to close are dropped, so what is left stays within the text.
    """
    if not any(ch in _CONTROLS for ch in text):
        return text
    dropped: set[int] = set()
    open_at: list[int] = []  # positions of the controls still open, innermost last
    for at, ch in enumerate(text):
        if ch in _EMBEDDINGS or ch in _ISOLATES:
            open_at.append(at)
        elif ch == PDF:
            if open_at and text[open_at[-1]] in _EMBEDDINGS:
                open_at.pop()
            else:
                dropped.add(at)
        elif ch == PDI:
            isolates = [i for i, opened in enumerate(open_at) if text[opened] in _ISOLATES]
            if not isolates:
                dropped.add(at)
                continue
            dropped.update(open_at[isolates[-1] + 1:])  # embeddings left open inside the isolate
            del open_at[isolates[-1]:]
    dropped.update(open_at)
    return "".join(ch for at, ch in enumerate(text) if at not in dropped)


def isolate(text: str) -> str:
    """Outside text as a bidirectional isolate, so it cannot reorder the app's words around it.

    Text without right-to-left letters or bidirectional controls is returned as it is; other text
    is wrapped in FSI ... PDI, its unpaired controls dropped (`_paired_controls`). `md_escape`,
    `escape` and `charts.plotly_text` call it: a caller gets it with the escaping.

    >>> isolate("abc")
    'abc'
    >>> isolate("\u202eabc") == FSI + "abc" + PDI
    True
    """
    text = str(text)
    if not _needs_isolation(text):
        return text
    return FSI + _paired_controls(text) + PDI


def escape(text: str) -> str:
    """HTML-escape any text (quotes too, so it is safe inside attributes), isolated (`isolate`)."""
    return isolate(html.escape(text, quote=True))


# Every ASCII punctuation character can be backslash-escaped in CommonMark, and escaping all of
# them is simpler than knowing which ones start a construct: emphasis, links, images, code, HTML,
# entities, headings, lists, quotes, tables, GFM strike-through, math (`$`), directives (`:red[x]`).
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# A few constructs are found in the text *after* escapes are resolved, so a backslash cannot stop
# them: GFM's bare-URL and e-mail autolinks (`https://x`, `www.x`, `a@b.c`), emoji shortcodes and
# Streamlit's `:material/icon:` and `:streamlit:`. A word joiner (U+2060: invisible, no line break)
# after a `:` or `@` that something follows, and between `www` and its dot, breaks their patterns.
WORD_JOINER = "\u2060"
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_WWW_DOT = re.compile(r"(www)(\\\.)", re.IGNORECASE)


def md_escape(text: str) -> str:
    """Outside text (a corpus, a file name, a link) as Markdown that Streamlit shows literally.

    For every Markdown context: `st.markdown`, captions, notices, widget, tab, expander and metric
    labels. Nothing in it renders: no emphasis, link, image, math, colour, icon, emoji, HTML or
    heading. Line breaks become spaces, so the text stays one line of a label. Right-to-left text
    and bidirectional controls are isolated (`isolate`): they cannot reorder the words around it.

    >>> md_escape("**a** $x$")
    '\\\\*\\\\*a\\\\*\\\\* \\\\$x\\\\$'
    """
    text = _LINE_BREAKS.sub(" ", str(text))
    out = []
    for i, ch in enumerate(text):
        if ch in _ASCII_PUNCTUATION:
            out.append("\\" + ch)
            if ch in ":@" and i + 1 < len(text) and not text[i + 1].isspace():
                out.append(WORD_JOINER)  # nothing follows a colon before a space: no joiner needed
        else:
            out.append(ch)
    escaped = _WWW_DOT.sub(lambda m: m.group(1) + WORD_JOINER + m.group(2), "".join(out))
    # Four leading spaces or a tab would start an indented code block; spaces given as character
    # references are not indentation and still show as spaces.
    body = escaped.lstrip(" \t")
    return isolate("&#32;" * (len(escaped) - len(body)) + body)


def as_sentence(text: str) -> str:
    """A message as a sentence: a capital first letter and a full stop at the end.

    >>> as_sentence("ask for at least 81")
    'Ask for at least 81.'
    """
    text = str(text).strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…" else text + "."


def as_clause(text: str) -> str:
    """A message to go after a colon: first letter small (unless a name like "GPT"), no full stop.

    >>> as_clause("Reached the requested number of merges.")
    'reached the requested number of merges'
    """
    text = str(text).strip().rstrip(".")
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        text = text[0].lower() + text[1:]
    return text


def token_html(token: str, *, byte_level: bool = False) -> str:
    """A token as escaped HTML, with whitespace, hex bytes and the marker styled apart."""
    parts = []
    for kind, shown in token_segments(token, byte_level=byte_level):
        text = escape(shown)
        parts.append(text if kind == "text" else f'<span class="bpe-{kind}">{text}</span>')
    return "".join(parts) or "&#8203;"


def hue(rank: int) -> int:
    """A stable, well-spread hue for the token made by merge `rank`."""
    return (rank * 137 + 200) % 360


@dataclass(frozen=True)
class Chip:
    """One token to draw: what it is, its id, which merge made it (None for a base symbol)."""

    token: str
    token_id: int | None = None
    birth: int | None = None
    new: bool = False
    unknown: bool = False
    unk_label: str = "<unk>"  # the model's own unknown token ("[UNK]" in BERT's vocabulary)
    special: bool = False  # an added or special token (`<s>`), cut out of the text whole


def chip_html(chip: Chip, *, byte_level: bool = False, show_id: bool = False) -> str:
    """One token chip: coloured by the merge that made it, outlined when just made."""
    classes = ["bpe-chip"]
    style = ""
    if chip.unknown:
        classes.append("bpe-unknown")
    elif chip.special:
        classes.append("bpe-special")
    elif chip.birth is None:
        classes.append("bpe-base")
    else:
        style = f' style="background:hsl({hue(chip.birth)},75%,86%)"'
    if chip.new:
        classes.append("bpe-new")
    title_bits = [f"token {token_text(chip.token, byte_level=byte_level)!r}"]
    if chip.token_id is not None:
        title_bits.append(f"id {chip.token_id}")
    if chip.birth is not None and not chip.special:
        title_bits.append(f"made at step {chip.birth + 1}")
    elif chip.unknown:
        title_bits.append(f"never seen in training: {chip.unk_label}")
    elif chip.special:
        title_bits.append("added or special token: cut out of the text whole, never split")
    else:
        title_bits.append("base symbol")
    body = token_html(chip.token, byte_level=byte_level)
    if chip.unknown:
        body = f'{escape(chip.unk_label)} <span class="bpe-ws">{body}</span>'
    id_part = f'<sub class="bpe-id">{chip.token_id}</sub>' if show_id and chip.token_id is not None else ""
    title = escape(" · ".join(title_bits))
    return f'<span class="{" ".join(classes)}"{style} title="{title}">{body}{id_part}</span>'


def chips_html(chips: Sequence[Chip], *, byte_level: bool = False, show_id: bool = False) -> str:
    """A row of chips."""
    inner = "".join(chip_html(c, byte_level=byte_level, show_id=show_id) for c in chips)
    return f'<span class="bpe-chips">{inner}</span>'


@dataclass(frozen=True)
class WordRow:
    """A corpus word at one step of training: its count, its chips, whether this merge changed it."""

    word: str
    count: int
    chips: tuple[Chip, ...]
    changed: bool = False
    truncated: bool = False


def word_rows_html(rows: Sequence[WordRow], *, byte_level: bool = False) -> str:
    """The most frequent words, each as a row of chips; rows the current merge changed are marked."""
    lines = []
    for row in rows:
        cls = "bpe-row bpe-changed" if row.changed else "bpe-row"
        mark = '<span class="bpe-mark" title="changed by this merge">●</span>' if row.changed else (
            '<span class="bpe-mark"></span>'
        )
        more = '<span class="bpe-more" title="only the start of this long piece is shown">…</span>'
        more = more if row.truncated else ""
        lines.append(
            f'<div class="{cls}">{mark}<span class="bpe-count">×{row.count:,}</span>'
            f"{chips_html(row.chips, byte_level=byte_level)}{more}</div>"
        )
    if not lines:
        return '<div class="bpe-rows"><em>No words.</em></div>'
    return '<div class="bpe-rows">' + "".join(lines) + "</div>"


CSS = """
<style>
.bpe-chips { display: inline-flex; flex-wrap: wrap; gap: 3px; align-items: center; }
.bpe-chip { display: inline-block; padding: 1px 6px; border-radius: 6px; border: 1px solid rgba(0,0,0,.18);
  font-family: "Source Code Pro", ui-monospace, monospace; font-size: 0.92em; white-space: pre; line-height: 1.5;
  color: #1b1b1b; }
.bpe-base { background: #ececec; }
.bpe-unknown { background: #ffd9d9; border-color: #c33; }
.bpe-special { background: #fff1c2; border: 1px dashed #a66f00; color: #5c3d00; }
.bpe-new { outline: 3px solid #d62728; outline-offset: 1px; font-weight: 700; }
.bpe-ws { color: #8a8a8a; }
.bpe-hex { color: #7b3fa0; font-size: 0.85em; }
.bpe-marker { color: #2a6bb0; font-size: 0.8em; }
.bpe-id { color: #555; font-size: 0.7em; margin-left: 2px; }
.bpe-rows { display: flex; flex-direction: column; gap: 4px; }
.bpe-row { display: flex; align-items: center; gap: 8px; padding: 2px 4px; border-radius: 6px; }
.bpe-changed { background: #fff4d6; }
.bpe-mark { width: 1em; color: #d62728; }
.bpe-count { min-width: 3.5em; text-align: right; color: #666; font-size: 0.85em; font-variant-numeric: tabular-nums; }
.bpe-card { padding: 10px 14px; border: 1px solid rgba(0,0,0,.12); border-radius: 10px; }
.bpe-merge { display: flex; align-items: center; gap: 8px; font-size: 1.5em; flex-wrap: wrap; }
.bpe-op { color: #666; }
.bpe-facts { display: flex; gap: 16px; flex-wrap: wrap; margin-top: 8px; color: #333; }
.bpe-more { color: #999; }
/* A text area holding a long text (a megabyte pasted into Tokenize) is painted whole on every frame the
   page draws unless its painting is contained: 9 ms a frame for a megabyte, 0.4 ms contained. */
textarea { contain: paint; }
</style>
"""

PRESENTER_CSS = """
<style>
html { font-size: 21px; }
section[data-testid="stSidebar"] { zoom: 0.8; }
/* A projector is often 1280x720: the page's own top space and a smaller title keep the animation's
   controls and merge card in the first screen. */
[data-testid="stMainBlockContainer"] { padding-top: 2rem; padding-bottom: 2rem; }
[data-testid="stHeader"] { background: transparent; }
[data-testid="stMain"] h1 { font-size: 2rem; padding: 0 0 0.4rem; }
/* Labels wrap between words only, never inside one ("Vocabular y"). */
section[data-testid="stSidebar"] [data-testid="stWidgetLabel"] p { overflow-wrap: normal; word-break: keep-all; }
.bpe-chip { font-size: 1.05em; }
</style>
"""


TOKEN_CAP = 40  # characters of a token drawn on screen; a text-mode token can be a whole corpus


def cap_token(text: str, limit: int = TOKEN_CAP) -> str:
    """A token's readable text cut to `limit` characters, saying how many more there are.

    >>> cap_token("abcdef", 3)
    'abc…(+3 more)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit:,} more)"
