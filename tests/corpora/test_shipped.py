"""The shipped samples (sample_corpora/data, shipped.py, build.py): what the builders make, byte for byte,
read without the packages they were built from, refused when damaged, with every source's licence."""
from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sample_corpora import __main__ as cli
from sample_corpora import build, catalog, languages, parallel, shipped
from tests.conftest import missing

REPO = Path(__file__).resolve().parents[2]


def require_sources(names: tuple[str, ...]) -> None:
    for name in names:
        try:
            build.version(name)
        except RuntimeError:
            missing(f"the {name} package is not installed")


@pytest.fixture(scope="module")
def fresh() -> dict[str, str]:
    """Everything `python -m sample_corpora build` writes, built afresh from the installed packages."""
    require_sources(build.ENGLISH_SOURCES + build.PARALLEL_SOURCES)
    return build.built_texts()


def same_python() -> None:
    """The English corpus reads the running Python's standard library: a rebuild can only match on the
    Python it was built with."""
    built = shipped.manifest()["files"][build.ENGLISH_FILE]["sources"]["python"]
    if platform.python_version() != built:
        pytest.skip(f"the English sample was built with Python {built}, this is {platform.python_version()}")


def test_the_parallel_set_is_what_its_builder_makes(fresh: dict[str, str]) -> None:
    """Each language's shipped file is, byte for byte, `build_parallel` on Django's and Sphinx's catalogs."""
    langs = languages.list_languages()
    made = parallel.build_parallel([(lang.code, dict(lang.locales)) for lang in langs])
    for lang in langs:
        name = shipped.parallel_name(lang.code)
        assert (shipped.DATA / name).read_bytes() == made.text(lang.code).encode("utf-8") == fresh[name].encode()
    assert languages.load_parallel() == {lang.code: made.text(lang.code) for lang in langs}
    messages = languages.load_parallel_messages()  # split as built, the messages that span lines too
    assert messages == dict(made.messages) and fresh[shipped.MESSAGE_LINES] == languages.message_lines(messages)
    assert sum("\n" in message for message in messages["en"]) >= 5


def test_the_english_corpus_is_what_its_builder_makes(fresh: dict[str, str]) -> None:
    """The shipped English corpus is `build_english` at the size the app built on first use, byte for byte."""
    same_python()
    text = fresh[build.ENGLISH_FILE]
    assert shipped.decode_file(build.ENGLISH_FILE, (shipped.DATA / build.ENGLISH_FILE).read_bytes()) == text
    assert catalog.load_corpus("english") == text
    assert build.ENGLISH_BYTES == catalog.DEFAULT_TARGET_BYTES and 4_900_000 < len(text.encode("utf-8")) <= 5_000_000


def test_a_fresh_build_changes_no_file(fresh: dict[str, str]) -> None:
    """The manifest, the licences and the samples: `python -m sample_corpora build --check` finds nothing."""
    same_python()
    assert build.differences(fresh) == {}
    assert {p.relative_to(shipped.DATA).as_posix() for p in shipped.DATA.rglob("*") if p.is_file()} == {
        *fresh, build.APACHE_TEXT}


def test_the_manifest_names_the_pinned_sources() -> None:
    pins = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (REPO / name).read_text(encoding="utf-8").splitlines():
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==(\S+)", line.strip())
            if match:
                pins[match.group(1).lower()] = match.group(2)
    files = shipped.manifest()["files"]
    codes = [lang.code for lang in languages.list_languages()]
    assert set(files) == {build.ENGLISH_FILE, shipped.MESSAGE_LINES, *map(shipped.parallel_name, codes)}
    for name, entry in files.items():
        for source, version in entry["sources"].items():
            assert source == "python" or pins[source] == version, (name, source)


def test_every_source_has_its_licence_beside_the_files() -> None:
    page = (shipped.DATA / build.LICENSES).read_text(encoding="utf-8")
    sources = {s for entry in shipped.manifest()["files"].values() for s in entry["sources"]}
    assert sources == {source.distribution for source in build.SOURCES}
    for source in build.SOURCES:
        row = next(line for line in page.splitlines() if line.startswith(f"| {source.title} |"))
        assert source.licence in row and f"`{build.licence_name(source)}`" in row
        text = (shipped.DATA / build.licence_name(source)).read_text(encoding="utf-8")
        assert len(text) > 500 and ("Copyright" in text or "Apache License" in text), source.distribution


