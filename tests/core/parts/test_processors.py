"""Post-processors against `tokenizers`: a byte-level BPE trained here encodes real text (leading,
trailing and repeated spaces, newlines, tabs, multilingual text, code) with
`add_special_tokens=False`, without a post-processor and with each; our `process_offsets` on the
first offsets must give the second. Each post-processor also reads and writes back the form
`tokenizers` writes.
"""
from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import BPEError
from bpe_core.parts import processors as ours
from bpe_core.parts.hf_parts import Reader
from tests.conftest import require
from tests.core.test_builtin import parity_texts

tk = require("tokenizers")
P = tk.processors
SPACEY = ["  Hello  world \n\n  x\t y  ", " a", "a   ", "   ", " ", "", "\t\tindented\n    code  \n", "a \n b \t c",
          "  \u3000 wide\u00a0space  ", "ends with newline\n", "\r\n crlf \r\n", "x  ", "  déjà vu  東京  "]


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def serialized(processor: Any) -> dict[str, Any]:
    holder = tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a"))
    holder.post_processor = processor
    return json.loads(holder.to_str())["post_processor"]


def mine(reference: Any) -> Any:
    """Ours, read from the reference's tokenizer.json form, which it must write back."""
    data = serialized(reference)
    processor = ours.HF_TYPES[data["type"]](data, READER)
    assert processor.to_hf() == data
    return processor


@cache
def texts() -> dict[str, str]:
    from sample_corpora import load_corpus, load_parallel

    found = {name: text[:20_000] for name, text in parity_texts().items()}
    found["languages"] = "\n".join(text[:3000] for text in load_parallel().values())
    found["python"] = load_corpus("python", max_bytes=20_000)
    return {**found, **{f"spacey{i}": text for i, text in enumerate(SPACEY)}}


@cache
def byte_level_bpe(add_prefix_space: bool) -> Any:
    sample = texts()
    tokenizer = tk.Tokenizer(tk.models.BPE())
    tokenizer.pre_tokenizer = tk.pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    trainer = tk.trainers.BpeTrainer(vocab_size=700, initial_alphabet=tk.pre_tokenizers.ByteLevel.alphabet(),
                                     show_progress=False)
    tokenizer.train_from_iterator([sample["prose"], sample["multilingual.txt"], sample["code"],
                                   sample["whitespace"] * 20, *SPACEY * 5], trainer)
    return tokenizer


@cache
def whitespace_bpe() -> Any:
    """A BPE without a pre-tokenizer: its tokens hold real whitespace, which ByteLevel also trims."""
    tokenizer = tk.Tokenizer(tk.models.BPE(unk_token="?"))
    trainer = tk.trainers.BpeTrainer(vocab_size=300, special_tokens=["?"], show_progress=False)
    tokenizer.train_from_iterator(["".join(f"a{c}b{c}{c} " for c in WHITE_AND_NOT)] * 5, trainer)
    return tokenizer


# Unicode's White_Space, then characters Python's isspace() takes and Rust's is_whitespace does not
# (the information separators), then look-alikes neither takes.
WHITE_AND_NOT = ("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                 "\u2028\u2029\u202f\u205f\u3000" "\x1c\x1d\x1e\x1f" "\u200b\u180e\ufeff\u2060")


def encodings(tokenizer: Any, processor: Any, text: Any, **options: Any) -> tuple[Any, Any]:
    """The encoding without a post-processor, and with `processor`."""
    tokenizer.post_processor = None
    plain = tokenizer.encode(text, add_special_tokens=False, **options)
    tokenizer.post_processor = processor
    processed = tokenizer.encode(text, add_special_tokens=False, **options)
    tokenizer.post_processor = None
    assert processed.tokens == plain.tokens and processed.ids == plain.ids
    return plain, processed


def same(tokenizer: Any, processor: Any, text: Any, **options: Any) -> None:
    plain, processed = encodings(tokenizer, processor, text, **options)
    assert mine(processor).process_offsets(plain.tokens, plain.offsets) == processed.offsets, text[:40]


def processors() -> dict[str, Any]:
    bert = P.BertProcessing(("[SEP]", 1), ("[CLS]", 0))
    template = P.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                    special_tokens=[("[CLS]", 0), ("[SEP]", 1)])
    found = {f"bytelevel-trim{t:d}-prefix{p:d}": P.ByteLevel(trim_offsets=t, add_prefix_space=p)
             for t in (True, False) for p in (True, False)}
    found |= {f"roberta-trim{t:d}-prefix{p:d}": P.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=t,
                                                                   add_prefix_space=p)
              for t in (True, False) for p in (True, False)}
    found |= {"bert": bert, "template": template,
              "sequence": P.Sequence([P.ByteLevel(add_prefix_space=False), template]),
              "nested": P.Sequence([bert, P.Sequence([P.ByteLevel(), P.ByteLevel(add_prefix_space=False)])])}
    return found


CASES = [(prefix, name) for prefix in (False, True) for name in processors()]


@pytest.mark.parametrize(("prefix", "name"), CASES, ids=[f"pre-prefix{p:d}-{n}" for p, n in CASES])
def test_offsets_on_real_text_as_tokenizers_trims_them(prefix, name):
    tokenizer, processor = byte_level_bpe(prefix), processors()[name]
    for text in texts().values():
        same(tokenizer, processor, text)


