"""The engine's settings are presets built from parts: every trained BPE tokenizer, as a
pipeline of parts (`presets.as_parts`), gives its own tokens, ids and spans, the lessons' too."""
from __future__ import annotations

import itertools

import pytest

from bpe_core import BPEError, Settings, load_builtin, train
from bpe_core.parts.pipeline import PartsTokenizer
from bpe_core.presets import PRESETS, as_parts, describe, preset
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS
from tests.conftest import SEED000, require_cl100k
from tests.core.real_texts import EDGES, held_out_texts


def _corpus_and_held() -> tuple[str, list[str]]:
    texts = list(held_out_texts().values())
    corpus = "\n".join(t[:12_000] for t in texts[:3])
    held = [t[12_000:14_000] for t in texts] + list(EDGES) + ["x low", "a\x1cb c", "  lead", "lowest" * 20]
    return corpus, held


def _every_settings() -> list[Settings]:
    out = []
    for mode in MODES:
        pres = ["whitespace"] if mode == "word" else [p for p in PRETOKENIZERS if p != "whitespace"]
        eows = EOW_STYLES if mode == "word" else ["separate"]
        for pre, eow, low, norm in itertools.product(pres, eows, [False, True], NORMALIZATIONS):
            try:
                out.append(Settings(mode=mode, pretokenizer=pre, eow=eow, lowercase=low, normalization=norm))
            except BPEError:
                continue
    return out


SETTINGS = _every_settings()


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: f"{s.mode}-{s.pretokenizer}-{s.eow}-"
                         f"{'lower' if s.lowercase else 'cased'}-{s.normalization}")
def test_every_setting_as_parts_encodes_alike(settings: Settings) -> None:
    corpus, held = _corpus_and_held()
    tok = train([corpus], settings, merges=200)
    parts = as_parts(tok)
    for text in held:
        ours, theirs = tok.encode(text), parts.encode(text)
        assert (theirs.tokens, theirs.ids, theirs.spans) == (ours.tokens, ours.ids, ours.spans), text[:40]
        assert parts.encode_ids(text) == ours.ids
        assert parts.decode(ours.ids) == tok.decode(ours.ids)


def test_the_lessons_preset_keeps_the_lessons_numbers() -> None:
    """Lesson 1's corpus and its unseen word: the merges' tokens through the pipeline of parts."""
    lesson = preset("lesson")
    tok = train(SEED000, lesson.settings, merges=10)
    parts = as_parts(tok)
    for word in ("lowest", "newer", "wider", "low"):
        assert parts.encode(word).tokens == tok.encode(word).tokens
    assert parts.encode("lowest").tokens[-1].endswith("</w>")
    assert [stage for stage, _ in describe(parts)] == ["pre-tokenizer", "model", "decoder"]


def test_a_rank_table_tokenizer_as_parts() -> None:
    require_cl100k()
    cl100k = load_builtin("cl100k_base")
    parts = as_parts(cl100k)
    _, held = _corpus_and_held()
    for text in held:
        assert parts.encode_ids(text) == cl100k.encode(text).ids


def test_the_parts_view_of_a_built_in_shares_its_table() -> None:
    """A server holds a rank-table built-in and its parts view (Tokenize's stages) together: the view
    reads the tokenizer's own table, not a copy of its 100,000 tokens (11.5 MB for cl100k and o200k)."""
    require_cl100k()
    cl100k = load_builtin("cl100k_base")
    parts = as_parts(cl100k)
    assert parts.model.vocab is cl100k.vocab and parts.vocab is cl100k.vocab


def test_presets_are_named_and_unknown_ones_refused() -> None:
    assert len({p.name for p in PRESETS}) == len(PRESETS)
    assert all(isinstance(as_parts(train("low lower", p.settings, merges=2)), PartsTokenizer) for p in PRESETS)
    with pytest.raises(BPEError, match="unknown preset 'nope'; choose one of lesson"):
        preset("nope")


def test_a_separate_end_of_word_symbol_has_no_tokenizer_json_form() -> None:
    parts = as_parts(train("low lower", preset("lesson").settings, merges=2))
    with pytest.raises(BPEError, match="separate end-of-word symbol has no tokenizer.json form"):
        parts.to_hf_dict()
