"""The layout's rules, read from the source with `ast` (nothing here imports the code it checks).

- No import cycle among first-party modules (bpe_core, explorer, sample_corpora). Every import
  counts, also one inside a function; only `if TYPE_CHECKING:` blocks are left out, since they
  never run.
- Layers, lowest first: bpe_core and sample_corpora (neither imports the other); explorer/data;
  explorer/display; explorer/families (what the pages draw of each family, one folder a family;
  its __init__.py, the lookup that finds them, is usable by every layer, as explorer's own);
  explorer/ui; explorer/views, explorer/app.py and explorer/__main__.py. A module imports its own
  layer and the layers below, never a page: explorer/views/* is imported by nothing (app.py names
  the pages by path). Here an import under `if TYPE_CHECKING:` counts too: a lower layer does not
  even name a higher one's types. A new module of explorer/ outside these folders is in no layer.
- Streamlit only in explorer/ui, explorer/views and explorer/app.py; bpe_core needs only the
  standard library and `regex` (an import inside `try: ... except ImportError:` is optional).
- No source file (*.py, *.js, *.css, *.html) over 400 lines; explorer/app.py only routes.

Each checker takes the root of a tree and returns sentences naming the file and line to fix.
tests/test_layout.py runs them on this repository, and on small fake trees that break each rule.
"""
from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FIRST_PARTY = ("bpe_core", "explorer", "sample_corpora")
MAX_LINES = 400
SOURCE_SUFFIXES = (".py", ".js", ".css", ".html")
NOT_SOURCE = ("bench/results",)  # benchmark outputs, not code
MAX_APP_FUNCTIONS = 3
MAX_APP_FUNCTION_LINES = 20

# What each layer may import, first-party. "explorer" is the package's own __init__.py.
_BASE = {"bpe_core", "sample_corpora", "explorer"}
MAY_IMPORT: dict[str, set[str]] = {
    "bpe_core": {"bpe_core"},
    "sample_corpora": {"sample_corpora"},
    "explorer": {"bpe_core", "sample_corpora"},
    "data": _BASE | {"data"},
    "display": _BASE | {"data", "display"},
    "families": _BASE | {"data", "display", "families"},
    "ui": _BASE | {"data", "display", "families", "ui"},
    "views": _BASE | {"data", "display", "families", "ui"},
    "app": _BASE | {"data", "display", "families", "ui"},
}
STREAMLIT_LAYERS = {"ui", "views", "app"}
ENGINE_THIRD_PARTY = {"regex"}


@dataclass(frozen=True)
class Import:
    """One name an import statement brings in, resolved to an absolute dotted name."""

    module: str  # the importing module
    target: str
    file: str  # path relative to the root, for messages
    line: int
    type_only: bool  # under `if TYPE_CHECKING:`
    optional: bool  # inside `try:` with an `except ImportError`

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def top(self) -> str:
        return self.target.split(".")[0]


def first_party_modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the first-party packages."""
    modules = {}
    for package in FIRST_PARTY:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names)


class _Imports(ast.NodeVisitor):
    """Collects the imports of one module, resolving relative ones."""

    def __init__(self, module: str, is_package: bool, file: str, known: set[str]) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.module, self.file, self.known = module, file, known
        self.type_only = self.optional = False
        self.found: list[Import] = []

    def _add(self, target: str, node: ast.stmt) -> None:
        found = Import(self.module, target, self.file, node.lineno, self.type_only, self.optional)
        if found not in self.found[-len(node.names):]:  # `from m import a, b` is one import of m
            self.found.append(found)

    def _visit_flagged(self, nodes: list[ast.stmt], flag: str) -> None:
        before = getattr(self, flag)
        setattr(self, flag, True)
        for node in nodes:
            self.visit(node)
        setattr(self, flag, before)

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self._visit_flagged(node.body, "type_only")
        for child in node.orelse:
            self.visit(child)

    def visit_Try(self, node: ast.Try) -> None:
        if any(_catches_import_error(h) for h in node.handlers):
            self._visit_flagged(node.body, "optional")
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                self.visit(child)
        else:
            self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - node.level + 1]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        if module == "__future__":
            return
        for alias in node.names:
            submodule = f"{module}.{alias.name}"
            self._add(submodule if submodule in self.known else module, node)


def read_imports(root: Path) -> list[Import]:
    """Every import statement of the first-party packages (type-only and optional ones flagged)."""
    modules = first_party_modules(root)
    found = []
    for module, path in modules.items():
        visitor = _Imports(module, path.name == "__init__.py", path.relative_to(root).as_posix(), set(modules))
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found.extend(visitor.found)
    return found


def _owner(target: str, modules: set[str]) -> str | None:
    """The first-party module a dotted name lives in (the longest known prefix), if any."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return None


def find_cycles(root: Path) -> list[str]:
    """One sentence per group of modules that import each other, with the lines that do it."""
    modules = set(first_party_modules(root))
    edges: dict[str, dict[str, Import]] = {m: {} for m in modules}
    for imp in read_imports(root):
        target = _owner(imp.target, modules)
        if target and target != imp.module and not imp.type_only:
            edges[imp.module].setdefault(target, imp)
    problems = []
    for group in _strongly_connected(edges):
        path = _cycle_through(min(group), edges, group)
        steps = ", ".join(f"{edges[a][b].where} imports {b}" for a, b in zip(path, path[1:]))
        problems.append(f"import cycle among {', '.join(sorted(group))}; one is {' -> '.join(path)}: {steps}")
    return problems