@pytest.mark.parametrize("name", processors())
def test_real_whitespace_in_tokens_is_trimmed_as_rust_tells_whitespace(name):
    text = "".join(f"{c}a{c}{c}b{c} x{c}" for c in WHITE_AND_NOT)
    plain, _ = encodings(whitespace_bpe(), processors()[name], text)
    assert any(ch in token for token in plain.tokens for ch in "\x1c\u3000\u200b")
    same(whitespace_bpe(), processors()[name], text)


@pytest.mark.parametrize("prefix", [False, True])
@pytest.mark.parametrize("name", ["bytelevel-trim1-prefix1", "bytelevel-trim1-prefix0", "roberta-trim1-prefix1"])
def test_pretokenized_words_each_start_at_zero(prefix, name):
    # Each word's offsets start at 0, so a word's first token counts as the first for add_prefix_space.
    words = [" a", "b  ", "  c", "d", "   ", "", " é ", "\tx\n"]
    same(byte_level_bpe(prefix), processors()[name], words, is_pretokenized=True)


@given(st.text(st.sampled_from("ab \t\n\r\u3000\u00a0é東😀"), max_size=24), st.sampled_from(sorted(processors())),
       st.booleans())
@settings(derandomize=True, max_examples=300, deadline=None)
def test_random_spacey_text(text, name, prefix):
    same(byte_level_bpe(prefix), processors()[name], text)


@pytest.mark.parametrize("spelled", ["a   ", "   a", "  a  ", "   "])
def test_offsets_shorter_than_their_spaces(spelled):
    # A normalizer that writes one character as several leaves a token more spaces than offsets:
    # the end moves back only when there is room, the start never past the end.
    tokenizer = tk.Tokenizer(tk.models.WordLevel({spelled: 0, "?": 1}, unk_token="?"))
    tokenizer.normalizer = tk.normalizers.Replace("x", spelled)
    for processor in (P.ByteLevel(add_prefix_space=False), P.ByteLevel()):
        plain, _ = encodings(tokenizer, processor, "x")
        assert plain.tokens == [spelled] and plain.offsets == [(0, 1)]
        same(tokenizer, processor, "x")


def test_trim_offsets_by_hand():
    trim = ours.trim_offsets
    tokens = ["Ġhello", "ĠĠ", "world", "Ġ", "Ġx"]
    offsets = [(0, 6), (6, 8), (8, 13), (13, 14), (0, 2)]
    assert trim(tokens, offsets, add_prefix_space=False) == [(1, 6), (8, 8), (8, 13), (14, 14), (1, 2)]
    # The one space at the start (of the first token, or of one starting at 0) is the added one.
    assert trim(tokens, offsets, add_prefix_space=True) == [(0, 6), (8, 8), (8, 13), (14, 14), (0, 2)]
    assert trim(["\u3000a\x1c"], [(0, 3)], add_prefix_space=False) == [(1, 3)]  # \x1c is no whitespace
    assert trim([], [], add_prefix_space=True) == []


def test_the_others_leave_offsets_alone():
    offsets = [(0, 2), (2, 4)]
    for name in ("bert", "template", "bytelevel-trim0-prefix1", "roberta-trim0-prefix0"):
        assert mine(processors()[name]).process_offsets(["ĠĠ", "Ġa"], offsets) == offsets


def test_what_we_write_tokenizers_reads_back_the_same():
    for name, processor in processors().items():
        written = mine(processor).to_hf()
        holder = tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a"))
        data = json.loads(holder.to_str())
        data["post_processor"] = written
        assert json.loads(tk.Tokenizer.from_str(json.dumps(data)).to_str())["post_processor"] == written, name


def test_missing_flags_take_the_python_constructors_defaults():
    read = ours.HF_TYPES
    assert read["ByteLevel"]({"type": "ByteLevel"}, READER).to_hf() == serialized(P.ByteLevel())
    roberta = {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]}
    assert read["RobertaProcessing"](roberta, READER).to_hf() == serialized(P.RobertaProcessing(("</s>", 2),
                                                                                                      ("<s>", 0)))


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "ByteLevel", "trim_offsets": "yes"}, "post-processor ByteLevel: 'trim_offsets' must be true or false"),
    ({"type": "RobertaProcessing", "cls": ["<s>", 0]}, "post-processor RobertaProcessing: 'sep' must be a [token, id]"),
    ({"type": "BertProcessing", "sep": ["[SEP]", "1"], "cls": ["[CLS]", 0]}, "'sep' must be a [token, id] pair"),
    ({"type": "BertProcessing", "sep": ["[SEP]", 1], "cls": ["[CLS]", True]}, "'cls' must be a [token, id] pair"),
    ({"type": "TemplateProcessing", "single": "[CLS] $A", "pair": [], "special_tokens": {}}, "not a template string"),
    ({"type": "TemplateProcessing", "single": [{"Other": {}}], "pair": [], "special_tokens": {}}, "'single' must be"),
    ({"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": []}, "'special_tokens' must map"),
    ({"type": "Sequence"}, "post-processor Sequence: 'processors' must be a list"),
    ({"type": "Sequence", "processors": [{"type": "Nope"}]}, "post-processor 0 has type 'Nope'; supported: "),
    ({"type": "Sequence", "processors": [3]}, "post-processor 0 has type None"),
])
def test_bad_fields_are_one_line_errors(data, message):
    with pytest.raises(BPEError, match="^test.json: ") as caught:
        ours.HF_TYPES[data["type"]](data, READER)
    assert message in str(caught.value) and "\n" not in str(caught.value)
