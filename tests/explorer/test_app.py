"""The app driven by Streamlit's AppTest: every page, as a user would use it."""
from __future__ import annotations

from apptest_helpers import APP, decode_array, html_bodies, plotly_specs
from streamlit.testing.v1 import AppTest

from explorer import state


def card(at) -> str:
    return next(h for h in html_bodies(at) if 'class="bpe-merge"' in h)


def train_button(at):
    return next(b for b in at.button if b.label == "Train")


def test_default_page_shows_the_first_merge(app):
    html = card(app)
    assert ">w<" in html and ">e<" in html and ">we<" in html
    assert "<b>9</b> times" in html and "rank <b>0</b>" in html and "vocabulary <b>12</b>" in html
    assert any("Step 1 of 10" in m.value for m in app.markdown)
    pairs, curve = plotly_specs(app)
    assert pairs["layout"]["yaxis"]["ticktext"][0] == "w  +  e"
    assert decode_array(pairs["data"][0]["x"])[0] == 9
    assert decode_array(curve["data"][3]["x"]) == [1]
    assert app.query_params["corpus"] == ["seed000"] or app.query_params["corpus"] == "seed000"
    assert app.session_state[state.PLAYING] is True  # a newcomer sees it move


def test_scrubbing_and_stepping(app):
    assert app.slider(key=state.W_STEP).disabled  # while playing the slider only shows progress
    app.button(key=state.B_PLAY).click().run()  # pause
    assert not app.slider(key=state.W_STEP).disabled
    app.slider(key=state.W_STEP).set_value(5).run()
    assert app.session_state[state.STEP] == 5 and app.session_state[state.PLAYING] is False
    html = card(app)
    assert "w<span class=\"bpe-marker\">&lt;/w&gt;</span>" in html and "<b>7</b> times" in html
    app.button(key=state.B_FORWARD).click().run()
    assert app.session_state[state.STEP] == 6 and "newe" in card(app)
    app.button(key=state.B_BACK).click().run()
    app.button(key=state.B_BACK).click().run()
    assert app.session_state[state.STEP] == 4 and ">ne<" in card(app)
    app.slider(key=state.W_STEP).set_value(0).run()
    assert any("Step 0 of 10" in m.value for m in app.markdown)
    assert not any('class="bpe-merge"' in h for h in html_bodies(app))


def test_play_and_pause(app):
    app.button(key=state.B_PLAY).click().run()  # it was playing: pause
    assert app.session_state[state.PLAYING] is False
    assert app.button(key=state.B_PLAY).label == "Play"
    app.slider(key=state.W_STEP).set_value(10).run()
    app.button(key=state.B_PLAY).click().run()  # at the end, play starts over
    assert app.session_state[state.PLAYING] is True and app.session_state[state.STEP] == 0
    assert app.button(key=state.B_PLAY).label == "Pause"


def test_scrubbing_right_after_opening_a_link(app):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["step"] = "2"
    at.run()
    at.slider(key=state.W_STEP).set_value(7).run()
    assert at.session_state[state.STEP] == 7 and ">lo<" in card(at)


def test_unseen_words_page(app):
    app.switch_page("views/unseen.py").run()
    assert not app.exception
    assert app.text_input(key=state.W_WORDS).value == "lowest newer wider slow"
    chips = html_bodies(app)
    lowest = next(h for h in chips if "id 17" in h)
    assert ">lo<" in lowest and ">we<" in lowest and "st<span class=\"bpe-marker\">&lt;/w&gt;</span>" in lowest
    trees = plotly_specs(app)
    assert len(trees) == 4 and "lo<br><sub>r6</sub>" in [a["text"] for a in trees[0]["layout"]["annotations"]]
    built = app.dataframe[0].value
    assert list(built["merge"]) == ["w + e", "t + </w>", "s + t</w>", "l + o"]
    app.text_input(key=state.W_WORDS).set_value("slow").run()
    assert any("s<sub" in h and "low" in h for h in html_bodies(app))
    app.slider(key=state.W_TIMELINE).set_value(4).run()
    assert any("After 4 merges" in m.value for m in app.markdown)
    app.button(key=state.b_jump(0, 8)).click().run()  # low</w> was made by rank 8
    assert app.session_state[state.STEP] == 9
    assert any("Step 9 of 10" in m.value for m in app.markdown)


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
    assert any("Step 1 of 9" in m.value for m in app.markdown)
    html = card(app)
    assert '<span class="bpe-ws">·</span>' in html and ">h<" in html  # " " + "h" -> " h"


