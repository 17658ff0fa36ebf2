"""The Tokenize page's browser side: a text area that is read while typing, and the text coloured by token.

Two Streamlit v2 components, their script and styles inline from this folder (nothing fetched):

- `text_area` draws a plain `st.text_area` (it still commits on blur and Ctrl+Enter, as every
  text area does) and a watcher of no size that sends the box's text a moment (`DELAY_MS`) after
  the last keystroke (at once after a paste or a drop), so the page updates while someone types.
  The server then keeps the text without writing it back into the box: a write sends the whole
  text (up to megabytes) back to the browser on every run, and would replace what was typed
  meanwhile wherever the browser does not keep an edited box as it is. It writes the box only when
  the text changed elsewhere (an example, a link, a page switch).
- `token_text` draws the original text, each token's stretch coloured, beside the token chips
  (`display.tokenize.chips_html`), inside a keyed container (`group`): each chip carries its place,
  so hovering a stretch lights its chips up, and hovering a chip its stretch; a click scrolls the
  other into view.

The scripts are trusted code; outside text reaches the page only as text (`textContent`), or escaped
in the chips' HTML, which the page made (`render.chip_html`). The script puts that HTML in without
Streamlit's sanitizer, which took a quarter of a second for three tokenizers' 500 chips each, and
keeps only the tags and attributes chips are made of (a second guard, as the sanitizer was).
Session keys, beside the text area's own `key`: `shown_key(key)` (the text the browser's box is
known to hold) and `watcher_key(key)` (the watcher component).
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st

HERE = Path(__file__).resolve().parent
DELAY_MS = 300  # after the last keystroke; a paste or a drop is sent at once


def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


# Not isolated: the watcher must see the text area, and the chips take the page's own chip styles.
_watcher = st.components.v2.component("bpe_explorer.live_text", html="", js=_read("live_text.js"),
                                      isolate_styles=False)
_TOKEN_TEXT_HTML = '<div class="tk-pair"><div class="tk-text" dir="auto"></div><div class="tk-chips"></div></div>'
_token_text = st.components.v2.component("bpe_explorer.token_text", html=_TOKEN_TEXT_HTML,
                                         css=_read("token_text.css"), js=_read("token_text.js"), isolate_styles=False)


def shown_key(key: str) -> str:
    return f"{key}_shown"


def watcher_key(key: str) -> str:
    return f"{key}_live"


def text_area(label: str, *, key: str, value_key: str, delay_ms: int = DELAY_MS, **options: Any) -> None:
    """A text area for the text in `st.session_state[value_key]`, which follows it while typing."""
    ss = st.session_state
    value = ss.get(value_key)
    if key not in ss or ss.get(shown_key(key)) != value:  # set elsewhere, or the box is new
        ss[key] = value
        ss[shown_key(key)] = value
    st.text_area(label, key=key, on_change=partial(_committed, key, value_key), **options)
    _watcher(key=watcher_key(key), data={"watch": key, "delay": delay_ms, "crc": box_crc(ss.get(shown_key(key)))},
             on_text_change=partial(_typed, key, value_key), height=0)


def box_crc(text: object) -> int:
    """The CRC-32 of the text as a browser's text area holds it (line ends as "\n", UTF-16): the
    watcher compares it with the box's when it starts, to send a text typed before it listened."""
    shown = text.replace("\r\n", "\n").replace("\r", "\n") if isinstance(text, str) else ""
    return zlib.crc32(shown.encode("utf-16-le", "surrogatepass"))


def _committed(key: str, value_key: str) -> None:
    """The text area committed its text (blur, Ctrl+Enter)."""
    ss = st.session_state
    ss[value_key] = ss[shown_key(key)] = ss[key]


def _typed(key: str, value_key: str) -> None:
    """The watcher sent the text as it stands while typing: the box already shows it."""
    ss = st.session_state
    text = (ss.get(watcher_key(key)) or {}).get("text")
    if isinstance(text, str):
        ss[value_key] = ss[shown_key(key)] = text


def token_text(pieces: Sequence[tuple[str, Sequence[int]]], kinds: str, *, key: str, group: str,
               more: str = "", chips: str = "", scroll_chips: bool = False) -> None:
    """The text as `pieces` (stretches and the drawn tokens each belongs to), coloured by token, beside
    `chips` (`display.tokenize.chips_html`; `scroll_chips`: in a box that scrolls past the coloured text's
    height), the two linked within the container keyed `group`; `kinds` marks unknown ("u") and special
    ("s") tokens; `more` follows the text (what was left out)."""
    _token_text(key=key, data={"pieces": [[text, list(owners)] for text, owners in pieces], "kinds": kinds,
                               "group": group, "more": more, "chips": chips, "scroll": scroll_chips})
