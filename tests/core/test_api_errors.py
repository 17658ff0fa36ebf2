"""Wrong arguments to the Python API: one BPEError with a precise one-line message, never a raw
TypeError, AttributeError, KeyError or UnicodeEncodeError, and never a silent wrong answer."""
from __future__ import annotations

import re

import pytest

from bpe_core import DEFAULT_MERGES, MAX_MERGES, BPEError, Settings, check_target, train, train_from_counts
from bpe_core.pretokenize import check_text
from tests.conftest import SEED000, require


@pytest.fixture(scope="module")
def tok():
    return train(SEED000, merges=10)


def _refused(call, message: str) -> None:
    with pytest.raises(BPEError) as caught:
        call()
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((123,), "train takes a text (str) or a list of texts, not int"),
        ((None,), "train takes a text (str) or a list of texts, not NoneType"),
        ((b"low lower",), "train takes a text (str) or a list of texts, not bytes: decode it first (UTF-8)"),
        ((["low", 3],), "text 2 of 2 must be a str, not int"),
        (("low lower", "word"), "settings must be a bpe_core.Settings, not str"),
    ],
)
def test_train_refuses_what_is_not_text(args, message):
    _refused(lambda: train(*args, merges=3), message)


@pytest.mark.parametrize("method", ["encode", "encode_ids", "encode_word", "words_of"])
@pytest.mark.parametrize("value", [None, 5, b"low"])
def test_encoders_refuse_what_is_not_text(tok, method, value):
    what = "the word" if method == "encode_word" else "the text"
    hint = ": decode it first (UTF-8)" if isinstance(value, bytes) else ""
    _refused(lambda: getattr(tok, method)(value), f"{what} must be a str, not {type(value).__name__}{hint}")


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ("x", "decode takes a list of token ids (whole numbers), not str"),
        (None, "decode takes a list of token ids (whole numbers), not NoneType"),
        (7, "decode takes a list of token ids (whole numbers), not int"),
        ([1.0], "token ids are whole numbers; 1.0 (float) is not a token id"),
        ([3, True], "token ids are whole numbers; True (bool) is not a token id"),
        ([False], "token ids are whole numbers; False (bool) is not a token id"),
        (["3"], "token ids are whole numbers; '3' (str) is not a token id"),
        ([3, 9999], "token id 9999 is not in this tokenizer's vocabulary (ids run from 0 to 21)"),
        ([-1], "token id -1 is not in this tokenizer's vocabulary (ids run from 0 to 21)"),
    ],
)
def test_decode_refuses_what_is_not_a_list_of_ids(tok, ids, message):
    assert tok.vocab_size == 22  # 11 base symbols, 10 merges, <unk>
    _refused(lambda: tok.decode(ids), message)


def test_decode_takes_any_sequence_of_whole_numbers(tok):
    ids = tok.encode("lowest newer").ids
    numpy = require("numpy")
    assert tok.decode(tuple(ids)) == tok.decode(iter(ids)) == tok.decode(numpy.array(ids)) == "lowest newer"


SURROGATE = (
    "the text holds a lone surrogate, U+D800 at character 3, which is not a Unicode character "
    '(a broken decode leaves these); remove it or decode the input with errors="replace"'
)


@pytest.mark.parametrize("mode", ["word", "text", "bytes"])
def test_lone_surrogates_are_refused_in_every_mode(mode):
    settings = Settings(mode=mode)
    tok = train("low lower", settings, merges=2)
    _refused(lambda: train("low\ud800 lower", settings, merges=2), SURROGATE)
    _refused(lambda: tok.encode("low\ud800"), SURROGATE)
    _refused(lambda: tok.encode_ids("low\ud800"), SURROGATE)
    _refused(lambda: train(["fine", "low\ud800"], settings, merges=2), SURROGATE.replace("the text", "text 2 of 2"))


