"""The browser tests share one tab a worker (tests/browser/browser_helpers.py `Tab`): a test that changes what
its whole browser context does must ask for a context of its own (`@pytest.mark.own_tab`), or the change
would reach every later test of that worker."""
from __future__ import annotations

import ast

from tests.conftest import ROOT

# Page and context calls whose effect outlives the test's page load.
CONTEXT_WIDE = {"clock", "route", "route_from_har", "add_init_script", "emulate_media", "grant_permissions",
                "set_default_timeout", "set_default_navigation_timeout", "set_extra_http_headers",
                "expose_function", "expose_binding", "set_geolocation", "set_offline"}


def _marked_own_tab(function: ast.FunctionDef) -> bool:
    return any("own_tab" in ast.unparse(decorator) for decorator in function.decorator_list)


def offenders(source: str) -> list[str]:
    """Test functions that use a context-wide call on a page or context without the own_tab mark."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and not _marked_own_tab(node):
            used = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr in CONTEXT_WIDE}
            found += [f"{node.name} uses {name}" for name in sorted(used)]
    return found


def test_no_browser_test_changes_the_shared_tab_without_its_own_context():
    files = sorted((ROOT / "tests" / "browser").glob("test_*.py"))
    assert files
    problems = [f"{path.name}: {problem}" for path in files for problem in offenders(path.read_text(encoding="utf-8"))]
    assert problems == []


def test_the_rule_sees_a_clock_and_lets_a_marked_test_use_it():
    source = """
def test_plain(page):
    page.clock.install()

@pytest.mark.own_tab
def test_marked(page):
    page.clock.install()
    page.route("**", lambda route: route.abort())
"""
    assert offenders(source) == ["test_plain uses clock"]
