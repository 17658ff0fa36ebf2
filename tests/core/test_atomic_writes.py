"""Every file the product writes is written whole or not at all (`bpe_core.atomic`).

A full disk (ENOSPC) or Ctrl-C halfway through a write is simulated by `os.write` patched to write
part of its bytes and then raise: the file written over keeps every byte it had, no temporary file
is left beside it, and the error reaches the caller as before (a one-line BPEError, exit status 2
with one `error:` line on the command line; KeyboardInterrupt raised, status 130). Then the same
write, unbroken, is made, so each test also sees that its fault stood between the old file and a
new one. A real SIGKILL halfway through a save, and a real write refused by the kernel (a file size
limit), leave the old model loadable. The caches' writes: tests/core/test_atomic_caches.py.
"""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bpe_core import atomic
from bpe_core.cli import main
from bpe_core.families.registry import families, family, family_of
from bpe_core.formats.detect import load_model
from bpe_core.formats.gpt2 import save_gpt2
from bpe_core.formats.ours import save_model
from bpe_core.settings import BPEError
from tests.conftest import ROOT

TRAINABLE = [one.name for one in families(trainable=True)]
EXPORTS = [(one.name, fmt) for one in families(trainable=True) for fmt in one.exports]
OLD_TEXT = "low low lower lowest the cat sat on the mat\n" * 6
NEW_TEXT = "newer newest wider widest a dog ran in the park\n" * 6
SIZE = "300"  # a vocabulary size every family takes (the byte families need more than 256)
NO_SPACE = os.strerror(errno.ENOSPC)


def full_disk() -> BaseException:
    return OSError(errno.ENOSPC, NO_SPACE)


FAULTS: dict[str, Callable[[], BaseException]] = {"full disk": full_disk, "ctrl-c": KeyboardInterrupt}
# A rename can fail in other ways than a write can.
REPLACE_FAULTS = {**FAULTS, "I/O error": lambda: OSError(errno.EIO, os.strerror(errno.EIO))}


@contextlib.contextmanager
def broken_writes(fault: Callable[[], BaseException], *, at: int = 1) -> Iterator[list[int]]:
    """Within the block, `os.write` is patched so that the `at`-th write to a file (stdout and
    stderr aside) writes half its bytes and then raises `fault()`; the block gets the list of the
    writes made so far."""
    real = os.write
    made: list[int] = []

    def write(fd: int, data: bytes) -> int:
        if fd in (1, 2):
            return real(fd, data)
        made.append(fd)
        if len(made) == at:
            view = memoryview(data)
            real(fd, view[: view.nbytes // 2])
            raise fault()
        return real(fd, data)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "write", write)
        yield made


def failing(fault: str, *, cache: bool = False) -> contextlib.AbstractContextManager[object]:
    """What a write that meets `fault` does: Ctrl-C goes on as KeyboardInterrupt; a full disk is a
    BPEError, or nothing for a cache (a cache that cannot be written is skipped)."""
    if fault == "ctrl-c":
        return pytest.raises(KeyboardInterrupt)
    return contextlib.nullcontext() if cache else pytest.raises(BPEError, match=NO_SPACE)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (temporary ones too, hidden or not) and its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str]:
    """(exit status, stderr) of one in-process run of the command line."""
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def train_args(name: str, corpus: Path, output: Path) -> list[str | Path]:
    """`train` a small model of family `name`, in bytes mode where the family has modes (so a BPE
    model can also be exported as GPT-2 files)."""
    mode = ["--mode", "bytes"] if "mode" in family(name).cli_options else []
    return ["train", corpus, "--model", name, "--vocab-size", SIZE, *mode, "-o", output]


