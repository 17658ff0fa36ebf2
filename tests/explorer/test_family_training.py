"""WordPiece, Unigram and SuperBPE in the explorer: the sidebar's family, the link, the training
bundle and the Watch page's frames, whose numbers must be the engines' own."""
from __future__ import annotations

from collections import Counter

import pytest
from apptest_helpers import APP
from plain_text import shown
from player_helpers import frame_at, pieces_at, player_data, send_view, token_texts
from streamlit.testing.v1 import AppTest

from bpe_core import BPEError, Settings
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.superbpe import is_superword, phase_one_pieces
from bpe_core.families.wordpiece_text import count_words
from bpe_core.pretokenize import symbols_to_bytes
from explorer.data.any_model import AnyModel
from explorer.data.training import TrainRequest, progress_status, train_corpus
from explorer.data.worker import WorkerPool
from explorer.display.render import token_text
from explorer.families import part
from explorer.ui import link, state
from sample_corpora import load_corpus

HINDI = load_corpus("hindi")
SEED002 = load_corpus("seed002")
WORDPIECE, UNIGRAM, SUPERBPE = (part(family, "player") for family in ("wordpiece", "unigram", "superbpe"))


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
    window = WORDPIECE.window(wordpiece, 0, wordpiece.steps)
    for t, step in enumerate(trace, 1):  # the best bar is the merge the engine made, counts and all
        frame = frame_at(window, t)
        label, score, text = frame["b"][0]
        assert token_texts(window, label) == [step.left, step.right] == token_texts(window, frame["m"][:2])
        assert score == pytest.approx(step.score, rel=1e-3)
        assert text == f"{step.score:.3g} ({step.pair_count:,} / {step.left_count:,}·{step.right_count:,})"
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
    expected = sorted(pairs, key=lambda p: (-pairs[p] / (syms[p[0]] * syms[p[1]]), -pairs[p], p))[:WORDPIECE.BARS]
    assert [tuple(token_texts(window, label)) for label, _, _ in frame_at(window, 21)["b"]] == expected
    step = trace[2]
    assert (f"score = {step.pair_count} / ({step.left_count} · {step.right_count}) = {step.score:.3g}"
            in frame_at(window, 3)["f"])
    top = wordpiece.top_words[0][0]
    three = _naive_segments({top: 1}, [(s.left, s.right) for s in trace[:3]])
    assert pieces_at(window, window["words"][0], 3) == three[top]


def test_unigram_frames_are_its_rounds(unigram):
    model = train_unigram([HINDI], vocab_size=60)
    assert unigram.model.pieces == model.pieces and unigram.steps == len(model.trace) == 7
    record = model.trace[2]
    window = UNIGRAM.window(unigram, 0, 99)
    assert (window["first"], window["last"]) == (1, 7)  # rounds count from 1
    frame = frame_at(window, 3)
    assert frame["h"] == f"Round 3 of 7: {record.vocab_size_before} → {record.vocab_size} pieces"
    assert f"corpus log-likelihood {record.log_likelihood:,.1f}" in frame["f"]
    removed = [(token_texts(window, label)[0], value) for label, value, _ in frame["b"]]
    assert removed == [(token_text(p), v) for p, v in record.removed[:UNIGRAM.REMOVED_SHOWN]]  # least loss first
    assert token_texts(window, frame["c"]) == [token_text(p) for p, _ in record.removed[:UNIGRAM.CARD_CHIPS]]
    fig = UNIGRAM.curve_figure(unigram, 3, playing=False).to_dict()
    assert list(fig["data"][0]["y"]) == [350, *(r.vocab_size for r in model.trace)]
    assert list(fig["data"][1]["y"]) == [round(r.log_likelihood, 2) for r in model.trace]
    for (word, _), row in zip(unigram.top_words, window["words"]):  # the last round's pieces are the model's
        assert pieces_at(window, row, 7) == [token_text(p) for p in model.encode_tokens(word)]


def _slow_chunk_pieces(trained, text: str, step: int) -> list[str]:
    """A phase-two piece after `step` merges, encoded whole at each step (the slow way)."""
    tok = trained.tokenizer
    if step <= trained.story.transition:
        return [p for part in phase_one_pieces(text, "superbpe") for p in tok.encode_word(part, limit=step)]
    return tok.encode_word(text, limit=step)


