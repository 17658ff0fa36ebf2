"""The Language tax page (views/language_tax.py), its drawing (display/language_tax.py) and its
analysis (bpe_core/analysis/language_tax.py)."""
from __future__ import annotations

import json
import math

import plotly.graph_objects as go
import pytest

from bpe_core import BPEError, train
from bpe_core.analysis import TextStats, text_stats
from bpe_core.analysis.language_tax import language_tax, premiums
from bpe_core.builtin import builtin_info, builtin_names, load_builtin
from explorer.data.any_model import AnyModel
from explorer.display import language_tax as view
from explorer.display.render import escape
from explorer.display.table_fit import BROWSER_ROOT_PX, CELL_PAD, INDEX, LINE_PX, PRESENTER_ROOT_PX, ROW_PAD, text_px
from explorer.ui import state
from sample_corpora import list_languages, load_corpus, load_parallel, load_parallel_messages
from tests.conftest import missing
from tests.explorer.apptest_helpers import plotly_specs
from tests.explorer.plain_text import shown
from tests.explorer.sample_set_gone import remove_shipped_set

PAGE = "views/language_tax.py"


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return load_parallel()  # shipped as files: neither Django nor Sphinx is needed to read them


@pytest.fixture(scope="module")
def builtins() -> dict:
    loaded = {}
    for name in builtin_names():
        try:
            loaded[name] = load_builtin(name)
        except BPEError:
            missing(f"the {builtin_info(name).package} package is not installed")
    return loaded


# ---- the analysis and the drawing ---------------------------------------------------------------


def test_premium_is_tokens_over_the_reference_tokens() -> None:
    stats = {"en": TextStats(10, 10, 2, 4), "hi": TextStats(30, 10, 2, 10), "mine": TextStats(5, 5, 1, 3)}
    assert premiums(stats, parallel={"en", "hi"}) == {"en": 1.0, "hi": 2.5, "mine": None}
    assert premiums({"en": TextStats(0, 0, 0, 0), "hi": TextStats(3, 1, 1, 1)}) == {"en": None, "hi": None}
    with pytest.raises(BPEError, match="reference language 'en'"):
        premiums({"hi": TextStats(3, 1, 1, 1)})


def test_rows_match_text_stats() -> None:
    tok = train("low lower lowest newer", merges=6)
    texts = {"en": "low lower", "xx": "lowest newest", "yy": "ab"}
    rows = language_tax({"toy": tok}, texts)
    assert [(r.tokenizer, r.language) for r in rows] == [("toy", "en"), ("toy", "xx"), ("toy", "yy")]
    for row in rows:
        assert row.stats == text_stats(tok, texts[row.language])
        assert row.premium == row.stats.tokens / text_stats(tok, "low lower").tokens


def test_figure_and_tables_name_every_tokenizer_and_language() -> None:
    rows = language_tax({"a": train("ab ab", merges=1), "b": train("ab ab", merges=0)},
                        {"en": "ab ab", "fr": "ab ba"}, parallel={"en", "fr"})
    langs = {"en": ("English", "Latin"), "fr": ("French", "Latin")}
    names = {"a": "<b>mine</b>", "b": "<b>mine</b>"}  # outside text, twice the same
    fig = view.tax_figure(rows, view.PREMIUM, langs, names)
    go.Figure(fig.to_dict())  # a valid figure
    assert [t["name"] for t in fig.to_dict()["data"]] == ["&lt;b&gt;mine&lt;/b&gt;", "&lt;b&gt;mine&lt;/b&gt; (2)"]
    assert list(fig.data[0].x) == ["English", "French"] and fig.data[0].y[0] == 1.0
    wide = view.wide_frame(rows, view.PER_CHARACTER, langs, names)
    assert list(wide.columns) == ["Script", "<b>mine</b>", "<b>mine</b> (2)"]
    assert list(wide.index) == ["English", "French"]
    assert wide.loc["French", "<b>mine</b> (2)"] == round(rows[3].stats.tokens_per_character, 4)
    assert list(view.long_frame(rows, langs, names).columns) == view.COLUMNS
    with pytest.raises(ValueError, match="unknown metric"):
        view.value(rows[0], "speed")


# ---- the page -----------------------------------------------------------------------------------


def _frames(at):
    """The page's wide table (the metric per language and tokenizer) and its table of every number."""
    wide, every, _sources = (df.value for df in at.dataframe)
    return wide, every


