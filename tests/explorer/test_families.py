"""The Families page: four tokenizer families trained on one corpus, as pure functions, then under AppTest."""
from __future__ import annotations

import pytest
from apptest_helpers import APP, html_bodies
from plain_text import OUTSIDE, RAW, constructs, markdown_strings, shown
from streamlit.testing.v1 import AppTest

from bpe_core import BPEError, Settings, train
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.registry import family
from bpe_core.families.superbpe import is_superword
from explorer.data import families as fam
from explorer.data.any_model import AnyModel
from explorer.data.corpus import Corpus, digest
from explorer.display import families as view
from explorer.display.render import PRESENTER_CSS
from explorer.display.table_fit import FIT_WIDTH, INDEX, PRESENTER_ROOT_PX, fit_columns
from explorer.families import part
from explorer.ui import state, store
from sample_corpora import load_corpus

SEED000 = load_corpus("seed000")


@pytest.fixture(scope="module")
def seed000_families() -> fam.Families:
    vocab = fam.default_vocab_size(len(SEED000))  # what the page starts from
    return fam.train_families(SEED000, vocab_size=vocab, transition=fam.transition_size(vocab, 80))


# ---- pure ------------------------------------------------------------------------------------

def test_each_family_is_its_engine_trained_on_the_same_text(seed000_families):
    found = seed000_families
    assert [r.family for r in found.runs] == ["bpe", "wordpiece", "unigram", "superbpe"]
    assert (found.vocab_size, found.transition, found.measured_on) == (400, 320, "training")  # a tiny corpus
    engines = {
        "bpe": train([SEED000], Settings(mode="bytes", pretokenizer="o200k"), vocab_size=400),
        "wordpiece": train_wordpiece([SEED000], vocab_size=400),
        "unigram": train_unigram([SEED000], vocab_size=400),
        "superbpe": train_superbpe([SEED000], vocab_size=400, transition=320, pretokenizer="o200k"),
    }
    for run in found.runs:
        engine = engines[run.family]
        assert run.error == "" and run.vocab_size == len(engine.vocab)
        assert run.tokens == len(engine.encode_tokens(SEED000))
    assert found.measured_words == len(SEED000.split())
    assert found.run("wordpiece").note == "fewer than asked: this text offers no more tokens to learn"
    bpe, superbpe = found.run("bpe").model, found.run("superbpe").model
    assert superbpe.transition == len(bpe.merges) == 16  # phase one learned every merge BPE did...
    assert superbpe.merges[:16] == [tuple(m) for m in bpe.merges]  # ...the same, in the same order (the page says so)
    # SuperBPE's phase two crosses spaces: fewer tokens than BPE on the same text
    assert found.run("superbpe").tokens < found.run("bpe").tokens


def test_a_large_corpus_is_cut_and_measured_on_held_out_text():
    text = "alpha beta gamma delta " * 20_000  # 460,000 characters
    train_text, measured, where = fam.split_corpus(text)
    assert len(train_text) == fam.TRAIN_CHARS and where == "held-out"
    assert measured == text[fam.TRAIN_CHARS:fam.TRAIN_CHARS + fam.HELD_OUT_CHARS]


def test_words_longer_than_wordpieces_limit_are_left_out_of_training_and_said():
    text = "the cat sat " * 50 + "x" * 20_000 + " on the mat"  # 20,000 letters: WordPiece would take seconds
    found = fam.train_families(text, vocab_size=300, transition=280)
    assert found.long_words == 1 and all(r.error == "" for r in found.runs)
    assert "x" * 2 not in found.run("wordpiece").model.vocab  # no piece of the long word was learned
    assert "1 word longer than 100 characters was left out" in view.measured_caption(found)


def test_surfaces_drop_each_familys_marker(seed000_families):
    bpe, wordpiece, unigram, superbpe = (AnyModel.of(r.model) for r in seed000_families.runs)
    assert fam.surface(bpe, "Ġlow") == fam.surface(wordpiece, "##low") == fam.surface(unigram, "▁low") == b"low"
    assert fam.surface(superbpe, "ĠofĠthe") == b"of the"
    assert fam.surface(wordpiece, "low") == b"low" and fam.surface(wordpiece, "##") == wordpiece.token_bytes("##")
    assert fam.surface(unigram, "▁") == b" " and fam.surface(bpe, "Ġ") == b" "
    assert fam.surface(wordpiece, "[CLS]") not in fam.surfaces(wordpiece)  # special tokens are left out


