"""The Token audit page: minimal vs BPE and under-trained candidates, drawn, then the page under AppTest."""
from __future__ import annotations

import json
import math

from plain_text import OUTSIDE, constructs, markdown_strings

from bpe_core import Settings, Tokenizer
from bpe_core.builtin import load_builtin
from bpe_core.formats.tiktoken import tokenizer_from_ranks
from explorer.data.corpus import pasted_corpus
from explorer.data.tokenizer_files import Uploaded
from explorer.display import audit as view
from explorer.display.table_fit import (
    CELL_PAD,
    FIT_WIDTH,
    LINE_PX,
    MAX_AUTO,
    ROW_PAD,
    WRAP_ROW_HEIGHT,
    fit_columns,
    text_px,
)
from explorer.ui import state

CORPUS = "abcd ab abcd"


def hand_built() -> Tokenizer:
    """`b c` fires before `a b`: "abcd" is a, bc, d</w> though ab, cd</w> are tokens; `abc` is never made."""
    merges = [("b", "c"), ("a", "b"), ("d", "</w>"), ("c", "d</w>"), ("ab", "c")]
    return Tokenizer(settings=Settings(), merges=merges, base=["</w>", "a", "b", "c", "d"])


# ---- pure --------------------------------------------------------------------------------------

def test_audit_finds_the_longer_cut_the_unreachable_and_the_unused_tokens():
    tok = hand_built()
    found = view.audit(tok, CORPUS)
    assert view.summary(found.minimal)["Extra tokens"] == ("2", "BPE's 8 tokens against 6 at the minimum")
    assert [r.token for r in found.rare] == ["b", "c", "d", "cd</w>", "abc"]
    assert view.unreachable_frame(tok, found.unreachable).to_dict("list") == {
        "id": [9], "token": ["abc"], "kind": ["merges stop short inside words"],
        "why": ["inside a word, its characters merge into “a”, “bc”"]}
    html = view.examples_html(tok, found.minimal.examples)
    assert html.count("<tr>") == 2 and "×2" in html  # the header and "abcd", seen twice
    assert "bpe-chip" in html and "d<span class=\"bpe-marker\">&lt;/w&gt;</span>" in html


def test_rare_tokens_say_how_often_merging_made_them_on_the_way():
    """ "low low": each low</w> is made from lo, then low, so both are made twice and never produced."""
    tok = Tokenizer(settings=Settings(), merges=[("l", "o"), ("lo", "w"), ("low", "</w>")],
                    base=["</w>", "l", "o", "w"])
    found = view.audit(tok, "low low")
    frame = view.rare_frame(tok, found.rare, found.inside)
    made = dict(zip(frame["token"], frame["made inside longer tokens"]))
    assert made == {"</w>": 0, "l": 0, "o": 0, "w": 0, "lo": 2, "low": 2}
    assert set(frame["times produced"]) == {0}


def test_examples_escape_outside_words():
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"b>": 256, b"<b": 257, b">&": 258})  # "<b>&": <, b>, & where <b, >& would do
    tok = tokenizer_from_ranks(ranks, pretokenizer="none")
    html = view.examples_html(tok, view.audit(tok, "<b>&").minimal.examples)
    assert "<b" not in html and "<b>" not in html and "&lt;b&gt;&amp;" in html
    assert html.count('class="bpe-id"') == 5  # <, b>, & beside <b, >&


def test_search_and_captions():
    tok = tokenizer_from_ranks({**{bytes([b]): b for b in range(256)}, b" the": 256, b"then": 257})
    rows = view.audit(tok, "x").rare
    assert [r.token for r in view.search_rare(tok, rows, "·the")] == ["Ġthe"]
    assert [r.token for r in view.search_rare(tok, rows, "Ġthe")] == ["Ġthe"]
    assert len(view.search_rare(tok, rows, "")) == 257  # every token but "x"
    assert view.table_caption("tokens", 2_000, 5_000, 9_000, "") == "The first 2,000 of 9,000 tokens."
    assert view.table_caption("tokens", 2, 2, 2, "") == "All 2 tokens."


# ---- the page ------------------------------------------------------------------------------------

def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def open_audit(app, tok: Tokenizer, text: str, *, name: str = "hand.json"):
    corpus = pasted_corpus(text)
    app.session_state[state.USER_CORPORA] = {corpus.key: corpus}
    app.session_state[state.AUD_CORPUS] = corpus.key
    uploaded = Uploaded("file:x", name, tok)
    app.session_state[state.PICK_UPLOADED] = {uploaded.key: uploaded}
    app.session_state[state.AUD_TOKENIZER] = uploaded.key
    app.switch_page("views/audit.py").run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def test_page_shows_the_summary_examples_and_both_tables(app):
    at = open_audit(app, hand_built(), CORPUS, name=OUTSIDE)
    assert metrics(at) == {"Words examined": "2", "Split more than needed": "1", "Extra tokens": "2",
                           "Extra share": "25.0%"}
    assert any("bpe-chip" in h.value and "×2" in h.value for h in at.html)
    unreachable, rare = at.dataframe[0].value, at.dataframe[1].value
    assert list(rare["token"]) == ["b", "c", "d", "cd</w>", "abc"]
    assert list(unreachable["why"]) == ["inside a word, its characters merge into “a”, “bc”"]
    at.text_input(key=state.AUD_W_RARE_SEARCH).set_value("cd").run()
    assert list(at.dataframe[1].value["token"]) == ["cd</w>"]
    assert any(c.value.replace("\\", "") == "1 of 5 tokens contain 'cd'." for c in at.caption)
    assert any("all 12 bytes" in c.value.replace("\\", "") for c in at.caption)
    assert [constructs(text) for _, text in markdown_strings(at)] == [[]] * len(markdown_strings(at))


