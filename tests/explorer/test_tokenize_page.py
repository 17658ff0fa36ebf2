"""The Tokenize page in AppTest, link included (its pure pieces: test_tokenize.py). The page's result
must be the whole text's encoding, for every family and every built-in, however it was computed:
in the page's thread or in worker processes."""
from __future__ import annotations

import json
import math

import pytest
from apptest_helpers import APP, chip_blocks, token_texts
from plain_text import constructs, shown
from streamlit.testing.v1 import AppTest

from bpe_core import Settings, train
from bpe_core.builtin import load_builtin
from explorer.data import tasks
from explorer.display import tokenize as view
from explorer.display.table_fit import CELL_PAD, FIT_WIDTH, LINE_PX, ROW_PAD, WRAP_ROW_HEIGHT, text_px
from explorer.ui import live_text, state, store
from sample_corpora import load_corpus

TOKENIZE = "views/tokenize.py"
MULTI = load_corpus("multilingual")


@pytest.fixture(scope="module")
def cl100k():
    return load_builtin("cl100k_base")


# ---- the page ------------------------------------------------------------------------------------

def open_tokenize(app):
    app.switch_page(TOKENIZE).run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def test_the_page_shows_each_tokenizer_with_its_own_counts(app, cl100k):
    at = open_tokenize(app)
    table = at.dataframe[0].value
    assert table["tokenizer"].tolist() == ["GPT-4 (cl100k_base) · built in", "GPT-4o (o200k_base) · built in",
                                           at.multiselect(key=state.TOK_W_CHOSEN).format_func("sidebar")]
    text = state.TOK_DEFAULT_TEXT
    sidebar = at.session_state[state.TRAINED].tokenizer
    assert table["tokens"].tolist() == [len(cl100k.encode(text).ids), len(load_builtin("o200k_base").encode(text).ids),
                                        len(sidebar.encode(text).ids)]
    assert len(chip_blocks(at)) == 3
    assert any(c.value.startswith("Terms\\: OpenAI publishes cl100k") for c in at.caption)  # the licence, plain


def test_opening_the_page_trains_nothing(app, monkeypatch):
    trained: list = []
    monkeypatch.setattr(store, "train_cached", lambda *args, **kwargs: trained.append(args))
    open_tokenize(app)
    assert trained == []


def test_choosing_tokenizers_typing_and_the_bytes_view(app):
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:gpt2", "builtin:qwen3"]).run()
    at.text_area(key=state.TOK_W_TEXT).set_value("naïve 日本語").run()
    table = at.dataframe[0].value
    assert table["tokenizer"].tolist() == ["GPT-2 (gpt2) · built in", "Qwen 3 (qwen3) · built in"]
    assert table["tokens"].tolist() == [len(load_builtin(n).encode("naïve 日本語").ids) for n in ("gpt2", "qwen3")]
    gpt2 = chip_blocks(at)[0]
    assert "·" in gpt2 and "\ufffd" not in gpt2
    at.toggle(key=state.TOK_W_AS_BYTES).set_value(True).run()
    hex_view = chip_blocks(at)[0]
    assert ">&lt;20 e6&gt;<" in hex_view and ">&lt;6e 61&gt;<" in hex_view  # " " + 日's first byte; "na"
    at.switch_page("views/vocabulary.py").run()
    at.switch_page(TOKENIZE).run()  # the choice and the text survive leaving the page
    assert at.multiselect(key=state.TOK_W_CHOSEN).value == ["builtin:gpt2", "builtin:qwen3"]
    assert at.text_area(key=state.TOK_W_TEXT).value == "naïve 日本語"
    assert at.query_params["tokenizers"] in (["gpt2,qwen3"], "gpt2,qwen3")


def test_an_example_is_one_click_away(app):
    at = open_tokenize(app)
    at.button(key=state.TOK_EXAMPLE + "multilingual").click().run()
    text = at.text_area(key=state.TOK_W_TEXT).value
    assert text == view.excerpt(load_corpus("multilingual")) and text.startswith("English: The morning train")
    assert len(chip_blocks(at)) == 3


