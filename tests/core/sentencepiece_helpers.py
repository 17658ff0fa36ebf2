"""What the SentencePiece tests share: models trained with sentencepiece, held-out text, and the
comparison of our tokenizer with `sentencepiece.SentencePieceProcessor` (ids, pieces, offsets,
decoding)."""
from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, require

spm = require("sentencepiece")

MISTRAL = Path(require("mistral_common").__file__).parent / "data"

EDGES = (
    "", " ", "   ", " a ", "a  b", "\t", "a\tb", "\n\n", "a\r\nb", "\u3000x", "ŧŧ ŧŧ", "乾乾", "a\u200bb", "x ﬁ y",
    "Ａ\u0301", "e\u0301", "\u0301", "<s> hi </s> <unk>", "[INST] x [/INST] [REF] a [REFERENCE_DOC_1]",
    "<sep>x[X]<ctl>",
    "▁", "a▁", "▁▁ a", "12345 67.89", "👨\u200d👩\u200d👧 😀 🇺🇸", "\x00\x01\x7f", "\u00a0a\u00a0", "مرحبا بالعالم",
    "שלום \u202eRTL\u202c", "  lead", "trail  ", "  both  \n", "def f(x):\n    return x  # c\n", "a" * 300,
    "the the the theatre", "\ufeffBOM \ufffd", "ऩ क़ क्ष", "한국어 \u1100\u1161\u11a8", "ǅ İ ß ΣΑΣ ①",
)


@cache
def corpora() -> tuple[list[str], tuple[str, ...]]:
    """Training lines (English prose, the first half of each language) and held-out texts (the
    other halves, Python source, more prose, the sample files, the edge cases)."""
    from sample_corpora import load_corpus, load_parallel

    english = load_corpus("english", max_bytes=200_000)
    train = [line for line in english[:60_000].splitlines() if line.strip()]
    held: list[str] = []
    for _code, text in sorted(load_parallel().items()):
        lines = text.splitlines()
        train += lines[:len(lines) // 2]
        held.append("\n".join(lines[len(lines) // 2:])[:2500])
    held += [english[60_000:75_000], load_corpus("python", max_bytes=200_000)[:10_000]]
    held += [(ROOT / "sample_corpora" / name).read_text(encoding="utf-8")
             for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")]
    return train, tuple(held) + EDGES


@cache
def trained(**options: Any) -> bytes:
    """A model sentencepiece trains on the training lines (one thread: always the same model)."""
    out = io.BytesIO()
    settings = {"vocab_size": 1500, "character_coverage": 0.995, "minloglevel": 2, "num_threads": 1}
    settings.update((key, list(value) if isinstance(value, tuple) else value) for key, value in options.items())
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpora()[0]), model_writer=out, **settings)
    return out.getvalue()


def reference(sp: Any, text: str) -> tuple[list[int], list[str], list[tuple[int, int]]]:
    """sentencepiece's ids, pieces, and each piece's begin and end as character offsets."""
    char_at = {}
    at = 0
    for i, ch in enumerate(text):
        char_at[at] = i
        at += len(ch.encode("utf-8"))
    char_at[at] = len(text)
    pieces = sp.encode(text, return_type="proto").pieces
    spans = [(char_at[p.begin], char_at[p.end]) for p in pieces]
    return [p.id for p in pieces], sp.encode(text, out_type=str), spans


def assert_same(tokenizer: Any, data: bytes, texts: tuple[str, ...] | list[str]) -> None:
    """Ids, pieces and offsets of `encode`, `encode_ids`, and `decode` of the ids, as sentencepiece's."""
    sp = spm.SentencePieceProcessor(model_proto=data)
    for text in texts:
        ids, pieces, spans = reference(sp, text)
        encoding = tokenizer.encode(text)
        assert encoding.ids == ids, text[:80]
        assert encoding.tokens == pieces, text[:80]
        assert encoding.spans == spans, text[:80]
        assert tokenizer.encode_ids(text) == ids, text[:80]
        assert tokenizer.decode(ids) == sp.decode(ids), text[:80]
