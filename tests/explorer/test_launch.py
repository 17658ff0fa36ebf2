"""`python -m explorer`: the server started ready for its first visitor (explorer/ui/launch.py,
explorer/ui/preload.py), and glibc's settings in the server (explorer/data/allocator.py)."""
from __future__ import annotations

import os
import platform
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bpe_core import BPEError
from bpe_core.builtin import load_builtin
from explorer.data import allocator
from explorer.ui import preload, state
from explorer.ui.tokenizer_picker import builtin_of
from tests.conftest import stop_process

ROOT = Path(__file__).resolve().parents[2]
GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
START_TIMEOUT = 120  # seconds: a state is waited for; the two cores may be busy


def test_the_server_tunes_glibc_unless_whoever_started_it_chose(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    assert allocator.tune() == []  # the starter's choices stand
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=4")
    assert allocator.tune() == []
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    assert allocator.tune() == (["MALLOC_MMAP_THRESHOLD_", "MALLOC_ARENA_MAX"] if GLIBC else [])


def test_help_says_what_it_runs_and_starts_nothing():
    done = subprocess.run([sys.executable, "-m", "explorer", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("`python -m explorer [streamlit run's options]`")
    assert "Uvicorn" not in done.stdout


def test_the_modules_preloaded_are_the_pages_not_the_scripts():
    found = preload.modules()
    assert {"explorer.ui.store", "explorer.display.tokenize", "explorer.data.any_model"} <= set(found)
    assert not [m for m in found if m.startswith(("explorer.views", "explorer.app", "explorer.ui.launch"))]


def test_the_builtins_preloaded_are_those_the_pages_show_before_a_choice():
    names = preload.default_builtins()
    shown = {builtin_of(k) for k in (*state.TOK_DEFAULT_CHOSEN, *state.TAX_DEFAULT_CHOSEN)} - {None}
    assert shown and shown <= set(names)
    assert len(names) == len(set(names))


def test_preloading_waits_for_the_warming_then_keeps_the_merges_and_births(monkeypatch):
    asked = []

    def warming(name: str) -> str:  # the warming writes gpt2's tables during the first two looks
        asked.append(name)
        return "Preparing the built-in tokenizers in the background…" if len(asked) <= 2 else ""

    done = preload.run(names=["gpt2"], waiting=warming, poll=0.01)
    assert asked == ["gpt2"] * 3
    assert done.builtins == ["gpt2"] and done.failed == [] and done.modules == len(preload.modules())
    gpt2 = load_builtin("gpt2")
    assert "birth" in vars(gpt2) and "merges" in vars(gpt2)  # derived once, kept with the built-in
    assert gpt2.birth["Ġthe"] == gpt2.merges.index(("Ġt", "he"))


def test_a_builtin_that_cannot_load_is_said_and_the_rest_go_on(monkeypatch):
    from bpe_core.formats import builtin

    real = builtin.load_builtin

    def load(name: str):
        if name == "llama3":
            raise BPEError("llama3 needs a package: pip install something")
        return real(name)

    monkeypatch.setattr(builtin, "load_builtin", load)
    monkeypatch.setattr("bpe_core.builtin.load_builtin", load)
    done = preload.run(names=["llama3", "gpt2"], waiting=lambda name: "")
    assert done.builtins == ["gpt2"]
    assert done.failed == ["llama3: llama3 needs a package: pip install something"]


def test_a_visitors_run_goes_first(monkeypatch):
    """A step waits while a visitor's script run is under way, then goes on."""
    release, looked = threading.Event(), threading.Event()
    visitor = threading.Thread(target=release.wait, name=preload.SCRIPT_THREAD, daemon=True)
    visitor.start()
    seen_running = []
    looking = preload._visitor_running

    def visitor_running() -> bool:
        looked.set()
        return looking()

    monkeypatch.setattr(preload, "_visitor_running", visitor_running)
    monkeypatch.setattr(preload, "_first_use", lambda: seen_running.append(visitor.is_alive()))
    preloading = threading.Thread(target=preload.run, kwargs={"names": [], "give_way": 600.0})
    preloading.start()
    assert looked.wait(60)
    release.set()
    visitor.join()
    preloading.join(60)
    assert not preloading.is_alive() and seen_running == [False]


def test_the_visitors_are_waited_for_at_most_the_give_way_in_all(monkeypatch):
    """A run that never ends (one waiting for a training's job): the first step waits out the whole
    allowance, and no later step waits at all."""
    asked = []
    monkeypatch.setattr(preload, "_visitor_running", lambda: True)
    real = preload._after_visitors
    monkeypatch.setattr(preload, "_after_visitors", lambda most: asked.append(most) or real(most))
    preload.run(names=[], give_way=0.1)
    assert asked[0] == 0.1 and asked[1:] and all(most == 0.0 for most in asked[1:])


def test_a_run_that_waits_long_is_let_be(monkeypatch):
    release = threading.Event()
    visitor = threading.Thread(target=release.wait, name=preload.SCRIPT_THREAD, daemon=True)
    visitor.start()
    seen_running = []
    monkeypatch.setattr(preload, "_first_use", lambda: seen_running.append(visitor.is_alive()))
    try:
        preload.run(names=[], give_way=0.01)  # a run waiting for a training's job: preloading goes on
    finally:
        release.set()
    assert seen_running == [True]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_readme_command_serves_the_app_preloaded(tmp_path):
    """`python -m explorer` with streamlit's options: the app answering on the port given, which says
    what it preloaded once the server runs."""
    port = _free_port()
    log_path = tmp_path / "server.log"
    env = dict(os.environ)
    with open(log_path, "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "explorer", "--server.headless", "true",
                                    "--server.address", "127.0.0.1", "--server.port", str(port),
                                    "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                                   cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        preloaded = None
        while preloaded is None:
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, f"no preloading within {START_TIMEOUT} s:\n{log_path.read_text()}"
            preloaded = re.search(r"preloaded (\d+) modules and the built-ins (.*) in [\d.]+ s", log_path.read_text())
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=10) as answer:
            assert answer.read().decode().strip() == "ok"
        assert int(preloaded.group(1)) == len(preload.modules())
        assert preloaded.group(2).split(", ") == preload.default_builtins()
        assert "Traceback" not in log_path.read_text()
    finally:
        stop_process(process)


def test_the_server_does_not_collect_every_garbage_after_every_run():
    """Streamlit's default, a full collection after each script run, costs 0.1 s a run once a 30,000-merge
    training is in the server, for every session's every run: the app's config (read from the folder the
    README's command runs in) turns it off; Python's own collector still runs."""
    from streamlit import config

    assert config.get_option("runner.postScriptGC") is False
