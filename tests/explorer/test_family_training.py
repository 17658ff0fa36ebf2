"""WordPiece, Unigram and SuperBPE in the explorer: the sidebar's family, the link, the training
bundle and the Watch page's frames, whose numbers must be the engines' own."""
from __future__ import annotations

from collections import Counter

import pytest
from apptest_helpers import APP, plotly_specs
from plain_text import shown
from streamlit.testing.v1 import AppTest

from bpe_core import BPEError, Settings
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.superbpe import is_superword
from bpe_core.families.wordpiece_text import count_words
from bpe_core.pretokenize import symbols_to_bytes
from explorer.data import family_view
from explorer.data.training import TrainRequest, progress_status, train_corpus
from explorer.data.worker import TrainingPool
from explorer.display import family_frames as ff
from explorer.ui import link, state
from sample_corpora import load_corpus

HINDI = load_corpus("hindi")
SEED002 = load_corpus("seed002")


def _request(family: str, vocab: int, transition: int = 0, **values) -> TrainRequest:
    return state.request_from_values({state.W_FAMILY: family, state.W_VOCAB: vocab, state.W_TRANSITION: transition,
                                      **values})


@pytest.fixture(scope="module")
def wordpiece():
    return train_corpus([HINDI], _request("wordpiece", 150))


@pytest.fixture(scope="module")
def unigram():
    return train_corpus([HINDI], _request("unigram", 60))


@pytest.fixture(scope="module")
def superbpe():
    return train_corpus([HINDI], _request("superbpe", 420, 380))


# ---- the request the sidebar makes ----------------------------------------------------------------

def test_each_family_asks_for_a_vocabulary_size_with_only_its_own_settings():
    values = {state.W_MODE: "text", state.W_PRETOK: "gpt2", state.W_TIE: "first", state.W_LOWER: True,
              state.W_NORM: "NFKC", state.W_MINFREQ: 3, state.W_TARGET: "merges", state.W_MERGES: 7}
    wp = _request("wordpiece", 500, **values)
    assert (wp.family, wp.target, wp.amount, wp.transition) == ("wordpiece", "vocab", 500, None)
    assert wp.settings == Settings(lowercase=True)  # mode, pre-tokenizer, tie-break... do not apply
    assert _request("unigram", 500, **values).settings == Settings()
    sb = _request("superbpe", 500, 400, **values)
    assert sb.settings == Settings(mode="bytes", tie_break="first", min_frequency=3) and sb.transition == 400
    assert _request("superbpe", 500, 0).transition is None  # 0: the engine's 90%
    assert sb.describe() == ("SuperBPE, bytes, the paper's pre-tokenizer in phase one, tie-break first, "
                             "min frequency 3, transition 400, vocabulary 500")
    assert wp.key() != _request("unigram", 500).key() != sb.key()


def test_bpe_and_old_state_without_a_family_are_unchanged():
    old = {k: v for k, v in state.DEFAULTS.items() if k not in (state.W_FAMILY, state.W_TRANSITION)}
    bpe = state.request_from_values(old)
    assert bpe == TrainRequest(Settings(), "merges", 10) and bpe.family == "bpe"
    for request in (bpe, _request("wordpiece", 90, **{state.W_LOWER: True}), _request("superbpe", 300, 280)):
        assert state.request_from_values({**state.DEFAULTS, **state.values_for_request(request)}) == request


def test_bad_family_requests_are_one_line_errors():
    with pytest.raises(BPEError, match="unknown tokenizer family 'gpt5'"):
        _request("gpt5", 100)
    with pytest.raises(BPEError, match=r"the transition must be from 256 \(the bytes\) to the vocabulary size"):
        _request("superbpe", 300, 900)
    with pytest.raises(BPEError, match="more than this app trains for one visitor"):
        _request("unigram", state.MAX_APP_MERGES + 1)
    with pytest.raises(BPEError, match="wordpiece trains to a vocabulary size"):
        TrainRequest(Settings(), "merges", 10, family="wordpiece")


# ---- the link -------------------------------------------------------------------------------------

