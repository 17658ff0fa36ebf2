"""Training stability: runs on prefixes of a corpus compared with the full run, on known small cases."""
from __future__ import annotations

import json

import pytest

from bpe_core import BPEError, Settings, train
from bpe_core.analysis import Divergence, stability, stability_from_counts
from bpe_core.analysis.stability import checkpoints, compare_merges, corpus_prefix, prefix_length
from bpe_core.cli import main
from bpe_core.pretokenize import count_words
from sample_corpora import load_corpus

A = "low lower newest widest "  # 24 characters
# The first half (96 characters) is A four times; the second half adds "wer" six times: the same
# first four merges, then the full run prefers ('we', 'r') at step 5, and both make the same 8 tokens.
SAME_START = A * 7 + "wer " * 6


def test_a_prefix_with_the_same_counts_learns_the_same_merges() -> None:
    found = stability(A * 8, merges=8, fractions=(0.5,))
    half, full = found.fractions
    assert (half.fraction, half.characters, full.characters) == (0.5, 96, 192)
    assert half.merges == full.merges == found.full_merges
    assert half.divergence is None
    assert half.vocabulary_share == 1.0
    assert half.agreement == ((8, 8),)


def test_the_50_percent_prefix_shares_the_first_merges_then_diverges() -> None:
    found = stability(SAME_START, merges=8, fractions=(0.5,))
    half = found.fractions[0]
    assert half.characters == 96
    assert half.merges[:4] == found.full_merges[:4] == (("w", "e"), ("t", "</w>"), ("s", "t</w>"), ("l", "o"))
    assert half.divergence == Divergence(step=5, merge=("we", "st</w>"), full_merge=("we", "r"))
    # Same eight tokens, another order: every share is 1 and the first 8 agree as sets.
    assert half.vocabulary_share == 1.0
    assert half.first_shares == ((8, 1.0),)
    assert half.agreement == ((8, 8),)


def test_the_full_fraction_has_everything_and_no_divergence() -> None:
    found = stability(load_corpus("seed002"), merges=10)
    full = found.fractions[-1]
    assert [f.fraction for f in found.fractions] == [0.01, 0.1, 0.5, 1.0]
    assert full.merges == found.full_merges == tuple(train(load_corpus("seed002"), merges=10).merges)
    assert (full.vocabulary_share, full.divergence, full.first_shares, full.agreement) == (1.0, None, ((10, 1.0),),
                                                                                           ((10, 10),))


def test_divergence_on_the_first_lesson_corpus() -> None:
    """"low, lower, newest, widest": its first 59 characters hold no "newest" twice yet."""
    found = stability(load_corpus("seed000"), merges=10)
    by_fraction = {f.fraction: f for f in found.fractions}
    half = by_fraction[0.5]
    assert half.characters == 59
    assert half.divergence == Divergence(step=1, merge=("o", "w"), full_merge=("w", "e"))
    assert half.vocabulary_share == 0.4
    assert half.agreement == ((10, 2),)
    assert by_fraction[0.01].characters == 3  # one character asked; cut at the end of "low"
    assert by_fraction[0.01].divergence == Divergence(step=1, merge=("w", "</w>"), full_merge=("w", "e"))


def test_a_run_that_ends_early_diverges_where_it_ends() -> None:
    report = compare_merges(0.1, 5, [("a", "b")], [("a", "b"), ("ab", "c")])
    assert report.divergence == Divergence(step=2, merge=None, full_merge=("ab", "c"))
    assert report.vocabulary_share == 0.5


def test_prefixes_are_cut_at_word_boundaries() -> None:
    text = "low lower newest widest"
    assert text[:prefix_length(text, 0.3)] == "low lower"  # 7 characters asked: the word is kept whole
    assert text[:prefix_length(text, 4 / len(text))] == "low "  # already at a word boundary
    assert prefix_length("x" * 5000, 0.1) == 500  # no whitespace near: cut where asked
    assert corpus_prefix(["aaaa bbbb", "cccc dddd"], 0.7) == ["aaaa bbbb", "cccc"]
    assert corpus_prefix(["aa", "bb"], 1.0) == ["aa", "bb"]


def test_checkpoints() -> None:
    assert checkpoints(2000) == (10, 100, 1000, 2000)
    assert checkpoints(1000) == (10, 100, 1000)
    assert checkpoints(0) == ()


def test_stability_is_deterministic_and_matches_counts() -> None:
    text = load_corpus("english")[:40_000]
    settings = Settings(mode="bytes")
    first = stability(text, settings, merges=60)
    assert first == stability(text, settings, merges=60)
    counts = {}
    for fraction in (0.01, 0.1, 0.5, 1.0):
        part = corpus_prefix([text], fraction)
        counts[fraction] = (len(part[0]), count_words(part, settings))
    assert stability_from_counts(counts, settings, merges=60) == first
    shares = [f.vocabulary_share for f in first.fractions]
    assert shares[-1] == 1.0 and all(0 <= s <= 1 for s in shares)


@pytest.mark.parametrize(("args", "message"), [
    ({"fractions": (0,)}, "a fraction of the corpus is a number above 0 and at most 1, not 0"),
    ({"fractions": (1.5,)}, "a fraction of the corpus is a number above 0 and at most 1, not 1.5"),
])
def test_bad_fractions_are_refused(args: dict, message: str) -> None:
    with pytest.raises(BPEError) as caught:
        stability("low lower", merges=2, **args)
    assert str(caught.value) == message


def test_bad_input_is_refused() -> None:
    with pytest.raises(BPEError, match="stability takes a text"):
        stability(b"low", merges=2)  # type: ignore[arg-type]
    with pytest.raises(BPEError, match="fraction 1.0"):
        stability_from_counts({0.5: (3, {"low": 1})}, Settings(), merges=2)


def test_the_stability_command_prints_a_json_line_per_fraction(tmp_path, capsys) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(SAME_START, encoding="utf-8")
    assert main(["stability", str(corpus), "--merges", "8"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["fraction"], r["characters"], r["merges"]) for r in rows] == [
        (0.01, 3, 3), (0.1, 23, 8), (0.5, 96, 8), (1.0, 192, 8)]  # "low": 3 merges, then no pair left
    assert rows[2]["divergence"] == {"step": 5, "merge": ["we", "st</w>"], "full_merge": ["we", "r"]}
    assert rows[2]["vocabulary_share"] == 1.0 and rows[2]["agreement"] == {"8": 8}
    assert rows[3]["divergence"] is None and rows[3]["first_merges"] == {"8": 1.0}


def test_the_stability_command_refuses_a_bad_target(tmp_path, capsys) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower", encoding="utf-8")
    assert main(["stability", str(corpus), "--merges", "-1"]) == 2
    assert capsys.readouterr().err == "error: --merges must be a whole number, 0 or more, not -1\n"