def test_a_minimum_pair_count_no_pair_reaches_is_said_with_its_thousands():
    tok = train(SEED000, Settings(min_frequency=100_000_000), merges=5)
    assert tok.merges == [] and tok.training.stop_reason == "no pair occurs at least 100,000,000 times"


def test_train_without_a_target_learns_the_default_number_of_merges():
    assert DEFAULT_MERGES == 1000
    # Seed 000's corpus runs out of pairs after 18 merges: fewer than the default, and it says so.
    tok = train(SEED000)
    assert len(tok.merges) == 18
    assert tok.training.requested_merges == DEFAULT_MERGES
    assert tok.training.stop_reason == "no pair is left to merge: every word is a single token"
    corpus = " ".join(f"w{i:04d}" for i in range(3000))  # thousands of distinct pairs
    assert len(train(corpus, Settings(mode="text")).merges) == DEFAULT_MERGES


def test_both_targets_at_once_are_refused():
    _refused(
        lambda: train("low lower", merges=2, vocab_size=20),
        "give either a number of merges or a vocabulary size, not both",
    )


def test_a_vocabulary_below_the_alphabet_is_refused_by_the_engine():
    # Seed 000's alphabet: 10 characters and </w>.
    message = (
        "a vocabulary of 5 is smaller than this corpus's alphabet (11 base symbols), "
        "so no merge could be learned; ask for at least 12."
    )
    _refused(lambda: train(SEED000, vocab_size=5), message)
    _refused(lambda: train_from_counts({"low": 5, "newest": 6, "widest": 3, "lower": 2, "new": 2, "newer": 1},
                                       Settings(), vocab_size=5), message)
    big = train("x" * 3 + " " + "".join(map(chr, range(0x4E00, 0x4E00 + 1500))), vocab_size=1503, merges=None)
    assert big.merges == [("x", "x")]
    _refused(lambda: train("".join(map(chr, range(0x4E00, 0x4E00 + 1500))), vocab_size=1000),
             "a vocabulary of 1,000 is smaller than this corpus's alphabet (1,501 base symbols), "
             "so no merge could be learned; ask for at least 1,502.")


def test_a_vocabulary_of_exactly_the_alphabet_and_zero_merges_give_no_merges():
    exact = train(SEED000, vocab_size=11)
    assert exact.merges == [] and exact.vocab_size == 12  # the alphabet and <unk>
    assert "not larger than the base alphabet (11 symbols)" in exact.training.stop_reason
    none = train(SEED000, merges=0)
    assert none.merges == [] and none.trace == []
    assert none.encode("low").tokens == ["l", "o", "w", "</w>"]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"low": 5, "lower": -2}, "word counts must be whole numbers of 1 or more; 'lower' has -2"),
        ({"low": 0}, "word counts must be whole numbers of 1 or more; 'low' has 0"),
        ({"low": 2.5}, "word counts must be whole numbers of 1 or more; 'low' has 2.5"),
        ({"low": 2.0}, "word counts must be whole numbers of 1 or more; 'low' has 2.0"),
        ({"low": True}, "word counts must be whole numbers of 1 or more; 'low' has True"),
        ({"low": "3"}, "word counts must be whole numbers of 1 or more; 'low' has '3'"),
        ({("l", "o"): 3}, "the words of word counts must be str, not tuple (('l', 'o'))"),
        ({7: 3}, "the words of word counts must be str, not int (7)"),
        ({"": 3}, "word counts hold an empty word: every word needs at least one character"),
        (
            {"lo\ud800w": 3},
            SURROGATE.replace("the text", "a word of the word counts").replace("character 3", "character 2"),
        ),
        (["low", "lower"], "word counts must be a mapping of word -> count, not list"),
    ],
)
def test_train_from_counts_refuses_impossible_counts(counts, message):
    _refused(lambda: train_from_counts(counts, Settings(), merges=2), message)


