"""What every page starts with: its title, the link and training messages, the trained bundle."""
from __future__ import annotations

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.families.registry import family
from explorer.data.training import Trained
from explorer.display.render import as_clause, as_sentence, md_escape
from explorer.families import explorer_family
from explorer.ui import link, state, store

TITLE_ROW = "page_title_row"  # the title row's container in presenter mode (explorer/ui/presenter.py styles it)


def presenter() -> bool:
    return bool(st.session_state[state.W_PRESENTER])


def link_notice(slot: st.delta_generator.DeltaGenerator, page: str) -> None:
    """What the link just opened asked for and did not get, in `slot` above `page` (its url path),
    until the user moves on (`link.expire_link_notice`).

    Drawn before any training, and again after it: the first training can add to it.
    """
    link.expire_link_notice(st.session_state, page)
    notice = st.session_state[state.URL_NOTICE]
    if notice is not None:
        kind, text = notice
        (slot.warning if kind == "warning" else slot.info)(md_escape(text), icon=":material/link:")


def header(title: str, intro: str = "", *, summary: bool = True) -> Trained | None:
    """Title, messages, a one-line summary; returns the trained bundle (None: nothing to show).

    `summary=False` leaves out the sidebar tokenizer's summary, for a page that shows a tokenizer
    picked on the page (it describes that one itself: `tokenizer_picker.caption`).
    """
    ss = st.session_state
    trained = ss[state.TRAINED]
    line = training_summary(trained) if summary and trained is not None else ""
    stopped = _stopped(trained) if summary and trained is not None else ""
    if presenter():
        # One row, so that the page starts high on a projector: the title (its intro in the tooltip)
        # and the settings sentence beside it, with why the training stopped early, if it did.
        with st.container(key=TITLE_ROW, horizontal=True, vertical_alignment="center", gap="small"):
            st.title(title, help=intro or None, width="content")
            if line:
                st.caption(line + (f" · **{stopped}**" if stopped else ""))
    else:
        st.title(title)
        if intro:
            st.caption(intro)
    if ss[state.TRAIN_ERROR]:
        kept = " The previous result is still shown." if trained is not None else ""
        st.error(md_escape(f"Could not train. {as_sentence(ss[state.TRAIN_ERROR])}{kept}"))
    if trained is None:
        st.info("Pick a corpus and settings in the sidebar, then press Train.")
        return None
    if not summary:
        return trained
    if not presenter():
        st.caption(line)
        if stopped:
            st.info(stopped)
    return trained


def _stopped(trained: Trained) -> str:
    """Why the training stopped before what was asked, as Markdown; "" when it did not."""
    asked = trained.request.amount if trained.request.target == "merges" else None
    if trained.stop_reason and not as_clause(trained.stop_reason).startswith("reached"):
        return md_escape(f"Training stopped early: {as_clause(trained.stop_reason)}.")
    if asked is not None and trained.steps < asked:
        return f"Training stopped after {trained.steps:,} merges."
    return ""


def training_summary(trained: Trained) -> str:
    """The sidebar tokenizer in one Markdown line: its corpus, settings and what its training made."""
    corpus_key = st.session_state[state.TRAINED_FOR][0]
    made = explorer_family(trained.family).made
    return (f"**{md_escape(store.corpus_title(corpus_key))}** · {trained.request.describe()}"
            + (f" · {made(trained)}" if made is not None else ""))


def sidebar_family() -> str:
    """The family of the sidebar's tokenizer: the trained bundle's, or the settings' before any."""
    ss = st.session_state
    trained = ss.get(state.TRAINED)
    return trained.family if trained is not None else ss.get(state.W_FAMILY, state.SETTING_DEFAULTS[state.W_FAMILY])


def bpe_only(page: str, *, stop: bool = False) -> bool:
    """On a page about BPE's merge lists: True when the sidebar's tokenizer is one; otherwise one line
    saying so and False. The page still works on BPE where it has its own tokenizers (the
    lessons'); `stop=True`: a page made only of the sidebar's tokenizer stops after the line."""
    entry = family(sidebar_family())
    if issubclass(entry.model_class, Tokenizer):
        return True
    if stop:
        st.info(f"{page} is about BPE's merges, and the sidebar's tokenizer is {entry.title}: choose BPE as the "
                "Family in the sidebar and press Train to use this page.", icon=":material/info:")
        st.stop()
    st.info(f"{page} is about BPE's merges: the sidebar's {entry.title} tokenizer has no place here, so this page "
            "shows BPE as before.", icon=":material/info:")
    return False