def test_superbpe_frames_mark_the_transition_and_its_superwords(superbpe):
    model = train_superbpe([HINDI], vocab_size=420, transition=380)
    assert superbpe.model.merges == model.merges and superbpe.story.transition == model.transition == 124
    training = model.training
    window = SUPERBPE.window(superbpe, 0, superbpe.steps)
    for step in (1, 124, 125, 164):
        frame = frame_at(window, step)
        merge = training.trace[step - 1]
        assert frame["p"][0][:2] == frame["m"][:2] and frame["p"][0][2] == merge.count == frame["m"][3]
        assert [n for _, _, n in frame["p"]] == [n for _, _, n in training.top_pairs[step - 1]]
    assert "the transition: phase two starts here" in frame_at(window, 125)["f"]
    assert "phase two: merges across spaces" in frame_at(window, 164)["f"]
    for chunk, _ in superbpe.story.chunks[:4]:  # one pass per window gives every step's pieces
        text = SUPERBPE.shown_chunk(SUPERBPE.chunk_text(chunk))
        history = SUPERBPE.chunk_history(superbpe, text, 0, superbpe.steps)
        for step in range(superbpe.steps + 1):
            assert [p for at, p in history if at <= step][-1] == _slow_chunk_pieces(superbpe, text, step), step
    marked = {i for i, token in enumerate(window["tokens"]) if len(token) > 2}
    at_124 = {i for row in window["words"] for at, ids in row["h"] if at <= 124 for i in ids}
    assert marked and not marked & at_124  # phase one never crosses a space
    assert all(window["tokens"][i][2] == "superword: crosses a space" for i in marked)
    last = [SUPERBPE.chunk_history(superbpe, SUPERBPE.shown_chunk(SUPERBPE.chunk_text(c)), 164, 164)[0][1]
            for c, _ in superbpe.story.chunks]
    assert any(is_superword(t) for pieces in last for t in pieces)
    for (chunk, _), pieces in zip(superbpe.story.chunks, last):  # the pieces spell the piece
        spelled = b"".join(symbols_to_bytes(t) for t in pieces)
        assert symbols_to_bytes(chunk).startswith(spelled)
    curve = SUPERBPE.curve_figure(superbpe, 10, playing=False).to_dict()
    assert curve["layout"]["shapes"][1]["x0"] == 124
    assert curve["layout"]["annotations"][0]["text"] == "transition after merge 124: phase two"


def test_segment_and_vocabulary_read_any_family(wordpiece, unigram, superbpe):
    for trained in (wordpiece, unigram, superbpe):
        text = "और फिर qz"
        pieces = AnyModel.of_trained(trained).segment(text)
        covered = {i for p in pieces for i in range(p.start, p.end)}
        assert covered >= {i for i, ch in enumerate(text) if ch != " "} and max(covered) == len(text) - 1
        vocab = AnyModel.of_trained(trained).vocab
        assert sorted(vocab.values()) == list(range(len(vocab)))
    assert [p.unknown for p in AnyModel.of_trained(wordpiece).segment("qz")] == [True]
    assert all(not p.unknown for p in AnyModel.of_trained(superbpe).segment("qz"))
    assert AnyModel.of_trained(superbpe).merge_based and not AnyModel.of_trained(unigram).merge_based


def test_progress_is_told_in_each_familys_own_numbers():
    assert progress_status("wordpiece", 12, 65) == "12 of 65 tokens added"
    assert progress_status("superbpe", 3, 164) == "merge 3 of 164"
    seen = []
    train_corpus([HINDI], _request("wordpiece", 150), progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (65, 65)  # 85 tokens to start (five special ones, 80 symbols), 65 added
    seen.clear()
    train_corpus([HINDI], _request("unigram", 60), progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (350 - 183, 350 - 60) and seen[-1] == (290, 290)  # pieces pruned of the seed's


def test_every_family_trains_in_a_worker_process_as_in_the_page_thread():
    pool = WorkerPool(workers=1)
    for request, last in ((_request("wordpiece", 150), "65 of 65 tokens added"),
                          (_request("unigram", 60), "290 of 290 pieces pruned"),
                          (_request("superbpe", 420, 380), "merge 164 of 164")):
        job = pool.train("key", [HINDI], request)
        assert job.wait(120)
        here = train_corpus([HINDI], request)
        assert job.error == "" and job.result.family == request.family
        assert job.result.model.vocab == here.model.vocab and job.result.curve == here.curve
        job.stage = "training"  # as the page saw it at the last progress message
        assert job.status().startswith(last + ", ")
    job = pool.train("key", ["  "], _request("unigram", 60))
    assert job.wait(60) and job.error == "the corpus is empty (or only whitespace): there is nothing to train on"
    slow = WorkerPool(workers=1, time_limit=1.0)  # the pool's limits hold for every family
    many = " ".join(f"{i * 7919}ab{i % 97}" for i in range(200_000))  # 200,000 distinct words: a big seed
    job = slow.train("key", [many], _request("unigram", 100))
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
    data = player_data(app)  # the browser-side player, as for BPE
    assert data["labels"]["bars"] == "Highest scores at this step: count(ab) / (count(a) · count(b))"
    assert data["first"] == 0 and data["steps"] == trained.steps and "b" in frame_at(data["window"], 1)
    send_view(app, step=2)  # the player's Forward button, as the browser reports it
    assert app.session_state[state.STEP] == 2 and app.query_params["step"] in (["2"], "2")
    assert app.query_params["family"] in (["wordpiece"], "wordpiece")


def test_links_open_a_family_and_bad_ones_say_why():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"corpus": "hindi", "family": "unigram", "vocab": "60", "step": "3"})
    at.run()
    assert not at.exception and at.title[0].value == "Watch Unigram prune"
    data = player_data(at)
    assert at.session_state[state.STEP] == data["step"] == 3 and data["first"] == 1
    assert frame_at(data["window"], 3)["h"].startswith("Round 3 of 7: ")
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