def _strongly_connected(edges: dict[str, dict[str, Import]]) -> list[set[str]]:
    """Groups of modules that reach each other through imports (small graphs: plain searches)."""
    reach = {}
    for start in edges:
        seen: set[str] = set()
        todo = list(edges[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(edges[node])
        reach[start] = seen
    groups = {frozenset(n for n in reach[m] if m in reach[n]) for m in sorted(edges) if m in reach[m]}
    return [set(g) for g in sorted(groups, key=min)]


def _cycle_through(start: str, edges: dict[str, dict[str, Import]], group: set[str]) -> list[str]:
    """A shortest path start -> ... -> start inside one group (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node]):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child in group and child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{start} is in no cycle")


def layer_of(module: str) -> str | None:
    """bpe_core, sample_corpora, explorer (its __init__), data, display, ui, views, app; None if none."""
    parts = module.split(".")
    if parts[0] != "explorer" or len(parts) == 1:
        return parts[0]
    if parts[1:] == ["families"]:
        return "explorer"  # the families' lookup alone (explorer/families/__init__.py): every layer may ask it
    if parts[1:] == ["__main__"]:
        return "app"  # `python -m explorer`, which starts the app: an entry point, as app.py is
    return parts[1] if parts[1] in MAY_IMPORT else None


def layer_problems(root: Path) -> list[str]:
    """Imports that reach a layer above their own, or into a page; modules in no layer."""
    modules = first_party_modules(root)
    problems = [
        f"{path.relative_to(root).as_posix()} is in no layer: move it into explorer/data, display, ui or views"
        for module, path in modules.items()
        if layer_of(module) is None
    ]
    for imp in read_imports(root):
        own, target = layer_of(imp.module), _owner(imp.target, set(modules))
        if own is None or target is None:
            continue
        reached = layer_of(target)
        if target.startswith("explorer.views"):
            problems.append(f"{imp.where} imports the page {target}: pages import nothing of each other; "
                            "move what they share into explorer/ui or explorer/display")
        elif reached not in MAY_IMPORT[own]:
            allowed = ", ".join(sorted(MAY_IMPORT[own] - {"explorer"}))
            problems.append(f"{imp.where} imports {target}, but {own} may import only {allowed}")
    return problems


def third_party_problems(root: Path) -> list[str]:
    """Streamlit outside ui/views/app.py; anything but the standard library and regex in bpe_core."""
    problems = []
    for imp in read_imports(root):
        layer = layer_of(imp.module)
        if imp.top == "streamlit" and layer not in STREAMLIT_LAYERS:
            problems.append(f"{imp.where} imports {imp.target}: only explorer/ui, explorer/views and "
                            "explorer/app.py import Streamlit (move the Streamlit part into explorer/ui)")
        engine_may = {*FIRST_PARTY, *sys.stdlib_module_names, *ENGINE_THIRD_PARTY} - {"explorer", "sample_corpora"}
        if layer == "bpe_core" and not imp.optional and imp.top not in engine_may:
            problems.append(f"{imp.where} imports {imp.target}: bpe_core needs only the standard library "
                            "and regex (an optional extra goes inside try/except ImportError)")
    return problems


def _generated(name: str) -> bool:
    """Folders that hold tools' caches or build output, not code (hidden ones but .ci and .github)."""
    hidden = name.startswith(".") and name not in (".ci", ".github")
    return hidden or name.endswith(".egg-info") or name in ("__pycache__", "node_modules", "build", "dist")


def source_files(root: Path, folder: Path | None = None) -> Iterator[Path]:
    """The tree's code: .py, .js, .css and .html files, not in NOT_SOURCE or generated folders."""
    for path in sorted((folder or root).iterdir()):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            yield path
        elif path.is_dir() and not _generated(path.name) and path.relative_to(root).as_posix() not in NOT_SOURCE:
            yield from source_files(root, path)


def long_files(root: Path) -> list[str]:
    problems = []
    for path in source_files(root):
        lines = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if lines > MAX_LINES:
            problems.append(f"{path.relative_to(root).as_posix()} has {lines} lines (at most {MAX_LINES}): "
                            "split it where it holds two things")
    return problems


def app_problems(root: Path) -> list[str]:
    """explorer/app.py routes: no classes, at most a few short functions."""
    path = root / "explorer" / "app.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    problems = []
    functions = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            problems.append(f"explorer/app.py:{node.lineno} defines class {node.name}: app.py only routes; "
                            "move it into explorer/ui")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_APP_FUNCTION_LINES:
                problems.append(f"explorer/app.py:{node.lineno} {node.name}() has {length} lines "
                                f"(at most {MAX_APP_FUNCTION_LINES} in app.py): move it into explorer/ui")
    if len(functions) > MAX_APP_FUNCTIONS:
        names = ", ".join(f"{f.name}() (line {f.lineno})" for f in functions)
        problems.append(f"explorer/app.py defines {len(functions)} functions, at most {MAX_APP_FUNCTIONS}: "
                        f"{names}; move them into explorer/ui")
    return problems
