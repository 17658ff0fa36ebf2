"""The Unseen words page with a rank-file built-in: the "after k merges" timeline counts its merges
in order (step k is the k-th merge, as in the trees, the chips and the step table)."""
from __future__ import annotations

from bpe_core.builtin import load_builtin
from explorer.display.render import Chip, chips_html
from explorer.ui import state
from tests.conftest import require, require_cl100k


def unseen_with(app, name: str, words: str):
    app.switch_page("views/unseen.py").run()
    app.selectbox(key=state.W_UNSEEN_SOURCE).set_value(f"builtin:{name}").run()
    app.text_input(key=state.W_WORDS).set_value(words).run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def after_k_chips(tok, word: str, k: int) -> str:
    """The page's "After k merges" row, drawn as the page draws it."""
    return chips_html([Chip(p, birth=tok.birth.get(p)) for p in tok.encode_word(word, limit=k)], byte_level=True)


def test_a_rank_file_builtin_has_the_timeline_in_merge_steps(app):
    require_cl100k()
    cl = load_builtin("cl100k_base")
    unseen_with(app, "cl100k_base", "strawberry")
    timeline = app.slider(key=state.W_TIMELINE)
    assert (timeline.min, timeline.max, timeline.value) == (0, 100_000, 100_000)  # every merge, in order
    assert "**After 100,000 merges**" in [m.value for m in app.markdown]
    bodies = [h.value for h in app.html]
    assert after_k_chips(cl, "strawberry", 100_000) in bodies  # all merges: the word's own pieces
    built = app.dataframe[0].value
    assert built["step"].tolist() == [6, 12, 241, 363, 420, 5260, 15462]  # birth + 1, not the ids 261, 267, ...
    assert built["pieces after"].tolist()[-1] == "str aw berry"

    timeline.set_value(241).run()  # after step 241 ("st" + "r"), before step 363
    assert not app.exception
    assert "**After 241 merges**" in [m.value for m in app.markdown]
    assert cl.encode_word("strawberry", limit=241) == ["str", "a", "w", "b", "er", "r", "y"]
    assert after_k_chips(cl, "strawberry", 241) in [h.value for h in app.html]
    assert not any("rank file" in c.value for c in app.caption)  # no longer hidden for rank files


def test_a_token_no_merge_builds_says_it_has_no_step(app):
    require("quicktok")
    llama = load_builtin("llama3")
    unseen_with(app, "llama3", " việc")
    assert any(c.value.startswith("No merge builds ·việc: the vocabulary lists it, and a word that is itself a token "
                                  "is taken whole, before any merge. It has no step") for c in app.caption)
    assert app.slider(key=state.W_TIMELINE).max == len(llama.merges)
    # After every merge the word is still three pieces; the tokenizer takes it whole.
    assert after_k_chips(llama, " việc", len(llama.merges)) in [h.value for h in app.html]
    assert app.dataframe[0].value["step"].tolist() == [93, 3100, 4825, 26043]