def test_a_long_text_draws_the_first_tokens_and_counts_all(app, cl100k):
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:cl100k_base"]).run()
    text = "The quick brown fox jumps over the lazy dog. " * 600  # 27,000 characters
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    count = len(cl100k.encode(text).ids)
    assert at.dataframe[0].value["tokens"].tolist() == [count]
    assert f"Showing the first {view.MAX_CHIPS:,} of {count:,} tokens; the counts are over the whole text." in [
        c.value for c in at.caption]
    assert chip_blocks(at)[0].count('class="bpe-id"') == view.MAX_CHIPS
    assert any("longer than a link carries" in c.value for c in at.caption)
    assert "input" not in at.query_params


def test_a_text_with_nul_stays_out_of_the_link_and_says_why(app):
    at = open_tokenize(app)
    at.text_area(key=state.TOK_W_TEXT).set_value("tokens\x00here").run()
    assert not at.exception
    assert any("holds NUL characters, which a link may not carry" in c.value for c in at.caption)
    assert "input" not in at.query_params  # a link made here opens as it was left, not with a refusal


def test_a_crafted_link_shows_its_text_plainly_and_names_the_unknown_tokenizer():
    crafted = "**bold** <script>alert(1)</script> [l](https://x.invalid) $x$"
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update({"input": crafted, "tokenizers": "gpt2,<b>evil</b>,sidebar"})
    at.switch_page(TOKENIZE)
    at.run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Tokenize"
    (notice,) = at.warning
    assert constructs(notice.value) == []
    assert shown(notice.value) == (
        "The link asked for something this app could not do. tokenizers=<b>evil</b> in the link names no tokenizer "
        "this app has (it has gpt2, cl100k_base, o200k_base, llama3, qwen3, mistral_v1, tekken, deepseek_v4, qwen3_6, "
        "o200k_harmony and sidebar). The link's other settings were used.")
    assert at.text_area(key=state.TOK_W_TEXT).value == crafted
    assert at.multiselect(key=state.TOK_W_CHOSEN).value == ["builtin:gpt2", "sidebar"]
    bodies = chip_blocks(at)
    assert len(bodies) == 2 and not any("<script" in b for b in bodies)
    assert ">&lt;<sub" in bodies[0] and ">script<sub" in bodies[0]  # GPT-2 reads "<", "script", ">": as text
    gpt2 = load_builtin("gpt2")
    assert at.dataframe[0].value["tokens"].tolist()[0] == len(gpt2.encode(crafted).ids)


def test_a_link_cannot_carry_an_uploaded_tokenizer(app):
    tok = train("hello world " * 5, Settings(mode="bytes"), merges=6)
    from explorer.data.tokenizer_files import Uploaded

    item = Uploaded("file:x", "mine.json", tok)
    app.session_state[state.PICK_UPLOADED] = {item.key: item}
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["file:x", "builtin:gpt2"]).run()
    assert at.dataframe[0].value["tokenizer"].tolist()[0] == "mine.json (our JSON)"
    assert any("Uploaded tokenizers do not travel in the link" in c.value for c in at.caption)
    assert at.query_params["tokenizers"] in (["gpt2"], "gpt2")


def test_a_text_over_a_megabyte_is_cut_with_a_message(app, cl100k):
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:gpt2"]).run()
    text = "ab " * 400_000  # 1.2 MB
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    assert not at.exception and not at.error
    assert any("Tokenizing the first 1,000,000 bytes of 1,200,000." in c.value for c in at.caption)
    assert at.dataframe[0].value["tokens"].tolist() == [len(load_builtin("gpt2").encode(text[:1_000_000]).ids)]


