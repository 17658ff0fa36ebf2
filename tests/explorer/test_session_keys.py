"""Session-state keys have one home, explorer/ui/state.py: no other module names a key by its string."""
from __future__ import annotations

import ast
from pathlib import Path

from explorer.ui import state

EXPLORER = Path(state.__file__).resolve().parents[1]
HOME = EXPLORER / "ui" / "state.py"


def _modules() -> list[Path]:
    return sorted(p for p in EXPLORER.rglob("*.py") if p != HOME)


def _key_values() -> set[str]:
    """Every key string state.py declares (constants, and what the key functions make from a sample argument)."""
    values = {v for name, v in vars(state).items() if name.isupper() and isinstance(v, str)}
    values |= {state.b_cmp_add(""), state.b_cmp_remove(""), state.b_tree(0)[:-1], state.b_jump(0, 0)[:-3],
               state.b_use_sample(""), state.b_open_lesson("")}
    return {v for v in values if "_" in v}  # "corpus", "step", "words"... are also link parameters


def test_no_module_but_state_spells_a_session_key():
    keys = _key_values()
    assert {"cmp_entries", "anim_player", "voc_token", "drop_word", "io_exports", "io_uploaded"} <= keys
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literal = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
            if literal is not None and (literal in keys or any(literal.startswith(k) for k in keys if k.endswith("_"))):
                found.append(f"{path.relative_to(EXPLORER)}:{node.lineno}: {literal!r}")
    assert found == []


def test_no_widget_key_is_a_literal_outside_state():
    """`key="..."` (or an f-string) in a Streamlit module would declare a key where nobody looks for it."""
    found = []
    streamlit_modules = [p for p in _modules() if p.parent.name in ("ui", "views") or p.name == "app.py"]
    assert len(streamlit_modules) > 10
    for path in streamlit_modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, (ast.Constant,
                                                                                                 ast.JoinedStr)):
                found.append(f"{path.relative_to(EXPLORER)}:{node.value.lineno}")
    assert found == []


def test_every_default_is_filled_in_once_and_fresh_values_are_not_shared():
    one, other = {}, {}
    state.init(one)
    state.init(other)
    assert {k: one[k] for k in state.DEFAULTS} == state.DEFAULTS
    assert one[state.CMP_TEXT] == state.CMP_DEFAULT_TEXT and one[state.DROP_WORD] == "newest"
    for key in state.FRESH:
        assert type(one[key]) is type(other[key]) and one[key] is not other[key]  # each session its own
    one[state.CMP_TEXT] = "mine"
    state.init(one)  # a later run keeps what the session has
    assert one[state.CMP_TEXT] == "mine"