def test_overlap_counts_shared_tokens_and_jaccard(seed000_families):
    found = {(o.first, o.second): o for o in fam.overlaps(seed000_families)}
    assert len(found) == 6
    one = found[("wordpiece", "unigram")]
    wp = fam.surfaces(AnyModel.of(seed000_families.run("wordpiece").model))
    un = fam.surfaces(AnyModel.of(seed000_families.run("unigram").model))
    assert (one.shared, one.only_first, one.only_second) == (len(wp & un), len(wp - un), len(un - wp))
    assert one.jaccard == len(wp & un) / len(wp | un)


def test_a_family_that_cannot_train_says_why_and_the_others_go_on():
    found = fam.train_families(SEED000, vocab_size=200, transition=200)
    failed = {r.family: r.error for r in found.runs if r.model is None}
    assert set(failed) == {"bpe", "superbpe"}  # byte level: 256 bytes before any merge
    assert "ask for at least 257" in failed["bpe"] and "at least 256" in failed["superbpe"]
    table = view.lesson_frame(found)
    assert table.loc["Tokens"].isna().tolist() == [True, False, False, True]
    assert table.loc["Note", "BPE"] == "could not train with these settings (why: under the table)"  # one short row


def test_the_lessons_table_fits_the_page_a_column_per_family(seed000_families):
    """At 1400 px the main column is ~940 px: ten columns of a row per family could not fit it, however narrow."""
    table = view.lesson_frame(seed000_families)
    fit = fit_columns(table, index=True)
    assert set(fit.columns) == {INDEX, *table.columns} and 0 < fit.width <= FIT_WIDTH  # widths set: it fits
    assert fit.row_height is not None  # the long criteria wrap
    assert view.table_height(len(table), fit.row_height) == 35 + len(table) * fit.row_height + 2  # every row shown


def test_an_empty_corpus_is_refused_in_one_line():
    with pytest.raises(BPEError, match="the corpus is empty"):
        fam.train_families(" \n ", vocab_size=300, transition=256)


def test_chips_escape_outside_text_and_are_capped(seed000_families):
    html, tokens = view.family_chips_html(seed000_families.run("unigram").model, "<b>x</b>")
    assert tokens == 2 and "<b>" not in html  # "▁", then the whole word: no piece of it was ever seen
    unknown = 'class="bpe-chip bpe-unknown" title="Unigram token &#x27;&lt;b&gt;x&lt;/b&gt;&#x27; · unknown">'
    assert unknown in html
    superbpe = seed000_families.run("superbpe").model
    html, _ = view.family_chips_html(superbpe, SEED000)
    assert html.count("superword: one token across a space") == html.count("outline:2px") == sum(
        is_superword(t) for t in superbpe.encode_tokens(SEED000)) > 0
    long = " low" * 500  # "Ġlow" is one BPE token
    html, tokens = view.family_chips_html(seed000_families.run("bpe").model, long)
    assert tokens == 500 and html.count('class="bpe-chip"') == view.MAX_CHIPS and "300 more" in html


# ---- the page ----------------------------------------------------------------------------------

def open_page(app):
    app.switch_page("views/families.py").run(timeout=120)
    assert not app.exception, app.exception
    return app


def test_page_shows_the_engines_numbers_on_the_default_corpus(app, seed000_families):
    at = open_page(app)
    assert not at.error
    table = at.dataframe[0].value  # as the lesson lays it out: a column per family
    assert list(table.columns) == [family(name).title for name in fam.FAMILIES]
    assert list(table.loc["Vocabulary reached"]) == [f"{r.vocab_size:,}" for r in seed000_families.runs]
    assert list(table.loc["Tokens"]) == [f"{r.tokens:,}" for r in seed000_families.runs]
    assert list(table.loc["Direction"])[:3] == ["bottom-up merging", "bottom-up merging", "top-down pruning"]
    assert list(table.loc["Multiple segmentations"])[:3] == ["only with dropout", "no", "natively (n-best, sampling)"]
    rows = "".join(html_bodies(at))
    for name in fam.FAMILIES:
        assert f"<b>{family(name).title}</b>" in rows
    unigram = seed000_families.run("unigram").model
    dropout = at.dataframe[2].value  # the several segmentations of one word, in the families' order
    assert dropout["Samples"].sum() <= part("bpe", "families").DROPOUT_SAMPLES
    assert "yes" in list(dropout["Without dropout"])
    nbest = at.dataframe[3].value
    assert list(nbest["Segmentation"])[0] == " | ".join(unigram.nbest("lowest", 1)[0][0])