def test_the_samples_load_without_the_packages_they_come_from(tmp_path: Path) -> None:
    """A light install has none of the source packages: the app's loads import none of them."""
    blocked = ("django", "sphinx", "hypothesis", "pytest", "_pytest")
    script = f"""
import importlib.abc, sys
BLOCKED = {blocked!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("blocked: " + name)
        return None
sys.meta_path.insert(0, Block())
from sample_corpora import load_corpus, load_parallel
english, texts = load_corpus("english"), load_parallel()
assert len(english) > 4_000_000 and len(texts) == 15 and "Déconnexion" in texts["fr"], (len(english), list(texts))
assert not [name for name in sys.modules if name.split(".")[0] in BLOCKED]
print("ok")
"""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BPE_EXPLORER_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert not (tmp_path / "cache").exists()  # read from the package, nothing built or cached


def test_a_damaged_or_missing_file_is_refused_with_the_command_that_rebuilds_it(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(shipped.DATA, folder)
    name = shipped.parallel_name("fr")
    assert shipped.read_shipped(name, folder=folder) == languages.load_parallel()["fr"]
    (folder / name).write_text((folder / name).read_text(encoding="utf-8").replace("Déconnexion", "Deconnexion"),
                               encoding="utf-8")
    with pytest.raises(RuntimeError, match=f"{re.escape(name)} is not the one its manifest describes; "
                                           "python -m sample_corpora build rebuilds it"):
        shipped.read_shipped(name, folder=folder)
    (folder / build.ENGLISH_FILE).write_bytes(b"\x1f\x8b\x08 cut short")
    with pytest.raises(RuntimeError, match="english.txt.gz cannot be read .*python -m sample_corpora build"):
        shipped.read_shipped(build.ENGLISH_FILE, folder=folder)
    with pytest.raises(RuntimeError, match="not in the sample data's manifest"):
        shipped.read_shipped("parallel/xx.txt", folder=folder)
    (folder / shipped.MANIFEST).unlink()
    with pytest.raises(RuntimeError, match="manifest cannot be read"):
        shipped.read_shipped(name, folder=folder)


def test_gzip_files_are_the_same_bytes_on_every_build() -> None:
    text = "caf\u00e9\r\nno final newline"
    data = shipped.encode_file("x.txt.gz", text)
    assert data == shipped.encode_file("x.txt.gz", text) and data[:2] == b"\x1f\x8b"
    assert shipped.decode_file("x.txt.gz", data) == text
    assert shipped.encode_file("x.txt", text) == text.encode("utf-8")


def test_build_writes_only_what_differs_and_check_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    texts = {"a.txt.gz": "one\n", "parallel/b.txt": "two\n", "manifest.json": json.dumps({"files": {}})}
    monkeypatch.setattr(build, "built_texts", lambda: texts)
    monkeypatch.setattr(build, "DATA", tmp_path)
    assert cli.main(["build", "--check"]) == 1
    assert "a.txt.gz: missing or unreadable" in capsys.readouterr().err
    assert cli.main(["build"]) == 0
    assert shipped.decode_file("a.txt.gz", (tmp_path / "a.txt.gz").read_bytes()) == "one\n"
    assert (tmp_path / "parallel" / "b.txt").read_text(encoding="utf-8") == "two\n"
    assert cli.main(["build", "--check"]) == 0
    (tmp_path / "parallel" / "b.txt").write_text("changed\n", encoding="utf-8")
    assert build.differences(texts, tmp_path) == {"parallel/b.txt": "differs from a fresh build"}
    assert build.write(texts, tmp_path) == ["parallel/b.txt"]
    assert build.differences(texts, tmp_path) == {}


def test_a_missing_source_package_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(build, "SOURCES", (*build.SOURCES, build.Source("no-such-package", "x", "MIT", "x", "x")))
    assert cli.main(["build", "--check"]) == 2
    assert "error: the 'no-such-package' package is not installed" in capsys.readouterr().err
