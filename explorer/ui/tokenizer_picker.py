"""The tokenizers the Tokenize, Compare, Vocabulary, Unseen words and BPE-dropout pages can show.

Streamlit glue next to `store`: the sidebar's trained tokenizer (from `store`), tokenizers
uploaded in this session (our model.json of any family, any tokenizer.json, a
SentencePiece model, Tekken), and the built-in ones (`bpe_core.builtin`: GPT-2, cl100k, o200k,
Llama 3, Qwen 3, and the tokenizers of parts: Mistral, Tekken, DeepSeek V4, Qwen 3.6, gpt-oss),
each loaded once and shared by every session while in use. A built-in whose package is missing
stays in the list, marked, and picking it says which package to install.
Uploads are read by the pure `explorer.data.tokenizer_files`, in a worker process under the pool's
limits, and held within the session's budget (`holdings`).

Pages about BPE's merges ask for `tokenizer_for` (a merge-list `Tokenizer`) and are offered those
only (the catalogue's `Builtin.parts` and the loaded upload say which); the pages that work for
every tokenizer pass `families=True` and ask `model_for` (an `AnyModel`).
"""
from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

import streamlit as st

from bpe_core import BPEError, Tokenizer
from bpe_core.analysis import VocabRow, vocabulary_table
from bpe_core.builtin import builtin_info, builtin_names, is_builtin, load_builtin
from bpe_core.parts.pipeline import PartsTokenizer
from explorer.data import tokenizer_files
from explorer.data.any_model import AnyModel
from explorer.data.tokenizer_files import Uploaded
from explorer.display.render import isolate, md_escape
from explorer.ui import holdings, state, store
from explorer.ui.page_header import training_summary
from explorer.ui.server_caches import kept_while_used

SIDEBAR = "sidebar"  # the key of the sidebar's trained tokenizer among the choices
BUILTIN = "builtin:"  # + a built-in's name: the key of a built-in tokenizer
MAX_UPLOADED = 8  # older uploads are dropped beyond this (and beyond the session's budget)


# ---- built-in tokenizers ---------------------------------------------------------------------

def builtin_key(name: str) -> str:
    return BUILTIN + name


def builtin_of(key: str) -> str | None:
    """The built-in's name for a picker key, or None when the key is no built-in."""
    name = key.removeprefix(BUILTIN) if key.startswith(BUILTIN) else None
    return name if name is not None and is_builtin(name) else None


@st.cache_resource(show_spinner=False)
def _installed(package: str) -> bool:
    try:
        metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return False
    return True


def builtin_missing(name: str) -> str:
    """A one-line message when the built-in's package is not installed ("" when it is)."""
    info = builtin_info(name)
    if _installed(info.package):
        return ""
    return f"{info.title} is not available: its package is not installed ({info.install_command})."


def builtin_label(name: str) -> str:
    info = builtin_info(name)
    return f"{info.title} · built in" + (" (not installed)" if builtin_missing(name) else "")


def load(name: str) -> Tokenizer | PartsTokenizer:
    """A built-in tokenizer (shared, read-only); BPEError naming the package when it is missing."""
    info = builtin_info(name)
    with st.spinner(f"Loading {info.title} (a second or two; then shared by every visitor)…"):
        return load_builtin(name)


@kept_while_used(st.cache_resource(show_spinner="Building the vocabulary table…", max_entries=2))  # ~55 MB each
def _builtin_rows(name: str) -> tuple[VocabRow, ...]:
    return tuple(vocabulary_table(load_builtin(name)))


# ---- uploads ---------------------------------------------------------------------------------

def uploaded() -> dict[str, Uploaded]:
    return st.session_state[state.PICK_UPLOADED]


