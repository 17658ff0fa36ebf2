"""Families are named only in their own folders (tests/family_rules.py): on this repository,
and each checker finds what it is for in a small fake tree, so a checker gone blind fails here."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT
from tests.family_rules import MAX_COMPARISONS, MAX_NAMING_FILES, name_comparisons, naming_files


def test_at_most_three_files_outside_the_family_folders_name_a_family():
    files = naming_files(ROOT)
    assert len(files) <= MAX_NAMING_FILES, f"{len(files)} files name a family outside its folder: {files}"


def test_at_most_five_lines_compare_a_family_name():
    lines = name_comparisons(ROOT)
    assert len(lines) <= MAX_COMPARISONS, f"{len(lines)} comparisons of a family's name: {lines}"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_checkers_see_names_and_comparisons_outside_the_folders_only(tmp_path):
    root = _tree(tmp_path, {
        "bpe_core/families/unigram_model.py": "class UnigramModel: pass\nif family == 'unigram': pass\n",
        "explorer/families/superbpe/player.py": "x = 'SuperBPE'\n",
        "bpe_core/cli.py": "def run(args):\n    if args.model == 'wordpiece':\n        return 1\n",
        "explorer/views/page.py": "ok = trained.family != 'bpe'\nin_set = kind in ('BPE', 'Unigram')\n",
        "explorer/views/clean.py": "from bpe_core.families.registry import family_of\nx = family_of(m).title\n"
                                   "ok = request.family in trainable()\n",
        "explorer/views/literal.py": "odd = request.family == 'exotic'\n",
        "explorer/ui/player/player.js": "// plays every family\nconst unit = data.unit;\n",
        "explorer/ui/player/old.js": "if (family === 'wordpiece') {}\n",
    })
    assert naming_files(root) == ["bpe_core/cli.py", "explorer/ui/player/old.js", "explorer/views/page.py"]
    assert name_comparisons(root) == ["bpe_core/cli.py:2", "explorer/views/literal.py:1", "explorer/views/page.py:1",
                                      "explorer/views/page.py:2"]
