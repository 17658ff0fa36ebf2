"""The Compare page: its pure pieces (chips, disputed places, counts, curves) and the page in AppTest."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest
from apptest_helpers import html_bodies, plotly_specs
from plain_text import shown

from bpe_core import BPEError, Settings, train
from bpe_core.analysis import compare_segmentations, token_count_curve
from bpe_core.builtin import builtin_names
from explorer.data.tokenizer_files import Uploaded
from explorer.data.training import TrainRequest, train_corpus
from explorer.display import compare as view
from explorer.display.compare import Entry
from explorer.ui import state, store
from explorer.ui import tokenizer_picker as picker
from sample_corpora import load_corpus

LESSON = load_corpus("seed000")  # the default corpus: the app's first tokenizer is word mode, 10 merges


@pytest.fixture(scope="module")
def word10():
    return train(LESSON, merges=10)


@pytest.fixture(scope="module")
def bytes30():
    return train(LESSON + " 日本" * 20 + " 語", Settings(mode="bytes"), merges=30)


# ---- pure --------------------------------------------------------------------------------------

def test_disputed_tokens_are_outlined_and_cuts_marked(word10):
    half = train(LESSON, merges=5)
    text = "lowest newer"
    comparison = compare_segmentations(text, [word10.encode(text), half.encode(text)])
    # "lo|we|st newer" against "l|o|we|st ne|w|er": the cuts after "l" (1) and after "new" (9)
    assert comparison.disputed_cuts == frozenset({1, 9})
    full = view.column_html(word10, text, comparison.columns[0])
    short = view.column_html(half, text, comparison.columns[1])
    assert full.count('class="cmp-disputed"') == 2 and short.count('class="cmp-disputed"') == 4
    assert ">lo<" in full and 'class="bpe-id">17<' in full  # chips carry ids
    marked = view.marked_text_html(comparison)
    assert marked.count('class="cmp-cut"') == len(comparison.disputed_cuts)
    assert marked.startswith('<div class="cmp-text">l<span class="cmp-cut"')  # the cut between l and o


def test_agreeing_tokens_are_not_outlined(word10):
    text = "low low"
    comparison = compare_segmentations(text, [word10.encode(text), word10.encode(text)])
    assert comparison.disagreements == 0
    assert "cmp-disputed" not in view.column_html(word10, text, comparison.columns[0])
    assert "cmp-cut" not in view.marked_text_html(comparison)


def test_corpus_text_is_escaped_everywhere():
    tok = train("<script>alert(1)</script> a&b", Settings(mode="text"), merges=12)
    text = "<script>alert(1)</script> a&b"
    other = train(text, Settings(mode="text"), merges=3)
    comparison = compare_segmentations(text, [tok.encode(text), other.encode(text)])
    html = view.column_html(tok, text, comparison.columns[0]) + view.marked_text_html(comparison)
    assert "<script" not in html and "&lt;" in html and "&amp;" in html


def test_bytes_view_shows_text_or_hex_never_replacement_characters(bytes30):
    text = "日本語 low"
    enc = bytes30.encode(text)
    comparison = compare_segmentations(text, [enc])
    as_text = view.column_html(bytes30, text, comparison.columns[0])
    as_hex = view.column_html(bytes30, text, comparison.columns[0], as_hex=True)
    assert "\ufffd" not in as_text and "\ufffd" not in as_hex
    # A token holding the last two bytes of 日 and all of 本: hex where the bytes are no character.
    assert '<span class="bpe-hex">&lt;97 a5&gt;</span>本' in as_text
    assert "&lt;e8&gt;" in as_text and "&lt;9e&gt;" in as_text  # 語's bytes, never merged
    assert "&lt;97 a5 e6 9c ac&gt;" in as_hex and "本" not in as_hex.split("title=")[0]  # every token as bytes


def test_hex_toggle_leaves_word_mode_tokens_as_text(word10):
    text = "lowest"
    comparison = compare_segmentations(text, [word10.encode(text)])
    assert view.column_html(word10, text, comparison.columns[0], as_hex=True) == view.column_html(
        word10, text, comparison.columns[0])


def test_unknown_characters_show_the_original_text(word10):
    text = "lox"
    comparison = compare_segmentations(text, [word10.encode(text)])
    html = view.column_html(word10, text, comparison.columns[0])
    assert "bpe-unknown" in html and "&lt;unk&gt;" in html and ">x<" in html


def test_counts_table(word10, bytes30):
    text = "lowest newer x"
    tokenizers = [word10, bytes30]
    comparison = compare_segmentations(text, [t.encode(text) for t in tokenizers], ignore_whitespace=True)
    table = view.counts_table(["word", "bytes"], tokenizers, comparison)
    assert list(table["tokenizer"]) == ["word", "bytes"]
    assert list(table["tokens"]) == [len(word10.encode(text)), len(bytes30.encode(text))]
    assert list(table["unknown tokens"]) == [1, 0]
    assert table["characters per token"][0] == round(len(text) / len(word10.encode(text)), 2)
    assert list(table["vocabulary"]) == [word10.vocab_size, bytes30.vocab_size]


def test_curve_figure_is_valid_and_escaped(word10):
    points = token_count_curve(word10, "lowest newer", points=6)
    fig = view.curve_figure([("<b>mine</b>", points)])
    go.Figure(fig.to_dict())  # validates
    trace = fig.to_dict()["data"][0]
    assert trace["name"] == "&lt;b&gt;mine&lt;/b&gt;"
    assert list(trace["x"]) == [k for k, _ in points] and list(trace["y"])[-1] == len(word10.encode("lowest newer"))


def test_add_entry_refuses_duplicates_and_a_fifth():
    entries: list[Entry] = []
    for n in range(4):
        entries, message = view.add_entry(entries, Entry("builtin", f"k{n}", f"tok {n}"))
        assert message == ""
    same, message = view.add_entry(entries, Entry("builtin", "k0", "tok 0"))
    assert same == entries and "already" in message
    more, message = view.add_entry(entries, Entry("builtin", "k9", "tok 9"))
    assert len(more) == 4 and "At most 4" in message
    with pytest.raises(ValueError):
        Entry("nonsense", "x", "x")


@pytest.mark.parametrize("corpus_id, settings", [
    ("seed000", Settings()), ("seed003", Settings(mode="text", tie_break="first")), ("seed002", Settings(mode="bytes")),
])
def test_first_merges_equals_training_with_fewer_merges(corpus_id, settings):
    text = load_corpus(corpus_id)
    full = train_corpus([text], TrainRequest(settings, "merges", 40))
    for k in (0, 7, full.steps):
        cut, trained = full.first_merges(k), train_corpus([text], TrainRequest(settings, "merges", k))
        assert cut.request == trained.request and cut.tokenizer.merges == trained.tokenizer.merges
        assert cut.tokenizer.vocab == trained.tokenizer.vocab
        assert cut.tokenizer.trace == trained.tokenizer.trace and cut.stop_reason == trained.stop_reason
        assert cut.tokenizer.training.top_pairs == trained.tokenizer.training.top_pairs
        assert cut.curve == trained.curve
        assert (cut.collapse_step, cut.top_words) == (trained.collapse_step, trained.top_words)
        assert cut.tokenizer.encode(text).ids == trained.tokenizer.encode(text).ids


def test_first_merges_past_the_end():
    text = load_corpus("seed000")
    stopped = train_corpus([text], TrainRequest(Settings(), "merges", 40))  # no pair is left after 18 merges
    assert stopped.steps == 18
    more = stopped.first_merges(30)  # training with 30 merges stops at the same place
    assert more.steps == 18 and more.stop_reason == stopped.stop_reason and more.request.amount == 30
    reached = train_corpus([text], TrainRequest(Settings(), "merges", 10))
    with pytest.raises(BPEError, match="only the first 10 merges"):
        reached.first_merges(11)  # merge 11 was never computed


# ---- the page ------------------------------------------------------------------------------------

def columns_html(at) -> list[str]:
    return [h for h in html_bodies(at) if h.startswith('<span class="bpe-chips">')]


def open_compare(app):
    app.switch_page("views/compare.py").run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def test_page_starts_with_the_sidebar_tokenizer_and_half_its_merges(app):
    at = open_compare(app)
    table = at.dataframe[0].value
    assert list(table["merges"]) == [10, 5] and list(table["vocabulary"]) == [22, 17]
    assert len(columns_html(at)) == 2
    assert any("places where the token" in m.value for m in at.markdown)
    assert any('class="cmp-cut"' in h for h in html_bodies(at))
    (curve,) = plotly_specs(at)
    assert len(curve["data"]) == 2  # both are trained here: both have a token-count curve


def test_opening_the_page_trains_nothing(app, monkeypatch):
    # The half-merges column is cut from the sidebar's training: on 5 MB training again took 12 s.
    trained: list = []
    monkeypatch.setattr(store, "train_cached", lambda *args, **kwargs: trained.append(args))
    at = open_compare(app)
    assert trained == [] and list(at.dataframe[0].value["merges"]) == [10, 5]
    half = at.session_state[state.CMP_ENTRIES][1].trained
    assert half.request == TrainRequest(Settings(), "merges", 5) and half.tokenizer.merges == \
        at.session_state["trained"].tokenizer.merges[:5]


def test_text_hex_toggle_and_removing(app):
    at = open_compare(app)
    at.text_area(key="cmp_w_text").set_value("lowest lowest").run()
    assert at.dataframe[0].value["tokens"].tolist() == [6, 8]
    assert at.session_state["cmp_text"] == "lowest lowest"
    at.button(key="cmp_remove_sidebar").click().run()
    assert len(columns_html(at)) == 1 and not any("places where the token" in m.value for m in at.markdown)
    at.switch_page("views/unseen.py").run()
    at.switch_page("views/compare.py").run()  # the text and the entries survive leaving the page
    assert at.text_area(key="cmp_w_text").value == "lowest lowest" and len(columns_html(at)) == 1
    at.button(key="cmp_add_sidebar").click().run()  # and the sidebar's tokenizer can come back
    assert at.dataframe[0].value["merges"].tolist() == [5, 10]


def test_train_a_bytes_entry_and_add_cl100k(app):
    at = open_compare(app)
    at.text_area(key="cmp_w_text").set_value("newest 日本語").run()
    at.selectbox(key="cmp_mode").set_value("bytes")
    at.number_input(key="cmp_merges").set_value(15)
    next(b for b in at.button if b.label == "Train and add").click().run()
    assert not at.exception and len(columns_html(at)) == 3
    assert "bytes mode, 15 merges" in at.dataframe[0].value["tokenizer"].iloc[2]
    at.button(key="cmp_add_cl100k_base").click().run()
    assert not at.exception and len(columns_html(at)) == 4
    cl = columns_html(at)[3]
    assert "\ufffd" not in cl and "&lt;" in cl  # 語 is two cl100k tokens that split its bytes: shown as hex
    at.toggle(key="cmp_w_as_hex").set_value(True).run()
    assert "&lt;e6 97 a5" in columns_html(at)[3] or "&lt;20 e6 97 a5" in columns_html(at)[3]
    assert "newest<span class=\"bpe-marker\">" in columns_html(at)[0]  # word mode stays text
    assert len(plotly_specs(at)[0]["data"]) == 3  # a curve for each trained tokenizer, none for cl100k
    assert "4 of 4" in at.expander[0].label
    assert at.button(key="cmp_add_cl100k_base").disabled  # twice: not offered, with a reason
    assert any(shown(c.value).startswith("Already being compared.") for c in at.caption)


def test_a_tokenizer_already_compared_cannot_be_added_again(app):
    at = open_compare(app)
    assert not at.button(key="cmp_add_gpt2").disabled
    at.button(key="cmp_add_gpt2").click().run()
    assert len(columns_html(at)) == 3
    assert at.button(key="cmp_add_gpt2").disabled and not at.button(key="cmp_add_qwen3").disabled
    said = [shown(c.value) for c in at.caption if "Already being compared." in shown(c.value)]
    assert len(said) == 1 and "50,257 tokens" in said[0]  # beside GPT-2's button, and only there
    at.button(key="cmp_add_qwen3").click().run()  # four in use: nothing more can be added, and the page says why
    assert len(columns_html(at)) == 4
    assert all(b.disabled for b in at.button if (b.key or "").startswith("cmp_add_") or b.label == "Train and add")
    assert sum("4 of 4 in use: remove one" in shown(c.value) for c in at.caption) == len(builtin_names(parts=True)) - 2
    at.button(key="cmp_remove_builtin:gpt2").click().run()  # removed: it can come back
    assert not at.button(key="cmp_add_gpt2").disabled and at.button(key="cmp_add_qwen3").disabled


def test_uploaded_tokenizers_can_be_added(app, bytes30):
    item = Uploaded("file:abc", "mine.json", bytes30)
    app.session_state[state.PICK_UPLOADED] = {item.key: item}
    at = open_compare(app)
    at.button(key="cmp_add_file:abc").click().run()
    assert len(columns_html(at)) == 3
    assert "mine.json (our JSON)" in at.dataframe[0].value["tokenizer"].tolist()


def test_every_builtin_can_be_added_with_its_terms(app):
    at = open_compare(app)
    names = ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen3"]
    assert [b.label for b in at.button if b.key.startswith("cmp_add_") and b.key[8:] in names] == [
        "Add GPT-2 (gpt2)", "Add GPT-4 (cl100k_base)", "Add GPT-4o (o200k_base)", "Add Llama 3 (llama3)",
        "Add Qwen 3 (qwen3)"]
    assert any("Meta Llama 3 Community License" in c.value for c in at.caption)  # the terms, where it is picked
    at.button(key="cmp_add_o200k_base").click().run()
    assert not at.exception and len(columns_html(at)) == 3
    assert at.dataframe[0].value["vocabulary"].tolist()[2] == 199_998


def test_a_builtin_whose_package_is_missing_is_disabled_with_a_message(app, monkeypatch):
    real = picker.builtin_missing
    monkeypatch.setattr(picker, "builtin_missing",
                        lambda name: "Qwen 3 (qwen3) is not available: pip install quicktok-v1."
                        if name == "qwen3" else real(name))
    at = open_compare(app)
    assert at.button(key="cmp_add_qwen3").disabled and not at.button(key="cmp_add_gpt2").disabled
    assert any("pip install quicktok\\-v1" in c.value for c in at.caption)


def test_hostile_names_and_tokens_are_escaped_on_the_page(app):
    evil = train("<img src=x onerror=alert(1)> " * 5, Settings(mode="text"), merges=20)
    item = Uploaded("file:evil", "<script>alert(2)</script>.json", evil)
    app.session_state[state.PICK_UPLOADED] = {item.key: item}
    at = open_compare(app)
    at.button(key="cmp_add_file:evil").click().run()
    at.text_area(key="cmp_w_text").set_value("<img src=x onerror=alert(1)>").run()
    assert not at.exception and len(columns_html(at)) == 3
    bodies = html_bodies(at)
    assert not any("<img" in h or "<script" in h for h in bodies)
    assert "&lt;" in columns_html(at)[2] and "onerror" in columns_html(at)[2]  # shown as text
    assert not any("<script>" in m.value for m in at.markdown)  # the file name, backslash-escaped
