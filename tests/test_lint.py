"""Lint and types are part of the test command: `ruff check` on the whole tree, mypy on the engine.

Both read their settings from pyproject.toml, so a `# noqa` or `# type: ignore` here means
something: an unused one is itself reported.
"""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, require


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    require("ruff")
    done = _run("ruff", "check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_engine_type_checks():
    require("mypy")
    done = _run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
