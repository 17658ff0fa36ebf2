"""A stranger's regex under a time limit: a pattern that backtracks without bound stops with one line,
and every other pattern gives what it gives without the limit (ids identical to `tokenizers`)."""
from __future__ import annotations

import json
import pickle

import pytest

from bpe_core import BPEError
from bpe_core.formats.detect import load_bytes
from bpe_core.parts.pattern_limit import TimedPattern, match_time_limit
from tests.conftest import require
from tests.core.real_texts import held_out_texts

RUNAWAY = "(a+)+$"  # about 30 s on 2,000 letters and a "!" (tokenizers panics on it)


def tokenizer_json(pre_tokenizer: dict, *, normalizer: dict | None = None, decoder: dict | None = None) -> bytes:
    vocab = {ch: i for i, ch in enumerate("a!b ")}
    return json.dumps({"normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "decoder": decoder,
                       "model": {"type": "BPE", "vocab": vocab, "merges": [], "unk_token": None}}).encode()


SPLIT = {"type": "Split", "pattern": {"Regex": RUNAWAY}, "behavior": "Isolated", "invert": False}
REPLACE = {"type": "Replace", "pattern": {"Regex": RUNAWAY}, "content": "b"}


@pytest.mark.parametrize("where", ["pre_tokenizer", "normalizer", "decoder"])
def test_a_runaway_pattern_read_under_the_limit_stops_with_one_line(where):
    parts = {"pre_tokenizer": {"type": "Whitespace"}, where: SPLIT if where == "pre_tokenizer" else REPLACE}
    with match_time_limit(0.2):
        model = load_bytes("runaway.json", tokenizer_json(**parts))
    model = pickle.loads(pickle.dumps(model))  # as it comes back from the worker that read it: still timed
    text = "a" * 2_000 + "!"
    with pytest.raises(BPEError, match=r"^the tokenizer's pattern '\(a\+\)\+\$' searched 2,001 characters for more "
                                       r"than 0 s and was stopped") as caught:
        if where == "decoder":
            model.decoder.decode_chain([text])  # a token as long: the decoder's pattern sees it whole
        else:
            model.encode_ids(text)
    assert "\n" not in str(caught.value)
    assert model.encode_ids("ab a!") == load_bytes("runaway.json", tokenizer_json(**parts)).encode_ids("ab a!")


def test_outside_the_limit_patterns_are_plain_and_fast():
    model = load_bytes("runaway.json", tokenizer_json(SPLIT))
    assert not isinstance(model.pre_tokenizer._rx, TimedPattern)  # the built-ins and the command line: full speed


def test_a_real_tokenizer_read_under_the_limit_gives_the_same_ids():
    tokenizers = require("tokenizers")
    from tests.core.test_real_tokenizers import deepseek_json

    raw = deepseek_json().read_bytes()
    with match_time_limit(2.0):
        timed = load_bytes("tokenizer.json", raw)
    theirs = tokenizers.Tokenizer.from_str(raw.decode("utf-8"))
    for name, text in held_out_texts().items():
        assert timed.encode_ids(text) == theirs.encode(text, add_special_tokens=False).ids, name
        assert timed.encode(text).spans == [tuple(o) for o in theirs.encode(text, add_special_tokens=False).offsets]
