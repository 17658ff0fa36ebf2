"""The Tokenize page: its pure pieces (caps, counts, chips, the coloured text's stretches, the ids)
and the page in AppTest, link included. The page's result must be the whole text's encoding, for
every family and every built-in, however it was computed."""
from __future__ import annotations

import json
import pickle

import pytest
from apptest_helpers import APP, html_bodies
from plain_text import constructs, shown
from streamlit.testing.v1 import AppTest

from bpe_core import BPEError, Settings, train
from bpe_core.builtin import builtin_names, load_builtin
from bpe_core.families.registry import NAMES, family
from explorer.data.any_model import AnyModel
from explorer.data.training import train_corpus
from explorer.display import tokenize as view
from explorer.ui import live_text, state, store
from sample_corpora import load_corpus
from tests.conftest import missing

TOKENIZE = "views/tokenize.py"
MULTI = load_corpus("multilingual")


@pytest.fixture(scope="module")
def cl100k():
    return load_builtin("cl100k_base")


# ---- pure --------------------------------------------------------------------------------------

def test_cap_text_cuts_at_a_character_boundary():
    assert view.cap_text("日本語", 7) == ("日本", True)  # 9 bytes; the third character would be cut inside
    assert view.cap_text("日本語", 9) == ("日本語", False)
    text = "é" * 600_000  # 1.2 MB
    capped, cut = view.cap_text(text)
    assert cut and capped == "é" * 500_000 and view.utf8_size(capped) == view.MAX_TEXT_BYTES


def test_excerpt_ends_at_a_paragraph():
    text = "First paragraph here.\n\nSecond one, much longer " + "word " * 400
    assert view.excerpt(text, 40) == "First paragraph here."  # a paragraph end in the second half
    assert view.excerpt("short", 60) == "short"


def test_counts_are_over_the_whole_text_and_chips_are_capped(cl100k):
    text = "Hello world, 日本語! " * 400
    result = view.tokenized(cl100k, text, max_chips=50)
    ids = cl100k.encode(text).ids
    assert result.count == len(ids) and len(result.tokens) == 50 and result.cut
    assert [t.id for t in result.tokens] == ids[:50]
    assert (result.characters, result.bytes) == (len(text), len(text.encode()))
    assert result.characters_per_token == pytest.approx(len(text) / len(ids))
    assert result.bytes_per_token == pytest.approx(len(text.encode()) / len(ids))
    html = view.chips_html(cl100k, text, result)
    assert html.count('class="bpe-id"') == 50 and f"{len(ids) - 50:,} more tokens" in html
    assert view.shown_note(result) == (f"Showing the first 50 of {len(ids):,} tokens; "
                                       "the counts are over the whole text.")


def test_chips_show_ids_escape_text_and_bytes_on_request(cl100k):
    text = "<b>x</b> 語"
    result = view.tokenized(cl100k, text)
    html = view.chips_html(cl100k, text, result)
    assert [t.token for t in result.tokens][:2] == ["<b", ">x"]
    assert ">&lt;b<sub" in html and ">&gt;x<sub" in html and "<b>" not in html  # escaped, never a tag
    assert f'class="bpe-id">{cl100k.encode("<b>").ids[0]}<' in html
    assert "\ufffd" not in html and ">&lt;aa&gt;<" in html  # 語 split inside its bytes: hex groups
    as_bytes = view.chips_html(cl100k, text, result, as_bytes=True)
    assert ">&lt;3c 62&gt;<" in as_bytes  # "<b" as its two bytes


def test_counts_frame_and_unknown_tokens():
    word = train("low lower", merges=2)
    text = "low xyz"
    result = view.tokenized(word, text)
    frame = view.counts_frame(["word"], [result], [word.vocab_size])
    assert frame.to_dict("records") == [{
        "tokenizer": "word", "tokens": result.count, "characters per token": round(7 / result.count, 2),
        "bytes per token": round(7 / result.count, 2), "vocabulary": word.vocab_size,
        "unknown tokens": 3}]


def _as_encoded(model: AnyModel, text: str, result: view.Tokenized) -> None:
    """`result` is what the whole text's encoding says, with its first tokens drawn."""
    enc = model.encoding(text)
    n = len(result.tokens)
    assert list(result.ids) == enc.ids and result.count == len(enc.ids)
    assert result.unknown == sum(enc.unknown or ()) and result.special == sum(enc.special or ())
    assert [(t.token, t.id, t.start, t.end) for t in result.tokens] == [
        (tok, i, s, e) for tok, i, (s, e) in list(zip(enc.tokens, enc.ids, enc.spans))[:n]]
    assert result.unknown_shown == tuple(map(bool, (enc.unknown or [False] * n)[:n]))
    assert result.special_shown == tuple(map(bool, (enc.special or [False] * n)[:n]))


def _family_models():
    """Every family the registry trains, trained small on the many-scripts sample."""
    for name in NAMES:
        if family(name).trains:
            request = state.request_from_values({state.W_FAMILY: name, state.W_VOCAB: 600, state.W_TRANSITION: 0})
            yield name, AnyModel.of_trained(train_corpus([MULTI], request))


