"""The app driven by Streamlit's AppTest: every page, as a user would use it."""
from __future__ import annotations

from apptest_helpers import APP, decode_array, html_bodies, plotly_specs
from plain_text import shown
from player_helpers import player_data, send_view
from player_helpers import shown as frame
from streamlit.testing.v1 import AppTest

from explorer.ui import state


def card(at) -> tuple[str, str, str, int, int] | None:
    """The merge the animation's player shows: left, right, new token, count, vocabulary size."""
    return frame(at).merge


def train_button(at):
    return next(b for b in at.button if b.label == "Train")


def test_default_page_shows_the_first_merge(app):
    assert card(app) == ("w", "e", "we", 9, 12)
    assert frame(app).title == "Step 1 of 10"
    assert frame(app).pairs[0] == ("w", "e", 9)
    assert app.session_state[state.PLAYING] is True and player_data(app)["playing"] is True  # a newcomer sees it move
    (curve,) = plotly_specs(app)
    assert len(curve["data"]) == 3  # while the browser plays, the curve marks no step
    assert app.query_params["corpus"] == ["seed000"] or app.query_params["corpus"] == "seed000"
    send_view(app, step=1, playing=False)  # pause
    assert decode_array(plotly_specs(app)[0]["data"][3]["x"]) == [1]


def test_scrubbing_and_stepping(app):
    # The browser plays, steps and scrubs on its own (tests/browser/test_player_in_browser.py);
    # the server hears each pause, step and scrub as a view event and keeps the step.
    send_view(app, step=1, playing=False)  # pause
    send_view(app, step=5, playing=False)  # scrub
    assert app.session_state[state.STEP] == 5 and app.session_state[state.PLAYING] is False
    assert card(app) == ("w", "</w>", "w</w>", 7, 16)
    send_view(app, step=6)  # forward
    assert app.session_state[state.STEP] == 6 and card(app)[2] == "newe"
    send_view(app, step=4)  # back twice
    assert app.session_state[state.STEP] == 4 and card(app)[2] == "ne"
    send_view(app, step=0)
    assert frame(app).title == "Step 0 of 10" and card(app) is None


def test_play_and_pause(app):
    # "At the end, play starts over" happens in the browser: tests/browser/test_player_in_browser.py.
    send_view(app, step=3, playing=False)  # it was playing: pause
    assert app.session_state[state.PLAYING] is False and player_data(app)["playing"] is False
    send_view(app, step=3, playing=True, speed=15.0)
    assert app.session_state[state.PLAYING] is True and app.session_state[state.SPEED] == 15.0


def test_scrubbing_right_after_opening_a_link(app):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["step"] = "2"
    at.run()
    send_view(at, step=7)
    assert at.session_state[state.STEP] == 7 and card(at)[2] == "lo"


def test_unseen_words_page(app):
    app.switch_page("views/unseen.py").run()
    assert not app.exception
    assert app.text_input(key=state.W_WORDS).value == "lowest newer wider slow"
    chips = html_bodies(app)
    lowest = next(h for h in chips if "id 17" in h)
    assert ">lo<" in lowest and ">we<" in lowest and "st<span class=\"bpe-marker\">&lt;/w&gt;</span>" in lowest
    trees = [h for h in html_bodies(app) if 'class="bpe-trees"' in h]
    assert len(trees) == 4 and ">lo<small>step 7</small></div>" in trees[0]
    built = app.dataframe[0].value
    assert list(built["merge"]) == ["w + e", "t + </w>", "s + t</w>", "l + o"]
    app.text_input(key=state.W_WORDS).set_value("slow").run()
    assert any("s<sub" in h and "low" in h for h in html_bodies(app))
    app.slider(key=state.W_TIMELINE).set_value(4).run()
    assert any("After 4 merges" in m.value for m in app.markdown)
    jump = app.button(key=state.b_jump(0, 9))  # low</w> was made at step 9
    assert shown(jump.label) == "Step 9: low</w>"  # the step first: a narrow button cuts the end, not the step
    jump.click().run()
    assert app.session_state[state.STEP] == 9
    assert frame(app).title == "Step 9 of 10" and player_data(app)["playing"] is False


