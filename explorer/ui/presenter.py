"""Presenter mode, for a projector: the switch at the top of every page (and its key, P), and the
page's styles while it is on.

The switch is a button in the page's top bar, beside the app menu, so a teacher finds it at once
on any page; the sidebar's toggle (`sidebar.render`) and the link (`present=1`) set the same value.
`render.PRESENTER_CSS` enlarges the type; `CSS` below makes room: the main area's margins and the
page's title row shrink, so the animation and its curve fit a 1280x720 screen beside the sidebar.
"""
from __future__ import annotations

import streamlit as st

from explorer.ui import state
from explorer.ui.page_header import TITLE_ROW

SHORTCUT = "P"
SWITCH_KEY = "presenter_switch"  # the switch's container: the CSS below places it by its class

# Always on the page: the switch, fixed in the top bar left of the app menu (the bar is empty there).
SWITCH_CSS = f"""
<style>
.st-key-{SWITCH_KEY} {{ position: fixed; top: 0.45rem; right: 3.6rem; z-index: 999991; width: auto; }}
[data-testid="stElementContainer"]:has(> .st-key-{SWITCH_KEY}),
[data-testid="stLayoutWrapper"]:has(> .st-key-{SWITCH_KEY}) {{ position: absolute; }}
/* The bar's own size, whatever the page's type (presenter mode enlarges it). */
.st-key-{SWITCH_KEY} button {{ font-size: 16px; min-height: 0; padding: 0.2rem 0.7rem; }}
</style>
"""

CSS = f"""
<style>
/* The main area uses the width beside the sidebar, and starts just under the top bar. */
[data-testid="stMainBlockContainer"] {{ padding: 2.6rem 1rem 2rem; }}
[data-testid="stHeader"] {{ height: 2.4rem; min-height: 0; }}
/* The title row: the title, its intro in the help tooltip, and the settings sentence beside it. */
[data-testid="stMain"] h1 {{ font-size: 1.5rem; padding: 0; }}
.st-key-{TITLE_ROW} {{ flex-wrap: nowrap; }}
.st-key-{TITLE_ROW} > [data-testid="stElementContainer"]:not(:first-child) {{ flex: 1 1 0; width: auto; min-width: 0; }}
.st-key-{TITLE_ROW} [data-testid="stCaptionContainer"] {{ font-size: 0.75rem; line-height: 1.3; margin: 0; }}
.st-key-{TITLE_ROW} [data-testid="stCaptionContainer"] p {{ margin: 0; }}
</style>
"""


def toggle() -> None:
    """The switch's callback: presenter mode on or off (the sidebar's toggle follows)."""
    ss = st.session_state
    ss[state.W_PRESENTER] = not ss[state.W_PRESENTER]


def switch() -> None:
    """The switch at the top of the page, with its keyboard shortcut."""
    on = bool(st.session_state[state.W_PRESENTER])
    st.html(SWITCH_CSS)
    with st.container(key=SWITCH_KEY):
        st.button("Presenter mode", icon=":material/toggle_on:" if on else ":material/toggle_off:",
                  type="primary" if on else "secondary", shortcut=SHORTCUT, on_click=toggle, key=state.B_PRESENTER,
                  help=f"{'Leave' if on else 'Enter'} presenter mode: larger type, and the animation with its curve "
                       f"fitted to a 1280x720 projector. Key: {SHORTCUT}.")


def styles() -> None:
    """The page's styles in presenter mode (after `render.PRESENTER_CSS`, which they adjust)."""
    st.html(CSS)
