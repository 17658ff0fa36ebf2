"""The Vocabulary page: the table, histogram and nearly-unused list as pure functions, then the page."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from bpe_core import Settings, train
from bpe_core.analysis import vocabulary_table
from explorer.data.tokenizer_files import Uploaded
from explorer.display import vocabulary as view
from explorer.ui import state
from sample_corpora import load_corpus
from tests.conftest import require


@pytest.fixture(scope="module")
def rows():
    return vocabulary_table(train(load_corpus("seed000"), merges=10))


# ---- pure --------------------------------------------------------------------------------------

def test_table_has_every_token_with_its_numbers(rows):
    frame = view.vocab_frame(rows)
    assert list(frame.columns) == ["id", "token", "step", "count when merged", "characters", "bytes",
                                   "uses after training", "kept %"]
    assert list(frame["id"]) == list(range(22))
    ne = frame[frame["token"] == "ne"].iloc[0]
    assert (ne["step"], ne["count when merged"], ne["uses after training"], ne["characters"]) == (4, 9, 2, 2)
    assert ne["kept %"] == pytest.approx(22.2)
    base = frame[frame["token"] == "l"].iloc[0]
    assert base["step"] is pd_na() and base["count when merged"] is pd_na()
    newest = frame[frame["token"] == "newest</w>"].iloc[0]
    assert (newest["characters"], newest["bytes"]) == (6, 6)  # the end-of-word marker is no character


def pd_na():
    import pandas as pd

    return pd.NA


def test_bytes_tokens_show_visible_spaces_and_hex_never_replacement_characters():
    tok = train("hello world 日本 " * 5 + "語", Settings(mode="bytes"), merges=20)
    frame = view.vocab_frame(vocabulary_table(tok))
    tokens = list(frame["token"])
    assert "·world" in tokens and "·w" in tokens and "·日本" in tokens
    assert "<e6>" in tokens and not any("\ufffd" in t for t in tokens)


def test_search(rows):
    assert [r.token for r in view.search(rows, "ne")] == ["ne", "newe", "newest</w>"]
    assert view.search(rows, "") == list(rows)
    assert [r.token for r in view.search(rows, "</W>")] == [r.token for r in rows if "</w>" in r.token]  # any case
    spaced = vocabulary_table(train("a b a b a b", Settings(mode="text"), merges=2))  # makes "a " and "a b"
    assert [r.token for r in view.search(spaced, " b")] == [r.token for r in view.search(spaced, "·b")] == ["a b"]


def test_length_histogram_counts_every_token(rows):
    fig = view.length_histogram(rows)
    go.Figure(fig.to_dict())
    base, merged = fig.to_dict()["data"]
    assert sum(base["y"]) + sum(merged["y"]) == len(rows)
    assert sum(merged["y"]) == 10
    by_bytes = view.length_histogram(rows, unit="bytes").to_dict()["data"]
    assert sum(by_bytes[0]["y"]) + sum(by_bytes[1]["y"]) == len(rows)
    with pytest.raises(ValueError):
        view.length_histogram(rows, unit="words")


def test_nearly_unused(rows):
    frame = view.unused_frame(rows)
    assert list(frame["token"]) == ["we", "t</w>", "ne", "newe"]
    assert frame[frame["token"] == "ne"]["built into"].iloc[0] == "newe"
    assert len(view.unused_frame(rows, threshold=0.0)) == 1  # t</w> is never used after training


def test_default_token_and_labels(rows):
    assert view.default_token(rows) == 20  # "wi", the last merge
    assert view.token_label(rows[14]) == "14 · ne (step 4)"
    assert view.token_label(rows[0]) == "0 · </w> (base)"


# ---- the page ------------------------------------------------------------------------------------

def open_vocabulary(at):
    at.switch_page("views/vocabulary.py").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    return at


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_page_shows_the_table_histogram_and_unused(app):
    at = open_vocabulary(app)
    table, unused = at.dataframe[0].value, at.dataframe[1].value
    assert len(table) == 22 and list(unused["token"]) == ["we", "t</w>", "ne", "newe"]
    hist, tree = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert hist["layout"]["barmode"] == "stack"
    at.text_input(key="voc_w_search").set_value("we").run()
    assert list(at.dataframe[0].value["token"]) == ["we", "newe", "newest</w>"]


def test_life_story_and_jump_to_its_birth(app):
    at = open_vocabulary(app)
    assert "wi" in at.selectbox(key="voc_w_token").format_func(at.selectbox(key="voc_w_token").value)
    at.selectbox(key="voc_w_token").set_value(14).run()  # "ne"
    assert (metric(at, "Born at step"), metric(at, "Pair count when merged")) == ("4", "9")
    assert (metric(at, "Uses after training"), metric(at, "Tokens built on it")) == ("2", "1")
    bodies = [h.value for h in at.html]
    assert any(">n<" in h and ">e<" in h for h in bodies)  # its parents
    assert any(">newe<" in h for h in bodies)  # built on it
    tree = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert [a["text"] for a in tree["layout"]["annotations"]] == ["n", "e", "ne<br><sub>step 4</sub>"]
    at.button(key="voc_jump").click().run()
    assert at.session_state[state.STEP] == 4 and at.session_state[state.PLAYING] is False
    assert at.title[0].value == "Watch BPE learn"  # now on the animation page


def test_an_uploaded_tokenizer_without_training_record(app):
    tok = train("hello world " * 5, Settings(mode="bytes"), merges=6)
    bare = type(tok)(settings=tok.settings, merges=tok.merges, vocab=tok.vocab, unk_token=None, source="gpt2")
    item = Uploaded("file:x", "vocab.json + merges.txt", bare)
    app.session_state[state.PICK_UPLOADED] = {item.key: item}
    at = open_vocabulary(app)
    at.selectbox(key="voc_w_source").set_value("file:x").run()
    assert not at.exception and any("without a training record" in i.value for i in at.info)
    assert len(at.dataframe[0].value) == 262
    assert metric(at, "Pair count when merged") == "—"
    assert not any(b.key == "voc_jump" for b in at.button)  # no animation to jump into
    # The page describes the tokenizer it shows, not the sidebar's (seed 000, word mode).
    from plain_text import shown

    captions = [shown(c.value) for c in at.caption]
    assert captions[1] == ("**vocab.json + merges.txt** · uploaded GPT-2 vocab.json + merges.txt · bytes mode, "
                           "pre-tokenizer gpt2 · vocabulary 262 tokens · 6 merges")
    assert not any("seed" in c.lower() or "word mode" in c for c in captions)
    # Unknown numbers show as a dash, not "None".
    assert all(d.proto.placeholder == "—" for d in at.dataframe)
    assert "Step: the merge that made the token (step k is the k-th merge)." in captions[2]
    assert captions[2].endswith("Step and count are — for base symbols, which no merge made.")


def test_a_builtin_vocabulary_of_200k_tokens(app):
    at = open_vocabulary(app)
    at.selectbox(key="voc_w_source").set_value("builtin:o200k_base").run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert len(table) == 199_998 and table["id"].tolist()[:3] == [0, 1, 2]
    assert table["step"].tolist()[256] == 1  # the first merge
    from plain_text import shown

    captions = [shown(c.value) for c in at.caption]
    assert captions[1].startswith("**GPT-4o (o200k_base)** · built in, read offline from the quicktok-v1 package")
    assert captions[2].startswith("Terms: OpenAI publishes o200k_base with tiktoken under the MIT licence")
    assert [i.value for i in at.info] == [
        "This tokenizer was published without its training record: merge counts and uses are unknown."]
    assert at.number_input(key="voc_w_token").max == 199_997  # a 200k list is picked by id
    assert not any(b.key == "voc_jump" for b in at.button)  # no animation to jump into
    at.text_input(key="voc_w_search").set_value("tokenizer").run()
    assert all("tokenizer" in t.lower() for t in at.dataframe[0].value["token"])


def test_a_rank_files_tokens_no_merge_builds_are_named_so(app):
    """Llama 3 lists 678 tokens its merges never build: no step, not base symbols, a bar of their own."""
    require("quicktok")
    at = open_vocabulary(app)
    at.selectbox(key="voc_w_source").set_value("builtin:llama3").run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table.columns) == ["id", "token", "step", "characters", "bytes"]  # no counts: no empty columns
    assert table["step"].isna().sum() == 256 + 678
    histogram = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert [bar["name"] for bar in histogram] == ["base symbols", "merged tokens", "no merge builds them"]
    assert any("for the 678 tokens no merge builds" in c.value for c in at.caption)
    at.number_input(key="voc_w_token").set_value(100_421).run()  # ".:.:"
    assert metric(at, "Born at step") == "no merge builds it"
    assert any(m.value.startswith("**Parents:** none, it is a token no merge builds") for m in at.markdown)
