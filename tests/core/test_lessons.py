"""The three lessons in shared/seeds, reproduced number for number."""
from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings, encode_ranked, encode_replay, train

SEED000_MERGES = [
    ("w", "e", 9), ("t", "</w>", 9), ("s", "t</w>", 9), ("n", "e", 9), ("w", "</w>", 7),
    ("ne", "we", 7), ("l", "o", 7), ("newe", "st</w>", 6), ("lo", "w</w>", 5), ("w", "i", 3),
]


def test_seed000_merges_and_counts(seed000):
    tok = train(seed000, merges=10)
    assert [(m.left, m.right, m.count) for m in tok.trace] == SEED000_MERGES
    assert [m.token for m in tok.trace][-3:] == ["newest</w>", "low</w>", "wi"]


def test_seed000_words_after_all_merges(seed000):
    tok = train(seed000, merges=10)
    after = {w: " ".join(tok.encode_word(w)) for w in ["low", "lower", "newest", "widest", "new", "newer"]}
    assert after == {
        "low": "low</w>",
        "lower": "lo we r </w>",
        "newest": "newest</w>",
        "widest": "wi d e st</w>",
        "new": "ne w</w>",
        "newer": "newe r </w>",
    }


def test_seed000_unseen_words(seed000):
    tok = train(seed000, merges=10)
    got = {w: tok.encode(w).tokens for w in ["lowest", "newer", "wider", "slow"]}
    assert got == {
        "lowest": ["lo", "we", "st</w>"],
        "newer": ["newe", "r", "</w>"],
        "wider": ["wi", "d", "e", "r", "</w>"],
        "slow": ["s", "low</w>"],
    }


def test_seed000_ranked_and_replay_encoders_agree(seed000):
    tok = train(seed000, merges=10)
    for word in ["lowest", "newer", "wider", "slow"]:
        symbols = tok.initial_symbols(word)
        assert encode_replay(symbols, tok.merges) == encode_ranked(symbols, tok.table)


def test_seed000_starting_words_and_vocabulary_size(seed000):
    tok = train(seed000, merges=10)
    assert tok.training.initial_tokens == 5 * 4 + 2 * 6 + 6 * 7 + 3 * 7 + 2 * 4 + 6
    # |alphabet| + k: the 10 letters plus the marker, then one token a merge.
    assert tok.trace[-1].vocab_size == 11 + 10


def test_seed000_try_it_yourself_collapse_point(seed000):
    tok = train(seed000 + " lowest lowest lowest", merges=20)
    collapsed = [m.rank + 1 for m in tok.trace if m.multi_token_words == 0]
    assert collapsed, "twenty merges should collapse every corpus word into one token"
    first = collapsed[0]
    # Before the collapse point some word still has two pieces; from it on none does.
    assert tok.trace[first - 2].multi_token_words > 0
    assert all(len(tok.encode_word(w, limit=first)) == 1 for w in set((seed000 + " lowest").split()))


def test_seed003_grows_to_25_with_first_occurrence_ties(seed003):
    tok = train(seed003, Settings(mode="text", tie_break="first"), vocab_size=25)
    assert [m.token for m in tok.trace] == [" h", " l", " hu", " hug", "ik", "ike", " lo", " lov", " love"]
    assert [m.vocab_size for m in tok.trace] == list(range(17, 26))
    assert tok.encode(seed003).tokens == [
        "l", "ike", " l", "ike", "r", " love", " love", "l", "y", " hug", " hug", "s",
        " hug", "g", "i", "n", "g", " h", "e", "a", "r", "t", "s",
    ]
    assert tok.training.initial_tokens == 46


def test_seed002_round_trips_its_test_inputs(seed002):
    settings = Settings(lowercase=True)
    tok = train(seed002, settings, vocab_size=120)
    # 21 base symbols (20 letters and </w>): 99 merges were asked for, and the corpus runs out
    # of pairs after 88, every word one token.
    assert len(tok.training.base) == 21
    assert tok.training.requested_merges == 99
    assert len(tok.trace) == 88
    assert tok.training.stop_reason == "no pair is left to merge: every word is a single token"
    for text in ["the cat ran", "dogs chase cats", "running and sleeping"]:
        enc = tok.encode(text)
        assert tok.unk_id not in enc.ids
        assert tok.decode(enc.ids) == text


def test_seed002_unseen_character_is_an_explicit_unknown(seed002):
    tok = train(seed002, Settings(lowercase=True), vocab_size=120)
    enc = tok.encode("unrecognized word")
    # 'z' never occurs in the corpus: it becomes <unk>, never silently some other token.
    assert enc.tokens.count("<unk>") == 1
    assert enc.ids.count(tok.unk_id) == 1
    z = enc.tokens.index("<unk>")
    assert enc.spans[z] == (9, 10)
    assert tok.unk_id == tok.vocab_size - 1 and tok.unk_id != 0
    assert tok.decode(enc.ids) == "unrecogni<unk>ed word"


def test_no_marker_mistake_makes_suffix_and_prefix_the_same_token():
    corpus = "newest newest widest widest establish estate"
    wrong = train(corpus, Settings(eow="none"), merges=3)
    right = train(corpus, merges=4)
    # Without a marker, "est" ending newest and "est" starting establish are one token ...
    assert wrong.encode("newest").tokens[-1] == "est" == wrong.encode("establish").tokens[0]
    # ... with one, the word-final piece is a different token that says "and the word ends".
    assert right.encode("newest").tokens[-1] == "est</w>"
    assert "est</w>" not in right.encode("establish").tokens


def test_empty_corpus_is_a_clear_error():
    with pytest.raises(BPEError, match="empty"):
        train("   \n\t ")


def test_training_stops_early_and_says_why(seed000):
    tok = train(seed000, merges=500)
    assert len(tok.trace) < 500
    assert "no pair" in tok.training.stop_reason


@pytest.mark.parametrize("bad", [{"merges": -1}, {"merges": 10**9}, {"vocab_size": 0}])
def test_absurd_targets_are_refused(seed000, bad):
    with pytest.raises(BPEError):
        train(seed000, **bad)


def test_vocabulary_target_below_the_alphabet_says_why(seed000):
    with pytest.raises(BPEError) as caught:
        train(seed000, vocab_size=5)
    assert str(caught.value) == (
        "a vocabulary of 5 is smaller than this corpus's alphabet (11 base symbols), "
        "so no merge could be learned; ask for at least 12."
    )
    tok = train(seed000, vocab_size=11)
    assert tok.merges == []
    assert "not larger than the base alphabet (11 symbols)" in tok.training.stop_reason
