"""The "first … MB" slider of the pages that cut a corpus (Token audit, Report card).

It offers the sizes that give different texts: each that cuts the corpus, then "all" for the
first that takes it whole. A corpus no size cuts gets no slider (the page's caption says it is
used whole), so a 109-byte lesson never shows "5.0 MB". The page keeps the size the user chose
as before; where that is above this corpus's size the slider stands at "all".
"""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.display.tokenize import size_choices
from explorer.ui import state

ALL = "all"


def size_slider(container: st.delta_generator.DeltaGenerator, label: str, text: str, sizes: Sequence[float], *,
                widget_key: str, value_key: str) -> None:
    """Draw the slider in `container` for `text`; the chosen size is kept under `value_key`."""
    ss = st.session_state
    choices, whole = size_choices(text, sizes)
    if len(choices) < 2:
        return
    write_back = state.bind(ss, widget_key, value_key)
    chosen = float(ss[widget_key])
    ss[widget_key] = next((c for c in choices if c >= chosen), choices[-1])

    def shown(size: float) -> str:
        return ALL if whole and size == choices[-1] else f"{size:g}"

    container.select_slider(label, choices, format_func=shown, key=widget_key, on_change=write_back)
