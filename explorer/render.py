"""Tokens as readable text and as escaped HTML chips. Pure: no Streamlit here.

Every string that came from a corpus or a user goes through `html.escape` (via `token_html`
or `escape`) before it becomes HTML, so a corpus containing `<script>` shows that text and runs
nothing.
"""
from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import EOW, BPEError
from bpe_core.pretokenize import symbols_to_bytes

# How invisible characters are shown inside a chip.
VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}

Segment = tuple[str, str]  # (kind, shown): kind is "text", "ws", "hex" or "marker"


def escape(text: str) -> str:
    """HTML-escape any text (quotes too, so it is safe inside attributes)."""
    return html.escape(text, quote=True)


_MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!<>|~$:")


def md_escape(text: str) -> str:
    """Text to show literally inside Streamlit markdown (titles, captions): specials backslashed."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def _char_segment(ch: str) -> Segment:
    if ch in VISIBLE:
        return ("ws", VISIBLE[ch])
    if ch.isspace():
        return ("ws", "⍽")
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
        return ("ws", f"⟨U+{ord(ch):04X}⟩")
    return ("text", ch)


def _utf8_length(lead: int) -> int:
    """How many bytes a UTF-8 sequence starting with `lead` should have (0: not a lead byte)."""
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def bytes_segments(data: bytes) -> list[Segment]:
    """Bytes as characters where they are valid UTF-8, as hex like `<e2 80>` where not.

    >>> bytes_segments("é".encode()[:1] + b"a")
    [('hex', '<c3>'), ('text', 'a')]
    """
    out: list[Segment] = []
    bad: list[int] = []

    def flush() -> None:
        if bad:
            out.append(("hex", "<" + " ".join(f"{b:02x}" for b in bad) + ">"))
            bad.clear()

    i = 0
    while i < len(data):
        n = _utf8_length(data[i])
        chunk = data[i : i + n] if n else b""
        try:
            ch = chunk.decode("utf-8") if n and len(chunk) == n else None
        except UnicodeDecodeError:
            ch = None
        if ch is None:
            bad.append(data[i])
            i += 1
            continue
        flush()
        out.append(_char_segment(ch))
        i += n
    flush()
    return out


def token_segments(token: str, *, byte_level: bool = False) -> list[Segment]:
    """A token split into displayable parts: text, visible whitespace, hex bytes, the marker."""
    out: list[Segment] | None = None
    if byte_level:
        try:
            out = bytes_segments(symbols_to_bytes(token))
        except BPEError:
            pass  # not byte symbols after all (e.g. "<unk>"): show the characters
    if out is None:
        marker = token.endswith(EOW) and len(token) >= len(EOW)
        body = token[: -len(EOW)] if marker else token
        out = [_char_segment(ch) for ch in body]
        if marker:
            out.append(("marker", EOW))
    if out and out[0][0] == "text" and unicodedata.combining(out[0][1][0]):
        # A token that starts with a combining mark (a Tamil vowel sign, an accent) would draw it
        # on the chip's edge: give it the dotted circle that dictionaries use.
        out.insert(0, ("ws", "◌"))
    return out


def token_text(token: str, *, byte_level: bool = False) -> str:
    """A token as plain readable text: `' h'` -> `'·h'`; bytes as UTF-8 or `<e2 80>`. Not escaped."""
    return "".join(shown for _, shown in token_segments(token, byte_level=byte_level))


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


def chip_html(chip: Chip, *, byte_level: bool = False, show_id: bool = False) -> str:
    """One token chip: coloured by the merge that made it, outlined when just made."""
    classes = ["bpe-chip"]
    style = ""
    if chip.unknown:
        classes.append("bpe-unknown")
    elif chip.birth is None:
        classes.append("bpe-base")
    else:
        style = f' style="background:hsl({hue(chip.birth)},75%,86%)"'
    if chip.new:
        classes.append("bpe-new")
    title_bits = [f"token {token_text(chip.token, byte_level=byte_level)!r}"]
    if chip.token_id is not None:
        title_bits.append(f"id {chip.token_id}")
    if chip.birth is not None:
        title_bits.append(f"made by merge rank {chip.birth} (step {chip.birth + 1})")
    elif chip.unknown:
        title_bits.append("never seen in training: <unk>")
    else:
        title_bits.append("base symbol")
    body = token_html(chip.token, byte_level=byte_level)
    if chip.unknown:
        body = f'{escape("<unk>")} <span class="bpe-ws">{body}</span>'
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
        more = '<span class="bpe-more" title="only the start of this long piece is shown">…</span>' if row.truncated else ""
        lines.append(
            f'<div class="{cls}">{mark}<span class="bpe-count">×{row.count:,}</span>'
            f"{chips_html(row.chips, byte_level=byte_level)}{more}</div>"
        )
    if not lines:
        return '<div class="bpe-rows"><em>No words.</em></div>'
    return '<div class="bpe-rows">' + "".join(lines) + "</div>"


def merge_card_html(
    *,
    left: str,
    right: str,
    token: str,
    count: int,
    rank: int,
    vocab_size: int,
    births: dict[str, int] | None = None,
    byte_level: bool = False,
) -> str:
    """The merge just made: `a` + `b` -> `ab`, with its count, rank and the vocabulary size."""
    births = births or {}

    def c(t: str) -> str:
        birth = births.get(t)
        return chip_html(Chip(t, birth=birth if birth is not None and birth < rank else None), byte_level=byte_level)

    return (
        '<div class="bpe-card">'
        f'<div class="bpe-merge">{c(left)}<span class="bpe-op">+</span>{c(right)}'
        f'<span class="bpe-op">→</span>{chip_html(Chip(token, birth=rank, new=True), byte_level=byte_level)}</div>'
        f'<div class="bpe-facts"><span><b>{count:,}</b> time{"" if count == 1 else "s"}</span><span>rank <b>{rank}</b> (step {rank + 1})</span>'
        f"<span>vocabulary <b>{vocab_size:,}</b></span></div></div>"
    )


CSS = """
<style>
.bpe-chips { display: inline-flex; flex-wrap: wrap; gap: 3px; align-items: center; }
.bpe-chip { display: inline-block; padding: 1px 6px; border-radius: 6px; border: 1px solid rgba(0,0,0,.18);
  font-family: "Source Code Pro", ui-monospace, monospace; font-size: 0.92em; white-space: pre; line-height: 1.5;
  color: #1b1b1b; }
.bpe-base { background: #ececec; }
.bpe-unknown { background: #ffd9d9; border-color: #c33; }
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
</style>
"""

PRESENTER_CSS = """
<style>
html { font-size: 21px; }
section[data-testid="stSidebar"] { zoom: 0.8; }
.bpe-chip { font-size: 1.05em; }
.bpe-merge { font-size: 2em; }
</style>
"""
