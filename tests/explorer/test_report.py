"""The Report card page: its table, checks and charts drawn (pure), then the page under AppTest."""
from __future__ import annotations

from plain_text import OUTSIDE, constructs, markdown_strings, shown
from sample_set_gone import remove_shipped_set

from bpe_core import train
from bpe_core.formats.detect import load_model
from bpe_core.report import MEASURES, checks, measure, report_card
from explorer.data.corpus import pasted_corpus
from explorer.data.tokenizer_files import Uploaded
from explorer.display import report as view
from explorer.ui import state
from tests.explorer.apptest_helpers import plotly_specs

LESSON = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"
PAGE = "views/report.py"
TABLE = "<table class=\"rc-table\""


def lesson_cards():
    tok = train(LESSON, merges=10)
    return {"a": report_card(tok, "low lower <b>newest</b>\n"), "b": report_card(load_model("gpt2"), "low lower")}


# ---- pure --------------------------------------------------------------------------------------

def test_the_table_has_every_measure_and_escapes_the_names():
    cards = lesson_cards()
    html = view.card_table_html(cards, {"a": OUTSIDE, "b": OUTSIDE})
    assert "<b>h</b>" not in html and "&lt;b&gt;h&lt;/b&gt;" in html
    assert html.count(" (2)</th>") == 1  # the second of two same names is told apart
    for one in MEASURES:
        assert html.count(f"<td>{one.title}<div") == 1
    assert html.count('class="rc-group"') == len({m.group for m in MEASURES})


def test_the_best_value_of_a_row_is_marked_and_missing_values_say_why():
    cards = lesson_cards()
    html = view.card_table_html(cards, {"a": "mine", "b": "gpt2"})
    fertility = measure("tokens_per_word")
    a, b = (fertility.value(cards[k]) for k in "ab")
    best = min(a, b)
    assert f'<td class="rc-best">{view.format_value(fertility, best)}</td>' in html
    assert "no ranked merges" not in html  # both are BPE
    assert measure("gini").why_missing in html  # no parallel set given


def test_checks_are_escaped_and_marked():
    card = lesson_cards()["a"]  # word mode loses the newline and the unknown < > characters
    found = checks(card)
    html = view.checks_html(found)
    assert html.count('class="rc-check"') == len(found)
    assert "<b>" not in html and "&lt;" in html
    assert 'class="rc-mark rc-fail"' in html and view.MARKS["fail"] in html


def test_words_by_number_of_tokens_adds_up_to_every_word():
    cards = lesson_cards()
    fig = view.pieces_figure(cards, {"a": OUTSIDE, "b": "gpt2"})
    traces = fig.to_dict()["data"]
    assert [t["x"] for t in traces] == [["1", "2", "3", "4", "5+"]] * 2
    for trace, card in zip(traces, cards.values()):
        assert abs(sum(trace["y"]) - 1.0) < 1e-9 if card.text.pieces.get(0, 0) == 0 else sum(trace["y"]) < 1
    assert "<b>" not in traces[0]["name"] and "&lt;b&gt;" in traces[0]["name"]


# ---- the page ------------------------------------------------------------------------------------

def open_report(app, text: str, *, name: str = "mine.json", chosen=("upload",)):
    corpus = pasted_corpus(text)
    app.session_state[state.USER_CORPORA] = {corpus.key: corpus}
    app.session_state[state.REP_CORPUS] = corpus.key
    uploaded = Uploaded("file:x", name, train(LESSON, merges=10))
    app.session_state[state.PICK_UPLOADED] = {uploaded.key: uploaded}
    app.session_state[state.REP_CHOSEN] = [uploaded.key if k == "upload" else k for k in chosen]
    app.switch_page(PAGE).run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def _table(at) -> str:
    return next(h.value for h in at.html if TABLE in h.value)


