"""Counting progress while a large upload is counted before training: true byte counts, same training."""
from __future__ import annotations

import pickle
from multiprocessing import Pipe

import pytest

from bpe_core import Settings, train
from bpe_core.pretokenize import count_words
from explorer.data import training
from explorer.data.tasks import training_task
from explorer.data.training import TrainRequest, count_with_progress, counting_status, train_corpus
from explorer.data.worker import Job
from explorer.data.worker_child import run, send_task
from sample_corpora import load_corpus

SETTINGS = [
    Settings(),
    Settings(mode="word", eow="suffix", lowercase=True, normalization="NFKC"),
    Settings(mode="text", pretokenizer="whitespace"),
    Settings(mode="text", pretokenizer="gpt4"),
    Settings(mode="bytes"),
]


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces of about 2,000 characters, so the 46 KB corpus is counted in over ten steps."""
    monkeypatch.setattr(training, "COUNT_PIECE_CHARS", 2_000)


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    # Several scripts (multi-byte characters), CRLF line ends and a text of its own.
    text = load_corpus("multilingual") * 8 + load_corpus("hindi") * 4
    return [text.replace("\n", "\r\n", 50), load_corpus("seed002")]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: f"{s.mode}-{s.pretokenizer or s.eow}")
def test_counting_reports_rising_bytes_up_to_the_total_and_counts_exactly(settings, corpus, small_pieces):
    reports: list[tuple[int, int]] = []
    counts = count_with_progress(corpus, settings, lambda done, total: reports.append((done, total)))
    total = sum(len(t.encode("utf-8")) for t in corpus)
    assert counts == count_words(corpus, settings)
    assert list(counts) == list(count_words(corpus, settings))  # first-appearance order too
    assert {t for _, t in reports} == {total}
    done = [d for d, _ in reports]
    assert done[0] == 0 and done[-1] == total
    assert done == sorted(done) and len(set(done)) > 10  # many steps, never backwards


def test_training_with_counting_progress_learns_the_same_merges(corpus, small_pieces):
    request = TrainRequest(Settings(mode="bytes", tie_break="first"), "merges", 60)
    reports: list[tuple[int, int]] = []
    shown = train_corpus(corpus, request, count_progress=lambda d, t: reports.append((d, t)))
    plain = train_corpus(corpus, request)
    assert shown.tokenizer.merges == plain.tokenizer.merges
    assert shown.tokenizer.merges == train(corpus, request.settings, merges=60).merges
    assert shown.top_words == plain.top_words and shown.curve == plain.curve
    assert reports[-1][0] == reports[-1][1] == sum(len(t.encode("utf-8")) for t in corpus)


def test_the_worker_sends_counting_progress_then_the_same_result(corpus, small_pieces):
    """The training process's messages: ("counted", bytes, total) rising to the total, then the result."""
    request = TrainRequest(Settings(), "merges", 40)
    inbox_read, inbox_write = Pipe(duplex=False)
    out_read, out_write = Pipe(duplex=False)
    task = training_task(corpus, request)
    send_task(inbox_write, task.function, task.payload, task.texts)
    run(inbox_read, out_write)
    messages = []
    while True:
        message = out_read.recv()
        messages.append(message)
        if message[0] in ("result", "error", "memory"):
            break
    assert messages[0] == ("stage", "counting")
    counted = [m for m in messages if m[0] == "counted"]
    total = sum(len(t.encode("utf-8")) for t in corpus)
    assert counted[-1] == ("counted", total, total)
    assert [m[1] for m in counted] == sorted(m[1] for m in counted)
    kinds = [m[0] for m in messages]
    assert kinds.index("progress") > max(i for i, k in enumerate(kinds) if k == "counted")  # counting first
    assert messages[-1][0] == "result"
    result = pickle.loads(out_read.recv_bytes())
    assert result.tokenizer.merges == train_corpus(corpus, request).tokenizer.merges


def test_a_job_shows_counting_in_megabytes_and_its_fraction():
    job = Job("key", training_task([], TrainRequest()))
    job.stage, job.started = "counting", 0.0
    assert job.status() == "counting words… 0 s"  # before the first report
    assert job.fraction() == 0.0
    job.counted, job.count_total = 12_345_678, 48_000_000
    assert job.status() == "counting words: 12.3 of 48.0 MB, 0 s"
    assert job.fraction() == pytest.approx(12_345_678 / 48_000_000)
    job.counted = 48_000_000
    assert job.fraction() == 1.0
    job.stage, job.done, job.total = "training", 5, 20
    assert job.status().startswith("merge 5 of 20, ") and job.fraction() == 0.25


def test_counting_status_words():
    assert counting_status(0, 48_000_000) == "counting words: 0.0 of 48.0 MB"
    assert counting_status(1_234_567_890, 2_000_000_000) == "counting words: 1,234.6 of 2,000.0 MB"
    assert counting_status(512, 4_096) == "counting words: 0.5 of 4.1 KB"


def test_text_without_a_pre_tokenizer_is_counted_whole_each_text_one_step(corpus, small_pieces):
    """Nothing may cut a text that is one word: progress moves once per text, and the counts are exact."""
    settings = Settings(mode="text")
    reports: list[tuple[int, int]] = []
    counts = count_with_progress(corpus, settings, lambda done, total: reports.append((done, total)))
    sizes = [len(t.encode("utf-8")) for t in corpus]
    total = sum(sizes)
    assert reports == [(0, total), (sizes[0], total), (total, total)]
    assert counts == count_words(corpus, settings) and len(counts) == 2