def test_the_link_carries_the_family_and_transition_and_old_links_mean_bpe():
    values = {**state.DEFAULTS, state.W_FAMILY: "superbpe", state.W_VOCAB: 420, state.W_TRANSITION: 380}
    params = link.url_from_values(values)
    assert (params["family"], params["transition"], params["vocab"]) == ("superbpe", "380", "420")
    back, problems = link.values_from_url(params, samples={"seed000"})
    assert problems == [] and state.request_from_values({**state.DEFAULTS, **back}) == _request("superbpe", 420, 380)
    old = {"corpus": "seed000", "merges": "10", "step": "1"}  # a link from before families
    assert link.url_from_values(state.DEFAULTS) == old
    back, _ = link.values_from_url(old, samples={"seed000"})
    assert state.W_FAMILY not in back and state.request_from_values({**state.DEFAULTS, **back}).family == "bpe"


def test_a_crafted_family_link_falls_back_with_a_notice():
    values, problems = link.values_from_url({"family": "gpt5", "transition": "-3", "vocab": "300"}, samples=set())
    assert state.W_FAMILY not in values and state.W_TRANSITION not in values and values[state.W_VOCAB] == 300
    assert problems == ["family=gpt5 in the link is not one of bpe, wordpiece, unigram, superbpe.",
                        "transition=-3 in the link is not a whole number."]


# ---- the bundle and the frames hold the engines' numbers ------------------------------------------