def add_uploads(files: Sequence[tuple[str, bytes]]) -> list[Uploaded]:
    """Read uploaded files in a worker process (under its time and memory limits), keep the
    tokenizers in the session within its budget and record what happened for the page."""
    if not files:
        return []
    budget = holdings.budget()
    try:
        reading = store.run_task(("read", len(files)), tokenizer_files.reading_task(files, max_bytes=budget.limit))
    except BPEError as exc:
        st.session_state[state.PICK_NOTICE] = [("error", str(exc))]
        return []
    if reading.again:  # read within the limits, but it cannot travel between processes: read it here
        again, problems = tokenizer_files.read_tokenizer_files(files)
        loaded = [(item, 0) for item in again]
    else:
        loaded, problems = reading.loaded(), list(reading.problems)
    notice = [("error", p) for p in problems]
    kept: list[Uploaded] = []
    store_ = uploaded()
    for item, nbytes in loaded:
        try:
            dropped = holdings.keep("tokenizer", item.key, item.label, nbytes)
        except BPEError as exc:
            notice.append(("error", str(exc)))
            continue
        store_.pop(item.key, None)
        store_[item.key] = item  # newest last
        kept.append(item)
        notice.append(("success", f"Loaded {item.label}: {_size_text(item.any)}."))
        if dropped:
            notice.append(("warning", dropped))
    while len(store_) > MAX_UPLOADED:
        holdings.discard("tokenizer", store_.pop(next(iter(store_))).key)
    st.session_state[state.PICK_NOTICE] = notice
    return kept


def _size_text(model: AnyModel) -> str:
    merges, added = model.merge_count, len(model.added_tokens)
    return (f"{model.vocab_size:,} token{'s' * (model.vocab_size != 1)}"
            + (f", {merges:,} merge{'s' * (merges != 1)}" if merges is not None else "")
            + (f", {added:,} added token{'s' * (added != 1)}" if added else ""))


def show_upload_notice() -> None:
    for kind, message in st.session_state.get(state.PICK_NOTICE) or []:
        {"error": st.error, "warning": st.warning}.get(kind, st.success)(md_escape(message))  # names are the user's


# ---- every tokenizer -------------------------------------------------------------------------

def sidebar_label() -> str:
    ss = st.session_state
    trained = ss[state.TRAINED]
    if trained is None:
        return "Trained in this session (none yet)"
    return f"Trained here: {store.corpus_title(ss[state.TRAINED_FOR][0])}, {trained.request.describe()}"


def choices(*, builtins: bool = True, families: bool = False) -> dict[str, str]:
    """Key -> label of the tokenizers a page can explore: the sidebar's, this session's uploads, the built-ins.

    Without `families`, only merge-list BPE tokenizers (the sidebar's when it trained BPE, such
    uploads, the built-ins that are no tokenizer of parts).
    """
    trained = st.session_state[state.TRAINED]
    merge_list = trained is not None and isinstance(trained.tokenizer_model, Tokenizer)
    # Plain-text labels around outside text (a corpus title, a file name): isolated (`render.isolate`).
    out = {SIDEBAR: isolate(sidebar_label())} if trained is not None and (families or merge_list) else {}
    out.update({key: isolate(item.label) for key, item in uploaded().items() if families or item.merge_list})
    if builtins:
        out.update({builtin_key(name): builtin_label(name) for name in builtin_names(parts=families)})
    return out


def model_for(key: str) -> AnyModel:
    """The tokenizer of any family with this key; BPEError if it is gone or cannot be loaded."""
    if key == SIDEBAR:
        trained = st.session_state[state.TRAINED]
        if trained is None:
            raise BPEError("nothing has been trained yet: pick a corpus and press Train in the sidebar")
        return AnyModel.of_trained(trained)
    name = builtin_of(key)
    if name is not None:
        return AnyModel.of(load(name))
    item = uploaded().get(key)
    if item is None:
        raise BPEError("that uploaded tokenizer is no longer in this session; upload it again on the Files page")
    return item.any


def tokenizer_for(key: str) -> Tokenizer:
    """The BPE merge list with this key; BPEError if it is gone, cannot be loaded or is another kind."""
    model = model_for(key)
    if not isinstance(model.model, Tokenizer):
        raise BPEError(f"this is a {model.title} tokenizer; this page works on BPE merge lists only")
    return model.model


