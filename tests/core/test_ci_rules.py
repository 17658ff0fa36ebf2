"""Under CI a missing dependency fails the run; elsewhere it skips (tests/conftest.py)."""
from __future__ import annotations

import pytest

from tests.conftest import under_ci

# A tiny suite that uses our conftest's hooks and helpers.
CONFTEST = "from tests.conftest import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401\n"
SUITE = """
import pytest
from tests.conftest import require

def test_importorskip():
    pytest.importorskip("no_such_module_for_ci_rules")

def test_require():
    require("no_such_module_for_ci_rules")

def test_other_skips_stay_skips():
    pytest.skip("not relevant on this platform")

def test_passes():
    require("json")
"""
MODULE_SKIP = 'import pytest\npytest.importorskip("no_such_module_for_ci_rules")\n\ndef test_x():\n    pass\n'


@pytest.mark.parametrize(
    ("value", "ci"),
    [("", False), ("0", False), ("false", False), ("FALSE", False), ("1", True), ("true", True), ("yes", True)],
)
def test_which_values_of_ci_mean_ci(monkeypatch, value, ci):
    monkeypatch.setenv("CI", value)
    assert under_ci() is ci


@pytest.mark.parametrize(("value", "failed", "skipped"), [("1", 2, 1), ("true", 2, 1), ("0", 0, 3), (None, 0, 3)])
def test_missing_dependencies_fail_only_under_ci(pytester, monkeypatch, value, failed, skipped):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=failed, skipped=skipped)


@pytest.mark.parametrize(("value", "errors", "skipped"), [("1", 1, 0), ("false", 0, 1)])
def test_a_module_level_importorskip_fails_under_ci(pytester, monkeypatch, value, errors, skipped):
    monkeypatch.setenv("CI", value)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mod=MODULE_SKIP)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=errors, skipped=skipped)
