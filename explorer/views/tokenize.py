"""Tokenize: paste or type text and see it through several tokenizers at once, with counts."""
from __future__ import annotations

import hashlib

import streamlit as st

from bpe_core import BPEError
from explorer.data import tasks, warm
from explorer.display import stages as stages_view
from explorer.display import tokenize as view
from explorer.display.render import md_escape
from explorer.display.table_fit import fit_columns, shown_row_height
from explorer.ui import link, live_text, state, store, warming
from explorer.ui import tokenizer_picker as picker

ss = st.session_state  # this page's keys are state.TOK_*, and the text area's own (ui.live_text)
SCROLL_AFTER = 150  # tokens drawn before the chips scroll (in a box as high as the coloured text's)
IDS_SCROLL_AFTER, IDS_HEIGHT = 60, 110  # ids listed before their list scrolls in a box this high
EXAMPLES = {"english": "English prose", "python": "Python code", "multilingual": "Many scripts"}  # sample ids


def _use_example(sample_id: str) -> None:
    ss[state.TOK_TEXT] = view.excerpt(store.sample_text(sample_id))


st.title("Tokenize")
st.caption("Type or paste text and see how each tokenizer splits it, while you type: the text coloured by "
           "token (hover a token, in the text or among the chips, to see its partner), the tokens with "
           "their ids, the ids as a list to copy, and how many characters and bytes each token covers on "
           "average. Nothing is trained here.")

live_text.text_area("Text to tokenize", key=state.TOK_W_TEXT, value_key=state.TOK_TEXT, height=150)
examples = st.columns([1, 1.1, 1.1, 1.1, 2.5], vertical_alignment="center")
examples[0].markdown("Try an example:")
for col, (sample_id, title) in zip(examples[1:], EXAMPLES.items()):
    col.button(title, key=state.TOK_EXAMPLE + sample_id, on_click=_use_example, args=(sample_id,), width="stretch",
               help="The start of the sample corpus of that name (Corpus page)")
full_text = ss[state.TOK_TEXT] or ""
text, was_cut = view.cap_text(full_text)
notes = []
if was_cut:
    notes.append(f"Tokenizing the first {view.MAX_TEXT_BYTES:,} bytes of {view.utf8_size(full_text):,}.")
if not link.tokenize_link_carries(full_text):
    too_long = view.utf8_size(full_text) > link.LINK_TEXT_MAX_BYTES
    why = (f"is longer than a link carries ({link.LINK_TEXT_MAX_BYTES:,} bytes)" if too_long
           else "holds NUL characters, which a link may not carry")
    notes.append(f"This text {why}: the link keeps the tokenizers, not the text.")
if notes:
    examples[4].caption(" ".join(notes))

options = picker.choices(families=True)  # every tokenizer: merge lists, our families, tokenizers of parts
ss[state.TOK_CHOSEN] = [k for k in ss[state.TOK_CHOSEN] if k in options]  # a link or an old upload may name gone ones
st.multiselect("Tokenizers (built in, trained in the sidebar, or uploaded on the Files page)", list(options),
               format_func=lambda k: options.get(k, k), key=state.TOK_W_CHOSEN,
               on_change=state.bind(ss, state.TOK_W_CHOSEN, state.TOK_CHOSEN),
               placeholder="Choose one or more tokenizers")
st.toggle("Byte-level tokens as hex bytes", key=state.TOK_W_AS_BYTES,
          on_change=state.bind(ss, state.TOK_W_AS_BYTES, state.TOK_AS_BYTES),
          help="Off: the text, with · for a space and hex like `<e6 97>` only where a token holds part of a "
               "character. On: every byte-level token (and every token of a tokenizer read from a file into its "
               "parts) as its bytes.")
chosen = ss[state.TOK_CHOSEN]
if not chosen:
    st.info("Choose a tokenizer above.")
    st.stop()
if not text:
    st.info("Type or paste some text above, or pick an example.")
    st.stop()

# ---- encode: each tokenizer once per text (a toggle or another choice reuses the rest) -----------
digest = hashlib.blake2b(text.encode("utf-8", errors="surrogatepass"), digest_size=16).hexdigest()
memo = {k: v for k, v in (ss.get(state.TOK_MEMO) or {}).items() if k[1] == digest}  # this text's only
ss[state.TOK_MEMO] = memo
ready = []  # (key, label, AnyModel)
waiting = []  # the built-ins the server's warming is still preparing
failed: dict[str, str] = {}  # key -> why it cannot tokenize: a built-in whose package is missing, a tokenizer
for key in chosen:  # without an unknown token for a character it lacks, a limit
    name = picker.builtin_of(key)
    if name is not None and warm.waiting_for(name):
        waiting.append(name)
        continue
    try:
        ready.append((key, options[key], picker.model_for(key)))
    except BPEError as exc:
        failed[key] = str(exc)