def _or_stop(get, key: str):
    try:
        return get(key)
    except BPEError as exc:
        st.info(md_escape(str(exc)))
        st.stop()
        raise  # st.stop() ends the run; this line only tells type checkers so


def tokenizer_or_stop(key: str) -> Tokenizer:
    """`tokenizer_for`, or a one-line message and the end of the page when it cannot be had."""
    return _or_stop(tokenizer_for, key)


def model_or_stop(key: str) -> AnyModel:
    """`model_for`, or a one-line message and the end of the page when it cannot be had."""
    return _or_stop(model_for, key)


def caption(key: str) -> str:
    """One Markdown line describing the tokenizer with this key (the page shows this one, not the sidebar's)."""
    if key == SIDEBAR:
        trained = st.session_state[state.TRAINED]
        return training_summary(trained) if trained is not None else ""
    name = builtin_of(key)
    if name is not None:
        info = builtin_info(name)
        return (f"**{md_escape(info.title)}** · built in, read offline from the {md_escape(info.package)} package · "
                f"vocabulary {info.vocab_size:,} tokens")
    item = uploaded().get(key)
    if item is None:
        return ""
    if not item.merge_list:
        return (f"**{md_escape(item.name)}** · uploaded {md_escape(item.kind)} · {md_escape(item.any.title)} · "
                f"{_size_text(item.any)}")
    tok = item.tokenizer
    s = tok.settings
    what = f"{s.mode} mode, " + (f"end-of-word {s.eow}" if s.mode == "word" else f"pre-tokenizer {s.pretokenizer}")
    return (f"**{md_escape(item.name)}** · uploaded {md_escape(item.kind)} · {md_escape(what)} · "
            f"vocabulary {tok.vocab_size:,} tokens · {len(tok.merges):,} merges")


def terms(key: str) -> str:
    """The licence terms of a built-in's vocabulary, as plain text ("" for the others)."""
    name = builtin_of(key)
    return f"Terms: {builtin_info(name).terms}" if name is not None else ""


def show_about(key: str) -> None:
    """The caption of the tokenizer with this key, and a built-in's licence terms under it (plain text)."""
    st.caption(caption(key))
    if terms(key):
        st.caption(md_escape(terms(key)))


def pick(label: str, widget_key: str, remember: str = state.PICK_EXPLORE, *, families: bool = False) -> str | None:
    """A picker over `choices(families=...)`, remembered in `remember` across pages; returns the chosen key.

    The Vocabulary and BPE-dropout pages share state.PICK_EXPLORE; a page with its own key keeps its own choice.
    """
    ss = st.session_state
    options = choices(families=families)
    if not options:
        return None
    if ss.get(remember) not in options:
        ss[remember] = next(iter(options))
    write_back = state.bind(ss, widget_key, remember)
    st.selectbox(label, list(options), format_func=lambda k: options.get(k, k), key=widget_key, on_change=write_back)
    if not families:
        st.caption(MERGE_LISTS_ONLY)
    return ss[remember]


MERGE_LISTS_ONLY = ("This page replays BPE merge lists, so it offers those only: the other families and the tokenizers "
                    "read from a file into parts (DeepSeek V4, Tekken, Mistral, any tokenizer.json) are on the "
                    "Tokenize, Compare, Vocabulary and Unseen words pages.")


def vocab_rows(tok: Tokenizer, key: str | None = None) -> Sequence[VocabRow]:
    """`analysis.vocabulary_table(tok)`: a built-in's shared by every session, others remembered for the last one."""
    name = builtin_of(key) if key is not None else None
    if name is not None:
        return _builtin_rows(name)
    memo = st.session_state.get(state.PICK_ROWS_MEMO)
    if memo is not None and memo[0] is tok:
        return memo[1]
    rows = vocabulary_table(tok)
    st.session_state[state.PICK_ROWS_MEMO] = (tok, rows)
    return rows