def test_page_shows_every_language_and_tokenizer(app, texts, builtins) -> None:
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    wide, every = _frames(app)
    names = [lang.name for lang in list_languages()]
    assert list(wide.index) == names and len(names) >= 12
    titles = [builtin_info(name).title for name in builtin_names()]
    trained = [c for c in wide.columns if c.startswith("Trained here")]
    assert list(wide.columns) == ["Script", *titles, *trained] and len(trained) == 1
    for column in wide.columns[1:]:
        assert wide.loc["English", column] == 1.0  # the premium of English over itself
        assert all(value > 0 for value in wide[column])
    (figure,) = plotly_specs(app)
    assert [trace["name"].replace("<br>", " ") for trace in figure["data"]] == [*titles, *trained]  # long ones wrap
    assert all(len(trace["x"]) == len(names) for trace in figure["data"])
    # The numbers are text_stats' on the same text.
    hindi = every[(every["Language"] == "Hindi") & (every["Tokenizer"] == titles[2])].iloc[0]
    expected = text_stats(builtins["o200k_base"], texts["hi"])
    assert (hindi["Bytes"], hindi["Characters"], hindi["Tokens"]) == (expected.bytes, expected.characters,
                                                                      expected.tokens)
    english = text_stats(builtins["o200k_base"], texts["en"])
    assert math.isclose(wide.loc["Hindi", titles[2]], round(expected.tokens / english.tokens, 3))


def test_tokens_per_character_and_the_sidebars_corpus(app, texts, builtins) -> None:
    app.switch_page(PAGE).run()
    app.multiselect(key=state.TAX_W_CHOSEN).set_value(["builtin:gpt2", "sidebar"]).run()
    app.radio(key=state.TAX_W_METRIC).set_value(view.PER_CHARACTER).run()
    app.toggle(key=state.TAX_W_CORPUS).set_value(True).run()
    assert not app.exception, app.exception
    wide, every = _frames(app)
    gpt2 = builtin_info("gpt2").title
    assert list(wide.columns)[:2] == ["Script", gpt2] and len(wide.columns) == 3
    assert wide.loc["Korean", gpt2] == round(text_stats(builtins["gpt2"], texts["ko"]).tokens_per_character, 4)
    corpus_rows = every[every["Language"].str.startswith("Your corpus: ")]
    assert len(corpus_rows) == 2 and corpus_rows["Premium over English"].isna().all()  # not parallel: no premium
    mine = corpus_rows[corpus_rows["Tokenizer"] == gpt2].iloc[0]
    assert mine["Tokens"] == text_stats(builtins["gpt2"], load_corpus("seed000")).tokens == 20  # the lesson's corpus
    # As a premium, the corpus has no number: an empty table cell, and no bar.
    app.radio(key=state.TAX_W_METRIC).set_value(view.PREMIUM).run()
    wide = _frames(app)[0]
    assert wide.filter(like="Your corpus: ", axis=0).iloc[0, 1:].isna().all()
    assert all(not any(x.startswith("Your corpus") for x in trace["x"]) for trace in plotly_specs(app)[0]["data"])


def test_builtin_numbers_are_counted_once_per_machine(tmp_path, monkeypatch):
    from explorer.data import language_tax_cache as cache

    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path))
    texts = {"en": "The cat sat on the mat.\n", "ru": "Кошка сидела на коврике.\n"}
    first = cache.builtin_language_stats("gpt2", texts)
    assert first == {code: text_stats(load_builtin("gpt2"), text) for code, text in texts.items()}
    files = list((tmp_path / "language-tax").glob("gpt2-*.json"))
    assert len(files) == 1

    def no_counting(name):
        raise AssertionError("counted again instead of reading the cache")

    monkeypatch.setattr(cache, "load_builtin", no_counting)
    assert cache.builtin_language_stats("gpt2", texts) == first  # read back, not counted
    with pytest.raises(AssertionError, match="counted again"):
        cache.builtin_language_stats("gpt2", {**texts, "el": "Η γάτα.\n"})  # other texts: another file
    monkeypatch.setattr(cache, "load_builtin", load_builtin)
    files[0].write_text("{not json", encoding="utf-8")
    assert cache.builtin_language_stats("gpt2", texts) == first  # a damaged file is counted again


# ---- the same sentence in each language, and unknown tokens -------------------------------------------

def _sentences(at) -> list[str]:
    return [h for h in (el.value for el in at.html) if h.startswith('<div class="tax-sentence">')]


def _select(at, label: str):
    return next(s for s in at.selectbox if s.label.startswith(label))


def test_sentence_choices_are_one_line_sentences_in_every_language(texts) -> None:
    messages = load_parallel_messages()
    choices = view.sentence_choices(messages)
    assert len(choices) >= 10
    for i in choices:
        english = messages["en"][i]
        assert len(english.split()) >= view.SENTENCE_WORDS and english.endswith(".") and "%(" not in english
        assert all("\n" not in messages[code][i] and messages[code][i] for code in messages)