def test_lessons_page_reproduces_the_numbers(app):
    app.switch_page("views/lessons.py").run()
    assert not app.exception and not app.error
    assert len(app.success) == 4  # 000 merges, 000 unseen, 003 tokens added, 003 final tokens
    merges = app.dataframe[0].value
    assert list(merges["seen"]) == [9, 9, 9, 9, 7, 7, 7, 6, 5, 3]
    assert list(merges["new token"])[-3:] == ["newest</w>", "low</w>", "wi"]
    added = next(d.value for d in app.dataframe if "added" in d.value.columns)
    assert list(added["added"]) == ['" h"', '" l"', '" hu"', '" hug"', '"ik"', '"ike"', '" lo"', '" lov"', '" love"']
    seed002 = next(d.value for d in app.dataframe if "decoded" in d.value.columns)
    assert list(seed002["decoded"]) == ["the cat ran", "dogs chase cats", "running and sleeping",
                                        "unrecogni<unk>ed word"]
    assert any("**step 18**" in m.value and "**step 19**" in m.value for m in app.markdown)


def test_lesson_button_loads_it_into_the_explorer(app):
    app.switch_page("views/lessons.py").run()
    app.button(key=state.b_open_lesson("seed003")).click().run()
    assert not app.exception
    assert app.session_state[state.W_MODE] == "text" and app.session_state[state.W_VOCAB] == 25
    assert frame(app).title == "Step 1 of 9"
    assert card(app)[:3] == ("·", "h", "·h")  # " " + "h" -> " h", the space shown


def test_try_it_yourself_button(app):
    app.switch_page("views/lessons.py").run()
    app.button(key=state.b_open_lesson("seed000", "try")).click().run()
    assert app.session_state[state.W_MERGES] == 20
    assert app.session_state[state.CORPUS].startswith("paste:")
    (curve,) = plotly_specs(app)
    assert "collapse at step 19" in curve["layout"]["annotations"][0]["text"]


def test_mistakes_page(app):
    app.switch_page("views/mistakes.py").run()
    assert not app.exception and not app.error
    order, marker, greedy = (d.value for d in app.dataframe[:3])
    assert "NO" in list(order["same?"])
    assert list(marker[marker["word"] == "west"]["no marker"]) == ["we st"]
    assert list(greedy[greedy["word"] == "lower"]["longest match"]) == ["low e r"]
    app.radio(key=state.W_ORDER).set_value(app.radio(key=state.W_ORDER).options[1]).run()
    assert not app.exception


def test_upload_then_bad_uploads_keep_the_corpus(app):
    app.switch_page("views/corpus.py").run()
    uploader = app.file_uploader(key=state.W_UPLOAD)
    uploader.set_value(("mine.txt", b"banana bandana banana cabana\n" * 5, "text/plain")).run()
    assert not app.exception
    good = app.session_state[state.CORPUS]
    assert good.startswith("upload:") and [shown(s.value) for s in app.success] == [
        "Loaded mine.txt: 145 characters."]
    assert app.session_state[state.TRAINED].top_words[0] == ("banana", 10)
    for name, data, message in [
        ("pic.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00", "binary"),
        ("latin.txt", "caf\u00e9 cr\u00e8me".encode("latin-1"), "not UTF-8"),
        ("empty.txt", b"", "empty"),
    ]:
        app.file_uploader(key=state.W_UPLOAD).set_value((name, data, "text/plain")).run()
        assert not app.exception
        errors = [shown(e.value) for e in app.error]
        assert any(message in e and "previous corpus is still loaded" in e for e in errors), errors
        assert app.session_state[state.CORPUS] == good
        assert app.session_state[state.TRAINED].top_words[0] == ("banana", 10)


def test_paste_and_stats(app):
    app.switch_page("views/corpus.py").run()
    app.text_area(key=state.W_PASTE).set_value("hug hugs hugging hug").run()
    app.button(key=state.B_USE_PASTE).click().run()
    assert app.session_state[state.CORPUS].startswith("paste:")
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Words"] == "4" and metrics["Distinct words"] == "3"


