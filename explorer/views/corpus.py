"""Corpus: pick a sample, upload files or paste text, and see the corpus's statistics."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from explorer.data.corpus import MAX_UPLOAD_MB, UPLOAD_LIMIT_TEXT, pasted_corpus, read_uploads
from explorer.display import tables
from explorer.display.render import as_sentence, md_escape
from explorer.ui import corpus_count, state, store

ss = st.session_state


def _use_sample(key: str) -> None:
    ss[state.CORPUS] = ss[state.W_CORPUS] = key
    ss[state.STEP] = 1
    ss[state.CORPUS_NOTICE] = None


def _uploaded() -> None:
    # Files read before are released (store.release_uploads) and come back as Streamlit's
    # DeletedFile, which has no name or bytes: only the files just added are read.
    files = [f for f in ss.get(state.W_UPLOAD) or [] if hasattr(f, "getvalue")]
    if not files:
        return
    try:
        corpus = read_uploads([(f.name, f.getvalue()) for f in files])
        dropped = store.add_user_corpus(corpus)
    except BPEError as exc:
        ss[state.CORPUS_NOTICE] = ("error", str(exc))
        return
    except Exception as exc:  # noqa: BLE001 - an upload never ends in a traceback
        ss[state.CORPUS_NOTICE] = ("error", f"Could not read the upload ({type(exc).__name__}). "
                                            "The previous corpus is still loaded.")
        return
    finally:
        store.release_uploads(files)  # the text is read: Streamlit need not keep the bytes too
    ss[state.CORPUS_NOTICE] = (
        "success",
        f"Loaded {corpus.title.removeprefix('Uploaded: ')}: {len(corpus.text):,} "
        f"character{'s' * (len(corpus.text) != 1)}. {dropped}".strip(),
    )


def _pasted() -> None:
    try:
        corpus = pasted_corpus(ss.get(state.W_PASTE, ""))
        dropped = store.add_user_corpus(corpus)
    except BPEError as exc:
        ss[state.CORPUS_NOTICE] = ("error", str(exc))
        return
    size = len(corpus.text)
    message = f"Using the pasted text: {size:,} character{'s' * (size != 1)}. {dropped}"
    ss[state.CORPUS_NOTICE] = ("success", message.strip())


st.title("Corpus")
st.caption("The text BPE learns from. Whatever you choose here is trained with the settings in the sidebar.")
notice = ss[state.CORPUS_NOTICE]
if notice:
    (st.error if notice[0] == "error" else st.success)(md_escape(notice[1]))  # file names are the user's
if ss[state.TRAIN_ERROR]:
    st.error(md_escape(f"Could not train. {as_sentence(ss[state.TRAIN_ERROR])}"))

samples_tab, upload_tab, paste_tab = st.tabs(["Sample corpora", "Upload files", "Paste text"])
with samples_tab:
    for corpus in store.sample_list():
        key = f"sample:{corpus.id}"
        left, right = st.columns([5, 1], vertical_alignment="center")
        current = " (in use)" if ss[state.CORPUS] == key else ""
        left.markdown(f"**{md_escape(corpus.title)}**{current}  \n{md_escape(corpus.description)}")
        left.caption(f"Source: {md_escape(corpus.source)}. Licence: {md_escape(corpus.licence)}.")
        right.button(
            "Use",
            key=state.b_use_sample(corpus.id),
            on_click=_use_sample,
            args=(key,),
            disabled=bool(current),
            width="stretch",
        )
with upload_tab:
    st.file_uploader(
        f"Upload one or more UTF-8 text files (.txt), up to {UPLOAD_LIMIT_TEXT} in all. Several files are "
        "joined into one corpus.",
        accept_multiple_files=True,
        max_upload_size=MAX_UPLOAD_MB,  # the widget's own limit: MAX_UPLOAD_MB * 1,000,000 bytes
        key=state.W_UPLOAD,
        on_change=_uploaded,
    )
with paste_tab:
    st.text_area("Paste text to train on", key=state.W_PASTE, height=200)
    st.button("Use this text", key=state.B_USE_PASTE, on_click=_pasted, type="primary")

try:
    corpus = store.get_corpus(ss[state.CORPUS])
except BPEError as exc:
    st.error(str(exc))
    st.stop()

st.subheader("In use: " + md_escape(corpus.title))
try:
    with st.spinner("Counting the corpus's words…"):
        stats = corpus_count.stats(corpus.digest, corpus.text)
except BPEError as exc:  # a failure that may pass (a busy server): kept by no one, the next run tries again
    stats = str(exc)
counted = not isinstance(stats, str)  # else: why they could not be counted
if counted:
    cols = st.columns(4)
    cols[0].metric("Characters", f"{stats.characters:,}")
    cols[1].metric("Words", f"{stats.words:,}")
    cols[2].metric("Distinct words", f"{stats.distinct_words:,}")
    cols[3].metric("Alphabet (distinct characters)", f"{stats.alphabet:,}")
else:
    st.info(md_escape(f"Its statistics could not be counted: {stats}. It can still be trained."))
    st.button("Count again", key=state.B_RECOUNT, on_click=corpus_count.count_again, args=(corpus.digest,))
left, right = st.columns([2, 3])
with left:
    if counted:
        st.markdown("**Most frequent words**")
        st.dataframe(tables.word_counts_table(stats.top_words), hide_index=True, width="stretch")
with right:
    st.markdown("**The start of the text**")
    st.code(corpus.text[:3000] + ("\n…" if len(corpus.text) > 3000 else ""), language=None, height=380, wrap_lines=True)
