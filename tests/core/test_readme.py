"""The README's command-line examples run as written, top to bottom, in a scratch directory."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

README = ROOT / "README.md"


def command_line_blocks() -> list[str]:
    """The ```bash blocks of the README's "### Command line" section, in order."""
    text = README.read_text(encoding="utf-8")
    start = text.index("\n", text.index("### Command line"))
    following = re.search(r"^#{1,3} ", text[start:], flags=re.MULTILINE)
    section = text[start : start + following.start()] if following else text[start:]
    return re.findall(r"^```bash\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)


def test_the_command_line_section_has_examples():
    commands = [line for block in command_line_blocks() for line in block.splitlines() if line.strip()]
    assert len(commands) >= 6 and all(line.startswith(("python -m bpe_core ", "python -m sample_corpora "))
                                      for line in commands)
    assert any(" export " in line and "--format gpt2" in line for line in commands)


def test_every_command_line_example_runs_as_written(tmp_path):
    (tmp_path / "sample_corpora").symlink_to(ROOT / "sample_corpora", target_is_directory=True)
    python_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": python_dir + os.pathsep + os.environ.get("PATH", "")}
    for block in command_line_blocks():
        for line in block.splitlines():
            if not line.strip():
                continue
            done = subprocess.run(
                ["bash", "-c", line], capture_output=True, cwd=tmp_path, env=env, timeout=120, text=True
            )
            assert done.returncode == 0, f"{line}\n{done.stderr}"
    written = {p.name for p in tmp_path.iterdir()} - {"sample_corpora"}
    ignored = {line.strip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()}
    assert written and written <= ignored  # what the examples write is ignored if run in the repository