@dataclass(frozen=True)
class Models:
    """Two corpora and, for each family that trains, a model of each (our JSON)."""

    old_corpus: Path
    new_corpus: Path
    folder: Path

    def old(self, name: str) -> Path:
        return self.folder / f"{name}-old.json"

    def new(self, name: str) -> Path:
        return self.folder / f"{name}-new.json"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Models:
    folder = tmp_path_factory.mktemp("models")
    made = Models(folder / "old.txt", folder / "new.txt", folder)
    made.old_corpus.write_text(OLD_TEXT, encoding="utf-8")
    made.new_corpus.write_text(NEW_TEXT, encoding="utf-8")
    for name in TRAINABLE:
        for corpus, model in ((made.old_corpus, made.old(name)), (made.new_corpus, made.new(name))):
            assert main([str(a) for a in train_args(name, corpus, model)]) == 0
        assert made.old(name).read_bytes() != made.new(name).read_bytes()
    return made


# ---- our JSON, through the API --------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", TRAINABLE)
def test_a_model_saved_over_another_on_a_full_disk_or_at_ctrl_c_leaves_the_old_one(
    name, fault, models, tmp_path
):
    expected = models.folder / f"{name}-expected-{fault}.json"
    new = load_model(models.new(name))
    save_model(new, expected)
    target = tmp_path / "model.json"
    shutil.copyfile(models.old(name), target)
    before = snapshot(tmp_path)

    with broken_writes(FAULTS[fault]) as made, failing(fault) as caught:
        save_model(new, target)
    assert made, "the save wrote nothing through os.write"
    if fault == "full disk":
        assert str(caught.value) == f"cannot write {target}: {NO_SPACE}"
    assert snapshot(tmp_path) == before
    assert family_of(load_model(target)) is family(name)

    save_model(new, target)
    assert snapshot(tmp_path) == {"model.json": expected.read_bytes()}


# ---- every output of the command line -------------------------------------------------------


def command_cases() -> list[tuple[str, str, str]]:
    """(id, command, family) of every command that writes files: `train -o` and `export --format
    hf` for each family, `export` in each family's own formats, `count -o`."""
    cases = [(f"train-{name}", "train", name) for name in TRAINABLE]
    cases += [(f"export-hf-{name}", "hf", name) for name in TRAINABLE]
    cases += [(f"export-{fmt}-{name}", fmt, name) for name, fmt in EXPORTS]
    return [*cases, ("count", "count", "")]


def command(kind: str, name: str, models: Models, out: Path, *, new: bool) -> list[str | Path]:
    corpus = models.new_corpus if new else models.old_corpus
    if kind == "train":
        return train_args(name, corpus, out / "model.json")
    if kind == "count":
        return ["count", corpus, "-o", out / "counts.tsv"]
    model = models.new(name) if new else models.old(name)
    output = out / "tokenizer.json" if kind == "hf" else out / kind
    return ["export", model, "--format", kind, "-o", output]


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize(("kind", "name"), [case[1:] for case in command_cases()],
                         ids=[case[0] for case in command_cases()])
def test_a_command_on_a_full_disk_or_at_ctrl_c_leaves_its_old_output(
    kind, name, fault, models, tmp_path, capsys
):
    out = tmp_path / "out"
    out.mkdir()
    assert run(capsys, *command(kind, name, models, out, new=False))[0] == 0
    before = snapshot(out)
    assert before

    with broken_writes(FAULTS[fault]) as made:
        status, err = run(capsys, *command(kind, name, models, out, new=True))
    assert made, "the command wrote nothing through os.write"
    if fault == "full disk":
        assert status == 2 and err.startswith("error: ") and err.count("\n") == 1, err
        assert NO_SPACE in err and "Traceback" not in err
    else:
        assert (status, err) == (130, "\nerror: interrupted\n")
    assert snapshot(out) == before

    assert run(capsys, *command(kind, name, models, out, new=True))[0] == 0
    after = snapshot(out)
    assert after.keys() == before.keys() and after != before


# ---- the GPT-2 pair: both files or neither --------------------------------------------------