def test_a_sentence_row_escapes_outside_text_and_counts_unknown_tokens() -> None:
    tok = AnyModel.of(train("ab ab ab", merges=1))
    rows = view.sentence_rows([("<b>mine</b>", tok)], "ab <i>x</i>")
    html = view.sentence_html("<script>", "Latin", "ab <i>x</i>", rows)
    assert "<b>mine" not in html and "<i>" not in html and "<script>" not in html
    assert "<b>&lt;script&gt;</b>" in html and "&lt;b&gt;mine&lt;/b&gt;" in html
    assert rows[0].unknown == 8 and "8 unknown" in html  # the 8 characters of <i>x</i>: none was seen
    assert view.unknown_counts(AnyModel.of(load_builtin("gpt2")), {"en": "x"}) == {}  # byte level: none can occur


def test_the_sentence_is_drawn_in_english_and_hindi_by_every_tokenizer(app, texts, builtins) -> None:
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    messages = load_parallel_messages()
    picked = _select(app, "Sentence").value
    english, hindi = _sentences(app)
    assert english.startswith('<div class="tax-sentence"><div class="tax-lang"><b>English</b>')
    assert "<b>Hindi</b>" in hindi and escape(messages["hi"][picked]) in hindi
    chosen = app.session_state[state.TAX_CHOSEN]
    assert english.count('class="tax-row"') == hindi.count('class="tax-row"') == len(chosen)
    gpt2 = builtins["gpt2"].encode(messages["hi"][picked]).ids
    row = hindi.split('class="tax-row"')[1 + chosen.index("builtin:gpt2")]
    assert row.count('class="bpe-id"') == len(gpt2) and f"{len(gpt2):,} tokens" in row  # one chip a token
    _select(app, "Language, beside English").set_value("").run()  # every language
    assert len(_sentences(app)) == len(texts)
    other = view.sentence_choices(messages)[1]
    _select(app, "Sentence").set_value(other).run()
    assert escape(messages["ko"][other]) in _sentences(app)[list(texts).index("ko")]


def test_unknown_tokens_are_counted_and_the_page_says_the_count_is_too_low(app, texts) -> None:
    app.switch_page(PAGE).run()
    app.multiselect(key=state.TAX_W_CHOSEN).set_value(["builtin:gpt2", "sidebar"]).run()
    assert not app.exception, app.exception
    every = _frames(app)[1]
    mine = every[every["Tokenizer"].str.startswith("Trained here")].set_index("Language")
    lesson = AnyModel.of(app.session_state[state.TRAINED].tokenizer_model)  # the lesson's word-mode tokenizer
    assert mine.loc["Hindi", "Unknown tokens"] == sum(lesson.encoding(texts["hi"]).unknown) > 0
    assert (every[every["Tokenizer"] == builtin_info("gpt2").title]["Unknown tokens"] == 0).all()
    (note,) = [shown(w.value) for w in app.warning]  # one note: GPT-2 makes no unknown token
    assert note.startswith("Trained here") and f"made unknown tokens (<unk>) in {len(texts)} of {len(texts)} texts" \
        in note and "too low" in note and "look cheaper than they are" in note
    worst = (mine["Unknown tokens"] / mine["Tokens"]).idxmax()  # named first, with its numbers
    assert f"texts: {worst} {mine.loc[worst, 'Unknown tokens']:,} of {mine.loc[worst, 'Tokens']:,} tokens" in note
    assert mine.loc["Hindi", "Tokens"] == text_stats(lesson.model, texts["hi"]).tokens
    assert all("unknown</span>" in h for h in _sentences(app))  # the sentence's red chips are counted beside them


def test_an_unreadable_sample_set_names_the_command_that_rebuilds_it(app, monkeypatch, tmp_path) -> None:
    """The set ships as files: the page says what is wrong with them and how to rebuild them, not that a
    package is missing."""
    reason = remove_shipped_set(monkeypatch, tmp_path)
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    assert [shown(e.value) for e in app.error] == [f"The multilingual sample set cannot be read: {reason}."]
    assert "python -m sample_corpora build" in reason and "Django" not in reason


def test_in_presenter_mode_every_language_is_whole_in_the_larger_type(app) -> None:
    """Presenter mode's type is 21/16 of the browser's, and the grid's with it: the language column is
    sized for it (sized for the browser's type, it cut "Portuguese (Brazil)" at 1280x720)."""
    app.session_state[state.W_PRESENTER] = True
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    wide = app.dataframe[0]
    width = json.loads(wide.proto.columns)[INDEX]["width"]
    scale = PRESENTER_ROOT_PX / BROWSER_ROOT_PX
    longest = max(map(text_px, wide.value.index)) * scale
    assert longest > 150  # "Portuguese (Brazil)": wider than the narrowest wrapped column
    lines = math.ceil((longest - 0.5) / (width - CELL_PAD))  # (a width is a whole number of pixels)
    if lines > 1:  # wrapped: in rows tall enough for its lines, and for Streamlit to wrap at all (4rem)
        assert wide.proto.row_height >= max(4 * PRESENTER_ROOT_PX + 1, 2 * ROW_PAD + LINE_PX * scale * lines)
