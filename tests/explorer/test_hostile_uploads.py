"""Uploaded tokenizer files are read in a worker process, under its limits and within the session's budget."""
from __future__ import annotations

import json
from functools import cache

from explorer.data.tokenizer_files import read_tokenizer_files
from explorer.data.worker import WorkerPool
from explorer.display.render import md_escape
from explorer.ui import state, store


@cache
def million_merges() -> bytes:
    """A valid BPE tokenizer.json of 1,000,000 merges (29 MB): every pair of 1,000 CJK characters."""
    base = [chr(0x4E00 + i) for i in range(1000)]
    vocab = {c: i for i, c in enumerate(base)}
    merges = []
    for a in base:
        for b in base:
            vocab[a + b] = len(vocab)
            merges.append(f"{a} {b}")
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}
    return json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
                       "model": model}, ensure_ascii=False).encode("utf-8")


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def upload(at, name: str, data: bytes):
    at.switch_page("views/files.py").run()
    at.file_uploader(key=state.IO_W_UPLOAD).set_value([(name, data, "application/json")]).run()
    assert not at.exception, at.exception
    return at


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def test_a_tokenizer_larger_than_a_session_may_hold_is_refused_and_never_reaches_the_server(app):
    data = million_merges()
    before = resident_mb()
    at = upload(app, "million.json", data)
    assert at.session_state[state.PICK_UPLOADED] == {}
    said = [e for e in errors(at) if md_escape("million.json") in e]
    assert len(said) == 1 and said[0].startswith(md_escape("million.json takes about "))
    assert md_escape("of memory once read, more than one session may hold here (400 MB); try a smaller "
                     "tokenizer file") in said[0]
    # Read in the worker: this process (the server) never held the million merges.
    assert resident_mb() - before < 150


def test_reading_over_the_memory_limit_says_which_limit(app, monkeypatch):
    pool = WorkerPool(workers=1, memory_limit=400 * 1024**2)
    monkeypatch.setattr(store, "worker_pool", lambda: pool)
    at = upload(app, "million.json", million_merges())
    assert errors(at) == [md_escape("reading million.json needed more than 400 MB of memory, the limit for one "
                                    "upload here, and was stopped; try a smaller tokenizer file")]
    assert at.session_state[state.PICK_UPLOADED] == {}


def test_reading_over_the_time_limit_says_which_limit(app, monkeypatch):
    pool = WorkerPool(workers=1, time_limit=1.0)
    monkeypatch.setattr(store, "worker_pool", lambda: pool)
    at = upload(app, "million.json", million_merges())
    assert errors(at) == [md_escape("reading million.json took longer than 1 s, the limit for one upload here, "
                                    "and was stopped; try a smaller tokenizer file")]


def test_a_real_file_is_read_in_the_worker_and_charged_to_the_session(app, files):
    name, data = files["deepseek"]
    at = upload(app, name, data)
    assert errors(at) == []
    (item,) = at.session_state[state.PICK_UPLOADED].values()
    held = [h for h in at.session_state[state.BUDGET].items() if h.kind == "tokenizer"]
    assert [(h.key, h.title) for h in held] == [(item.key, item.label)]
    assert held[0].nbytes > 2 * len(data) // 3  # what it takes in memory, not a guess of zero
    # The model that came back from the worker is the one read here (the reference library checks that one).
    (here,), _ = read_tokenizer_files([(name, data)])
    text = "Tokenizers split «naïve» text, 12345 digits, 日本語 😀"
    assert item.any.encode_ids(text) == here.any.encode_ids(text) and item.key == here.key
