"""The server's warming (explorer/data/warm.py) and the language counts' lock (language_tax_cache.py)."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bpe_core import BPEError
from bpe_core.builtin import builtin_info, builtin_names, forget_loaded, load_builtin
from bpe_core.formats import builtin, builtin_cache, builtin_parts
from explorer.data import language_tax_cache, warm
from sample_corpora import load_parallel
from tests.conftest import missing

WAIT = 120  # seconds a test waits for a state it expects at once; the two cores may be busy


@pytest.fixture
def new_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Empty caches, and no tokenizer loaded in this process, before and after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path / "bpe-explorer"))
    forget_loaded()
    yield tmp_path
    forget_loaded()


def until(condition, what: str) -> None:
    """Wait for a state (up to WAIT seconds; the two cores may be busy)."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


def test_warming_leaves_nothing_for_a_later_server_to_build(new_install: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """After `python -m explorer.data.warm`, a new process loads every built-in, its merges and its language
    counts from disk: nothing is rebuilt, derived or counted again; and the next warming does nothing."""
    assert warm.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    if any(line.startswith("  skipped: ") for line in lines):
        missing(f"a built-in's package is not installed ({next(x for x in lines if x.startswith('  skipped'))})")
    total = len(warm.default_steps())
    assert [line.split("]")[0] for line in lines[:-2]] == [f"[{n}/{total}" for n in range(1, total + 1)]
    assert lines[-2].startswith(f"ready: the built-in tokenizers' caches ({total} steps")
    assert lines[-1].startswith("bytecode: ") and " up to date (" in lines[-1]

    forget_loaded()  # as a new server would start

    def rebuilt(*args, **kwargs):
        raise AssertionError("built again: the warming left it out")

    for module, name in ((builtin, "_rebuild"), (builtin_cache, "derive_merges"),
                         (builtin_cache, "read_tiktoken_ranks"), (builtin_parts, "read_tekken_ranks"),
                         (language_tax_cache, "language_stats")):
        monkeypatch.setattr(module, name, rebuilt)
    texts = load_parallel()
    for name in builtin_names(parts=True):
        tokenizer = load_builtin(name)
        assert len(tokenizer.merges or ()) > 1000, name
        if name in builtin_names():
            assert set(language_tax_cache.builtin_language_stats(name, texts)) == set(texts)
    monkeypatch.setattr(warm, "default_steps", lambda: pytest.fail("warmed again"))
    assert warm.main([]) == 0
    ready, compiled = capsys.readouterr().out.splitlines()
    assert ready == "ready: the built-in tokenizers' caches were built before"
    assert compiled.startswith("bytecode: 0 modules compiled, ")  # the first run wrote them all


def test_a_failing_step_is_said_and_the_others_still_run() -> None:
    ran: list[str] = []

    def fail(exc: Exception):
        def run() -> None:
            ran.append(type(exc).__name__)
            raise exc
        return run

    steps = [warm.Step("first", lambda: ran.append("first")),
             warm.Step("a missing package", fail(BPEError("pip install it"))),
             warm.Step("a bug", fail(KeyError("x"))),
             warm.Step("last", lambda: ran.append("last"))]
    seen: list[warm.Progress] = []
    final = warm.run_steps(steps, report=seen.append)
    assert ran == ["first", "BPEError", "KeyError", "last"]
    failed = ("a missing package: pip install it", "a bug: KeyError: 'x'")
    assert final == seen[-1] == warm.Progress(4, 4, "", failed, ended=True) and final.finished
    assert [(p.done, p.now) for p in seen[:-1]] == [(0, "first"), (1, "a missing package"), (2, "a bug"), (3, "last")]
    assert seen[1].sentence() == "Preparing the built-in tokenizers in the background (step 2 of 4: a missing package)…"
    assert final.sentence() == ""
    # The server went away after the first step: the others are not run.
    stopped = warm.run_steps(steps, report=seen.append, keep_going=lambda: len(ran) < 5)
    assert ran[4:] == ["first"] and stopped == warm.Progress(1, 4, "", (), ended=True) and not stopped.finished


def test_start_runs_one_process_per_server_and_follows_its_progress(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert warm.enabled() is False and warm.start() is False  # inside a test: never
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(warm, "_progress", None)
    for off in ("0", "false", "No"):
        monkeypatch.setenv(warm.ENV_VAR, off)
        assert warm.start() is False and warm.progress() == warm.Progress(0, 0)
    monkeypatch.setenv(warm.ENV_VAR, "1")
    go_on, stop = tmp_path / "go on", tmp_path / "stop"
    stand_in = ("import os, time\n"
                "print('[1/2] the first table', flush=True)\n"
                f"while not os.path.exists({str(go_on)!r}): time.sleep(0.05)\n"
                "print('[2/2] the second', flush=True)\n"
                "print('  skipped: the second: no package', flush=True)\n"
                "print('ready: done', flush=True)\n"
                f"while not os.path.exists({str(stop)!r}): time.sleep(0.05)\n"  # the bytecode, say
                "print('bytecode: 3 modules compiled, 0 up to date (0.1 s)', flush=True)\n")
    assert warm.start([sys.executable, "-c", stand_in]) is True
    assert warm.start([sys.executable, "-c", stand_in]) is False  # the app's every run calls it: one process
    until(lambda: warm.progress().now == "the first table", "the first step")
    assert warm.progress().sentence().endswith("(step 1 of 2: the first table)…")
    assert warm.waiting_for("o200k_base") != ""  # a page holds GPT-4o back: the warming is still to write it
    go_on.touch()
    until(lambda: warm.progress().ended, "the caches' end")  # "ready:": the caches are written
    assert warm.progress() == warm.Progress(2, 2, "", ("the second: no package",), ended=True)
    assert warm.progress().finished and warm.progress().sentence() == ""
    assert warm.waiting_for("o200k_base") == "" and warm.waiting_for("o200k_base", until=warm.COUNTING) == ""
    stop.touch()  # the process ends after its bytecode line: nothing changes
    until(lambda: not any(t.name == "bpe-explorer-warm" for t in threading.enumerate()), "the process's end")
    assert warm.progress() == warm.Progress(2, 2, "", ("the second: no package",), ended=True)


def test_on_a_warm_machine_no_page_waits_even_before_the_process_speaks(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the stamp in place the process only checks the bytecode: a page must not hold a built-in back
    in the second before its first line (nor poll for it)."""
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(warm, "_progress", None)
    monkeypatch.setenv(warm.ENV_VAR, "1")
    monkeypatch.setattr(warm, "already_warm", lambda: True)
    go_on = tmp_path / "go on"
    real, started = subprocess.Popen, []

    def popen(argv, **kwargs):
        started.append(argv)
        return real([sys.executable, "-c", f"import os, time\nwhile not os.path.exists({str(go_on)!r}): "
                     "time.sleep(0.05)\nprint('ready: built before', flush=True)"], **kwargs)

    monkeypatch.setattr(warm.subprocess, "Popen", popen)
    assert warm.start() is True
    assert [argv[1:3] for argv in started] == [["-m", "explorer.data.warm"]]  # still started: the bytecode
    assert warm.progress().ended and warm.waiting_for("o200k_base") == ""
    go_on.touch()
    until(lambda: not any(t.name == "bpe-explorer-warm" for t in threading.enumerate()), "the process's end")
    assert warm.progress().ended and warm.waiting_for("o200k_base", until=warm.COUNTING) == ""


def test_a_page_waits_for_the_warmings_count_instead_of_counting_again(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads ask for one built-in's counts at once (the warming and a page): one counts, the other
    reads what it wrote."""
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path))
    texts = {"en": "one two", "fr": "un deux"}
    counted, reads = [], []
    counting = threading.Event()
    second_asked = threading.Event()
    second_read = threading.Event()
    real_read, real_path = language_tax_cache._read, language_tax_cache._path

    def path(name, texts_):
        if threading.current_thread().name == "page":
            second_asked.set()
        return real_path(name, texts_)

    def read(path_, codes):
        reads.append(threading.current_thread().name)
        if threading.current_thread().name == "page":
            second_read.set()
        return real_read(path_, codes)

    def count(tokenizer, texts_):
        counted.append(threading.current_thread().name)
        counting.set()
        second_asked.wait(WAIT)
        second_read.wait(1.0)  # set only if the page reads before this count is written: the bug
        return {code: language_tax_cache.TextStats(bytes=len(t), characters=len(t), words=2, tokens=2)
                for code, t in texts_.items()}

    monkeypatch.setattr(language_tax_cache, "_path", path)
    monkeypatch.setattr(language_tax_cache, "_read", read)
    monkeypatch.setattr(language_tax_cache, "language_stats", count)
    monkeypatch.setattr(language_tax_cache, "load_builtin", lambda name: builtin_info(name))
    results: dict[str, object] = {}
    threads = [threading.Thread(target=lambda: results.update({threading.current_thread().name:
               language_tax_cache.builtin_language_stats("gpt2", texts)}), name=name) for name in ("warm", "page")]
    threads[0].start()
    assert counting.wait(WAIT)  # the warming is counting: now the page asks
    threads[1].start()
    for thread in threads:
        thread.join(WAIT)
    assert counted == ["warm"] and reads == ["warm", "page"]
    assert results["warm"] == results["page"]


@pytest.mark.parametrize(("page", "languages"), [("views/tokenize.py", False), ("views/language_tax.py", True)])
def test_a_page_draws_at_once_and_shows_the_built_ins_the_warming_is_preparing(monkeypatch: pytest.MonkeyPatch,
                                                                               page: str, languages: bool) -> None:
    """A first visit while the warming has not reached GPT-4o: the page does not build it itself (seconds of
    work the warming does a step later); it draws what it has and says GPT-4o is on its way, with the
    warming's step. Once the warming is past it, the page shows it."""
    from streamlit.testing.v1 import AppTest

    from explorer.ui import state

    steps = [step.what for step in warm.default_steps()]
    gpt4o = next(i for i, what in enumerate(steps) if what.startswith("GPT-4o (o200k_base): ")
                 and ("languages" in what) == languages)
    monkeypatch.setattr(warm, "_progress", warm.Progress(gpt4o, len(steps), steps[gpt4o]))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "explorer" / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(page).run()
    key = state.TOK_W_CHOSEN if languages is False else state.TAX_W_CHOSEN
    at.multiselect(key=key).set_value(["builtin:gpt2", "builtin:o200k_base"]).run()
    assert not at.exception and not at.error
    (line,) = [i.value.replace("\\", "") for i in at.info if "once ready" in i.value]  # unescaped
    assert line.startswith("GPT-4o (o200k_base) appears here once ready.")
    assert f"(step {gpt4o + 1} of {len(steps)}: GPT-4o (o200k_base): " in line
    shown = " ".join(str(frame.value.to_dict()) for frame in at.dataframe)
    assert "GPT-2" in shown and "GPT-4o" not in shown

    monkeypatch.setattr(warm, "_progress", warm.Progress(gpt4o + 1, len(steps), steps[gpt4o + 1]))
    at.run()
    assert not at.exception and not [i.value for i in at.info if "once ready" in i.value]
    shown = " ".join(str(frame.value.to_dict()) for frame in at.dataframe)
    assert "GPT-2" in shown and "GPT-4o" in shown


def test_report_card_holds_back_a_built_in_whose_checks_the_warming_is_making(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report card waits for a built-in's vocabulary checks, the warming's last step for it: the page draws
    the other cards at once and says GPT-4o is on its way; once the warming is past that step, GPT-4o is graded."""
    from streamlit.testing.v1 import AppTest

    steps = [step.what for step in warm.default_steps()]
    checking = steps.index(f"GPT-4o (o200k_base): {warm.CHECKING}")
    monkeypatch.setattr(warm, "_progress", warm.Progress(checking, len(steps), steps[checking]))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "explorer" / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("views/report.py").run()
    assert not at.exception and not at.error
    (line,) = [i.value.replace("\\", "") for i in at.info if "once ready" in i.value]
    assert line.startswith("GPT-4o (o200k_base) appears here once ready.")
    graded = " ".join(m.value for m in at.markdown).replace("\\", "")  # unescaped
    assert "GPT-2 (gpt2)" in graded and "GPT-4o" not in graded

    monkeypatch.setattr(warm, "_progress", warm.Progress(checking + 1, len(steps), steps[checking + 1]))
    at.run()
    assert not at.exception and not [i.value for i in at.info if "once ready" in i.value]
    assert "GPT-4o (o200k_base)" in " ".join(m.value for m in at.markdown).replace("\\", "")
