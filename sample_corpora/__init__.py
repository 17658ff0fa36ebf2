"""Sample corpora for the BPE explorer: small shipped files plus corpora
generated on first use from the local Python standard library, and the
multilingual parallel sample set built from installed translation catalogs."""

from __future__ import annotations

from .catalog import (
    DEFAULT_TARGET_BYTES,
    SampleCorpus,
    build_english,
    build_python,
    cache_dir,
    get_corpus,
    list_corpora,
    load_corpus,
)
from .languages import PARALLEL_NOTE, SampleLanguage, list_languages, load_language, load_parallel

__all__ = [
    "DEFAULT_TARGET_BYTES",
    "SampleCorpus",
    "build_english",
    "build_python",
    "cache_dir",
    "get_corpus",
    "list_corpora",
    "load_corpus",
    "PARALLEL_NOTE",
    "SampleLanguage",
    "list_languages",
    "load_language",
    "load_parallel",
]
