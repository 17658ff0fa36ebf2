"""Sample corpora for the BPE explorer: small hand-written files, samples built
from installed packages and shipped as files (the English corpus and the
multilingual parallel set: `python -m sample_corpora build` rebuilds them), and
a corpus generated on first use from the local Python standard library."""

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
from .languages import (
    PARALLEL_NOTE,
    SampleLanguage,
    list_languages,
    load_language,
    load_parallel,
    load_parallel_messages,
)

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
    "load_parallel_messages",
]