def test_try_it_yourself_button(app):
    app.switch_page("views/lessons.py").run()
    app.button(key=state.b_open_lesson("seed000", "try")).click().run()
    assert app.session_state[state.W_MERGES] == 20
    assert app.session_state[state.CORPUS].startswith("paste:")
    curve = plotly_specs(app)[1]
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
    assert good.startswith("upload:") and any("Loaded mine.txt" in s.value for s in app.success)
    assert app.session_state[state.TRAINED].top_words[0] == ("banana", 10)
    for name, data, message in [
        ("pic.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00", "binary"),
        ("latin.txt", "caf\u00e9 cr\u00e8me".encode("latin-1"), "not UTF-8"),
        ("empty.txt", b"", "empty"),
    ]:
        app.file_uploader(key=state.W_UPLOAD).set_value((name, data, "text/plain")).run()
        assert not app.exception
        errors = [e.value for e in app.error]
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
    words = next(h for h in bodies if "bpe-rows" in h)
    assert "&lt;script&gt;" in words.replace('<span class="bpe-ws">·</span>', " ") or "&lt;" in words
    for h in bodies:
        assert "<script" not in h and "<img" not in h
    app.switch_page("views/unseen.py").run()
    app.text_input(key=state.W_WORDS).set_value("<script>alert(1)</script> <img src=x onerror=alert(2)>").run()
    for h in html_bodies(app):
        assert "<script" not in h and "<img" not in h
    assert any("&lt;" in h for h in html_bodies(app))


def test_absurd_settings_get_a_message_and_keep_the_result(app):
    app.sidebar.number_input(key=state.W_MERGES).set_value(10_000_000)
    train_button(app).click().run()
    assert not app.exception
    assert any("more than the engine allows" in e.value for e in app.error)
    assert "<b>9</b> times" in card(app)  # the previous tokenizer is still on screen
    app.sidebar.number_input(key=state.W_MERGES).set_value(10)
    app.sidebar.radio(key=state.W_TARGET).set_value("vocab")
    app.sidebar.number_input(key=state.W_VOCAB).set_value(5)
    train_button(app).click().run()
    assert any("smaller than this corpus's alphabet" in e.value for e in app.error)
    app.sidebar.selectbox(key=state.W_PRETOK).set_value("gpt2")
    app.sidebar.radio(key=state.W_TARGET).set_value("merges")
    train_button(app).click().run()
    assert any("word mode always splits on whitespace" in e.value for e in app.error)


def test_link_reopens_the_same_view():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"corpus": "seed003", "mode": "text", "tie": "first", "vocab": "25", "step": "4",
                            "words": "lovely", "present": "1"})
    at.run()
    assert not at.exception
    assert at.session_state[state.STEP] == 4 and at.session_state[state.PLAYING] is False
    assert any("Step 4 of 9" in m.value for m in at.markdown)
    assert any("font-size: 21px" in h for h in html_bodies(at))  # presenter mode
    at.switch_page("views/unseen.py").run()
    assert at.text_input(key=state.W_WORDS).value == "lovely"


def test_bad_link_is_reported():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"mode": "weird", "merges": "many"})
    at.run()
    assert any("ignored" in w.value for w in at.warning)
    assert "<b>9</b> times" in card(at)


def test_presenter_toggle(app):
    assert not any("font-size: 21px" in h for h in html_bodies(app))
    app.sidebar.toggle(key=state.W_PRESENTER).set_value(True).run()
    assert any("font-size: 21px" in h for h in html_bodies(app))
    assert plotly_specs(app)[0]["layout"]["font"]["size"] == 17