def test_a_long_text_is_tokenized_in_worker_processes_with_the_same_result(app, cl100k, monkeypatch):
    """Past `TOKENIZE_HERE_BYTES` the page's thread encodes nothing (a megabyte through several tokenizers
    would hold the server for seconds): each tokenizer is a job in the pool, under its limits, and the
    page shows what the engine gives."""
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:cl100k_base", "builtin:gpt2", "sidebar"]).run()
    here: list[str] = []
    real = view.tokenized
    monkeypatch.setattr(view, "tokenized", lambda model, text, **kw: here.append(model.title) or real(model, text,
                                                                                                           **kw))
    text = MULTI * (tasks.TOKENIZE_HERE_BYTES // len(MULTI.encode()) + 1)  # over the line
    assert view.utf8_size(text) >= tasks.TOKENIZE_HERE_BYTES
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    assert not at.exception and not at.error and not at.info, [i.value for i in at.info]
    assert here == []
    sidebar = at.session_state[state.TRAINED].tokenizer
    assert at.dataframe[0].value["tokens"].tolist() == [len(cl100k.encode(text).ids),
                                                        len(load_builtin("gpt2").encode(text).ids),
                                                        len(sidebar.encode(text).ids)]
    assert [b.count('class="bpe-id"') for b in chip_blocks(at)] == [view.MAX_CHIPS] * 3

    at.text_area(key=state.TOK_W_TEXT).set_value("short text").run()  # a short one: here, at once
    assert not at.exception and len(here) == 3


def test_the_sidebar_tokenizer_is_followed_when_it_is_trained_again(app):
    at = open_tokenize(app)
    before = at.dataframe[0].value["tokens"].tolist()[2]
    at.sidebar.number_input(key=state.W_MERGES).set_value(3)
    next(b for b in at.button if b.label == "Train").click().run()
    sidebar = at.session_state[state.TRAINED].tokenizer
    assert len(sidebar.merges) == 3
    after = at.dataframe[0].value["tokens"].tolist()[2]
    assert after == len(sidebar.encode(state.TOK_DEFAULT_TEXT).ids) and after != before


def test_each_tokenizer_shows_its_parts_step_by_step(app):
    """Under each tokenizer, its pipeline: a file's own parts (DeepSeek's three Splits), a
    training's as its settings make them, each with what it made of the text."""
    from bpe_core.analysis import visible_whitespace

    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:deepseek_v4", "sidebar"]).run()
    text = "Hello  world, 12345"
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    assert not at.exception and len(at.dataframe) == 1  # the parts are drawn when opened: only the counts
    assert [e.label for e in at.expander] == ["Its parts, step by step"] * 2
    for key in ("builtin:deepseek_v4", "sidebar"):
        at.session_state[state.TOK_PARTS + key] = True  # as a click on each opens it
    at.run()
    deepseek, sidebar = (d.value for d in at.dataframe[1:])
    assert deepseek["stage"].tolist() == ["normalizer", "pre-tokenizer", "model", "decoder", "post-processor"]
    assert deepseek["part"].tolist()[1] == "Split → Split → Split → ByteLevel"
    tokens = load_builtin("deepseek_v4").encode(text).tokens
    assert deepseek["on this text"].tolist()[2] == " | ".join(visible_whitespace(t) for t in tokens)
    assert deepseek["on this text"].tolist()[3] == visible_whitespace(text)  # the decoder gives the text back
    trained = at.session_state[state.TRAINED].tokenizer
    assert sidebar["stage"].tolist()[:3] == ["normalizer", "pre-tokenizer", "model"]
    assert sidebar["on this text"].tolist()[2] == " | ".join(visible_whitespace(t) for t in trained.encode(text).tokens)
    assert sidebar["on this text"].tolist()[1].split(" | ") == ["Hello", "world,", "12345"]
    at.text_area(key=state.TOK_W_TEXT).set_value("another text").run()  # an open box stays open for the next text
    assert [d.value["on this text"].tolist()[1] for d in at.dataframe[1:]] == ["another | Ġtext", "another | text"]


def test_each_tokenizer_draws_its_text_by_token_and_its_ids_to_copy(app, cl100k):
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:cl100k_base", "sidebar"]).run()
    text = "naïve <b>café</b>  日本語"
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    drawn = token_texts(at)
    assert [d["group"] for d in drawn] == ["tok_box_0", "tok_box_1"]
    assert all("".join(p[0] for p in d["pieces"]) == text and d["more"] == "" for d in drawn)
    ids = cl100k.encode(text).ids
    assert drawn[0]["kinds"] == "." * len(ids)
    assert {k for _, owners in drawn[0]["pieces"] for k in owners} == set(range(len(ids)))
    sidebar = at.session_state[state.TRAINED].tokenizer.encode(text)
    assert drawn[1]["kinds"] == "".join("u" if u else "." for u in sidebar.unknown)  # the lesson lacks most letters
    assert [c.value for c in at.code] == [view.ids_text(ids), view.ids_text(sidebar.ids)]
    assert not at.get("download_button")  # short lists hold every id


def test_a_long_text_lists_the_first_ids_and_offers_them_all(app, cl100k):
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:cl100k_base"]).run()
    text = "The quick brown fox jumps over the lazy dog. " * 3000  # 135,000 characters, 30,001 tokens
    at.text_area(key=state.TOK_W_TEXT).set_value(text).run()
    ids = cl100k.encode(text).ids
    assert at.code[0].value == view.ids_text(ids, view.MAX_COPY_IDS)
    assert f"The list holds the first {view.MAX_COPY_IDS:,} of {len(ids):,} ids; the download holds them all." in [
        c.value for c in at.caption]
    (download,) = at.get("download_button")
    assert download.proto.label == f"All {len(ids):,} ids"
    (drawn,) = token_texts(at)
    covered = "".join(p[0] for p in drawn["pieces"])
    assert text.startswith(covered) and len(covered) < len(text)
    assert drawn["more"] == f" … {len(text) - len(covered):,} more characters, not coloured"


def test_text_typed_is_kept_without_writing_the_box_back(app):
    """While typing, the watcher hands the text over and the box already shows it: the page
    tokenizes it and leaves the box alone (writing it would undo keystrokes made meanwhile). A text
    set elsewhere (an example) is written into the box."""
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:gpt2"]).run()
    before = at.text_area(key=state.TOK_W_TEXT).value
    at.session_state[state.TOK_TEXT] = at.session_state[live_text.shown_key(state.TOK_W_TEXT)] = "typed so far"
    at.run()
    assert at.text_area(key=state.TOK_W_TEXT).value == before  # not written back
    assert at.dataframe[0].value["tokens"].tolist() == [len(load_builtin("gpt2").encode("typed so far").ids)]
    at.button(key=state.TOK_EXAMPLE + "python").click().run()
    assert at.text_area(key=state.TOK_W_TEXT).value == view.excerpt(load_corpus("python"))
    (watcher,) = [el for el in at.get("bidi_component") if el.proto.component_name == "bpe_explorer.live_text"]
    assert json.loads(watcher.proto.json) == {"watch": state.TOK_W_TEXT, "delay": live_text.DELAY_MS,
                                              "crc": live_text.box_crc(view.excerpt(load_corpus("python")))}


def test_a_long_name_wraps_in_the_counts_table_rather_than_being_cut(app):
    """The lesson's sidebar name is longer than a column: the table fits the page and the name wraps
    onto as many lines as its width needs, in rows tall enough for Streamlit to wrap them."""
    table = open_tokenize(app).dataframe[0]
    widths = {name: column["width"] for name, column in json.loads(table.proto.columns).items() if "width" in column}
    assert set(widths) == set(table.value.columns) and sum(widths.values()) <= FIT_WIDTH
    name = max(table.value["tokenizer"], key=len)
    lines = math.ceil(text_px(name) / (widths["tokenizer"] - CELL_PAD))
    assert lines > 1 and table.proto.row_height >= max(WRAP_ROW_HEIGHT, 2 * ROW_PAD + LINE_PX * lines)


def test_counts_are_drawn_with_thousands_separators(app):
    """cl100k's vocabulary is 100,256 tokens, as the page's own text writes it, not "100256": every
    whole-number column is drawn in the reader's locale; the fractions keep their two decimals."""
    table = open_tokenize(app).dataframe[0]
    columns = json.loads(table.proto.columns)
    counted = {name for name, column in columns.items() if column.get("type_config", {}).get("format") == "localized"}
    assert counted == {"tokens", "vocabulary", "unknown tokens"}, columns
    assert 100_256 in table.value["vocabulary"].tolist()


def test_the_page_prepares_processes_for_a_long_text_with_its_built_ins(app, monkeypatch):
    """While the text is short, the page starts the processes a long text would wait for, with the chosen
    built-ins (not the sidebar's model, which travels with each task); a long text's run starts its
    encodings instead."""
    prepared: list[tasks.Task] = []
    monkeypatch.setattr(store, "prepare", prepared.append)
    at = open_tokenize(app)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:gpt2", "sidebar", "builtin:o200k_base"]).run()
    assert prepared and {task.function for task in prepared} == {"explorer.display.tokenize:warm_up_in_worker"}
    assert prepared[-1].payload == (("builtin", "gpt2"), ("builtin", "o200k_base")) and prepared[-1].keep
    prepared.clear()
    at.text_area(key=state.TOK_W_TEXT).set_value(MULTI * (tasks.TOKENIZE_HERE_BYTES // len(MULTI.encode()) + 1)).run()
    assert not at.exception and prepared == []
