"""A page's built-ins that the server's background warming is still preparing (explorer/data/warm.py):
one line saying so in their place, and the page again, with them, once they are ready.

The page draws at once with everything else; the line names what is coming and the warming's step,
and a check every `POLL_SECONDS` reruns the page when the last of them is ready.
"""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from bpe_core.builtin import builtin_info
from explorer.data import warm
from explorer.display.render import md_escape

POLL_SECONDS = 1.0


def waiting_line(labels: list[str], sentence: str) -> str:
    """The line shown in the tokenizers' place.

    >>> waiting_line(["GPT-4", "GPT-4o"], "Preparing the built-in tokenizers in the background…")
    'GPT-4 and GPT-4o appear here once ready. Preparing the built-in tokenizers in the background…'
    """
    names = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    return f"{names} {'appears' if len(labels) == 1 else 'appear'} here once ready. {sentence}"


def wait_for(names: Sequence[str], *, until: str | None = None) -> None:
    """`names`: the built-ins `warm.waiting_for(name, until=until)` holds back from the page."""
    if names:
        _poll(tuple(names), until)


@st.fragment(run_every=POLL_SECONDS)
def _poll(names: tuple[str, ...], until: str | None) -> None:
    lines = {builtin_info(name).title: warm.waiting_for(name, until=until) for name in names}
    still = [label for label, line in lines.items() if line]
    if not still:
        st.rerun()  # the whole page, now with them
    st.info(md_escape(waiting_line(still, lines[still[0]])), icon=":material/hourglass_top:")
