from __future__ import annotations

import pytest
from player_helpers import player_data

from bpe_core.analysis import mistakes
from explorer.data import lessons
from explorer.data.training import train_corpus
from explorer.display import tables
from explorer.ui import state
from sample_corpora import load_corpus


def test_seed000_unseen_words(seed000_trained):
    tok = seed000_trained.tokenizer
    assert {w: tok.encode_word(w) for w in lessons.EXPECTED_000_UNSEEN} == lessons.EXPECTED_000_UNSEEN


def test_seed003(seed003_trained):
    tok = seed003_trained.tokenizer
    assert [m.token for m in tok.trace] == lessons.EXPECTED_003_ADDED
    assert [m.vocab_size for m in tok.trace] == list(range(17, 26))
    assert tok.encode(load_corpus("seed003")).tokens == lessons.EXPECTED_003_TOKENS


def test_seed002_unknown_z_round_trip():
    trained = train_corpus([load_corpus("seed002")], lessons.SEED002.request)
    tok = trained.tokenizer
    enc = tok.encode("unrecognized word")
    assert "<unk>" in enc.tokens and tok.decode(enc.ids) == "unrecogni<unk>ed word"
    for text in lessons.SEED002_INPUTS[:3]:
        assert tok.decode(tok.encode(text).ids) == text


def test_tables(seed000_trained):
    tok = seed000_trained.tokenizer
    merges = tables.merges_table(tok.trace)
    assert list(merges["new token"][:3]) == ["we", "t</w>", "st</w>"] and list(merges["count"][:1]) == [9]
    built = tables.built_table(tok.merge_steps("lowest"), tok)
    assert list(built["merge"]) == ["w + e", "t + </w>", "s + t</w>", "l + o"]
    assert list(built["step"]) == [1, 2, 3, 7]
    assert list(built["training count"]) == [tok.trace[s - 1].count for s in built["step"]]
    assert list(built["pieces after"])[-1] == "lo we st</w>"


def test_lesson_tables(seed000_trained, seed003_trained):
    merges = tables.lesson_merges_table(seed000_trained.tokenizer.trace)
    assert list(merges["pair"])[:2] == ["w + e", "t + </w>"] and list(merges["seen"])[:2] == [9, 9]
    check = tables.expected_table({"slow": ["s", "low</w>"]}, {"slow": ["s", "low</w>"]})
    assert list(check.iloc[0]) == ["slow", "s low</w>", "s low</w>"]
    added = tables.added_tokens_table(seed003_trained.tokenizer.trace)
    assert list(added["added"])[:2] == ['" h"', '" l"'] and list(added["vocab size"])[0] == 17
    moved = tables.try_it_table(mistakes.TryIt(before=[("a", 3), ("b", 2)], after=[("b", 4), ("c", 3)],
                                              collapse_before=None, collapse_after=None))
    assert list(moved["change"]) == ["was step 2", "new"]
    trip = tables.round_trip_table(seed000_trained.tokenizer, ["lowest zed"])
    assert list(trip["decoded"]) == ["lowest <unk>ed"] and "<unk>" in list(trip["tokens"])[0]
    fert = tables.fertility_table(mistakes.Mismatch(["A", "B"], ["x"], [[1.234], [2.0]]))
    assert fert.loc["trained on A"].iloc[0] == "1.23"


# ---- the page: opening a lesson shows it, paused ---------------------------------------------------

@pytest.mark.parametrize("button", [("seed000",), ("seed003",), ("seed000", "try")])
def test_opening_a_lesson_shows_its_first_merge_paused(app, button):
    """The user presses play: "Open in the explorer" (and "Try it") lands on step 1 with the player paused."""
    app.switch_page("views/lessons.py").run()
    assert any("press play" in c.value for c in app.caption)
    app.button(key=state.b_open_lesson(*button)).click().run()
    assert not app.exception
    assert app.session_state[state.STEP] == 1 and app.session_state[state.PLAYING] is False
    data = player_data(app)  # what the browser's player is told: step 1, not playing
    assert (data["step"], data["playing"]) == (1, False)
