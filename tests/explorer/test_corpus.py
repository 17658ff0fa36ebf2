from __future__ import annotations

import pytest

from bpe_core import BPEError
from explorer.data.corpus import corpus_stats, pasted_corpus, read_uploads


def test_one_upload():
    corpus = read_uploads([("a.txt", b"low lower\n")])
    assert corpus.text == "low lower\n" and corpus.key.startswith("upload:") and "a.txt" in corpus.title


def test_several_uploads_are_joined_and_keep_words_apart():
    corpus = read_uploads([("a.txt", b"low"), ("b.txt", b"lower\n")])
    assert corpus.text.split() == ["low", "lower"]


def test_bom_is_dropped():
    assert read_uploads([("a.txt", b"\xef\xbb\xbfhello")]).text == "hello"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a binary file (it contains NUL bytes), not text"),
        ("café".encode("latin-1"), "is not UTF-8 text (invalid byte 0xe9 at offset 3)"),
        (b"", "is empty"),
        (b"  \n\t ", "is empty"),
    ],
)
def test_bad_uploads_are_refused_with_a_message(data, problem):
    with pytest.raises(BPEError) as caught:
        read_uploads([("bad.txt", data)])
    assert str(caught.value) == f"Could not use the upload: bad.txt {problem}. The previous corpus is still loaded."


def test_one_bad_file_refuses_the_whole_upload():
    with pytest.raises(BPEError, match="b.txt is empty"):
        read_uploads([("a.txt", b"fine"), ("b.txt", b"")])


def test_size_limit():
    with pytest.raises(BPEError, match="over the"):
        read_uploads([("big.txt", b"a" * 2000)], max_bytes=1000)


def test_paste():
    assert pasted_corpus("hello world").text == "hello world"
    with pytest.raises(BPEError, match="empty"):
        pasted_corpus("   ")


def test_stats():
    stats = corpus_stats("the cat and the dog\nthe end")
    assert (stats.characters, stats.words, stats.distinct_words) == (27, 7, 5)
    assert stats.alphabet == len(set("thecatandthedogtheend"))
    assert stats.top_words[0] == ("the", 3)


# ---- one upload limit (issue 8, section 5) ----------------------------------------------------

def test_the_upload_check_counts_the_bytes_the_widget_counts():
    """The config gives the widget maxUploadSize MB; Streamlit's widget refuses more than that many
    million bytes; the app's check, the page and the messages say the same 50,000,000 bytes."""
    import pathlib
    import re

    import streamlit
    import tomllib

    from explorer.data import corpus

    root = pathlib.Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == corpus.MAX_UPLOAD_MB == 50
    # The installed widget converts megabytes to bytes with 1000 (1024 only on Windows): pin it.
    bundle = pathlib.Path(streamlit.__file__).parent / "static" / "static" / "js"
    assert any(re.search(r"\?1024:1e3", f.read_text(errors="ignore")) for f in bundle.glob("utils.*.js"))
    assert corpus.MAX_UPLOAD_BYTES == config["server"]["maxUploadSize"] * 1000 * 1000 == 50_000_000
    assert corpus.UPLOAD_LIMIT_TEXT == "50 MB (50,000,000 bytes)"
    read_uploads([("max.txt", b"a" * 999 + b"\n")], max_bytes=1000)  # exactly the limit is fine
    with pytest.raises(BPEError) as caught:
        read_uploads([("big.txt", b"a" * (corpus.MAX_UPLOAD_BYTES + 1))])
    assert str(caught.value) == ("Could not use the upload: big.txt is 50.0 MB (50,000,001 bytes), over the 50 MB "
                                 "(50,000,000 bytes) limit. The previous corpus is still loaded.")


def test_the_corpus_page_states_the_limit_and_gives_it_to_the_widget(app):
    from explorer.data import corpus
    from explorer.ui import state

    app.switch_page("views/corpus.py").run()
    uploader = app.file_uploader(key=state.W_UPLOAD)
    assert uploader.proto.max_upload_size_mb == corpus.MAX_UPLOAD_MB
    assert "up to 50 MB (50,000,000 bytes) in all" in uploader.label


