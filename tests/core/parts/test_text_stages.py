"""Ids-only encoding cuts plain strings (`text_stages`), never `Normalized` pieces: those cuts must
be `tokenizers`' own, for every pre-tokenizer that offers them, and the pipeline's and the merge
list tokenizer's caches must keep the pieces of the text in hand when they fill up.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

import bpe_core.model as model_module
from bpe_core import Settings, train
from bpe_core.parts.cache import PieceCache
from bpe_core.parts.pretokenizers import text_stages
from bpe_core.parts.pretokenizers_split import TextStage
from tests.core.parts.test_pretokenizers import (
    BEHAVIORS,
    CHAR_PARTS,
    SEQUENCES,
    P,
    corpus,
    deepseek,
    mine,
    read,
    real_patterns,
    reference_from,
    serialized,
    short,
    tk,
)


def run(stages: list[TextStage], text: str) -> list[str]:
    """The pieces the stages make of a text, as `PartsTokenizer.encode_ids` runs them."""
    pieces = [text] if text or not stages else []
    for stage in stages:
        if stage.cut is not None:
            pieces = [p for piece in pieces for p in stage.cut(piece)]
        else:
            assert stage.change is not None
            pieces = [stage.change(piece) for piece in pieces]
    return pieces


def assert_cuts_alike(reference: Any, texts: dict[str, str], part: Any = None) -> None:
    stages = text_stages(part if part is not None else mine(reference))
    assert stages is not None
    for name, text in texts.items():
        assert run(stages, text) == [t for t, _ in reference.pre_tokenize_str(text)], name


@pytest.mark.parametrize("add_prefix_space", [True, False])
@pytest.mark.parametrize("use_regex", [True, False])
def test_byte_level(add_prefix_space: bool, use_regex: bool) -> None:
    assert_cuts_alike(P.ByteLevel(add_prefix_space=add_prefix_space, use_regex=use_regex), corpus())


@pytest.mark.parametrize("name", list(real_patterns()))
@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
def test_split_real_patterns(name: str, behavior: str, invert: bool) -> None:
    texts = corpus() if behavior == "isolated" and not invert else short()
    assert_cuts_alike(P.Split(tk.Regex(real_patterns()[name]), behavior, invert=invert), texts)


@pytest.mark.parametrize("literal", ["", " ", "e", "\n", "▁"])
@pytest.mark.parametrize("behavior", BEHAVIORS)
def test_split_string(literal: str, behavior: str) -> None:
    texts = short() if literal else {name: text[:300] for name, text in short().items()}
    assert_cuts_alike(P.Split(literal, behavior), texts)
    assert_cuts_alike(P.Split(literal, behavior, invert=True), texts)


@pytest.mark.parametrize("scheme", ["always", "never"])
@pytest.mark.parametrize("split", [True, False])
def test_metaspace(scheme: str, split: bool) -> None:
    assert_cuts_alike(P.Metaspace(prepend_scheme=scheme, split=split), short())


def test_what_needs_offsets_or_cuts_by_character_kind_offers_no_stages() -> None:
    # "first" asks where a piece began in the original text; the character parts cut Normalized only.
    assert text_stages(mine(P.Metaspace(prepend_scheme="first"))) is None
    for reference in CHAR_PARTS:
        assert text_stages(mine(reference)) is None, json.dumps(serialized(reference))


@pytest.mark.parametrize("name", [n for n in SEQUENCES if text_stages(mine(SEQUENCES[n])) is not None])
def test_sequences(name: str) -> None:
    assert_cuts_alike(SEQUENCES[name], corpus())


def test_deepseek_v4_file() -> None:
    data = deepseek()["pre_tokenizer"]
    assert_cuts_alike(reference_from(data), corpus(), read(data))


def test_a_full_piece_cache_starts_again_from_the_pieces_of_the_text_in_hand() -> None:
    cache: PieceCache[int] = PieceCache(limit=4, longest=3)
    cache.put_all({"a": 1, "b": 2}, in_use={"a": 1, "b": 2})
    old = cache.table
    cache.put_all({"c": 3, "d": 4, "e": 5, "long": 6}, in_use={"a": 1, "c": 3, "d": 4, "e": 5, "long": 6})
    assert cache.table == {"a": 1, "c": 3, "d": 4, "e": 5}  # "b" is not in this text; "long" is too long
    assert old == {"a": 1, "b": 2}  # replaced, not emptied: a thread reading it still finds its pieces


def test_pipeline_ids_stay_right_when_the_cache_overflows() -> None:
    from bpe_core.builtin import load_builtin

    tok = load_builtin("tekken")
    text = corpus()["prose"]
    want = tok.encode(text).ids
    saved = tok._ids
    tok._ids = PieceCache(limit=50)
    try:
        assert tok.encode_ids(text) == want
        assert len(tok._ids) > 0 and tok.encode_ids(text) == want
    finally:
        tok._ids = saved


def test_merge_list_ids_stay_right_when_the_cache_overflows(monkeypatch) -> None:
    tok = train(corpus()["prose"], Settings(mode="bytes", pretokenizer="gpt2"), vocab_size=400)
    text = corpus()["code"]
    want = tok.encode(text).ids
    monkeypatch.setattr(model_module, "_CACHE_LIMIT", 30)
    assert tok.encode_ids(text) == want
    words = set(tok.words_of(text))
    assert words <= set(tok._ids)  # the text's own words are kept, however many
    assert tok.encode_ids(text) == want


@pytest.mark.parametrize("pre", [None, P.Sequence([]), P.ByteLevel(use_regex=False), P.Metaspace(split=False)])
def test_an_empty_text_gives_the_ids_encode_gives(pre: Any) -> None:
    from bpe_core.parts.pipeline import PartsTokenizer
    from bpe_core.parts.wordlevel import WordLevel

    tok = PartsTokenizer(model=WordLevel({"hi": 0, "[UNK]": 1}, unk_token="[UNK]"),
                         pre_tokenizer=None if pre is None else mine(pre))
    for text in ("", "hi", "hi there"):
        assert tok.encode_ids(text) == tok.encode(text).ids, text
