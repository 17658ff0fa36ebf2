"""Import and export: download the trained tokenizer of any family (and prove the round trip), or upload one
(BPE in any format, our model.json of any family, any tokenizer.json, a SentencePiece model, a Tekken
JSON) to explore, and download it as tokenizer.json, checked by the real `tokenizers` library."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core import BPEError
from explorer.data import tokenizer_files
from explorer.data.any_model import AnyModel
from explorer.data.tokenizer_files import UPLOAD_TYPES
from explorer.display import compare as cmp
from explorer.display import tables, tree_chart
from explorer.display.render import as_sentence, md_escape, token_text
from explorer.display.vocabulary import family_chips_html
from explorer.families import explorer_family, titles, trainable
from explorer.ui import page_header, state, store
from explorer.ui import tokenizer_picker as picker

TREES_SHOWN = 12
ss = st.session_state  # this page's keys are state.IO_*


def _uploaded() -> None:
    files = [f for f in ss.get(state.IO_W_UPLOAD) or [] if hasattr(f, "getvalue")]  # not a released DeletedFile
    loaded = picker.add_uploads([(f.name, f.getvalue()) for f in files])
    if loaded:
        ss[state.PICK_EXPLORE] = ss[state.IO_W_PICK] = loaded[-1].key


def loaded_summary(kind: str, model: AnyModel) -> str:
    """What an upload holds, in one line of plain text: format, model, vocabulary, merges, added tokens."""
    bits = [kind, f"{model.kind} model", f"vocabulary {model.vocab_size:,}"]
    if model.merge_count is not None:
        bits.append(f"{model.merge_count:,} merges")
    if model.added_tokens:
        bits.append(f"{len(model.added_tokens):,} added tokens")
    if model.unk_token:
        bits.append(f"unknown token {model.unk_token}")
    return " · ".join(bits)


def _hf_trip(model: AnyModel, hf: bytes | None, text: str) -> tokenizer_files.RoundTrip | str | None:
    """A tokenizer's tokenizer.json read back by `tokenizers` (`hf_round_trip`), or why it could not be."""
    if hf is None:
        return None
    try:
        return tokenizer_files.hf_round_trip(model, hf, text)
    except BPEError as exc:
        return str(exc)


def _reloads(model: AnyModel, exports: tokenizer_files.Exports, text: str) -> list[tuple[str, str, str]]:
    """Each exported file of ours read back as an upload is (file, reader, same ids or why not)."""
    checks = [("model.json", [(tokenizer_files.OURS_FILE, exports.ours)])]
    if exports.vocab is not None:
        checks.append(("vocab.json + merges.txt", [("vocab.json", exports.vocab), ("merges.txt", exports.merges)]))
    results = []
    for name, files in checks:
        try:
            again = tokenizer_files.reload_round_trip(model, files, text)
            results.append((name, again.reader, "yes" if again.ok else "NO"))
        except BPEError as exc:
            results.append((name, "bpe_core.formats", f"could not read: {exc}"))
    return results


def export_upload(item: tokenizer_files.Uploaded, probe: str) -> None:
    """The upload as tokenizer.json, checked by loading it into `tokenizers` (made once per upload and text)."""
    text = tokenizer_files.sample_text(probe)
    memo = ss.get(state.IO_UP_EXPORT)
    if memo is None or memo[0] != item.key:
        try:
            memo = (item.key, tokenizer_files.hf_export(item.model), "", None, None)
        except BPEError as exc:
            memo = (item.key, None, str(exc), None, None)
    key, hf, problem, trip_for, trip = memo
    if trip_for != text:
        trip = _hf_trip(item.any, hf, text)
    ss[state.IO_UP_EXPORT] = (key, hf, problem, text, trip)
    with st.container(border=True):
        st.markdown("**As a Hugging Face** `tokenizer.json`")
        if hf is None:
            st.warning(f"Cannot export: {md_escape(problem)}")
            return
        st.download_button("Download tokenizer.json", hf, tokenizer_files.HF_FILE, "application/json",
                           key=state.IO_DL_UP_HF, on_click="ignore", icon=":material/download:")
        if isinstance(trip, str):
            st.error(md_escape(as_sentence(trip)))
        elif trip.ok:
            st.success(f"Round trip OK: {trip.reader} loaded this tokenizer.json and encoded the text above (and some "
                       f"unseen characters) to the same {len(trip.ours_ids):,} token ids.",
                       icon=":material/check_circle:")
        else:
            st.error(f"Round trip failed: {trip.reader} gives other ids for this tokenizer.json "
                     f"({len(trip.ours_ids):,} tokens here, {len(trip.their_ids):,} there). The first differences:")
            differences = pd.DataFrame(trip.differences())
            for column in ("our token", "their token"):
                differences[column] = [token_text(t) for t in differences[column]]
            st.dataframe(differences, hide_index=True, width="stretch", placeholder=tables.EMPTY)


