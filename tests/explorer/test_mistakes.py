"""The Common mistakes page: the lessons' exact tables, a whole-text "word" that must not hang, the mismatch."""
from __future__ import annotations

import random

import pytest

from bpe_core import Settings, train
from bpe_core.analysis import mistakes
from bpe_core.analysis.longest_match import WORD_CAP, differences
from explorer.ui import lesson_store, state


def open_mistakes(at):
    at.switch_page("views/mistakes.py").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    return at


def tables(at) -> list[dict]:
    return [d.value.to_dict("list") for d in at.dataframe]


def test_the_lessons_tables_and_numbers(app):
    at = open_mistakes(app)
    order, marker, greedy = tables(at)[:3]
    assert order["sorted alphabetically"] == ["lo w</w>", "lo we r </w>", "ne we s t</w>", "wi d e s t</w>", "ne w</w>",
                                              "ne we r </w>", "lo we s t</w>", "wi d e r </w>", "s lo w</w>"]
    assert order["same?"] == ["NO", "yes", "NO", "NO", "yes", "NO", "NO", "yes", "NO"]
    assert any(m.value.startswith("**6 of 9 words** come out differently") for m in at.markdown)
    assert marker["no marker"] == ["newest", "we st", "e st a t e", "e st a b l i s h", "lo we st"]
    assert greedy == {"word": ["lower", "lowest", "newer", "slow"],
                      "BPE (merges in order)": ["lo we r", "lo we st", "newe r", "s low"],
                      "longest match": ["low e r", "low e st", "newe r", "s low"],
                      "same?": ["NO", "NO", "yes", "yes"]}
    # The default tokenizer (seed 000, with </w>): BPE and longest match agree on its words, nothing is cut.
    assert len(at.dataframe) == 3
    captions = [c.value for c in at.caption]
    assert "On your tokenizer's most frequent words and your unseen words, the two agree." in captions
    assert not any("Only the first" in c for c in captions)


def one_long_text(chars: int) -> str:
    """Prose-like text with no pre-tokenizer: in text mode the whole of it is one "word"."""
    rng = random.Random(8)
    words = ["low", "lower", "newest", "widest", "new", "newer"]  # seed 000's words, spaces kept
    out, size = [], 0
    while size < chars:
        word = rng.choice(words)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:chars]


@pytest.fixture(scope="module")
def long_text() -> str:
    return one_long_text(300_000)  # the unbounded longest match never finished on a tenth of this


def test_a_whole_text_word_is_compared_up_to_the_cap_and_says_so(app, long_text):
    app.switch_page("views/corpus.py").run()
    app.text_area(key=state.W_PASTE).set_value(long_text).run()
    app.button(key=state.B_USE_PASTE).click().run()
    app.selectbox(key=state.W_MODE).set_value("text")
    app.number_input(key=state.W_MERGES).set_value(40)
    next(b for b in app.button if b.label == "Train").click().run()
    assert app.session_state[state.TRAINED].tokenizer.settings.mode == "text"
    at = open_mistakes(app)
    captions = [c.value for c in at.caption]
    assert ("Only the first 2,000 characters of each word are compared: the longest word here has 300,000 "
            "characters (without a pre-tokenizer the whole text is one word).") in captions
    # The page's table is the engine's answer on the cut word.
    expected = differences(train(long_text, Settings(mode="text"), merges=40), [long_text], cap=WORD_CAP)
    assert len(expected) == 1 and expected[0].capped and len(expected[0].word) == WORD_CAP
    # The table shows the cut word around its first disagreement, not 2,000 characters of it.
    assert mistakes.around_first_difference(expected[0].bpe, expected[0].greedy) == (
        " new lower widest newer low widest widest widest widest widest",
        [" new lower", " widest", " newer", " low widest", " widest widest", " widest widest"],
        [" new lower", " widest", " newer low", " widest widest", " widest widest", " widest"], True, True)
    mine = tables(at)[3]
    assert mine == {
        "word": ["…·new·lower·widest·newer·low·widest·widest·widest·widest·widest…"],
        "BPE (merges in order)": ["… ·new·lower ·widest ·newer ·low·widest ·widest·widest ·widest·widest …"],
        "longest match": ["… ·new·lower ·widest ·newer·low ·widest·widest ·widest·widest ·widest …"],
        "same?": ["NO"],
    }
    assert "For a word longer than 80 characters the table shows the part where the two first cut differently " \
           "(… marks what is left out)." in captions
    # The lessons' tables above are unchanged by the sidebar's tokenizer.
    assert tables(at)[2]["longest match"] == ["low e r", "low e st", "newe r", "s low"]


def test_trained_on_other_text(app, monkeypatch):
    # Smaller slices than the page's (the relation is the same); the page states the sizes it used.
    monkeypatch.setattr(lesson_store, "MISMATCH_BYTES", 60_000)
    monkeypatch.setattr(lesson_store, "MISMATCH_TEST_CHARS", 20_000)
    monkeypatch.setattr(lesson_store, "MISMATCH_MERGES", 300)
    lesson_store.mismatch.clear()
    try:
        at = open_mistakes(app)
        assert any("300 merges each, word mode, trained on the first 60,000 characters of each sample corpus and "
                   "tested on its last 20,000, never seen in training" in m.value for m in at.markdown)
        at.button(key=state.B_RUN_MISMATCH).click().run()
        assert not at.exception and at.session_state[state.MISMATCH_SHOWN]
        result = lesson_store.mismatch()
        assert result.trained_on == ["English prose", "Python code"] and result.encoded == result.trained_on
        (eng_on_eng, code_on_eng), (eng_on_code, code_on_code) = zip(*result.fertility)
        assert eng_on_eng < code_on_eng and code_on_code < eng_on_code  # each text is cheapest for its own tokenizer
        assert (f"English prose costs **{code_on_eng:.2f}** tokens per word with the Python-trained tokenizer "
                f"against **{eng_on_eng:.2f}** with the English-trained one.") in [m.value for m in at.markdown]
        shown = tables(at)[-1]
        assert shown == {f"encoding {name}: tokens per word": [f"{row[j]:.2f}" for row in result.fertility]
                         for j, name in enumerate(result.encoded)}
    finally:
        lesson_store.mismatch.clear()
