"""Held-out text for parity with the reference libraries: many scripts, code, prose and edge cases.

None of it trained any tokenizer checked against it: the shipped multilingual samples, the
parallel language set, the standard library's own source and documentation strings, and a line of
edge cases (spaces, tabs, CRLF, digits, emoji sequences, invisible characters, right-to-left).
"""
from __future__ import annotations

import json
import textwrap
from functools import cache
from pathlib import Path

from tests.conftest import ROOT

SAMPLES = ROOT / "sample_corpora"
EDGES = (
    "  double  spaces\n\n\ttabs\r\nit's I'LL 1234567 3.14159 ½ ① 😀👨‍👩‍👧 <|endoftext|> <s>x</s> ĠĊ\u00a0nbsp"
    "\u3000ideographic \u200bzw\u200d j\u0301oin e\u0301\u0301 ﬁne Ǆ İstanbul ΣΑΣ ß ǅ \x07bell"
    " مرحبا بالعالم שלום עולם \u202eRTL\u202c Hello   \n  \n"
)


def _python_source() -> str:
    import json.decoder

    return "".join(Path(module.__file__).read_text(encoding="utf-8")[:20_000] for module in (textwrap, json.decoder))


def _prose() -> str:
    """English prose: the standard library's documentation strings."""
    import collections
    import functools
    import pathlib

    return "\n\n".join(filter(None, (m.__doc__ for m in (collections, functools, pathlib, json, textwrap))))


@cache
def held_out_texts() -> dict[str, str]:
    """Name -> text, each a few KB to tens of KB."""
    texts = {name: (SAMPLES / name).read_text(encoding="utf-8")
             for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")}
    from sample_corpora import load_parallel

    for code, text in load_parallel().items():  # 15 languages in 8 scripts, a few KB each
        texts[f"parallel {code}"] = text[:6_000]
    texts["python source"] = _python_source()
    texts["english prose"] = _prose()
    texts["edges"] = EDGES
    return texts


def lines_of(texts: dict[str, str], *, longest: int = 400) -> list[str]:
    """Each text's lines (with their line ends), cut to `longest` characters: many short inputs,
    each a fresh start for the parts that treat the start of the text specially."""
    out = []
    for text in texts.values():
        out.extend(line[:longest] for line in text.splitlines(keepends=True) if line.strip())
    return out