def _naive_segments(counts: dict[str, int], merges: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each word's symbols after the merges, one merge at a time, left to right (the slow way)."""
    out = {}
    for word in counts:
        seq = [word[0], *("##" + c for c in word[1:])]
        for a, b in merges:
            i, new = 0, []
            while i < len(seq):
                if i + 1 < len(seq) and (seq[i], seq[i + 1]) == (a, b):
                    new.append(a + b[2:])
                    i += 2
                else:
                    new.append(seq[i])
                    i += 1
            seq = new
        out[word] = seq
    return out


def test_wordpiece_bundle_is_the_engines_model_and_its_frames_hold_the_scores(wordpiece):
    assert wordpiece.family == "wordpiece" and wordpiece.tokenizer is None
    assert wordpiece.model.tokens == train_wordpiece([HINDI], vocab_size=150).tokens
    trace = wordpiece.model.trace
    assert wordpiece.steps == len(trace) == 65
    for t, step in enumerate(trace, 1):  # the chart's best pair is the merge the engine made, counts and all
        best = ff.wordpiece_candidates(wordpiece, t)[0]
        assert (best.left, best.right, best.pair_count, best.left_count, best.right_count) == (
            step.left, step.right, step.pair_count, step.left_count, step.right_count)
    counts = count_words([HINDI])  # BERT's words, as the engine counts them
    slow = _naive_segments(counts, [(s.left, s.right) for s in trace[:20]])
    assert wordpiece.curve.total_tokens[20] == sum(n * len(slow[w]) for w, n in counts.items())
    # The runners-up at step 20: recounted from scratch over the slow segmentation.
    pairs, syms = Counter(), Counter()
    for word, n in counts.items():
        for s in slow[word]:
            syms[s] += n
        for pair in zip(slow[word], slow[word][1:]):
            pairs[pair] += n
    expected = sorted(pairs, key=lambda p: (-pairs[p] / (syms[p[0]] * syms[p[1]]), -pairs[p], p))[:ff.PAIRS]
    assert [(c.left, c.right) for c in ff.wordpiece_candidates(wordpiece, 21)] == expected
    frame = ff.wordpiece_frame(wordpiece, 3)
    step = trace[2]
    assert (f"score = count(ab) / (count(a) · count(b)) = {step.pair_count} / ({step.left_count} · "
            f"{step.right_count}) = {step.score:.6g}") in frame.facts
    top = wordpiece.top_words[0][0]
    three = _naive_segments({top: 1}, [(s.left, s.right) for s in trace[:3]])
    assert [c.token for c in frame.rows[0].chips] == three[top]
    spec = ff.score_figure(ff.wordpiece_candidates(wordpiece, 3)).to_dict()["data"][0]
    assert list(spec["x"])[0] == pytest.approx(step.score)
    assert f"count(ab) = {step.pair_count}<br>count(a) = {step.left_count}<br>count(b) = {step.right_count}" in (
        spec["hovertext"][0])


def test_unigram_frames_are_its_rounds(unigram):
    model = train_unigram([HINDI], vocab_size=60)
    assert unigram.model.pieces == model.pieces and unigram.steps == len(model.trace) == 7
    record = model.trace[2]
    frame = ff.unigram_frame(unigram, 3)
    assert f"Round 3 of 7: {record.vocab_size_before} → {record.vocab_size} pieces" in frame.card
    assert f"corpus log-likelihood {record.log_likelihood:,.1f}" in frame.facts
    rows, total = ff.removed_rows(unigram, 3)
    assert total == len(record.removed) and [(r["piece"], r["loss"]) for r in rows] == list(record.removed)
    fig = ff.rounds_figure(unigram, 3).to_dict()
    assert list(fig["data"][0]["y"]) == [380, *(r.vocab_size for r in model.trace)]
    assert list(fig["data"][1]["y"]) == [round(r.log_likelihood, 2) for r in model.trace]
    last = ff.unigram_frame(unigram, 7)  # the last round's pieces are the model's: Viterbi agrees
    for (word, _), row in zip(unigram.top_words, last.rows):
        assert [c.token for c in row.chips] == model.encode(word)
    assert ff.first_step("unigram") == 1 and ff.clamp(unigram, 0) == 1


def test_superbpe_frames_mark_the_transition_and_its_superwords(superbpe):
    model = train_superbpe([HINDI], vocab_size=420, transition=380)
    assert superbpe.model.merges == model.merges and superbpe.story.transition == model.transition == 124
    training = model.training
    for step in (1, 124, 125, 164):
        pairs = ff.superbpe_pairs(superbpe, step)
        merge = training.trace[step - 1]
        assert pairs == list(training.top_pairs[step - 1][:ff.PAIRS]) and pairs[0] == (merge.left, merge.right,
                                                                                        merge.count)
    assert "the transition: phase two starts here" in ff.superbpe_frame(superbpe, 125).facts
    assert ff.superbpe_frame(superbpe, 124).superwords == frozenset()  # phase one never crosses a space
    last = ff.superbpe_frame(superbpe, 164)
    assert last.superwords and all(is_superword(t) for t in last.superwords)
    for (chunk, _), row in zip(superbpe.story.chunks, last.rows):  # the pieces spell the piece
        assert b"".join(symbols_to_bytes(c.token) for c in row.chips) == symbols_to_bytes(chunk)[:len(
            b"".join(symbols_to_bytes(c.token) for c in row.chips))]
    assert '<span class="fam-super"' in ff.rows_html(last, byte_level=True)
    curve = ff.curve_figure(superbpe, 10).to_dict()
    assert curve["layout"]["shapes"][1]["x0"] == 124
    assert curve["layout"]["annotations"][0]["text"] == "transition after merge 124: phase two"


def test_segment_and_vocabulary_read_any_family(wordpiece, unigram, superbpe):
    for trained in (wordpiece, unigram, superbpe):
        text = "और फिर qz"
        pieces = family_view.segment(trained, text)
        covered = {i for p in pieces for i in range(p.start, p.end)}
        assert covered >= {i for i, ch in enumerate(text) if ch != " "} and max(covered) == len(text) - 1
        vocab = family_view.vocabulary(trained)
        assert [i for i, _ in vocab] == list(range(len(vocab)))
    assert [p.unknown for p in family_view.segment(wordpiece, "qz")] == [True]
    assert all(not p.unknown for p in family_view.segment(superbpe, "qz"))
    assert family_view.merge_based(superbpe) and not family_view.merge_based(unigram)


def test_progress_is_told_in_each_familys_own_numbers():
    assert progress_status("wordpiece", 12, 65) == "12 of 65 tokens added"
    assert progress_status("superbpe", 3, 164) == "merge 3 of 164"
    seen = []
    train_corpus([HINDI], _request("wordpiece", 150), progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (65, 65)  # 85 tokens to start (five special ones, 80 symbols), 65 added
    seen.clear()
    train_corpus([HINDI], _request("unigram", 60), progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (380 - 192, 380 - 60) and seen[-1] == (320, 320)  # pieces pruned of the seed's


def test_every_family_trains_in_a_worker_process_as_in_the_page_thread():
    pool = TrainingPool(workers=1)
    for request, last in ((_request("wordpiece", 150), "65 of 65 tokens added"),
                          (_request("unigram", 60), "320 of 320 pieces pruned"),
                          (_request("superbpe", 420, 380), "merge 164 of 164")):
        job = pool.submit("key", [HINDI], request)
        assert job.wait(120)
        here = train_corpus([HINDI], request)
        assert job.error == "" and job.result.family == request.family
        assert job.result.model.vocab == here.model.vocab and job.result.curve == here.curve
        job.stage = "training"  # as the page saw it at the last progress message
        assert job.status().startswith(last + ", ")
    job = pool.submit("key", ["  "], _request("unigram", 60))
    assert job.wait(60) and job.error == "the corpus is empty (or only whitespace): there is nothing to train on"
    slow = TrainingPool(workers=1, time_limit=1.0)  # the pool's limits hold for every family
    many = " ".join(f"{i * 7919}ab{i % 97}" for i in range(200_000))  # 200,000 distinct words: a big seed
    job = slow.submit("key", [many], _request("unigram", 100))
    assert job.wait(60) and job.error == ("the training took longer than 1 s, the limit for one training here, and "
                                          "was stopped; try a smaller vocabulary size or a smaller corpus")
    assert pool.running == 0 and slow.running == 0


# ---- in the app -----------------------------------------------------------------------------------

def _train(at, family: str, vocab: int):
    at.sidebar.selectbox(key=state.W_FAMILY).set_value(family)
    at.sidebar.number_input(key=state.W_VOCAB).set_value(vocab)
    next(b for b in at.button if b.label == "Train").click().run()
    assert not at.exception, at.exception


def test_the_family_select_trains_that_family_and_the_watch_page_plays_it(app):
    _train(app, "wordpiece", 40)
    trained = app.session_state[state.TRAINED]
    assert trained.family == "wordpiece" and trained.model.tokens == train_wordpiece(
        [load_corpus("seed000")], vocab_size=40).tokens
    assert app.title[0].value == "Watch WordPiece learn"
    mode = app.sidebar.selectbox(key=state.W_MODE)
    assert mode.disabled and mode.help.startswith("Off for WordPiece: WordPiece splits text as BERT does")
    assert not app.sidebar.checkbox(key=state.W_LOWER).disabled and app.sidebar.number_input(
        key=state.W_TRANSITION).disabled
    titles = [s["layout"]["title"]["text"] for s in plotly_specs(app)]
    assert titles[0] == "Highest scores at this step: count(ab) / (count(a) · count(b))"
    app.session_state[state.PLAYING] = False
    next(b for b in app.button if b.label == "Next").click().run()
    assert app.session_state[state.STEP] == 2 and app.query_params["step"] in (["2"], "2")
    assert app.query_params["family"] in (["wordpiece"], "wordpiece")


def test_links_open_a_family_and_bad_ones_say_why():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"corpus": "hindi", "family": "unigram", "vocab": "60", "step": "3"})
    at.run()
    assert not at.exception and at.title[0].value == "Watch Unigram prune"
    assert at.session_state[state.STEP] == 3 and "Round 3 of 7" in "".join(h.value for h in at.html)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"family": "superbpe", "vocab": "100"})  # too small for 256 bytes
    at.run()
    assert not at.exception and any("Could not train" in shown(e.value) for e in at.error)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"family": "<script>"})
    at.run()
    assert not at.exception and at.session_state[state.TRAINED].family == "bpe"
    assert "family=<script> in the link is not one of bpe" in shown(at.warning[0].value)


def test_bpe_only_pages_say_so_in_one_line(app):
    _train(app, "unigram", 30)
    for page in ("lessons", "mistakes", "stability"):
        app.switch_page(f"views/{page}.py").run()
        assert not app.exception, (page, app.exception)
        lines = [shown(i.value) for i in app.info if "is about BPE's merges" in shown(i.value)]
        assert len(lines) == 1, page
    assert "choose BPE as the Family" in lines[0]  # stability has nothing but the sidebar's tokenizer
    _train(app, "bpe", 100)
    app.switch_page("views/lessons.py").run()
    assert not [i for i in app.info if "is about BPE's merges" in shown(i.value)]
