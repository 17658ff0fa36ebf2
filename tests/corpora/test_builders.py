"""Tests for the corpus builders (sample_corpora/builders.py): English prose and Python code."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from sample_corpora import builders, catalog

SMALL_TARGET = 200_000
REPO = Path(catalog.__file__).resolve().parents[1]
SKIPPED_DIRS = {"test", "tests", "idlelib", "lib2to3", "site-packages", "__pycache__"}


@pytest.fixture(scope="module")
def english_small() -> str:
    return catalog.build_english(SMALL_TARGET)


@pytest.fixture(scope="module")
def python_small() -> str:
    return catalog.build_python(SMALL_TARGET)


def prose_ratio(text: str) -> float:
    return sum(1 for ch in text if ch.isalpha() or ch.isspace()) / len(text)


def test_english_build_is_deterministic(english_small: str) -> None:
    assert catalog.build_english(SMALL_TARGET) == english_small


def test_english_build_is_prose(english_small: str) -> None:
    size = len(english_small.encode("utf-8"))
    assert SMALL_TARGET * 0.9 < size <= SMALL_TARGET
    assert prose_ratio(english_small) > 0.9
    paragraphs = english_small.rstrip("\n").split("\n\n")
    assert len(paragraphs) > 500
    for paragraph in paragraphs:
        assert paragraph.strip() == paragraph and paragraph
        assert "\n" not in paragraph
        assert not paragraph.startswith((">>>", "..."))
    assert len(set(paragraphs)) == len(paragraphs)
    for word in (" the ", " and ", " of ", " return"):
        assert english_small.lower().count(word) > 100


def test_python_build_is_headers_plus_code(python_small: str) -> None:
    size = len(python_small.encode("utf-8"))
    assert SMALL_TARGET * 0.9 < size <= SMALL_TARGET
    assert python_small.startswith("# file: ")
    pieces = re.split(r"^# file: (.+)\n", python_small, flags=re.MULTILINE)
    assert pieces[0] == ""
    names = pieces[1::2]
    bodies = pieces[2::2]
    assert len(names) == len(bodies) > 5
    assert names == sorted(names, key=lambda name: tuple(name.split("/")))
    for name, body in zip(names, bodies):
        assert name.endswith(".py")
        assert not SKIPPED_DIRS & set(name.split("/")[:-1])
        assert body.endswith("\n")
        ast.parse(body, filename=name)
    assert catalog.build_python(SMALL_TARGET) == python_small


def test_builders_reject_bad_targets() -> None:
    for bad in (0, -5):
        with pytest.raises(ValueError):
            catalog.build_english(bad)
        with pytest.raises(ValueError):
            catalog.build_python(bad)


def test_docstring_cleaning() -> None:
    doc = textwrap.dedent(
        """\
        Return the sum of two numbers, rounded to the nearest integer.

        Both arguments may be ints or floats; the result is always an int.
        >>> add(1, 2)
        3

        >>> add(1.5, 1.5)
        3
        ... more doctest

        ()[]{}<>=+-*/ ()[]{}<>=+-*/ ()[]{}

            indented code = sample(block)

        Short one.
        """
    )
    paragraphs = list(builders._prose_paragraphs(doc))
    assert paragraphs == [
        "Return the sum of two numbers, rounded to the nearest integer.",
        "Both arguments may be ints or floats; the result is always an int.",
    ]


def test_fake_stdlib_walk(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    files = {
        "b.py": '"""Module b does a number of useful things for us."""\nX = 1\n',
        "a.py": "def f():\n    return 1\n",
        "broken.py": "def (:\n",
        "pkg/c.py": "Y = 2\n" * 60,
        "test/t.py": "T = 1\n" * 60,
        "idlelib/i.py": "I = 1\n" * 60,
        "__pycache__/p.py": "P = 1\n" * 60,
        "site-packages/s.py": "S = 1\n" * 60,
        "notes.txt": "not python\n",
    }
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    code = catalog.build_python(10_000, stdlib=root)
    assert re.findall(r"^# file: (.+)$", code, flags=re.MULTILINE) == ["a.py", "b.py", "pkg/c.py"]
    with pytest.raises(RuntimeError):
        # Far too little prose in this fake library to make an English corpus.
        catalog.build_english(10_000, stdlib=root, packages=[])


def test_english_reads_packages_after_the_standard_library(tmp_path: Path) -> None:
    stdlib = tmp_path / "lib"
    package = tmp_path / "pkg"
    stdlib.mkdir()
    (stdlib / "a.py").write_text('"""The standard library speaks first, in plain words."""\n', encoding="utf-8")
    (package / "tests").mkdir(parents=True)
    (package / "core.py").write_text(
        'def f():\n    """A package docstring comes after the standard library."""\n\n\n'
        'def g():\n    """This third paragraph no longer fits in the target size."""\n',
        encoding="utf-8",
    )
    (package / "tests" / "t.py").write_text('"""Test modules of a package are never read."""\n', encoding="utf-8")
    text = builders.build_english(110, stdlib=stdlib, packages=[package])
    assert text == (
        "The standard library speaks first, in plain words.\n\n"
        "A package docstring comes after the standard library.\n"
    )
    # A target the standard library fills on its own never reaches the packages.
    assert "package" not in builders.build_english(60, stdlib=stdlib, packages=[package])


def test_english_packages_are_the_pinned_ones() -> None:
    """The packages the English corpus reads are installed by the test command, version-pinned (in
    requirements-dev.txt, or the app's requirements.txt it includes): the same corpus on every machine."""
    pins = dict(
        line.split("==", 1)
        for name in ("requirements.txt", "requirements-dev.txt")
        for line in (REPO / name).read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.startswith("#")
    )
    found = {name: version for name, version, _ in builders.english_packages()}
    assert set(found) == {distribution for _, distribution in builders.ENGLISH_PACKAGES}
    assert all(pins.get(name) == version for name, version in found.items()), (found, pins)


def test_missing_stdlib_sources(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        catalog.build_python(10_000, stdlib=tmp_path)