def test_a_large_corpus_waits_for_the_button_then_is_remembered(app):
    text = "ab abcd " * 150_000  # 1.2 MB
    at = open_audit(app, hand_built(), text)
    assert not at.metric and "press Run the audit" in at.info[-1].value
    at.button(key=state.AUD_RUN).click().run()
    assert metrics(at)["Words examined"] == "2" and metrics(at)["Extra tokens"] == "150,000"
    at.text_input(key=state.AUD_W_UNREACH_SEARCH).set_value("bc").run()  # a rerun: no button needed
    assert metrics(at)["Extra tokens"] == "150,000" and len(at.dataframe[0].value) == 1
    at.select_slider(key=state.AUD_W_MB).set_value(0.5).run()  # the first 0.5 MB: small enough to run at once
    assert metrics(at)["Extra tokens"] == "62,500"
    assert any("the first 0.5 MB (500,000 bytes)" in c.value.replace("\\", "") for c in at.caption)


def test_the_size_slider_offers_only_sizes_that_change_the_text(app):
    """A 12-byte corpus has no size to choose (the caption says all of it is used), rather than a
    slider standing at "5.0" MB; a 1.2 MB corpus offers 0.1, 0.5 and 1 MB, then "all", where the
    default 5 MB stands."""
    at = open_audit(app, hand_built(), CORPUS)
    assert not [s for s in at.select_slider if s.key == state.AUD_W_MB]
    assert any("all 12 bytes" in c.value.replace("\\", "") for c in at.caption)
    at = open_audit(app, hand_built(), "ab abcd " * 150_000)
    slider = at.select_slider(key=state.AUD_W_MB)
    assert slider.options == ["0.1", "0.5", "1", "all"] and slider.value == 2.0


def test_a_lessons_audit_runs_in_the_page_thread_and_a_larger_one_in_a_worker(app, monkeypatch):
    """A worker's start takes longer than auditing a lesson; past the sidebar's in-thread bounds, a worker."""
    from explorer.data import tasks
    from explorer.ui import store

    pool, asked = store.worker_pool(), []
    real = pool.submit
    monkeypatch.setattr(pool, "submit", lambda key, task: asked.append("".join(task.texts)) or real(key, task))
    at = open_audit(app, hand_built(), CORPUS)
    assert asked == [] and metrics(at)["Extra tokens"] == "2"
    larger = "ab abcd " * 20_000  # 160,000 bytes: past IN_THREAD_CHARS, within what is audited without asking
    at = open_audit(app, hand_built(), larger)
    assert asked == [larger] and metrics(at)["Extra tokens"] == "20,000"
    assert tasks.LONG_TEXT_BYTES > len(larger) > store.IN_THREAD_CHARS


def test_a_long_reason_wraps_in_a_table_that_fits(app):
    """Pairs b c, d e, ... fire before the chain a b, ab c, ...: every token of the chain is unreachable,
    the longest because its letters merge into fourteen pieces, a reason wider than the page."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    pairs = [(letters[i], letters[i + 1]) for i in range(1, 25, 2)]
    chain = [(letters[:i], letters[i]) for i in range(1, 26)]
    tok = Tokenizer(settings=Settings(), merges=pairs + chain, base=["</w>", *letters])
    at = open_audit(app, tok, letters)
    table = at.dataframe[0]
    assert max(map(len, table.value["why"])) > 120
    widths = {n: c["width"] for n, c in json.loads(table.proto.columns).items() if "width" in c}
    assert set(widths) == set(table.value.columns) and sum(widths.values()) <= FIT_WIDTH
    assert table.proto.row_height > 64  # Streamlit wraps a cell's text only in a row taller than 4rem


def test_ids_are_drawn_as_written_in_code_and_counts_with_separators():
    """A token id is copied into code as it is ("100255"); how often a token was produced is a count,
    drawn with thousands separators like the page's text."""
    frame = view.rare_frame(hand_built(), [])
    formats = {name: column.get("type_config", {}).get("format") for name, column in fit_columns(frame).columns.items()}
    assert formats.get("id") is None
    assert formats["times produced"] == formats["made inside longer tokens"] == "localized"


def test_gpt4os_reasons_wrap_rather_than_being_cut_at_streamlits_widest_column():
    """o200k's longest reason is about 1,000 px: wider than Streamlit sizes any column (500 px), though
    the table would fit the page at that size. The reasons get the page's spare width and wrap."""
    tok = load_builtin("o200k_base")
    frame = view.unreachable_frame(tok, view.audit(tok, "x").unreachable)
    fit = fit_columns(frame)
    widths = {n: c["width"] for n, c in fit.columns.items()}
    assert set(widths) == set(frame.columns) and sum(widths.values()) <= FIT_WIDTH
    longest = max(text_px(why) for why in frame["why"])
    assert longest > MAX_AUTO and widths["why"] > MAX_AUTO
    lines = math.ceil(longest / (widths["why"] - CELL_PAD))
    assert lines > 1 and fit.row_height >= max(WRAP_ROW_HEIGHT, 2 * ROW_PAD + LINE_PX * lines)
