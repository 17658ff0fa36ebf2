"""Where families may be named: only in their own folders (issue 17).

Outside `bpe_core/families/` and `explorer/families/`, a page, a command or a format talks to the
model interface (`bpe_core.tokenizer_model`) and the registry (`bpe_core.families.registry`); it
does not name WordPiece, Unigram or SuperBPE, nor compare a family's name. Read from the source
(text for names, `ast` for comparisons); nothing here imports the code it checks.

- `naming_files`: the source files outside the family folders whose text names a family
  (any case: "WordPiece", "wordpiece", "WORDPIECE"...).
- `name_comparisons`: the lines outside them that compare a family's name: `x == "unigram"`,
  `kind in ("WordPiece", "Unigram")`, or something called `family` (a variable, an attribute, a
  key) compared (==, !=, in, not in) with a string written in the code (`family != "exotic"`);
  asking the registry (`family in trainable()`) is no such comparison.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

FAMILY_FOLDERS = ("bpe_core/families/", "explorer/families/")
PACKAGES = ("bpe_core", "explorer")
SOURCE_SUFFIXES = (".py", ".js", ".html", ".css")
NAMED = re.compile(r"wordpiece|unigram|superbpe", re.IGNORECASE)
FAMILY_NAMES = frozenset({"bpe", "wordpiece", "unigram", "superbpe", "parts", "BPE", "WordPiece", "Unigram",
                          "SuperBPE"})
MAX_NAMING_FILES = 3
MAX_COMPARISONS = 5


def _sources(root: Path) -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in rel and not rel.startswith(FAMILY_FOLDERS):
                yield rel, path


def naming_files(root: Path) -> list[str]:
    """Source files outside the family folders that name WordPiece, Unigram or SuperBPE."""
    return [rel for rel, path in _sources(root) if NAMED.search(path.read_text(encoding="utf-8"))]


def _is_family_name(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in FAMILY_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_family_name(e) for e in node.elts)
    return False


def _is_string_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_string_literal(e) for e in node.elts)
    return False


def _is_family_thing(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return "family" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "family" in node.attr.lower()
    if isinstance(node, ast.Subscript):
        return _is_family_name(node.slice) or (isinstance(node.slice, ast.Constant) and node.slice.value == "family")
    return False


_EQUALITY = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def name_comparisons(root: Path) -> list[str]:
    """`file:line` of each comparison of a family's name outside the family folders."""
    found = []
    for rel, path in _sources(root):
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare) or not all(isinstance(op, _EQUALITY) for op in node.ops):
                continue
            sides = [node.left, *node.comparators]
            if any(_is_family_name(s) for s in sides) or (
                any(_is_family_thing(s) for s in sides) and any(_is_string_literal(s) for s in sides)
            ):
                found.append(f"{rel}:{node.lineno}")
    return found
