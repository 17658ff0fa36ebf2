from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings
from bpe_core.analysis import collapse_step, compression_curve
from bpe_core.pretokenize import count_words
from explorer.data.lessons import EXPECTED_000_MERGES
from explorer.data.training import TrainRequest, train_corpus
from explorer.display.frames import build_frame, clamp_step, word_rows
from sample_corpora import load_corpus


def test_seed000_numbers(seed000_trained):
    assert [(m.left, m.right, m.count) for m in seed000_trained.tokenizer.trace] == EXPECTED_000_MERGES
    assert seed000_trained.steps == 10 and seed000_trained.alphabet == 11


def test_the_bundle_holds_the_engines_curve_and_collapse_step(seed000_trained):
    # The numbers themselves are tested in tests/core/test_compression.py.
    counts = count_words([load_corpus("seed000")], Settings())
    result = seed000_trained.tokenizer.training
    assert seed000_trained.curve == compression_curve(result, counts, Settings())
    assert seed000_trained.curve.total_tokens[:2] == [109, 100]
    assert seed000_trained.collapse_step is None  # 10 merges are not enough
    twenty = train_corpus([load_corpus("seed000")], TrainRequest(Settings(), "merges", 20))
    assert twenty.collapse_step == collapse_step(twenty.tokenizer.training) == 18


def test_top_words_in_frequency_order(seed000_trained):
    assert seed000_trained.top_words[:3] == [("newest", 6), ("low", 5), ("widest", 3)]


def test_frame_at_step_one(seed000_trained):
    frame = build_frame(seed000_trained, 1)
    assert (frame.merge.left, frame.merge.right, frame.merge.token, frame.merge.count) == ("w", "e", "we", 9)
    assert frame.pairs[0] == ("w", "e", 9)
    changed = {row.word for row in frame.rows if row.changed}
    assert changed == {"newest", "lower", "newer"}
    newest = next(r for r in frame.rows if r.word == "newest")
    assert [c.token for c in newest.chips] == ["n", "e", "we", "s", "t", "</w>"]
    assert [c.new for c in newest.chips] == [False, False, True, False, False, False]


def test_frame_at_step_zero_shows_symbols_and_next_pair(seed000_trained):
    frame = build_frame(seed000_trained, 0)
    assert frame.merge is None and frame.pairs[0] == ("w", "e", 9)
    assert not any(r.changed for r in frame.rows)
    assert frame.total_tokens == 109


def test_steps_are_clamped(seed000_trained):
    assert clamp_step(-3, 10) == 0 and clamp_step(99, 10) == 10
    assert build_frame(seed000_trained, 99).step == 10


def test_long_words_are_cut_for_display(seed003_trained):
    rows = word_rows(seed003_trained, seed003_trained.steps)
    assert len(rows) == 1 and not rows[0].truncated
    long = train_corpus(["ab" * 400], TrainRequest(Settings(mode="text"), "merges", 3))
    row = word_rows(long, 3)[0]
    assert row.truncated and sum(len(c.token) for c in row.chips) == 300


def test_bytes_mode_words_are_text(seed000_trained):
    trained = train_corpus(["héllo héllo wörld"], TrainRequest(Settings(mode="bytes"), "merges", 5))
    assert trained.top_words == [("héllo", 1), (" héllo", 1), (" wörld", 1)]  # gpt2 keeps the leading space
    assert trained.byte_level
    assert trained.curve.characters == 20  # bytes: é and ö are two each


@pytest.mark.parametrize(
    ("request_kwargs", "message"),
    [
        ({"target": "merges", "amount": 10**7}, "at most 1,000,000 merges can be trained; 10,000,000 were asked for"),
        ({"target": "merges", "amount": -1}, "the number of merges must be a whole number, 0 or more, not -1"),
        ({"target": "merges", "amount": 2.5}, "the number of merges must be a whole number, 0 or more, not 2.5"),
        ({"target": "vocab", "amount": 0}, "the vocabulary size must be a whole number of 1 or more, not 0"),
        ({"target": "sideways", "amount": 3}, "unknown target 'sideways'; choose merges or vocab"),
    ],
)
def test_absurd_requests_get_a_clear_message(request_kwargs, message):
    # The engine's own check (bpe_core.check_target), with its messages: one rule for the app and the CLI.
    with pytest.raises(BPEError) as caught:
        TrainRequest(Settings(), **request_kwargs)
    assert str(caught.value) == message


def test_vocab_smaller_than_alphabet():
    # The engine refuses it (one rule for the app and the CLI); the app passes the message on.
    with pytest.raises(BPEError, match=r"a vocabulary of 3 is smaller than this corpus's alphabet \(9 base symbols\), "
                       r"so no merge could be learned; ask for at least 10\.$"):
        train_corpus(["low lower newest"], TrainRequest(Settings(), "vocab", 3))


def test_empty_corpus():
    with pytest.raises(BPEError, match="empty"):
        train_corpus(["   \n  "], TrainRequest())


def test_progress_is_reported():
    calls = []
    text = " ".join(f"w{i}q{i * 7919 % 1000}" for i in range(3000))
    trained = train_corpus([text], TrainRequest(Settings(), "merges", 200),
                           progress=lambda done, total: calls.append((done, total)))
    assert trained.steps == 200
    assert calls[-1] == (200, 200) and all(total == 200 for _, total in calls)