def test_a_large_corpus_is_counted_in_a_worker_and_a_failed_count_is_said(app, monkeypatch):
    """Past STATS_HERE_CHARS the page's thread counts nothing (50 MB would hold the server for every session
    for 1.6 s): the count is a job in the pool's short lane, and the page shows what `corpus_stats` gives.
    A count that fails (here: its time limit) is said in one line, and the corpus is still shown."""
    from dataclasses import replace

    from explorer.data import tasks
    from explorer.display.render import md_escape
    from explorer.ui import corpus_count, state, store

    pool, asked = store.worker_pool(), []
    real = pool.submit
    monkeypatch.setattr(pool, "submit", lambda key, task: asked.append(task) or real(key, task))
    monkeypatch.setattr(corpus_count, "STATS_HERE_CHARS", 200)  # the lesson (109 characters) stays here
    text = "counted apart " * 20 + "once"
    app.switch_page("views/corpus.py").run()
    app.text_area(key=state.W_PASTE).set_value(text).run()
    app.button(key=state.B_USE_PASTE).click().run()
    assert not app.exception
    counts = [task for task in asked if task.function == "explorer.data.tasks:corpus_stats_in_worker"]
    assert [(task.texts, task.lane) for task in counts] == [([text], tasks.SHORT)]
    expected = corpus_stats(text)
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Words"], metrics["Distinct words"]) == (f"{expected.words}", f"{expected.distinct_words}")

    failing = tasks.Task("tests.worker_jobs:fail", "the count failed", lane=tasks.SHORT, noun="count")
    monkeypatch.setattr(corpus_count, "corpus_stats_task", lambda text: replace(failing, texts=[text]))
    other = text + " more"
    app.text_area(key=state.W_PASTE).set_value(other).run()
    app.button(key=state.B_USE_PASTE).click().run()
    assert not app.exception and not app.metric
    assert [i.value for i in app.info] == [
        md_escape("Its statistics could not be counted: the count failed. It can still be trained.")]
    assert any(other[:40] in c.value for c in app.code)
    # The failure is the count's answer until asked again: the page's next runs send nothing.
    sent = len(asked)
    app.run()
    app.text_area(key=state.W_PASTE).set_value("an edit elsewhere on the page").run()
    assert len(asked) == sent and [i.value for i in app.info] == [
        md_escape("Its statistics could not be counted: the count failed. It can still be trained.")]
    monkeypatch.undo()  # the count works again
    monkeypatch.setattr(pool, "submit", lambda key, task: asked.append(task) or real(key, task))
    monkeypatch.setattr(corpus_count, "STATS_HERE_CHARS", 200)
    app.button(key=state.B_RECOUNT).click().run()
    assert not app.exception and not app.info and len(asked) == sent + 1
    expected = corpus_stats(other)
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Words"], metrics["Distinct words"]) == (f"{expected.words}", f"{expected.distinct_words}")


def test_a_count_that_may_pass_is_not_kept_and_the_next_run_counts_again(app, monkeypatch):
    """A count stopped for what may not happen again (here: it stalled; a busy server, the system short of
    memory) is said, but is no answer to keep: the page's next run sends it again."""
    from dataclasses import replace

    from explorer.data import tasks
    from explorer.display.render import md_escape
    from explorer.ui import corpus_count, state, store

    monkeypatch.setattr(store.worker_pool(), "stall_after", 1.0)
    monkeypatch.setattr(corpus_count, "STATS_HERE_CHARS", 200)  # the lesson (109 characters) stays here
    counting = corpus_count.corpus_stats_task
    stalling = tasks.Task("tests.worker_jobs:wait", 60.0, lane=tasks.SHORT, noun="count")
    monkeypatch.setattr(corpus_count, "corpus_stats_task", lambda text: replace(stalling, texts=[text]))
    text = "a count that stalls once " * 10  # a corpus no other test counts (the counts are the server's)
    app.switch_page("views/corpus.py").run()
    app.text_area(key=state.W_PASTE).set_value(text).run()
    app.button(key=state.B_USE_PASTE).click().run()
    assert not app.exception and not app.metric
    assert [i.value for i in app.info] == [md_escape(
        "Its statistics could not be counted: the count stopped making progress (no processor time for 1 s) and "
        "was stopped; try again. It can still be trained.")]
    monkeypatch.setattr(corpus_count, "corpus_stats_task", counting)
    app.run()
    assert not app.exception and not app.info
    expected = corpus_stats(text)
    metrics = {m.label: m.value for m in app.metric}
    assert (metrics["Words"], metrics["Distinct words"]) == (f"{expected.words}", f"{expected.distinct_words}")