def test_train_from_counts_in_bytes_mode_wants_byte_symbols():
    _refused(
        lambda: train_from_counts({"日本": 2}, Settings(mode="bytes"), merges=2),
        "in bytes mode, word counts hold words written in byte symbols (as count_words gives them); "
        "'日' is not a byte symbol",
    )
    assert train_from_counts({"ĠhiĠhi": 2}, Settings(mode="bytes"), merges=1).merges == [("Ġ", "h")]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ({"merges": -1}, "the number of merges must be a whole number, 0 or more, not -1"),
        ({"merges": 2.5}, "the number of merges must be a whole number, 0 or more, not 2.5"),
        ({"merges": "10"}, "the number of merges must be a whole number, 0 or more, not '10'"),
        ({"vocab_size": 0}, "the vocabulary size must be a whole number of 1 or more, not 0"),
        ({"vocab_size": True}, "the vocabulary size must be a whole number of 1 or more, not True"),
        ({"merges": 10**9}, "at most 1,000,000 merges can be trained; 1,000,000,000 were asked for"),
        ({"vocab_size": 10**9}, "at most 1,000,000 merges can be trained; 999,999,989 were asked for"),  # 11 symbols
        ({"merges": 3, "vocab_size": 20}, "give either a number of merges or a vocabulary size, not both"),
    ],
)
def test_absurd_targets_say_what_is_wrong(target, message):
    _refused(lambda: train(SEED000, **target), message)


def test_one_check_of_the_target_for_every_caller():
    # The command line and the app check a target before counting a word, with the engine's rule.
    assert check_target(merges=MAX_MERGES) is None and check_target(vocab_size=1) is None
    _refused(lambda: check_target(merges=MAX_MERGES + 1),
             "at most 1,000,000 merges can be trained; 1,000,001 were asked for")
    _refused(lambda: check_target(vocab_size=0, vocab_name="--vocab-size"),
             "--vocab-size must be a whole number of 1 or more, not 0")
    _refused(lambda: check_target(merges=True), "the number of merges must be a whole number, 0 or more, not True")
    # A vocabulary's upper bound needs the corpus's alphabet: the trainer checks it.
    assert len(train(SEED000, vocab_size=MAX_MERGES + 11, max_token_length=None).merges) < 100


def test_limit_must_be_a_number_of_merges(tok):
    _refused(lambda: tok.encode("low", limit=-1), "limit must be a whole number of merges, 0 or more, or None; not -1")
    _refused(
        lambda: tok.encode("low", limit="2"), "limit must be a whole number of merges, 0 or more, or None; not '2'"
    )


def test_binary_detection_reads_the_whole_input():
    text = "plain prose. " * 10_000  # 130,000 bytes
    data = text.encode() + b"\x00" + b"more prose"
    assert len(data) > 100_000
    with pytest.raises(
        BPEError, match=re.escape("upload.txt looks like a binary file (it contains NUL bytes), not text")
    ):
        check_text(data, name="upload.txt")
    assert check_text(text.encode(), name="upload.txt") == text


@pytest.mark.parametrize("what", ["Unigram", "WordPiece", "SuperBPE"])
@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000 + "]" * 100_000, "the {} model: JSON nested too deeply (more than 100 levels, the limit)"),
    ('{"version": 1' + "0" * 5_000 + "}", "the {} model: a number with more than 4,300 digits (the limit)"),
])
def test_a_family_model_text_is_parsed_under_the_json_limits(what: str, text: str, message: str) -> None:
    from bpe_core.families import superbpe_model, unigram, wordpiece

    loads = {"Unigram": unigram.loads, "WordPiece": wordpiece.loads,
             "SuperBPE": superbpe_model.SuperBPEModel.from_json}[what]
    _refused(lambda: loads(text), message.format(what))


def test_json_bytes_that_are_not_utf8_are_named_as_such() -> None:
    from bpe_core.json_limits import load_json

    _refused(lambda: load_json(b'{"merges": "\xff"}', where="counts.jsonl: line 3"),
             "counts.jsonl: line 3: not UTF-8 text (invalid byte at offset 12)")
