"""The animation's browser-side player: the windows of frames it is sent, and the server's side of it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_helpers import APP
from player_helpers import player_data, player_element, send_view, shown, token_texts
from streamlit.testing.v1 import AppTest

from bpe_core import Settings
from explorer.data.training import TrainRequest, family_request, train_corpus
from explorer.display import charts, render
from explorer.display.frames import passage_at, passage_mode, word_history
from explorer.display.render import cap_token
from explorer.families import part, trainable
from explorer.families.bpe.player import window as frame_window
from explorer.ui import animation, player, presenter, state
from sample_corpora import load_corpus


def token_text(tok) -> str:
    return tok[0] if isinstance(tok[0], str) else "".join(text for _, text in tok[0])


@pytest.fixture(scope="module")
def multilingual():
    return train_corpus([load_corpus("multilingual")], TrainRequest(Settings(), "merges", 200))


# ---- the window of frames (pure) -------------------------------------------------------------

def test_word_history_equals_encoding_at_every_step(multilingual):
    """Each word is encoded once per window; the pieces it gives at every step are exact."""
    tok = multilingual.tokenizer
    for word, _ in multilingual.top_words[:14]:
        history = word_history(multilingual, word, 37, 160)
        assert history[0][0] == 37
        for step in range(37, 161):
            pieces = [p for t, p in history if t <= step][-1]
            assert pieces == tok.encode_word(word, limit=step), (word, step)


def test_window_frames_decode_to_the_merges(seed000_trained):
    window = frame_window(seed000_trained, 0, 10)
    assert (window["first"], window["last"], len(window["frames"])) == (0, 10, 11)
    tokens = window["tokens"]
    frame = window["frames"][5]
    left, right, token, count, vocab = frame["m"]
    assert [token_text(tokens[i]) for i in (left, right, token)] == ["w", "</w>", "w</w>"]
    assert (count, vocab, frame["t"]) == (7, 16, 66)
    assert tokens[token][1] == 4 and tokens[left][1] is None  # the rank that made it; a base symbol
    assert tokens[right][0] == [["marker", "</w>"]]  # segments say how to draw the marker
    assert window["frames"][0]["m"] is None and window["frames"][0]["t"] == 109
    assert [w["w"] for w in window["words"]][:3] == ["newest", "low", "widest"]


def test_window_is_clamped(seed000_trained):
    window = frame_window(seed000_trained, -5, 99)
    assert (window["first"], window["last"]) == (0, 10)


def test_window_bounds():
    assert player.window_bounds(3, 10, passage=False) == (0, 10)  # everything at once, up to 6,000 steps
    assert player.window_bounds(4000, 6000, passage=False) == (0, 6000)
    assert player.window_bounds(10_000, 20_000, passage=False) == (9850, 10450)
    assert player.window_bounds(19_990, 20_000, passage=False) == (19400, 20000)
    assert player.window_bounds(10_000, 20_000, passage=False, jump=True) == (9990, 10040)
    assert player.window_bounds(50, 2000, passage=True) == (30, 150)  # a passage costs an encoding a step
    assert player.window_bounds(5, 2000, passage=True) == (0, 120)
    assert player.window_bounds(1000, 2000, passage=True, jump=True) == (995, 1025)


def test_every_token_drawn_is_capped():
    """A 400 KB single-word corpus makes tokens of any length: each is drawn capped, saying how much more."""
    long = train_corpus(["ab" * 5000], TrainRequest(Settings(mode="text"), "merges", 14))
    window = frame_window(long, 0, 14)
    drawn = {token_text(t) for t in window["tokens"]}
    made = [m.token for m in long.tokenizer.trace]
    assert len(made[-1]) > 500  # tokens double in length as they merge
    assert drawn == {"a", "b"} | {cap_token(t) for t in made}
    assert cap_token(made[-1]) == made[-1][:40] + f"…(+{len(made[-1]) - 40:,} more)"
    assert cap_token("ab" * 20) == "ab" * 20  # 40 characters: drawn whole


# ---- text mode: a passage, not "the most frequent words" --------------------------------------

def test_text_mode_shows_a_passage_where_the_merge_applies():
    text = load_corpus("tricky")
    trained = train_corpus([text], TrainRequest(Settings(mode="text"), "merges", 40))
    assert passage_mode(trained)
    tok = trained.tokenizer
    for step in (1, 7, 40):
        start, end, pieces = passage_at(trained, step)
        assert 150 <= end - start <= 200 and text[start:end] == "".join(pieces)
        assert tok.trace[step - 1].token in pieces  # the new token is in sight
        assert pieces == tok.encode_word(text[start:end], limit=step)
    window = frame_window(trained, 0, 40)
    assert window["words"] == [] and all("x" in f for f in window["frames"])


def test_word_mode_and_pretokenized_text_show_words(seed000_trained):
    assert not passage_mode(seed000_trained)
    gpt2 = train_corpus(["low lower lowest"], TrainRequest(Settings(mode="text", pretokenizer="gpt2"), "merges", 3))
    assert not passage_mode(gpt2)


# ---- the server's side, under AppTest ----------------------------------------------------------

def test_the_player_is_sent_measures_that_mean_something(app):
    data = player_data(app)
    assert (data["words"], data["characters"], data["unit"], data["passage"]) == (19, 90, "character", False)
    app.sidebar.selectbox(key=state.W_CORPUS).set_value("sample:tricky").run()
    app.sidebar.selectbox(key=state.W_MODE).set_value("text")
    next(b for b in app.button if b.label == "Train").click().run()
    data = player_data(app)
    assert data["passage"] is True and data["words"] == 0  # no "tokens per word" for one giant word
    assert data["characters"] == len(load_corpus("tricky")) == data["length"]
    (curve,) = [json.loads(el.proto.spec) for el in app.get("plotly_chart")]
    names = [t["name"] for t in curve["data"]]
    assert names[:2] == ["total tokens (left axis)", "distinct words still in several tokens"]  # no per word
    assert "per word" not in json.dumps(curve) and names[2] == "step 1"  # paused: the step is marked


def test_a_scrub_far_away_gets_a_small_window_then_playing_a_full_one():
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update({"corpus": "tricky", "mode": "text", "merges": "300", "step": "3"})
    at.run()
    assert (player_data(at)["window"]["first"], player_data(at)["window"]["last"]) == (0, 120)
    send_view(at, step=250, need=250, jump=True)
    window = player_data(at)["window"]
    assert (window["first"], window["last"]) == (245, 275) and at.session_state[state.STEP] == 250
    assert at.query_params["step"] in ("250", ["250"])  # the link follows a scrub
    send_view(at, step=251, playing=True, need=160, jump=False)
    window = player_data(at)["window"]
    assert (window["first"], window["last"]) == (140, 260)
    made = at.session_state[state.TRAINED].tokenizer.trace[250].token
    assert shown(at, 251).merge[2] == cap_token(render.token_text(made))


def test_the_server_moves_the_player_only_when_something_else_moved_the_step(app):
    seq = player_data(app)["seq"]
    send_view(app, step=4, playing=False)  # the player's own report: not sent back as a command
    assert player_data(app)["seq"] == seq and player_data(app)["step"] == 4
    app.switch_page("views/unseen.py").run()
    app.button(key=state.b_jump(3, 9)).click().run()  # "jump to the step" (low</w>, made at step 9)
    data = player_data(app)
    assert data["seq"] == seq + 1 and (data["step"], data["playing"]) == (9, False)


def test_odd_events_from_the_browser_change_nothing_and_break_nothing(app):
    element = player_element(app)
    for junk in ({"step": "x", "playing": "yes", "speed": 999, "need": [1]}, {"step": True}, "text", None):
        states = app._tree.get_widget_states()
        trigger = states.widgets.add()
        trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}__events"
        trigger.json_trigger_value = json.dumps([{"event": "view", "value": junk}])
        app._run(states)
        assert not app.exception and app.session_state[state.STEP] == 1
        assert app.session_state[state.SPEED] == 1.0


def test_zero_merges_is_said_in_sentences(app):
    app.sidebar.number_input(key=state.W_MERGES).set_value(0)
    next(b for b in app.button if b.label == "Train").click().run()
    assert [i.value for i in app.info] == [
        "No merge was learned with these settings, so there is nothing to animate. "
        "The settings ask for 0 merges: set Merges to 1 or more in the sidebar and press Train."]
    trained = train_corpus(["aaaa"], TrainRequest(Settings(min_frequency=9), "merges", 5))
    assert animation.no_merge_message(trained).endswith(
        "Training stopped before the first merge because no pair occurs at least 9 times.")


# ---- presenter mode ------------------------------------------------------------------------------

HINDI = load_corpus("hindi")
SMALL = {  # family: (texts, request), each trained in a blink
    "bpe": ([load_corpus("seed000")], TrainRequest(Settings(), "merges", 10)),
    "wordpiece": ([HINDI], family_request("wordpiece", 150, limit=10_000)),
    "unigram": ([HINDI], family_request("unigram", 60, limit=10_000)),
    "superbpe": ([HINDI], family_request("superbpe", 420, limit=10_000, transition=380)),
}


def test_every_trainable_family_is_tried_in_presenter_mode():
    assert sorted(SMALL) == sorted(trainable())


def bar_texts(window: dict, frame: dict) -> list[tuple]:
    """A frame's bars as (label texts, value), whichever form ("p" or "b") the family sends."""
    if "b" in frame:
        return [(tuple(token_texts(window, label)) if isinstance(label, list) else label, value)
                for label, value, _ in frame["b"]]
    return [(tuple(token_texts(window, (a, b))), n) for a, b, n in frame.get("p", [])]