@pytest.fixture
def gpt2_pair(models, tmp_path) -> tuple[Path, dict[str, bytes], object]:
    """A folder holding an old GPT-2 pair, its files, and a new model to write over it."""
    folder = tmp_path / "gpt2"
    save_gpt2(load_model(models.old("bpe")), folder)
    return folder, snapshot(folder), load_model(models.new("bpe"))


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("at", [1, 2], ids=["vocab.json", "merges.txt"])
def test_a_fault_while_writing_either_gpt2_file_leaves_both_old_files(at, fault, gpt2_pair):
    folder, before, new = gpt2_pair
    with broken_writes(FAULTS[fault], at=at) as made, failing(fault) as caught:
        save_gpt2(new, folder)
    assert len(made) == at
    if fault == "full disk":
        assert str(caught.value) == f"cannot write {folder / ('vocab.json', 'merges.txt')[at - 1]}: {NO_SPACE}"
    assert snapshot(folder) == before


@contextlib.contextmanager
def broken_replace(name: str, fault: Callable[[], BaseException]) -> Iterator[list[str]]:
    """Within the block, `os.replace` raises `fault()` instead of moving a temporary file onto
    `name`; the block gets the list of the names temporary files were moved onto."""
    real = os.replace
    moved: list[str] = []

    def replace(src: str, dst: str) -> None:
        if Path(src).suffix == ".tmp":
            if Path(dst).name == name:
                raise fault()
            moved.append(Path(dst).name)
        real(src, dst)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", replace)
        yield moved


@pytest.mark.parametrize("fault", REPLACE_FAULTS)
@pytest.mark.parametrize("name", ["vocab.json", "merges.txt"])
def test_a_fault_while_moving_either_gpt2_file_into_place_leaves_both_old_files(name, fault, gpt2_pair):
    folder, before, new = gpt2_pair
    refused = KeyboardInterrupt if fault == "ctrl-c" else BPEError
    with broken_replace(name, REPLACE_FAULTS[fault]) as moved, pytest.raises(refused):
        save_gpt2(new, folder)
    assert moved == ([] if name == "vocab.json" else ["vocab.json"])  # the second fails after the first moved
    assert snapshot(folder) == before

    save_gpt2(new, folder)
    assert snapshot(folder).keys() == before.keys() and snapshot(folder) != before


def test_a_new_gpt2_pair_whose_second_file_fails_leaves_neither(models, tmp_path):
    folder = tmp_path / "gpt2"
    with broken_replace("merges.txt", full_disk), pytest.raises(BPEError, match="cannot write .*merges.txt"):
        save_gpt2(load_model(models.new("bpe")), folder)
    assert snapshot(folder) == {}


# ---- real processes: a kill, and a write the kernel refuses ------------------------------------

