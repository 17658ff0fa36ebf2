"""Fixtures the engine's tests share."""
from __future__ import annotations

import pytest

from bpe_core.builtin import forget_loaded


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty built-in cache folder and no tokenizer loaded in this process (restored afterwards)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    forget_loaded()
    yield tmp_path / "bpe-explorer" / "builtin"
    forget_loaded()
