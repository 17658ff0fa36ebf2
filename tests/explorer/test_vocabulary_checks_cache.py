"""A built-in's vocabulary checks for the Report card, kept on disk (explorer/data/vocabulary_checks_cache.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_core.builtin import load_builtin
from bpe_core.report import report_card, vocabulary_checks
from explorer.data import language_tax_cache, warm
from explorer.data import vocabulary_checks_cache as cache
from explorer.data.warm import default_steps


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The cache in a new folder; each real check is recorded."""
    calls: list[str] = []

    def check(tokenizer):  # type: ignore[no-untyped-def]
        calls.append(type(tokenizer).__name__)
        return vocabulary_checks(tokenizer)

    monkeypatch.setattr(cache, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(cache, "vocabulary_checks", check)
    return calls


def test_a_builtins_checks_are_made_once_then_read_from_disk(counted: list[str]) -> None:
    expected = vocabulary_checks(load_builtin("gpt2"))
    assert cache.builtin_vocabulary_checks("gpt2") == expected and len(counted) == 1
    assert cache.builtin_vocabulary_checks("gpt2") == expected and len(counted) == 1  # read back
    assert expected.unreachable is not None and expected.partial > 0


def test_a_new_package_or_a_damaged_file_is_checked_again(counted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    first = cache.builtin_vocabulary_checks("gpt2")
    monkeypatch.setattr(language_tax_cache, "version", lambda package: "999.0")
    assert cache.builtin_vocabulary_checks("gpt2") == first and len(counted) == 2
    path = cache._path("gpt2")
    path.write_text('{"partial": "many"', encoding="utf-8")
    assert cache.builtin_vocabulary_checks("gpt2") == first and len(counted) == 3


def test_a_card_given_the_stored_checks_is_the_card_made_without_them(counted: list[str]) -> None:
    tok = load_builtin("cl100k_base")
    text = "The lowest price: 12345 \u20b9 \u2014 \u65e5\u672c\u8a9e"
    assert report_card(tok, text, checked=cache.builtin_vocabulary_checks("cl100k_base")) == report_card(tok, text)


def test_the_warming_makes_them_for_every_merge_list_built_in() -> None:
    checks = [s.what for s in default_steps() if s.what.endswith(f": {warm.CHECKING}")]
    assert any(what.startswith("GPT-4o (o200k_base)") for what in checks) and len(checks) >= 5