# Long enough that only a start of it is encoded with spans; unknown characters (for the trained
# ones), added tokens' text in the middle and at the start (for the built-ins that have them).
def _texts(model: AnyModel) -> list[str]:
    added = " ".join(t.content for t in model.added_tokens[:2])
    return [MULTI * 2 + " 𒀀 ", MULTI + f" {added} " + MULTI, f"{added}{MULTI}"]


def test_the_result_is_the_whole_texts_encoding_for_every_family():
    for name, model in _family_models():
        for text in _texts(model):
            result = view.tokenized(model, text, max_chips=40)
            assert len(result.tokens) == 40, name
            _as_encoded(model, text, result)
        assert view.tokenized(model, MULTI * 2 + " 𒀀 ").unknown > 0 or name == "superbpe", name  # bytes: none


@pytest.mark.parametrize("name", builtin_names(parts=True))
def test_the_result_is_the_whole_texts_encoding_for_every_builtin(name):
    try:
        model = AnyModel.of(load_builtin(name))
    except BPEError as exc:  # its package is not installed
        missing(str(exc))
    for text in _texts(model):
        _as_encoded(model, text, view.tokenized(model, text, max_chips=40))


def test_a_start_whose_tokens_differ_is_not_trusted(cl100k, monkeypatch):
    """Were a start of the text to encode otherwise than the whole, the whole text is encoded."""
    model = AnyModel.of(cl100k)
    text = MULTI * 2
    whole = model.encoding(text)
    real = AnyModel.encoding

    def skewed(self, part):  # a start of the text loses its first token
        enc = real(self, part)
        if part == text:
            return enc
        return type(enc)(enc.tokens[1:], enc.ids[1:], enc.spans[1:], enc.unknown, enc.special)

    monkeypatch.setattr(AnyModel, "encoding", skewed)
    result = view.tokenized(model, text, max_chips=40)
    assert [t.id for t in result.tokens] == whole.ids[:40] and result.tokens[0].start == 0


def test_the_result_is_plain_data_that_pickles(cl100k):
    result = view.tokenized(cl100k, MULTI * 2, max_chips=30)
    back = pickle.loads(pickle.dumps(result))
    assert back == result and back.chips == result.chips and list(back.ids) == list(result.ids)
    assert back.pieces == result.pieces and back.kinds() == "." * 30


def test_the_text_pieces_cover_the_drawn_text_once():
    assert view.text_pieces("ab c", [(0, 2), (3, 4)]) == (("ab", (0,)), (" ", ()), ("c", (1,)))
    # 語's three bytes in three tokens, the first with the space before it: the character is all three's
    assert view.text_pieces(" 語x", [(0, 2), (1, 2), (1, 2), (2, 3)]) == (
        (" ", (0,)), ("語", (0, 1, 2)), ("x", (3,)))
    # word mode: the spaces are in no token, a separate </w> has no text
    lesson = train("low lower", merges=2)
    text = "  low  lower"
    enc = lesson.encode(text)
    pieces = view.text_pieces(text, enc.spans)
    assert "".join(p[0] for p in pieces) == text
    assert [p for p in pieces if not p[1]] == [("  ", ()), ("  ", ())]
    assert {k for _, owners in pieces for k in owners} == {k for k, (s, e) in enumerate(enc.spans) if e > s}
    assert view.text_pieces("abcdef", [(0, 3), (3, 6)], limit=4) == (("abc", (0,)), ("d", (1,)))


def test_chips_name_their_token_and_the_pieces_point_at_them(cl100k):
    text = "Hello <b>x</b> 語"
    result = view.tokenized(cl100k, text)
    n = len(result.tokens)
    assert [result.chips.count(f'data-i="{k}"') for k in range(n)] == [1] * n
    assert "".join(p[0] for p in result.pieces) == text and result.drawn_chars == len(text)
    assert result.pieces[-2:] == ((" ", (n - 3,)), ("語", (n - 3, n - 2, n - 1)))  # " " + its first byte, two more
    assert "<b>" not in result.chips and result.chips_hex != result.chips
    assert view.text_more(result) == ""


def test_the_ids_to_copy(cl100k):
    assert view.ids_text([1, 22, 333]) == "[1, 22, 333]" and view.ids_text([1, 22, 333], 2) == "[1, 22]"
    assert json.loads(view.ids_text(cl100k.encode("naïve 日本語").ids)) == cl100k.encode("naïve 日本語").ids
    result = view.tokenized(cl100k, "word " * 30, max_chips=10)
    assert view.ids_note(result, 100) == "" and view.ids_note(result, 20) == (
        f"The list holds the first 20 of {result.count:,} ids; the download holds them all.")
    assert view.text_more(result) == f" … {150 - result.drawn_chars:,} more characters, not coloured"


# ---- the page ------------------------------------------------------------------------------------

def open_tokenize(app):
    app.switch_page(TOKENIZE).run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def chip_blocks(at) -> list[str]:
    return [h for h in html_bodies(at) if h.startswith('<span class="bpe-chips">')]


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
    assert not at.exception
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


def token_texts(at) -> list[dict]:
    """The data of each coloured text the page drew (the `token_text` components)."""
    return [json.loads(el.proto.json) for el in at.get("bidi_component")
            if el.proto.component_name == "bpe_explorer.token_text"]


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
    assert json.loads(watcher.proto.json) == {"watch": state.TOK_W_TEXT, "delay": live_text.DELAY_MS}
