"""A built-in tokenizer's vocabulary checks (Report card's partial and unreachable tokens), kept on disk.

They depend on the built-in alone and take seconds (o200k's unreachable tokens: 2.5 s here), so the
server's warming (`explorer.data.warm`) writes them once per machine under the sample cache, and
every page and later server reads them back. The file name holds a digest of the built-in's name,
its package version and vocabulary size (`language_tax_cache.builtin_identity`, as the language
counts use): a new package is checked afresh. An unreadable or
unwritable cache only costs the checking.
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from bpe_core.atomic import write_file
from bpe_core.builtin import load_builtin
from bpe_core.report import VocabularyChecks, vocabulary_checks
from explorer.data.language_tax_cache import builtin_identity
from sample_corpora.catalog import cache_dir

FORMAT = 1  # bump when what is stored changes
_lock = threading.Lock()  # one check at a time in this process: a second asker reads the first one's file


def _path(name: str) -> Path:
    key = json.dumps([FORMAT, *builtin_identity(name)]).encode("utf-8")
    return cache_dir() / "vocabulary-checks" / f"{name}-{hashlib.sha256(key).hexdigest()[:16]}.json"


def builtin_vocabulary_checks(name: str) -> VocabularyChecks:
    """`vocabulary_checks(load_builtin(name))`, checked once per machine and then read from disk."""
    path = _path(name)
    with _lock:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            unreachable = stored["unreachable"]
            return VocabularyChecks(int(stored["partial"]), None if unreachable is None else int(unreachable))
        except (OSError, ValueError, KeyError, TypeError):
            pass
        found = vocabulary_checks(load_builtin(name))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, json.dumps({"partial": found.partial, "unreachable": found.unreachable}).encode("utf-8"))
        except OSError:
            pass  # the next server checks again: only slower
        return found