@pytest.fixture(scope="module", params=sorted(SMALL))
def small(request):
    texts, asked = SMALL[request.param]
    return train_corpus(texts, asked)


def test_a_presenter_window_shows_the_first_bars_only(small):
    """Presenter mode asks each family for at most `PRESENTER_BARS` bars a frame: every one fits the
    screen. They are the first bars of the page's own window (the chosen one first)."""
    frames = part(small.family, "player")
    first, limit = frames.FIRST_STEP, animation.PRESENTER_BARS
    page = frames.window(small, first, small.steps)
    shown = frames.window(small, first, small.steps, bars=limit)
    assert len(page["frames"]) == len(shown["frames"]) == small.steps - first + 1
    longer = 0
    for full, few in zip(page["frames"], shown["frames"]):
        full_bars, few_bars = bar_texts(page, full), bar_texts(shown, few)
        assert few_bars == full_bars[:limit]
        longer += len(full_bars) > limit
        assert {k: v for k, v in few.items() if k not in "bcf" and k != "bt"} == {
            k: v for k, v in full.items() if k not in "bcf" and k != "bt"} or "m" not in full  # the rest as sent


def test_unigram_in_presenter_mode_says_how_many_bars_it_shows():
    """Unigram lists 30 removed pieces a round and a dozen in the card; in presenter mode 10 bars, the
    title says "10 of 62", and the card leaves out the chips the bars already show."""
    trained = train_corpus(*SMALL["unigram"])
    frames = part("unigram", "player")
    page, shown = frames.window(trained, 1, 1), frames.window(trained, 1, 1, bars=animation.PRESENTER_BARS)
    assert page["frames"][0]["bt"] == "Removed in round 1, least loss first (30 of 62)"
    assert shown["frames"][0]["bt"] == "Removed in round 1, least loss first (10 of 62)"
    assert len(page["frames"][0]["c"]) == 12 and shown["frames"][0]["c"] == []
    assert page["frames"][0]["f"][0] == "62 pieces removed, least loss first (12 shown)"
    assert shown["frames"][0]["f"][0] == "62 pieces removed, least loss first"


