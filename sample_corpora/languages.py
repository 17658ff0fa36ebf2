"""The multilingual sample set: the same messages in fifteen languages and eight scripts.

``languages.json`` lists the languages (code, name, script, the locale each package uses for it,
source and licence). The texts are built on first use from the installed Django and Sphinx
(`parallel.build_parallel`; both pinned in requirements.txt) and cached beside the other
generated corpora, keyed by the packages' versions.

The set is *parallel*: message ``i`` of every language translates English message ``i``, so
tokens for one language over tokens for English is what that language pays for the same content.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalog import _write_cache, cache_dir
from .parallel import build_parallel, source_versions

__all__ = ["PARALLEL_NOTE", "SampleLanguage", "list_languages", "load_language", "load_parallel"]

_INDEX_PATH = Path(__file__).resolve().parent / "languages.json"
_BUILD_VERSION = 1  # bump when build_parallel's output changes

#: How the texts were chosen, for a page or a report to show beside the numbers.
PARALLEL_NOTE = (
    "Parallel text: the interface messages of Django and Sphinx that every one of the languages has "
    "translated (not fuzzy; plural messages and messages without a letter left out), in the same order "
    "in each language. Short sentences and phrases of software, not literary prose; format placeholders "
    "such as %(name)s are kept as the translators kept them. Persian stands for the Arabic script: "
    "Arabic's Sphinx catalog is almost untranslated, and Hindi's Django catalog is half translated, "
    "so both with strict intersection would leave about 10 KB of English."
)


@dataclass(frozen=True)
class SampleLanguage:
    """One language of the parallel sample set."""

    code: str
    name: str
    script: str
    source: str
    licence: str
    locales: tuple[tuple[str, str], ...]  # (package, locale) pairs


def _read_index() -> list[dict[str, Any]]:
    with open(_INDEX_PATH, encoding="utf-8") as fh:
        entries = json.load(fh)
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{_INDEX_PATH} must contain a non-empty JSON list")
    return entries


def list_languages() -> list[SampleLanguage]:
    """Every language of the sample set, English first, in display order."""
    return [
        SampleLanguage(
            code=entry["code"], name=entry["name"], script=entry["script"], source=entry["source"],
            licence=entry["licence"], locales=tuple(sorted(entry["locales"].items())),
        )
        for entry in _read_index()
    ]


def _cache_path() -> Path:
    spec = json.dumps([_BUILD_VERSION, source_versions(), _read_index()], sort_keys=True)
    digest = hashlib.sha256(spec.encode("utf-8")).hexdigest()[:12]
    return cache_dir() / f"parallel-{digest}.json"


def load_parallel() -> dict[str, str]:
    """{language code: text} for every language, in display order; built on first use, then read
    from the cache. RuntimeError (naming the package) when Django or Sphinx is not installed."""
    languages = list_languages()
    path = _cache_path()
    try:
        with open(path, encoding="utf-8") as fh:
            cached = json.load(fh)
        if isinstance(cached, dict) and [lang.code for lang in languages] == list(cached):
            return {code: str(text) for code, text in cached.items()}
    except (OSError, ValueError):
        pass  # not built yet, or unreadable: build it again
    parallel = build_parallel([(lang.code, dict(lang.locales)) for lang in languages])
    texts = {lang.code: parallel.text(lang.code) for lang in languages}
    _write_cache(path, json.dumps(texts, ensure_ascii=False))
    return texts


def load_language(code: str) -> str:
    """One language's text; ValueError naming the valid codes for an unknown one."""
    texts = load_parallel()
    if code not in texts:
        raise ValueError(f"unknown language {code!r}; valid codes are: {', '.join(texts)}")
    return texts[code]
