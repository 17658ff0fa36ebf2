"""Without the `tokenizers` package the Import and export round trip says which command installs it."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bpe_core import BPEError, train
from explorer.data import tokenizer_files

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_tokenizers_package_names_its_install_command(monkeypatch):
    tok = train("low lower newest widest", merges=5)
    exported = tokenizer_files.export_tokenizer(tok).hf
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # `import tokenizers` raises ImportError, as when missing
    with pytest.raises(BPEError) as raised:
        tokenizer_files.hf_round_trip(tok, exported, "lowest")
    message = str(raised.value)
    assert "not installed" in message and message.endswith(f": {tokenizer_files.INSTALL_TOKENIZERS}")


def test_the_install_command_is_the_version_the_requirements_pin():
    """The command is written out in the app (it reads no requirement file): it must stay the pinned version."""
    pins = re.findall(r"^tokenizers==(\S+)", (ROOT / "requirements-dev.txt").read_text(encoding="utf-8"), re.M)
    assert [f"pip install tokenizers=={pin}" for pin in pins] == [tokenizer_files.INSTALL_TOKENIZERS]