def test_page_grades_an_upload_beside_a_builtin_with_the_engines_numbers(app):
    text = "the lowest of the newest, 2024 and 31415\n"
    at = open_report(app, text, name=OUTSIDE, chosen=("upload", "builtin:o200k_base"))
    table = _table(at)
    expected = report_card(load_model("o200k_base"), text)
    for key in ("bytes_per_token", "continued_word_rate", "renyi_efficiency"):
        one = measure(key)
        assert view.format_value(one, one.value(expected)) in table
    assert "&lt;b&gt;h&lt;/b&gt;" in table and "<b>h</b>" not in table
    assert len(plotly_specs(at)) == 2  # words by number of tokens; the premium over English
    assert sum(h.value.count('class="rc-check"') for h in at.html) == 2 * 7
    assert [constructs(s) for _, s in markdown_strings(at)] == [[]] * len(markdown_strings(at))


def test_no_tokenizer_chosen_is_said(app):
    at = open_report(app, "x", chosen=())
    assert any(i.value == "Choose a tokenizer above." for i in at.info)


def test_a_large_text_waits_for_the_button(app):
    text = "lowest newest " * 100_000  # 1.4 MB
    app.session_state[state.REP_MB] = 2.0
    at = open_report(app, text, chosen=("builtin:gpt2",))
    assert not any(TABLE in h.value for h in at.html)
    assert "press Grade the tokenizers" in at.info[-1].value
    at.button(key=state.REP_RUN).click().run()
    assert TABLE in _table(at)
    assert any("all 1,400,000 bytes" in c.value.replace("\\", "") for c in at.caption)
    at.slider(key=state.REP_W_SHARE).set_value(0.95).run()  # a rerun: no button needed again
    assert TABLE in _table(at)


def test_the_size_slider_offers_only_sizes_that_change_the_text(app):
    """The 1.4 MB text: 0.1, 0.5 and 1 MB cut it, 2 MB takes it whole ("all", where the chosen 2 MB
    stands); a one-line text has no size to choose."""
    app.session_state[state.REP_MB] = 2.0
    at = open_report(app, "lowest newest " * 100_000, chosen=("builtin:gpt2",))
    slider = at.select_slider(key=state.REP_W_MB)
    assert slider.options == ["0.1", "0.5", "1", "all"] and slider.value == 2.0
    at = open_report(app, "lowest newest", chosen=("builtin:gpt2",))
    assert not [s for s in at.select_slider if s.key == state.REP_W_MB]


def test_an_unreadable_sample_set_is_said_with_the_command_that_rebuilds_it(app, monkeypatch, tmp_path):
    """The card grades the rest; where the premium chart would be, the page says why not and what rebuilds it."""
    reason = remove_shipped_set(monkeypatch, tmp_path)
    at = open_report(app, "a text graded while the sample set is gone\n")  # its own text: a card of its own
    assert TABLE in _table(at) and len(plotly_specs(at)) == 1  # words by number of tokens, no premium
    assert f"The multilingual sample set cannot be read: {reason}." in [shown(i.value) for i in at.info]
    assert "python -m sample_corpora build" in reason and "Django" not in reason


def test_a_short_text_is_graded_at_once_and_a_long_one_in_a_worker(app, monkeypatch):
    """The lesson or a paste needs no worker's start and model load; a longer text keeps the server's
    threads free. Both give the engine's numbers."""
    from explorer.data import tasks
    from explorer.ui import store

    sent = []
    run_task = store.run_task
    monkeypatch.setattr(store, "run_task", lambda key, task, *a, **k: sent.append(key) or run_task(key, task, *a, **k))
    short = "the lowest of the newest " * 100
    at = open_report(app, short, chosen=("builtin:gpt2",))
    assert TABLE in _table(at) and sent == []
    long = "the lowest of the newest " * (tasks.GRADE_HERE_BYTES // 25 + 1)
    at = open_report(at, long, chosen=("builtin:gpt2",))
    share = measure("single_token_word_rate")
    expected = report_card(load_model("gpt2"), long)
    assert view.format_value(share, share.value(expected)) in _table(at)
    assert [key[0] for key in sent] == ["card"]