# Trains a large model, then saves it over argv[1] with `os.write` patched to write half of the
# first block, say so on stdout and wait on stdin: the parent kills it there.
KILLED_CHILD = """
import os, sys
from bpe_core import train
from bpe_core.formats.ours import save_model

model = train(open(sys.argv[2], encoding="utf-8").read(), merges=1500)
real = os.write

def write(fd, data):
    if fd > 2:
        view = memoryview(data)
        real(fd, view[: view.nbytes // 2])
        sys.stdout.write(f"wrote {view.nbytes // 2} of {view.nbytes} bytes\\n")
        sys.stdout.flush()
        sys.stdin.read()
    return real(fd, data)

os.write = write
save_model(model, sys.argv[1])
sys.stdout.write("saved\\n")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_save_killed_halfway_leaves_the_old_model_loadable(models, tmp_path):
    target = tmp_path / "model.json"
    shutil.copyfile(models.old("bpe"), target)
    old = target.read_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_CHILD, str(target), str(ROOT / "sample_corpora" / "multilingual.txt")],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        said = child.stdout.readline()
        assert said.startswith("wrote ") and int(said.split()[1]) > 100_000, said  # a large model, half written
        temporary = [p for p in tmp_path.iterdir() if p != target]
        assert len(temporary) == 1 and temporary[0].name.startswith(".model.json.")
        assert temporary[0].stat().st_size == int(said.split()[1])
        child.kill()
        assert child.wait() == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert target.read_bytes() == old
    assert load_model(target).merges == load_model(models.old("bpe")).merges
    save_model(load_model(target), target)  # the next save beside it clears what the killed one left
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.skipif(os.name != "posix", reason="dead writers are told by their process id on POSIX only")
def test_a_save_removes_only_the_temporary_files_of_dead_writers_of_this_host(models, tmp_path):
    target = tmp_path / "model.json"
    shutil.copyfile(models.old("bpe"), target)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone, alive = int(dead.stdout), os.getpid()
    host = atomic._host_tag()
    other_host = f"{(int(host, 16) + 1) % 0x100000000:08x}"
    names = {
        f".model.json.{host}-{gone}-0123abcd.tmp": False,  # a killed writer's: removed
        f".model.json.{host}-{alive}-0123abcd.tmp": True,  # a writer still at work: kept
        f".model.json.{other_host}-{gone}-0123abcd.tmp": True,  # another machine's process ids
        f".other.json.{host}-{gone}-0123abcd.tmp": True,  # another file's
        f".model.json.{host}-{gone}-0123abcd.old": True,  # an old file kept aside is never swept
    }
    names[f".model.json.{host}-99999999999999999999-0123abcd.tmp"] = True  # no such process id: not judged
    names[f".model.json.{host}-{gone}٣-0123abcd.tmp"] = True  # digits of another script: not an id
    for name in names:
        (tmp_path / name).write_bytes(b"{")
    save_model(load_model(target), target)
    assert {p.name for p in tmp_path.iterdir()} == {"model.json", *(name for name, kept in names.items() if kept)}


@pytest.mark.parametrize("name", ["é" * 125 + ".json", "m" * 250 + ".json"])
def test_a_name_near_the_longest_a_file_may_have_is_written_and_replaced(name, models, tmp_path):
    """The temporary and kept-aside names cut a long name (by bytes, at a character's end) to fit in 255 bytes."""
    target = tmp_path / name
    assert len(os.fsencode(name)) <= 255
    save_model(load_model(models.old("bpe")), target)
    atomic.write_files([(target, b"new"), (tmp_path / "other.json", b"other")])  # both kept aside, then placed
    assert target.read_bytes() == b"new" and {p.name for p in tmp_path.iterdir()} == {name, "other.json"}


# Runs the command line with files limited to argv[1] bytes, as a full disk would limit them: a
# longer write fails with EFBIG when argv[2] is "refused"; when it is "killed", the kernel kills
# the process there (SIGXFSZ), halfway through the file.
LIMITED_CHILD = """
import resource, signal, sys
from bpe_core.cli import main

signal.signal(signal.SIGXFSZ, signal.SIG_IGN if sys.argv[2] == "refused" else signal.SIG_DFL)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs file size limits (POSIX)")
@pytest.mark.parametrize("end", ["refused", "killed"])
def test_a_model_too_large_for_the_disk_leaves_the_old_one(end, models, tmp_path):
    target = tmp_path / "model.json"
    shutil.copyfile(models.old("bpe"), target)
    old = target.read_bytes()
    argv = train_args("bpe", ROOT / "sample_corpora" / "multilingual.txt", target)
    argv[argv.index("--vocab-size") + 1] = "2000"
    done = subprocess.run([sys.executable, "-c", LIMITED_CHILD, str(len(old) + 10), end, *map(str, argv)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    left = sorted(p.name for p in tmp_path.iterdir())
    if end == "refused":
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"error: cannot write {target}: {os.strerror(errno.EFBIG)}\n"
        assert left == ["model.json"]
    else:
        assert done.returncode == -signal.SIGXFSZ, done.stderr
        assert len(left) == 2 and left[0].startswith(".model.json.")  # the killed write's temporary file
        assert (tmp_path / left[0]).stat().st_size == len(old) + 10
    assert target.read_bytes() == old
    assert load_model(target).merges == load_model(models.old("bpe")).merges