def _compare(key: str, label: str) -> None:
    entries = ss.get(state.CMP_ENTRIES, [cmp.sidebar_entry()] if ss[state.TRAINED] is not None else [])
    ss[state.CMP_ENTRIES], _ = cmp.add_entry(entries, cmp.Entry("file", key, label))


trained = page_header.header("Import and export",
                              "Tokenizer files in the formats other tools read, checked by reading them back.")

# ---- export ----------------------------------------------------------------------------------
st.subheader("Download the trained tokenizer")
if trained is None:
    st.info("Train a tokenizer in the sidebar first.")
else:
    model = AnyModel.of_trained(trained)
    if ss.get(state.IO_EXPORTS) is None or ss[state.IO_EXPORTS][0] is not trained:
        ss[state.IO_EXPORTS] = (trained, tokenizer_files.export_model(model.model), {})
    exports, trips = ss[state.IO_EXPORTS][1], ss[state.IO_EXPORTS][2]
    ours_col, hf_col, gpt2_col = st.columns(3, gap="medium")
    with ours_col, st.container(border=True):
        st.markdown("**Our JSON** · `model.json`")
        st.caption(explorer_family(model.family).ours_holds + " Load it here or with `python -m bpe_core`.")
        st.download_button("Download model.json", exports.ours, tokenizer_files.OURS_FILE, "application/json",
                           key=state.IO_DL_OURS, on_click="ignore", icon=":material/download:")
    with hf_col, st.container(border=True):
        st.markdown("**Hugging Face** · `tokenizer.json`")
        if exports.hf is None:
            st.error(f"Cannot export: {md_escape(exports.hf_problem)}")
        else:
            st.caption("For the `tokenizers` library: `Tokenizer.from_file(\"tokenizer.json\")`.")
            st.download_button("Download tokenizer.json", exports.hf, tokenizer_files.HF_FILE, "application/json",
                               key=state.IO_DL_HF, on_click="ignore", icon=":material/download:")
    with gpt2_col, st.container(border=True):
        st.markdown("**GPT-2** · `vocab.json` + `merges.txt`")
        if exports.gpt2_zip is None:
            reason = md_escape(exports.gpt2_problem)
            st.warning(f"Not possible for this tokenizer: {reason}.")
        else:
            st.download_button("Download both as a zip", exports.gpt2_zip, tokenizer_files.GPT2_ZIP, "application/zip",
                               key=state.IO_DL_ZIP, on_click="ignore", icon=":material/folder_zip:")
            v, m = st.columns(2)
            v.download_button("vocab.json", exports.vocab, "vocab.json", "application/json", key=state.IO_DL_VOCAB,
                              on_click="ignore", width="stretch")
            m.download_button("merges.txt", exports.merges, "merges.txt", "text/plain", key=state.IO_DL_MERGES,
                              on_click="ignore", width="stretch")

    st.subheader("Round trip")
    if ss[state.IO_TEXT] is None:
        ss[state.IO_TEXT] = tokenizer_files.sample_text(store.get_corpus(ss[state.TRAINED_FOR][0]).text)
    st.text_area("Sample text: encoded by this app and by the exported files read back", key=state.IO_W_TEXT,
                 height=110, on_change=state.bind(ss, state.IO_W_TEXT, state.IO_TEXT))
    text = ss[state.IO_TEXT]
    if trips.get("text") != text:  # the round trips of this sample text, made once (a file read back takes seconds)
        trips.clear()
        trips.update(text=text, hf=_hf_trip(model, exports.hf, text), reloads=_reloads(model, exports, text))
    if exports.hf is not None:
        trip = trips["hf"]
        if isinstance(trip, str):
            st.error(md_escape(as_sentence(trip)))
        else:
            if trip.ok:
                st.success(f"Round trip OK: {trip.reader} loaded the exported tokenizer.json and encoded the sample "
                           f"to the same {len(trip.ours_ids):,} token ids.", icon=":material/check_circle:")
            else:
                st.error(f"Round trip failed: {trip.reader} gives different ids for the exported tokenizer.json "
                         f"({len(trip.ours_ids):,} tokens here, {len(trip.their_ids):,} there). The first differences:")
                differences = pd.DataFrame(trip.differences())
                for column in ("our token", "their token"):  # as every page shows a token, not as stored
                    differences[column] = [token_text(t, byte_level=model.byte_level) for t in differences[column]]
                st.dataframe(differences, hide_index=True, width="stretch",
                             placeholder=tables.EMPTY)
            with st.expander("The two encodings token by token"):
                rows = range(min(300, max(len(trip.ours_ids), len(trip.their_ids))))
                get = lambda seq, i: seq[i] if i < len(seq) else None  # noqa: E731
                st.dataframe(pd.DataFrame({
                    "position": list(rows),
                    "token here": [token_text(get(trip.ours_tokens, i) or "", byte_level=model.byte_level)
                                   for i in rows],
                    "id here": [get(trip.ours_ids, i) for i in rows],
                    "token in tokenizers": [token_text(get(trip.their_tokens, i) or "", byte_level=model.byte_level)
                                            for i in rows],
                    "id in tokenizers": [get(trip.their_ids, i) for i in rows],
                }), hide_index=True, width="stretch", placeholder=tables.EMPTY)
    st.dataframe(pd.DataFrame(trips["reloads"], columns=["file", "read back by", "same ids"]), hide_index=True)