# The memo holds the model object itself (the sidebar's may have been retrained since); a long text is
# encoded in worker processes, two at once, under the limits of every job (`tasks.tokenize_task`).
todo = [(key, label, model) for key, label, model in ready
        if (key, digest) not in memo or memo[key, digest][0] is not model.model]
long_text = view.utf8_size(text) >= tasks.TOKENIZE_HERE_BYTES
if not (todo and long_text):
    # While the text is short, processes for a long one start, the chosen built-ins loaded: the first
    # long text pasted then waits for its encoding only, not for a process to start and load them.
    refs = [tasks.model_ref(model.model, name) for key, _, model in ready
            if (name := picker.builtin_of(key)) is not None]
    if refs:
        store.prepare(tasks.tokenize_warm_up_task(refs))
if todo and not long_text:
    for key, label, model in todo:
        try:
            with st.spinner(md_escape(f"Tokenizing with {label}…")):
                memo[key, digest] = (model.model, view.tokenized(model, text))
        except BPEError as exc:
            failed[key] = str(exc)
elif todo:
    work = [(("tokenize", key, digest), tasks.tokenize_task(tasks.model_ref(model.model, picker.builtin_of(key)),
                                                             text, label),
             lambda model=model: view.tokenized(model, text)) for key, label, model in todo]
    with st.spinner(md_escape(f"Tokenizing {view.utf8_size(text):,} bytes with "
                              f"{', '.join(label for _, label, _ in todo)}…")):
        for (key, _, model), (result, error) in zip(todo, store.run_tasks(work)):
            if error:
                failed[key] = error
            else:
                memo[key, digest] = (model.model, result)
for key, error in failed.items():
    st.info(md_escape(f"{options[key]}: {error}"))
shown = [(key, label, model, memo[key, digest][1]) for key, label, model in ready if key not in failed]

warming.wait_for(waiting)
if shown:
    counts = view.counts_frame([s[1] for s in shown], [s[3] for s in shown], [s[2].vocab_size for s in shown])
    # a long name (a corpus's title, a file's) wraps: none is cut
    fit = fit_columns(counts, presenter=ss[state.W_PRESENTER])
    st.dataframe(counts, hide_index=True, width="stretch", column_config=fit.columns,
                 row_height=shown_row_height(fit, presenter=ss[state.W_PRESENTER]))


def _ids(key: str, result: view.Tokenized) -> None:
    """The ids as a list with a copy button; past `MAX_COPY_IDS`, the first ones and a download of all."""
    listed = min(result.count, view.MAX_COPY_IDS)
    st.code(view.ids_text(result.ids, view.MAX_COPY_IDS), language=None, wrap_lines=True,
            height=IDS_HEIGHT if listed > IDS_SCROLL_AFTER else "content")
    if result.count > view.MAX_COPY_IDS:
        note, ids = view.ids_note(result), result.ids
        cols = st.columns([3, 1], vertical_alignment="center")
        cols[0].caption(note)
        cols[1].download_button(f"All {result.count:,} ids", data=lambda: view.ids_text(ids), file_name="ids.txt",
                                mime="text/plain", key=state.TOK_IDS + key, on_click="ignore", width="stretch")


for n, (key, label, model, result) in enumerate(shown):
    with st.container(border=True, key=state.TOK_BOX + str(n)):
        st.markdown(f"**{md_escape(label)}**")
        st.caption(f"{md_escape(model.title)} · {result.count:,} tokens · {result.characters_per_token:.2f} characters "
                   f"per token · {result.bytes_per_token:.2f} bytes per token · vocabulary {model.vocab_size:,}"
                   + (f" · {result.unknown:,} unknown" if result.unknown else "")
                   + (f" · {result.special:,} special (dashed: cut out of the text whole)" if result.special else ""))
        if picker.terms(key):
            st.caption(md_escape(picker.terms(key)))
        if result.cut:
            st.caption(view.shown_note(result))
        # The coloured text beside the chips; many chips scroll in a box, so every tokenizer's counts stay in view.
        live_text.token_text(result.pieces, result.kinds(), key=state.TOK_VIEW + str(n), group=state.TOK_BOX + str(n),
                             more=view.text_more(result), chips=result.chips_for(as_bytes=ss[state.TOK_AS_BYTES]),
                             scroll_chips=len(result.tokens) > SCROLL_AFTER)
        _ids(key, result)
        # Drawn when opened (a shut one's table still cost the browser 0.2 s on each long text, three tokenizers)
        parts = st.expander("Its parts, step by step", key=state.TOK_PARTS + key, on_change="rerun")
        if parts.open:
            with parts:
                try:
                    frame = stages_view.stages_frame(model, text)
                except BPEError as exc:  # a model whose parts cannot be built
                    st.info(md_escape(f"Its parts cannot be shown: {exc}"))
                else:
                    st.caption(md_escape(stages_view.stages_note(text)))
                    st.dataframe(frame, hide_index=True, width="stretch")
if any(k.startswith("file:") for k in chosen):
    st.caption("Uploaded tokenizers do not travel in the link: whoever opens it sees the others.")