def _nbest_shown(at) -> tuple[str, int, str]:
    """Unigram's several segmentations as drawn: the heading, the rows of its table, the caption under it."""
    heading = next(m.value for m in at.markdown if m.value.startswith("**Unigram"))
    table = at.dataframe[3].value  # the families' order: the lesson's table, overlap, BPE-dropout, then Unigram
    caption = next(c.value for c in at.caption if "most probable segmentation" in c.value
                   or "only segmentation" in c.value)
    return heading, len(table), caption


def test_the_nbest_heading_promises_no_more_than_it_lists(app, seed000_families):
    """The lesson's vocabulary splits "lowest" only 2 ways: the page lists 2 and says so, never "the 8"."""
    unigram = seed000_families.run("unigram").model
    asked = part("unigram", "families").NBEST
    assert len(unigram.nbest("lowest", asked)) == 2 < asked
    at = open_page(app)
    heading, rows, caption = _nbest_shown(at)
    assert rows == 2 and f"the {asked} most probable" not in heading and f"up to {asked}" in heading
    assert caption.startswith("The 2 most probable segmentations: this vocabulary splits the word only 2 ways")
    # The lesson's pieces split no word more than 3 ways (its only longer pieces start words): the
    # caption of a word with more than 8 ways, as the page writes it
    assert view.nbest_caption(asked, asked).startswith(f"The {asked} most probable segmentations.")
    assert view.nbest_caption(1, asked).startswith("The only segmentation")


def test_outside_words_stay_plain_text(app):
    at = open_page(app)
    at.text_input(key=state.FAM_W_WORDS).input(OUTSIDE).run(timeout=120)
    at.text_input(key=state.FAM_W_WORD).input("a.$x$").run(timeout=120)  # two words to BPE: a message
    assert not at.exception
    assert all("<b>h</b>" not in h and "<a" not in h for h in html_bodies(at))  # the page's own <b> is bold only
    assert any("&lt;b&gt;h&lt;/b&gt;" in h for h in html_bodies(at))
    for kind, text in markdown_strings(at):
        assert constructs(text) == [], (kind, text)
        assert not any(r in text for r in RAW), (kind, text)
    assert any("Cannot sample" in i.value for i in at.info)


def test_a_vocabulary_below_the_bytes_gives_messages_not_tracebacks(app):
    at = open_page(app)
    at.number_input(key=state.FAM_W_VOCAB).set_value(200).run(timeout=120)
    assert not at.exception and not at.error
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 2 and "BPE could not train" in warnings[0] and "SuperBPE could not train" in warnings[1]
    assert len(at.dataframe[0].value.columns) == 4


def test_the_lessons_table_wraps_its_text_in_presenter_mode_too(app):
    """Streamlit wraps a cell's text only in rows taller than 4rem: 64 px, but 84 px under presenter mode's type."""
    assert f"html {{ font-size: {PRESENTER_ROOT_PX}px; }}" in PRESENTER_CSS
    heights = []
    for presenter in (False, True):
        app.session_state[state.W_PRESENTER] = presenter
        at = open_page(app)
        table = at.dataframe[0]
        heights.append(table.proto.row_height)
        assert table.proto.row_height > 4 * (PRESENTER_ROOT_PX if presenter else 16)  # wraps: the text shows
    assert heights[0] < heights[1]


def test_an_empty_corpus_gives_a_message():
    text = "   \n"
    corpus = Corpus(key=f"paste:{digest(text)}", title="blank", text=text, digest=digest(text))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state[state.USER_CORPORA] = {corpus.key: corpus}
    at.session_state[state.CORPUS] = at.session_state[state.W_CORPUS] = corpus.key
    at.switch_page("views/families.py").run()
    assert not at.exception, at.exception
    assert [shown(e.value) for e in at.error] == [
        "Cannot train: the corpus is empty (or only whitespace): there is nothing to train on."]
    assert not at.dataframe


