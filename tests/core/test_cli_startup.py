"""Start-up of `python -m bpe_core` (issue 18, "Speed where users wait"): `--help` loads no engine
code, and every command still builds its full help once it is chosen. No timings: bench/bench_startup.py."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from bpe_core.cli import build_parser, main
from tests.conftest import ROOT

# What `--help` must not load: each costs tens of milliseconds or more.
HEAVY = ("bpe_core.families", "bpe_core.formats", "bpe_core.trainer", "bpe_core.settings", "bpe_core.cli_commands",
         "bpe_core.cli_count", "bpe_core.cli_families", "bpe_core.counting", "bpe_core.parts")
LOADED = """import json, sys
from bpe_core.cli import main
status = main(sys.argv[1:])
print(json.dumps([status, sorted(m for m in sys.modules if m.startswith("bpe_core"))]), file=sys.stderr)
"""


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(complete=True)
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


COMMANDS = sorted(_commands())


def _loaded(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", LOADED, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    status, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return status, modules


def test_help_in_a_fresh_process_loads_no_engine_code():
    status, modules = _loaded("--help")
    assert status == 0
    assert [m for m in modules if m.startswith(HEAVY)] == []


def test_a_command_that_does_not_need_the_registry_does_not_load_it():
    status, modules = _loaded("encode", "--help")
    assert status == 0
    assert not any(m.startswith(("bpe_core.families", "bpe_core.formats")) for m in modules)


def test_python_m_bpe_core_help_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "bpe_core", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: python -m bpe_core ")
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("    ") and line.strip()}
    assert set(COMMANDS) <= listed


@pytest.mark.parametrize("command", COMMANDS)
def test_every_commands_help_is_its_full_help(capsys, command):
    status = main([command, "--help"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert out == _commands()[command].format_help()
    assert out.startswith("usage: ") and f" {command} " in out.splitlines()[0]


def test_a_command_run_for_real_shows_its_own_help():
    done = subprocess.run([sys.executable, "-m", "bpe_core", "train", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m bpe_core train ") and "--model" in done.stdout


def test_a_usage_error_is_still_one_line(capsys):
    assert main(["encode", "gpt2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: the following arguments are required: TEXT") and err.count("\n") == 1
