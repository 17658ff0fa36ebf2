"""The layout holds (tests/layout_rules.py has the rules): on this repository, and each checker
finds the breach it is for in a small fake tree, so a checker that went blind would fail here."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.layout_rules import app_problems, find_cycles, layer_problems, long_files, read_imports, third_party_problems

CHECKS = [find_cycles, layer_problems, third_party_problems, long_files, app_problems]


@pytest.mark.parametrize(
    "check", CHECKS, ids=["no-import-cycle", "layers", "streamlit-and-engine-imports", "no-long-file", "app-routes"]
)
def test_the_layout(check):
    problems = check(ROOT)
    if problems:
        pytest.fail("\n".join(["A layout rule (see tests/layout_rules.py) is broken:", *problems]), pytrace=False)


# ---- the checkers, on fake trees ------------------------------------------------------------

# A tiny tree that keeps every rule, with one module of each layer importing what it may.
CLEAN = {
    "bpe_core/__init__.py": "from .model import Tokenizer\n",
    "bpe_core/model.py": "import json\n\nimport regex\n\nTokenizer = object\n",
    "bpe_core/formats/__init__.py": "from .detect import load\n",
    "bpe_core/formats/_common.py": "from ..model import Tokenizer\n",
    "bpe_core/formats/detect.py": "from ..model import Tokenizer\nfrom ._common import fail\n",
    "sample_corpora/__init__.py": "import json\n",
    "explorer/__init__.py": "",
    "explorer/data/__init__.py": "",
    "explorer/data/corpus.py": "from bpe_core import Tokenizer\nfrom sample_corpora import load\n",
    "explorer/display/__init__.py": "",
    "explorer/display/render.py": "import pandas\nimport plotly\n\nfrom explorer.data.corpus import Corpus\n",
    "explorer/ui/__init__.py": "",
    "explorer/ui/state.py": "import streamlit as st\n\nfrom explorer.display import render\n",
    "explorer/views/train.py": "import streamlit as st\n\nfrom explorer.ui import state\n",
    "explorer/app.py": "import streamlit as st\n\nfrom explorer.ui import state\n\n\ndef route():\n    pass\n",
    "explorer/ui/player/player.js": "let x = 1;\n" * 400,
}


def write(root: Path, files: dict[str, str] | None = None) -> Path:
    """The clean tree under `root`, with `files` (path -> text) replacing or adding files."""
    for name, text in {**CLEAN, **(files or {})}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("check", CHECKS)
def test_the_clean_fake_tree_keeps_every_rule(tmp_path, check):
    assert check(write(tmp_path)) == []


def test_a_cycle_hidden_inside_a_function_is_found(tmp_path):
    root = write(tmp_path, {
        "bpe_core/formats/detect.py": "from ._common import fail\n",
        "bpe_core/formats/_common.py": "import json\n\n\ndef fail():\n    from .detect import load\n",
    })
    assert find_cycles(root) == [
        "import cycle among bpe_core.formats._common, bpe_core.formats.detect; one is bpe_core.formats._common"
        " -> bpe_core.formats.detect -> bpe_core.formats._common: bpe_core/formats/_common.py:5 imports"
        " bpe_core.formats.detect, bpe_core/formats/detect.py:1 imports bpe_core.formats._common"
    ]


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    # bpe_core/__init__.py imports model, and model imports the package back.
    root = write(tmp_path, {"bpe_core/model.py": "from bpe_core import settings\n\nTokenizer = object\n"})
    assert find_cycles(root) == [
        "import cycle among bpe_core, bpe_core.model; one is bpe_core -> bpe_core.model -> bpe_core:"
        " bpe_core/__init__.py:1 imports bpe_core.model, bpe_core/model.py:1 imports bpe_core"
    ]


def test_an_import_only_for_type_checking_makes_no_cycle(tmp_path):
    text = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .detect import Format\n"
    assert find_cycles(write(tmp_path, {"bpe_core/formats/_common.py": text})) == []


@pytest.mark.parametrize(
    ("path", "line", "target"),
    [
        ("bpe_core/formats/ours.py", "from ..model import Tokenizer", "bpe_core.model"),
        ("bpe_core/formats/ours.py", "from .. import model", "bpe_core.model"),
        ("bpe_core/formats/ours.py", "from .. import BPEError", "bpe_core"),
        ("bpe_core/formats/ours.py", "from . import _common", "bpe_core.formats._common"),
        ("bpe_core/formats/ours.py", "from ._common import fail", "bpe_core.formats._common"),
        ("bpe_core/formats/__init__.py", "from . import detect", "bpe_core.formats.detect"),
        ("bpe_core/formats/__init__.py", "from .detect import load", "bpe_core.formats.detect"),
        ("explorer/ui/state.py", "import explorer.display.render as render", "explorer.display.render"),
    ],
)
def test_relative_and_absolute_imports_resolve_to_modules(tmp_path, path, line, target):
    root = write(tmp_path, {path: line + "\n"})
    found = [(imp.target, imp.line) for imp in read_imports(root) if imp.file == path]
    assert found == [(target, 1)]


@pytest.mark.parametrize(
    ("path", "text", "problem"),
    [
        ("bpe_core/model.py", "from explorer.data import corpus\n",
         "bpe_core/model.py:1 imports explorer.data.corpus, but bpe_core may import only bpe_core"),
        ("explorer/data/corpus.py", "import os\n\n\ndef f():\n    from explorer.display.render import escape\n",
         "explorer/data/corpus.py:5 imports explorer.display.render, but data may import only"
         " bpe_core, data, sample_corpora"),
        ("explorer/display/render.py", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
         "    from explorer.ui.state import Keys\n",
         "explorer/display/render.py:4 imports explorer.ui.state, but display may import only"
         " bpe_core, data, display, sample_corpora"),
        ("explorer/ui/state.py", "from explorer.views import train\n",
         "explorer/ui/state.py:1 imports the page explorer.views.train: pages import nothing of each other;"
         " move what they share into explorer/ui or explorer/display"),
        ("explorer/views/files.py", "from explorer.views.train import shown\n",
         "explorer/views/files.py:1 imports the page explorer.views.train: pages import nothing of each other;"
         " move what they share into explorer/ui or explorer/display"),
        ("explorer/helpers.py", "",
         "explorer/helpers.py is in no layer: move it into explorer/data, display, ui or views"),
    ],
)
def test_an_import_across_the_layers_is_named(tmp_path, path, text, problem):
    assert layer_problems(write(tmp_path, {path: text})) == [problem]


STREAMLIT_ONLY = (": only explorer/ui, explorer/views and explorer/app.py import Streamlit"
                  " (move the Streamlit part into explorer/ui)")
ENGINE_ONLY = (": bpe_core needs only the standard library and regex"
               " (an optional extra goes inside try/except ImportError)")


@pytest.mark.parametrize(
    ("path", "text", "problem"),
    [
        ("explorer/display/render.py", "import streamlit as st\n",
         "explorer/display/render.py:1 imports streamlit" + STREAMLIT_ONLY),
        ("explorer/data/corpus.py", "def f():\n    from streamlit.runtime import exists\n",
         "explorer/data/corpus.py:2 imports streamlit.runtime" + STREAMLIT_ONLY),
        ("bpe_core/model.py", "import json\n\nimport numpy as np\n", "bpe_core/model.py:3 imports numpy" + ENGINE_ONLY),
        ("sample_corpora/__init__.py", "import streamlit\n", "sample_corpora/__init__.py:1 imports streamlit"
         + STREAMLIT_ONLY),
        ("bpe_core/formats/_common.py", "try:\n    import tiktoken_ext\nexcept ImportError:\n    pass\n", None),
    ],
)
def test_streamlit_and_engine_dependencies_stay_in_place(tmp_path, path, text, problem):
    assert third_party_problems(write(tmp_path, {path: text})) == ([problem] if problem else [])


def test_files_over_400_lines_are_named_outside_generated_folders(tmp_path):
    long = "x = 1\n" * 401
    root = write(tmp_path, {
        "explorer/ui/player/player.css": "a {}\n" * 401,
        ".ci/check.py": long,
        "bench/results/old_run.py": long,
        ".git/hooks/pre-commit.py": long,
        "bpe_core.egg-info/x.py": long,
        "explorer/__pycache__/x.py": long,
        "notes.txt": long,
    })
    assert long_files(root) == [
        f"{name} has 401 lines (at most 400): split it where it holds two things"
        for name in (".ci/check.py", "explorer/ui/player/player.css")
    ]


def test_app_py_that_does_more_than_route_is_named(tmp_path):
    body = "".join(f"    x = {i}\n" for i in range(20))  # with its def line, 21 lines
    small = "".join(f"\n\ndef {name}():\n    pass\n" for name in "bcd")
    text = f"class Keys:\n    pass\n\n\ndef a():\n{body}{small}"
    assert app_problems(write(tmp_path, {"explorer/app.py": text})) == [
        "explorer/app.py:1 defines class Keys: app.py only routes; move it into explorer/ui",
        "explorer/app.py:5 a() has 21 lines (at most 20 in app.py): move it into explorer/ui",
        "explorer/app.py defines 4 functions, at most 3: a() (line 5), b() (line 28), c() (line 32), d() (line 36);"
        " move them into explorer/ui",
    ]


def test_the_sample_corpora_and_the_engine_stay_apart(tmp_path):
    root = write(tmp_path, {"sample_corpora/__init__.py": "from bpe_core import Tokenizer\n"})
    assert layer_problems(root) == [
        "sample_corpora/__init__.py:1 imports bpe_core, but sample_corpora may import only sample_corpora"
    ]
