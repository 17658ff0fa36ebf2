"""The bytecode the warming writes (explorer/data/bytecode.py): Python then imports without compiling."""
from __future__ import annotations

import importlib.util
import os
import sys
from importlib import machinery
from pathlib import Path

import pytest

from explorer.data import bytecode


def load(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Import the module at `path` as a process with PYTHONDONTWRITEBYTECODE would; the sources it compiled."""
    compiled: list[str] = []
    real = machinery.SourceFileLoader.source_to_code

    def spy(self, data, source_path, *args, **kwargs):
        compiled.append(str(source_path))
        return real(self, data, source_path, *args, **kwargs)

    monkeypatch.setattr(machinery.SourceFileLoader, "source_to_code", spy)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.ANSWER == 42
    return compiled


def test_written_bytecode_is_what_python_imports_and_is_written_again_only_when_the_source_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "lesson.py"
    source.write_text("ANSWER = 42\n", encoding="utf-8")
    assert load(source, monkeypatch) == [str(source)]  # no bytecode: compiled, and none written
    assert not Path(importlib.util.cache_from_source(str(source))).exists()

    assert bytecode.write_bytecode([source]) == (1, 0)
    assert load(source, monkeypatch) == []  # read, not compiled
    assert bytecode.write_bytecode([source]) == (0, 1)

    source.write_text("ANSWER = 40 + 2\n", encoding="utf-8")  # another size: stale
    os.utime(source, (1_700_000_000, 1_700_000_000))
    assert not bytecode.is_fresh(source, Path(importlib.util.cache_from_source(str(source))))
    assert bytecode.write_bytecode([source]) == (1, 0)
    assert load(source, monkeypatch) == []


def test_a_file_that_cannot_be_compiled_or_written_is_passed_over(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n", encoding="utf-8")
    fine = tmp_path / "fine.py"
    fine.write_text("ANSWER = 42\n", encoding="utf-8")
    assert bytecode.write_bytecode([broken, tmp_path / "gone.py", fine]) == (1, 0)


def test_the_sources_are_the_apps_imports_and_every_module_of_the_project() -> None:
    found = set(bytecode.sources(imports=("json", "not_a_package_here")))
    assert Path(sys.modules["json"].__file__) in found
    root = Path(bytecode.__file__).resolve().parents[2]
    for package in bytecode.PROJECT:
        assert set((root / package).rglob("*.py")) <= found
    assert root / "explorer" / "views" / "tokenize.py" in found  # a page: never imported, still compiled
