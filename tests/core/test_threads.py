"""A tokenizer shared by many sessions (Streamlit's cache_resource) is used from many threads at once."""
from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from bpe_core import Settings, Tokenizer, merge_tree, train
from bpe_core.formats.tiktoken import load_tiktoken, tokenizer_from_ranks
from bpe_core.pretokenize import symbols_to_bytes
from tests.conftest import SEED000, require_cl100k

CORPUS = (
    "The quick brown fox jumps over the lazy dog. Ünïcödé naïve café, 日本語のテキスト 🙂\n"
    "def encode(self, text):\n\treturn [ord(c) for c in text]  # comment\r\n"
) * 4
WORKERS = 8
CALLS = 400  # per worker: 3,200 calls in all, as in the report


def _texts(seed: int) -> list[str]:
    """Varied texts: new words keep missing the cache, repeated ones keep hitting it."""
    rng = random.Random(seed)
    words = CORPUS.split() + ["lowest", "newer", "wider", "Ωmega", "x" * 70, "a b c"]
    return [" ".join(rng.choices(words, k=rng.randint(1, 12))) + f" w{rng.randint(0, 500)}" for _ in range(CALLS)]


@contextmanager
def _switch_often() -> Iterator[None]:
    """Let the interpreter switch threads every microsecond, so that races show up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _hammer(tok: Tokenizer, call: Callable[[str], object]) -> None:
    """WORKERS threads call `call` on varied texts while another thread keeps clearing the cache;
    every result must equal the one computed alone, and no call may raise."""
    plans = [_texts(seed) for seed in range(WORKERS)]
    expected = [[call(t) for t in plan] for plan in plans]
    tok.clear_cache()
    errors: list[BaseException] = []
    results: list[list[object]] = [[] for _ in plans]
    done = threading.Event()

    def work(n: int) -> None:
        try:
            for text in plans[n]:
                results[n].append(call(text))
        except BaseException as exc:  # noqa: BLE001 - every failure is what the test reports
            errors.append(exc)

    def clear() -> None:
        while not done.is_set():
            tok.clear_cache()

    with _switch_often():
        clearer = threading.Thread(target=clear)
        workers = [threading.Thread(target=work, args=(n,)) for n in range(WORKERS)]
        clearer.start()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        done.set()
        clearer.join()
    assert errors == []
    assert results == expected


@pytest.fixture(scope="module", params=["word", "text", "bytes"])
def trained(request) -> Tokenizer:
    return train(CORPUS, Settings(mode=request.param), merges=150)


def test_encode_ids_from_many_threads_while_the_cache_is_cleared(trained):
    _hammer(trained, trained.encode_ids)


def test_encode_from_many_threads_while_the_cache_is_cleared(trained):
    _hammer(trained, lambda text: trained.encode(text))


def test_cl100k_from_many_threads_while_the_cache_is_cleared():
    tok = load_tiktoken(require_cl100k())
    _hammer(tok, tok.encode_ids)


def _views(tok: Tokenizer) -> tuple:
    return (tok.merges, tok.birth, tok.children, tok.base, tok.id_to_token)


def test_a_rank_files_merges_derived_by_many_threads_at_once():
    """A rank file's merge list is derived on first use; threads that all ask at once get it whole."""
    trained = train(CORPUS, Settings(mode="bytes"), merges=150)
    ranks = {symbols_to_bytes(token): rank for token, rank in trained.vocab.items()}
    want = _views(tokenizer_from_ranks(ranks))
    for _ in range(3):
        tok = tokenizer_from_ranks(ranks)
        got: list[object] = []
        errors: list[BaseException] = []
        start = threading.Barrier(WORKERS)

        def look(tok: Tokenizer = tok, start=start, got=got, errors=errors) -> None:
            try:
                start.wait()
                got.append(_views(tok))
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        with _switch_often():
            threads = [threading.Thread(target=look) for _ in range(WORKERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert errors == []
        assert got == [want] * WORKERS
    # One merge for each distinct multi-byte token (150 merges spell 110 of them).
    assert len(want[0]) == len(ranks) - 256 == 110


def test_lazy_attributes_computed_by_many_threads_at_once():
    """The vocabulary's derived views (computed on first use) come out whole and the same for all."""
    alone = train(SEED000, merges=12)
    want = (alone.merges, alone.birth, alone.children, alone.base, alone.id_to_token, merge_tree(alone, "newest</w>"))
    for _ in range(5):
        tok = train(SEED000, merges=12)
        got: list[object] = []
        errors: list[BaseException] = []
        start = threading.Barrier(WORKERS)

        def look(tok: Tokenizer = tok, start=start, got=got, errors=errors) -> None:
            try:
                start.wait()
                tree = merge_tree(tok, "newest</w>")
                got.append((tok.merges, tok.birth, tok.children, tok.base, tok.id_to_token, tree))
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        with _switch_often():
            threads = [threading.Thread(target=look) for _ in range(WORKERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        assert errors == []
        assert got == [want] * WORKERS