def test_an_outside_corpus_and_title_stay_plain_text():
    text = (OUTSIDE + "\n") * 20
    corpus = Corpus(key=f"paste:{digest(text)}", title=OUTSIDE, text=text, digest=digest(text))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state[state.USER_CORPORA] = {corpus.key: corpus}
    at.session_state[state.CORPUS] = at.session_state[state.W_CORPUS] = corpus.key
    at.session_state[state.FAM_WORD] = "**bold**"
    at.switch_page("views/families.py").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert len(at.dataframe) == 3 and len(at.dataframe[0].value.columns) == 4  # table, overlap, n-best; dropout: why
    assert [shown(i.value) for i in at.info] == [
        "Cannot sample: dropout works on one word; ' **bold**' is 3 words as this tokenizer splits text."]
    for kind, shown_text in markdown_strings(at):
        assert constructs(shown_text) == [], (kind, shown_text)
        assert not any(r in shown_text for r in RAW), (kind, shown_text)
    assert all("<b>h</b>" not in h for h in html_bodies(at))


def test_the_families_train_in_the_lane_of_a_training_of_their_size():
    """The page's default (250,000 characters to 2,000 tokens) is a short job: it never waits behind two big
    trainings; the largest vocabulary the page allows is a big one, as a training of that size would be."""
    from explorer.data.tasks import LONG, SHORT, training_lane

    corpus = load_corpus("english")
    small = fam.families_task(corpus, vocab_size=fam.default_vocab_size(len(corpus)), transition=1500, where="x")
    big = fam.families_task(corpus, vocab_size=fam.MAX_VOCAB, transition=7000, where="x")
    assert (small.lane, big.lane) == (SHORT, LONG)
    assert small.lane == training_lane(fam.TRAIN_CHARS, fam.default_vocab_size(len(corpus)))
    assert fam.families_task("low lower", vocab_size=fam.MAX_VOCAB, transition=7000, where="x").lane == SHORT


def submissions(monkeypatch) -> list:
    """The (key, task) of every job the pages hand the server's pool from now on."""
    pool, submitted = store.worker_pool(), []
    real = pool.submit
    monkeypatch.setattr(pool, "submit", lambda key, task: submitted.append((key, task)) or real(key, task))
    return submitted


def test_the_page_trains_each_family_in_a_job_of_its_own(app, monkeypatch, seed000_families):
    """Two families train at once (the short lane's two workers): about half the wait of one job for all four."""
    submitted = submissions(monkeypatch)
    monkeypatch.setattr(store, "IN_THREAD_CHARS", 10)  # the lesson corpus counts as large: worker processes
    at = open_page(app)
    submitted.clear()  # the server keeps the last results: a size no other test asks for is trained here
    at.number_input(key=state.FAM_W_VOCAB).set_value(397).run(timeout=120)
    asked = [task.payload[-1] for _, task in submitted]  # each job's family names
    assert not at.exception and not at.error and sorted(asked) == sorted((name,) for name in fam.FAMILIES)
    sizes = {"vocab_size": seed000_families.vocab_size, "transition": seed000_families.transition}
    parts = [fam.train_families(SEED000, **sizes, names=(name,)) for name in reversed(fam.FAMILIES)]
    joined = fam.merged(parts)
    assert [r.family for r in joined.runs] == list(fam.FAMILIES)  # the registry's order, whatever the jobs' order
    assert [(r.vocab_size, r.tokens) for r in joined.runs] == [(r.vocab_size, r.tokens) for r in seed000_families.runs]


def test_a_lessons_few_words_train_in_the_page_thread_with_the_same_numbers(app, monkeypatch, seed000_families):
    """Four worker starts would take longer than training a lesson's words: no job, the same table."""
    submitted = submissions(monkeypatch)
    at = open_page(app)
    at.number_input(key=state.FAM_W_VOCAB).set_value(398).run(timeout=120)  # a size no other test trains
    assert not at.exception and not at.error
    assert submitted == [], "a lesson's families went to a worker"
    table = at.dataframe[0].value
    again = fam.train_families(SEED000, vocab_size=398, transition=fam.transition_size(398, int(at.session_state[
        state.FAM_PERCENT])))
    assert list(table.loc["Vocabulary reached"]) == [f"{r.vocab_size:,}" for r in again.runs]
    cost = sum(part(name, "families").COST for name in fam.FAMILIES)
    assert store.small_enough_here(len(SEED000), 398 * cost)
    assert not store.small_enough_here(50_000, fam.default_vocab_size(50_000) * cost)  # a paste of some pages