def test_presenter_mode_puts_the_curve_beside_the_player(app):
    """The top switch (key P) turns presenter mode on: the player and its curve side by side, at most
    10 bars, every figure's type at the presenter size, the curve as tall as the screen allows."""
    assert not app.columns and player_data(app)["presenter"] is False
    switch = next(b for b in app.button if b.label == "Presenter mode")
    assert switch.proto.shortcut.lower() == presenter.SHORTCUT.lower()
    switch.click().run()
    assert app.session_state[state.W_PRESENTER] is True and app.sidebar.toggle(key=state.W_PRESENTER).value
    data = player_data(app)
    assert data["presenter"] is True and all(len(f["p"]) <= animation.PRESENTER_BARS for f in data["window"]["frames"])
    left, right = app.columns[:2]
    assert [e.key for e in left.get("bidi_component")] == [state.ANIM_PLAYER]
    (curve,) = [json.loads(el.proto.spec) for el in right.get("plotly_chart")]
    assert curve["layout"]["font"]["size"] == charts.PRESENTER_FONT_SIZE >= 18
    assert curve["layout"]["height"] == charts.PRESENTER_CURVE_HEIGHT
    assert app.query_params["present"] in ("1", ["1"])  # still in the link
    next(b for b in app.button if b.label == "Presenter mode").click().run()
    assert app.session_state[state.W_PRESENTER] is False and not app.columns


def test_the_players_own_characters_are_in_the_apps_fonts():
    """The media-control characters (⏮ ⏭ ⏸) need a symbol font many machines lack: the controls are
    inline SVG. The few other characters the player writes itself are drawn by the fonts Streamlit
    serves (checked in Chromium: tests/browser/test_player_in_browser.py)."""
    folder = Path(player.__file__).parent
    text = "".join((folder / name).read_text(encoding="utf-8") for name in
                   ("player.html", "frame.js", "player.js", "player.css"))
    assert {ch for ch in text if ord(ch) > 0x7F} <= set("·×…→●")
    assert text.count("<svg") == 4  # back, play, pause, forward


def test_the_page_icon_is_a_file_of_ours():
    source = APP.read_text(encoding="utf-8")
    assert ":material/" not in source.split("st.set_page_config")[1].split("\n")[0]
    icon = APP.parent / "assets" / "icon.svg"
    assert icon.read_text(encoding="utf-8").lstrip().startswith("<svg") and "http" not in icon.read_text().replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
