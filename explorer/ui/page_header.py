"""What every page starts with: its title, the link and training messages, the trained bundle."""
from __future__ import annotations

import streamlit as st

from explorer.data.family_view import FAMILY_TITLES
from explorer.data.training import Trained
from explorer.display.render import as_clause, as_sentence, md_escape
from explorer.ui import state, store


def presenter() -> bool:
    return bool(st.session_state[state.W_PRESENTER])


def link_notice() -> None:
    """What the link just opened asked for and did not get (drawn above the page, before any training)."""
    notice = st.session_state[state.URL_NOTICE]
    if notice is not None:
        kind, text = notice
        (st.warning if kind == "warning" else st.info)(md_escape(text), icon=":material/link:")


def header(title: str, intro: str = "", *, summary: bool = True) -> Trained | None:
    """Title, messages, a one-line summary; returns the trained bundle (None: nothing to show).

    `summary=False` leaves out the sidebar tokenizer's summary, for a page that shows a tokenizer
    picked on the page (it describes that one itself: `tokenizer_picker.caption`).
    """
    ss = st.session_state
    st.title(title)
    if intro:
        st.caption(intro)
    trained = ss[state.TRAINED]
    if ss[state.TRAIN_ERROR]:
        kept = " The previous result is still shown." if trained is not None else ""
        st.error(md_escape(f"Could not train. {as_sentence(ss[state.TRAIN_ERROR])}{kept}"))
    if trained is None:
        st.info("Pick a corpus and settings in the sidebar, then press Train.")
        return None
    if not summary:
        return trained
    st.caption(training_summary(trained))
    asked = trained.request.amount if trained.request.target == "merges" and trained.family == "bpe" else None
    if trained.stop_reason and not as_clause(trained.stop_reason).startswith("reached"):
        st.info(md_escape(f"Training stopped early: {as_clause(trained.stop_reason)}."))
    elif asked is not None and trained.steps < asked:
        st.info(f"Training stopped after {trained.steps:,} merges.")
    return trained


def training_summary(trained: Trained) -> str:
    """The sidebar tokenizer in one Markdown line: its corpus, settings and vocabulary."""
    corpus_key = st.session_state[state.TRAINED_FOR][0]
    if trained.family != "bpe":
        return family_summary(trained, md_escape(store.corpus_title(corpus_key)))
    tok = trained.tokenizer
    return (
        f"**{md_escape(store.corpus_title(corpus_key))}** · {trained.request.describe()} · "
        f"{trained.steps:,} merges learned · vocabulary {tok.vocab_size:,} tokens: "
        f"{trained.alphabet:,} base symbols + {tok.vocab_size - trained.alphabet - bool(tok.unk_token):,} "
        f"made by merges{' + the unknown token' if tok.unk_token else ''}"
    )


def family_summary(trained: Trained, corpus_title: str) -> str:
    """A WordPiece, Unigram or SuperBPE tokenizer in one Markdown line (the corpus title escaped)."""
    family = trained.family
    vocab = len(trained.model.vocab)
    if family == "wordpiece":
        made = f"{trained.steps:,} merge steps · vocabulary {vocab:,} tokens"
    elif family == "unigram":
        made = f"{trained.steps:,} pruning rounds · vocabulary {vocab:,} pieces (the unknown token included)"
    else:
        phase_two = trained.steps - trained.story.transition
        made = (f"{trained.steps:,} merges ({trained.story.transition:,} in phase one, {phase_two:,} in phase two) "
                f"· vocabulary {vocab:,} tokens, {len(trained.model.superwords):,} of them superwords")
    return f"**{corpus_title}** · {trained.request.describe()} · {made}"


def sidebar_family() -> str:
    """The family of the sidebar's tokenizer: the trained bundle's, or the settings' before any."""
    ss = st.session_state
    trained = ss.get(state.TRAINED)
    return trained.family if trained is not None else ss.get(state.W_FAMILY, "bpe")


def bpe_only(page: str, *, stop: bool = False) -> bool:
    """On a page about BPE's merges: True when the sidebar's tokenizer is BPE; otherwise one line
    saying so and False. The page still works on BPE where it has its own tokenizers (the
    lessons'); `stop=True`: a page made only of the sidebar's tokenizer stops after the line."""
    family = sidebar_family()
    if family == "bpe":
        return True
    title = FAMILY_TITLES.get(family, family)
    if stop:
        st.info(f"{page} is about BPE's merges, and the sidebar's tokenizer is {title}: choose BPE as the Family "
                "in the sidebar and press Train to use this page.", icon=":material/info:")
        st.stop()
    st.info(f"{page} is about BPE's merges: the sidebar's {title} tokenizer has no place here, so this page "
            "shows BPE as before.", icon=":material/info:")
    return False
