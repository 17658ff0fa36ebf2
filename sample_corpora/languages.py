"""The multilingual sample set: the same messages in fifteen languages and eight scripts.

``languages.json`` lists the languages (code, name, script, the locale each package uses for it,
source and licence). The texts were built from Django's and Sphinx's translation catalogs
(`parallel.build_parallel`, run by ``python -m sample_corpora build``) and ship as
``data/parallel/<code>.txt`` (`shipped.py`), so reading them needs neither package.

The set is *parallel*: message ``i`` of every language translates English message ``i``, so
tokens for one language over tokens for English is what that language pays for the same content.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .shipped import MESSAGE_LINES, parallel_name, read_shipped

__all__ = ["PARALLEL_NOTE", "SampleLanguage", "list_languages", "load_language", "load_parallel",
           "load_parallel_messages"]

_INDEX_PATH = Path(__file__).resolve().parent / "languages.json"

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


def load_parallel() -> dict[str, str]:
    """{language code: text} for every language, in display order, read from the shipped files.
    RuntimeError, naming the file and the command that rebuilds it, when one is missing or damaged."""
    return {lang.code: read_shipped(parallel_name(lang.code)) for lang in list_languages()}


def load_parallel_messages() -> dict[str, tuple[str, ...]]:
    """{language code: its messages}: message ``i`` of every language translates English message ``i``.

    Each text is its messages, each ending with a newline; the few messages that hold a newline
    themselves are listed in the shipped ``message-lines.json``. RuntimeError as `load_parallel`.
    """
    spans = json.loads(read_shipped(MESSAGE_LINES))
    out: dict[str, tuple[str, ...]] = {}
    for code, text in load_parallel().items():
        lines = text.split("\n")[:-1]  # the text ends with a newline
        long = {int(index): count for index, count in spans.get(code, {}).items()}
        messages: list[str] = []
        at = 0
        while at < len(lines):
            count = long.get(len(messages), 1)
            messages.append("\n".join(lines[at:at + count]))
            at += count
        out[code] = tuple(messages)
    if len({len(messages) for messages in out.values()}) != 1:
        raise RuntimeError(f"the shipped {MESSAGE_LINES} does not split the texts alike; python -m sample_corpora "
                           "build rebuilds it")
    return out


def message_lines(messages: dict[str, tuple[str, ...]]) -> str:
    """`load_parallel_messages`'s file for these messages (``python -m sample_corpora build`` writes it)."""
    spans = {code: {str(i): m.count("\n") + 1 for i, m in enumerate(found) if "\n" in m}
             for code, found in messages.items()}
    return json.dumps(spans, indent=0, sort_keys=False) + "\n"


def load_language(code: str) -> str:
    """One language's text; ValueError naming the valid codes for an unknown one."""
    texts = load_parallel()
    if code not in texts:
        raise ValueError(f"unknown language {code!r}; valid codes are: {', '.join(texts)}")
    return texts[code]