# ---- import ----------------------------------------------------------------------------------
st.subheader("Explore a tokenizer file")
st.file_uploader("Hugging Face tokenizer.json (any of its models), a SentencePiece .model, a Tekken JSON, GPT-2 "
                 "vocab.json + merges.txt (select both), a .tiktoken rank file, or our model.json "
                 f"({titles(trainable(), 'or')})", type=UPLOAD_TYPES,
                 accept_multiple_files=True, key=state.IO_W_UPLOAD,
                 on_change=_uploaded)
picker.show_upload_notice()
uploads = picker.uploaded()
if not uploads:
    st.caption("Uploaded tokenizers stay in this session: the Compare, Vocabulary and BPE-dropout pages offer them "
               "too.")
    st.stop()
keys = list(uploads)
if ss.get(state.IO_W_PICK) not in uploads:
    ss[state.IO_W_PICK] = keys[-1]
key = st.selectbox("Uploaded tokenizer", keys, format_func=lambda k: uploads[k].label, key=state.IO_W_PICK)
item = uploads[key]
up = item.any
if item.merge_list:
    s = item.tokenizer.settings
    st.caption(md_escape(f"{item.kind} · {s.mode} mode · pre-tokenizer {s.pretokenizer} · vocabulary "
                         f"{up.vocab_size:,} · {up.merge_count:,} merges"
                         + (f" · unknown token {up.unk_token}" if up.unk_token else "")))
else:
    st.caption(md_escape(loaded_summary(item.kind, up)))
if up.added_tokens:
    with st.expander(f"Its {len(up.added_tokens):,} added tokens ({sum(t.special for t in up.added_tokens):,} "
                     f"special): {up.added_rule}"):
        st.dataframe(tables.special_tokens_table(up), hide_index=True, width="stretch", placeholder=tables.EMPTY)
go_vocab, go_compare = st.columns(2)
if go_vocab.button("Open its vocabulary" + (" and life stories" if up.merge_based else ""), key=state.IO_OPEN_VOCAB,
                   icon=":material/table:"):
    ss[state.PICK_EXPLORE] = key
    st.switch_page("views/vocabulary.py")
if go_compare.button("Compare it with the others", key=state.IO_OPEN_COMPARE, icon=":material/compare:"):
    _compare(key, item.label)
    st.switch_page("views/compare.py")
st.text_input("How it splits text", key=state.IO_W_PROBE, on_change=state.bind(ss, state.IO_W_PROBE, state.IO_PROBE))
probe = ss[state.IO_PROBE][:2000]
try:
    pieces = up.segment(probe)
except BPEError as exc:
    st.error(f"This tokenizer cannot encode that text: {md_escape(str(exc))}")
    st.stop()
st.html(family_chips_html(up, pieces, probe))
st.caption(f"{len(pieces):,} tokens." + (" Dashed: added or special tokens, cut out of the text whole."
                                        if any(p.special for p in pieces) else ""))
export_upload(item, probe)
if not up.merges:
    st.caption(md_escape(f"{up.title} has no merges, so there are no merge trees to draw."))
    st.stop()
shown = list(dict.fromkeys(p.token for p in pieces if not (p.unknown or p.special)))[:TREES_SHOWN]
if shown:
    st.markdown(f"**Merge trees** of {'the first ' if len(shown) == TREES_SHOWN else ''}{len(shown)} distinct tokens")
    st.plotly_chart(tree_chart.merge_tree_figure([up.drawn_tree(t) for t in shown], byte_level=up.draws_bytes,
                                             presenter=page_header.presenter()),
                    key=state.IO_TREES, config={"displayModeBar": False}, width="stretch")