def test_tricky_corpus_is_shown_literally(app):
    app.sidebar.selectbox(key=state.W_CORPUS).set_value("sample:tricky").run()
    app.sidebar.selectbox(key=state.W_MODE).set_value("text")
    train_button(app).click().run()
    assert not app.exception and not app.error
    bodies = html_bodies(app)
    start, end, pieces = frame(app, 0).passage  # text mode: one "word", so a passage of the text is shown
    assert (start, end) == (0, 200) and "<script>" in "".join(pieces)  # sent as text, drawn with textContent
    for h in bodies:
        assert "<script" not in h and "<img" not in h
    app.switch_page("views/unseen.py").run()
    app.text_input(key=state.W_WORDS).set_value("<script>alert(1)</script> <img src=x onerror=alert(2)>").run()
    for h in html_bodies(app):
        assert "<script" not in h and "<img" not in h
    assert any("&lt;" in h for h in html_bodies(app))


def test_absurd_settings_get_a_message_and_keep_the_result(app):
    # The number boxes stop at the app's limit (the browser refuses more; a link is clamped).
    assert app.sidebar.number_input(key=state.W_MERGES).max == state.MAX_APP_MERGES
    assert app.sidebar.number_input(key=state.W_VOCAB).max == state.MAX_APP_MERGES
    app.sidebar.radio(key=state.W_TARGET).set_value("vocab")
    app.sidebar.number_input(key=state.W_VOCAB).set_value(5)
    train_button(app).click().run()
    assert not app.exception
    errors = [shown(e.value) for e in app.error]
    assert len(errors) == 1 and errors[0].startswith("Could not train. A vocabulary of 5 is smaller than this corpus's")
    assert errors[0].endswith("ask for at least 12. The previous result is still shown.")  # sentences, full stops
    assert app.session_state[state.TRAINED].steps == 10  # the previous tokenizer is still on screen
    app.sidebar.selectbox(key=state.W_PRETOK).set_value("gpt2")
    app.sidebar.radio(key=state.W_TARGET).set_value("merges")
    train_button(app).click().run()
    assert any("Word mode always splits on whitespace" in shown(e.value) for e in app.error)


def test_link_reopens_the_same_view():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"corpus": "seed003", "mode": "text", "tie": "first", "vocab": "25", "step": "4",
                            "words": "lovely", "present": "1"})
    at.run()
    assert not at.exception
    assert at.session_state[state.STEP] == 4 and at.session_state[state.PLAYING] is False
    assert frame(at).title == "Step 4 of 9"
    assert any("font-size: 21px" in h for h in html_bodies(at))  # presenter mode
    at.switch_page("views/unseen.py").run()
    assert at.text_input(key=state.W_WORDS).value == "lovely"


def test_bad_link_is_reported():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"mode": "weird", "merges": "many"})
    at.run()
    assert [shown(w.value) for w in at.warning] == [
        "The link asked for something this app could not do. mode=weird in the link is not one of word, text, "
        "bytes. merges=many in the link is not a whole number. The link's other settings were used."]
    assert at.session_state[state.W_MODE] == "word" and at.session_state[state.TRAINED].steps == 10


def test_presenter_toggle(app):
    assert not any("font-size: 21px" in h for h in html_bodies(app))
    app.sidebar.toggle(key=state.W_PRESENTER).set_value(True).run()
    assert any("font-size: 21px" in h for h in html_bodies(app))
    assert plotly_specs(app)[0]["layout"]["font"]["size"] == 18  # chart text at least 18 px on a projector


def test_end_of_word_is_off_where_it_does_nothing(app):
    assert not app.sidebar.selectbox(key=state.W_EOW).disabled
    for mode in ("bytes", "text"):
        app.sidebar.selectbox(key=state.W_MODE).set_value(mode)
        train_button(app).click().run()
        eow = app.sidebar.selectbox(key=state.W_EOW)
        assert eow.disabled and eow.help.startswith("Word mode only: text and bytes modes have no end-of-word")
    app.sidebar.selectbox(key=state.W_MODE).set_value("word")
    train_button(app).click().run()
    assert not app.sidebar.selectbox(key=state.W_EOW).disabled


def test_the_link_notice_is_shown_once_then_gone():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"merges": "abc"})
    at.run()
    assert [shown(w.value) for w in at.warning] == [
        "The link asked for something this app could not do. merges=abc in the link is not a whole number. "
        "The link's other settings were used."]
    at.switch_page("views/unseen.py").run()  # the user moves on: the notice was about the link
    assert not at.warning
    at.switch_page("views/train.py").run()
    assert not at.warning
