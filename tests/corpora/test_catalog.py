"""Tests for the sample corpora catalog (sample_corpora/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sample_corpora
from sample_corpora import builders, catalog, shipped

CORPORA_DIR = Path(catalog.__file__).resolve().parent
SMALL_TARGET = 200_000

EXPECTED_IDS = [
    "seed000",
    "seed002",
    "seed003",
    "english",
    "python",
    "hindi",
    "tamil",
    "multilingual",
    "tricky",
]

SEED000 = (
    "low low low low low lower lower newest newest newest newest newest newest "
    "widest widest widest new new newer\n"
)
SEED002 = (
    "the cat sat on the mat\n"
    "the dog ran in the park\n"
    "cats and dogs are pets\n"
    "the cat chased the dog\n"
    "dogs like to run and play\n"
    "cats prefer to sleep all day\n"
    "the park has many dogs and cats\n"
    "running dogs and sleeping cats\n"
    "the fastest dog won the race\n"
    "slower cats prefer the mat\n"
    "cats run and dogs play in parks\n"
    "the dog chased a cat running fast\n"
)
SEED003 = "like liker love lovely hug hugs hugging hearts"

@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture(autouse=True)
def small_builds(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real cache dir, and build generated corpora small.

    The cache dir is shared by this module's tests so each small corpus is
    built once; tests about caching itself use ``fresh_cache`` instead.
    """
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(shared_cache))
    monkeypatch.setattr(catalog, "DEFAULT_TARGET_BYTES", SMALL_TARGET)


@pytest.fixture()
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(cache))
    return cache


# --------------------------------------------------------------------------
# Index and listing
# --------------------------------------------------------------------------


def test_ids_and_order() -> None:
    ids = [corpus.id for corpus in catalog.list_corpora()]
    assert ids == EXPECTED_IDS
    assert ids[0] == "seed000"


def test_package_reexports_public_api() -> None:
    for name in ("SampleCorpus", "list_corpora", "load_corpus", "build_english", "build_python"):
        assert getattr(sample_corpora, name) is getattr(catalog, name)


def test_metadata_fields() -> None:
    for corpus in catalog.list_corpora():
        assert isinstance(corpus, catalog.SampleCorpus)
        for field in ("id", "title", "description", "source", "licence", "kind"):
            value = getattr(corpus, field)
            assert isinstance(value, str) and value.strip(), (corpus.id, field)
        assert "\n" not in corpus.description
        assert corpus.kind in ("file", "shipped", "generated")
        if corpus.kind == "generated":
            assert corpus.licence.startswith("PSF License") and "not redistributed" in corpus.licence
        if corpus.kind != "file":
            assert corpus.licence.startswith("PSF License") and "Python standard library" in corpus.source
        if corpus.kind == "shipped":
            assert "Shipped with the app" in corpus.licence and "built on first use" not in corpus.description
    kinds = {corpus.id: corpus.kind for corpus in catalog.list_corpora()}
    assert (kinds["english"], kinds["python"]) == ("shipped", "generated")
    assert all(kind == "file" for cid, kind in kinds.items() if cid not in ("english", "python"))


def test_corpus_is_frozen() -> None:
    corpus = catalog.list_corpora()[0]
    with pytest.raises(AttributeError):
        corpus.title = "changed"  # type: ignore[misc]


def test_index_points_at_every_text_file() -> None:
    entries = json.loads((CORPORA_DIR / "index.json").read_text(encoding="utf-8"))
    files = {entry["file"] for entry in entries if entry["kind"] == "file"}
    builders = {entry["kind"]: entry["builder"] for entry in entries if entry["kind"] != "file"}
    assert files == {path.name for path in CORPORA_DIR.glob("*.txt")}
    assert builders == {"shipped": "build_english", "generated": "build_python"}
    assert {entry["file"] for entry in entries if entry["kind"] == "shipped"} == {"english.txt.gz"}
    lessons = {"seed000": "low, lower, newest, widest", "seed002": "cats and dogs", "seed003": "like, love, hug"}
    for entry in entries:
        if entry["id"].startswith("seed"):  # the lessons are named by their titles, as a teacher's audience knows them
            lesson = f"BPE lesson \u201c{lessons[entry['id']]}\u201d"
            assert lesson in entry["source"] and lesson in entry["description"]
            assert entry["title"] == f"Lesson: {lessons[entry['id']]}"
        shown = " ".join((entry["title"], entry["description"], entry["source"], entry["licence"]))
        assert "seed" not in shown.lower() and ".txt" not in shown and "../" not in shown  # no internal names or paths


def test_get_corpus() -> None:
    assert catalog.get_corpus("tamil").title
    with pytest.raises(ValueError):
        catalog.get_corpus("nope")


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


@pytest.mark.parametrize("corpus_id", EXPECTED_IDS)
def test_every_corpus_loads(corpus_id: str) -> None:
    text = catalog.load_corpus(corpus_id)
    assert isinstance(text, str)
    assert text.strip()
    text.encode("utf-8")  # strict: no lone surrogates
    if catalog.get_corpus(corpus_id).kind == "generated":
        assert len(text.encode("utf-8")) <= SMALL_TARGET
    if catalog.get_corpus(corpus_id).kind == "shipped":  # as built, whatever the target of generated ones
        assert len(text.encode("utf-8")) > SMALL_TARGET


def test_seed_texts_are_exact() -> None:
    assert catalog.load_corpus("seed000") == SEED000
    assert catalog.load_corpus("seed002") == SEED002
    assert catalog.load_corpus("seed003") == SEED003
    assert (CORPORA_DIR / "seed000_lesson.txt").read_bytes() == SEED000.encode()
    assert (CORPORA_DIR / "seed002_lesson.txt").read_bytes() == SEED002.encode()
    assert (CORPORA_DIR / "seed003_lesson.txt").read_bytes() == SEED003.encode()


def test_tricky_keeps_its_bytes() -> None:
    text = catalog.load_corpus("tricky")
    raw = (CORPORA_DIR / "tricky.txt").read_bytes()
    assert text.encode("utf-8") == raw
    assert "\r\n" in text
    assert "\n" not in text.replace("\r\n", "")  # every line ends in CRLF
    for needle in (
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(2)>",
        "&amp;",
        '"',
        "'",
        "\t",
        "\u200d",
        "e\u0301",
    ):
        assert needle in text, needle
    assert text.count("the ") >= 5


def test_hand_written_corpora_shape() -> None:
    hindi = catalog.load_corpus("hindi")
    tamil = catalog.load_corpus("tamil")
    multi = catalog.load_corpus("multilingual")
    assert 3_000 <= len(hindi.encode("utf-8")) <= 6_000
    assert 3_000 <= len(tamil.encode("utf-8")) <= 6_000
    assert 2_000 <= len(multi.encode("utf-8")) <= 4_000
    assert sum("\u0900" <= ch <= "\u097f" for ch in hindi) > 1_000
    assert sum("\u0b80" <= ch <= "\u0bff" for ch in tamil) > 1_000
    # Common words repeat, which gives BPE something to learn.
    assert hindi.count("है") >= 10
    assert tamil.count("நல்ல") >= 3
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
    assert family in multi
    assert "\U0001F1EE\U0001F1F3" in multi  # a flag: two regional indicators
    for sample in ("Français", "Deutsch", "Русский", "Ελληνικά", "中文", "日本語", "العربية", "def "):
        assert sample in multi
    for text in (hindi, tamil, multi):
        assert text.endswith("\n")


def test_unknown_id_raises_value_error_naming_valid_ids() -> None:
    with pytest.raises(ValueError) as excinfo:
        catalog.load_corpus("klingon")
    message = str(excinfo.value)
    assert "klingon" in message
    for corpus_id in EXPECTED_IDS:
        assert corpus_id in message


# --------------------------------------------------------------------------
# max_bytes
# --------------------------------------------------------------------------


def test_max_bytes_never_splits_a_character() -> None:
    full = catalog.load_corpus("hindi")
    for limit in range(0, 400):
        cut = catalog.load_corpus("hindi", max_bytes=limit)
        size = len(cut.encode("utf-8"))
        assert size <= limit
        assert size > limit - 4  # as long as it can be: at most one char dropped
        assert full.startswith(cut)


def test_max_bytes_edge_cases() -> None:
    full = catalog.load_corpus("tricky")
    assert catalog.load_corpus("tricky", max_bytes=10**9) == full
    assert catalog.load_corpus("tricky", max_bytes=len(full.encode())) == full
    assert catalog.load_corpus("tricky", max_bytes=0) == ""
    with pytest.raises(ValueError):
        catalog.load_corpus("tricky", max_bytes=-1)


@pytest.mark.parametrize("corpus_id", ["english", "python"])  # shipped, generated
def test_max_bytes_on_built_corpora(corpus_id: str) -> None:
    cut = catalog.load_corpus(corpus_id, max_bytes=1_000)
    assert 996 < len(cut.encode("utf-8")) <= 1_000
    assert catalog.load_corpus(corpus_id).startswith(cut)


# --------------------------------------------------------------------------
# Caching
# --------------------------------------------------------------------------


def test_second_load_uses_cache(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counting_builder(target_bytes: int) -> str:
        calls.append(target_bytes)
        if len(calls) > 1:
            raise AssertionError("builder called again: the cache was not used")
        return "Some prose built once.\n\nAnd a second paragraph, caf\u00e9.\n"

    monkeypatch.setattr(catalog, "build_python", counting_builder)
    first = catalog.load_corpus("python")
    second = catalog.load_corpus("python")
    assert first == second
    assert calls == [SMALL_TARGET]
    cached = list(fresh_cache.glob("python-*.txt"))
    assert len(cached) == 1
    assert str(SMALL_TARGET) in cached[0].name
    assert cached[0].read_text(encoding="utf-8") == first

    # A different target size is a different cache entry, so it rebuilds.
    monkeypatch.setattr(catalog, "DEFAULT_TARGET_BYTES", SMALL_TARGET // 2)
    with pytest.raises(AssertionError, match="cache was not used"):
        catalog.load_corpus("python")


def test_the_shipped_corpus_is_read_not_built(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog, "build_english", lambda target: pytest.fail("built at run time"))
    text = catalog.load_corpus("english")
    assert text == shipped.read_shipped("english.txt.gz") and len(text.encode("utf-8")) > 4_000_000
    assert not fresh_cache.exists()  # nothing cached: the file is read as shipped


def test_cache_is_keyed_by_python_version(monkeypatch: pytest.MonkeyPatch) -> None:
    name = catalog._cache_name("python", 123)
    assert "python" in name and "123" in name
    monkeypatch.setattr(catalog.platform, "python_version", lambda: "9.9.9")
    assert catalog._cache_name("python", 123) != name


def test_english_cache_is_keyed_by_package_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    name = catalog._cache_name("english", 123, "build_english")
    assert catalog._cache_name("python", 123, "build_python").endswith(f"-v{catalog._BUILDER_VERSION}.txt")
    monkeypatch.setattr(builders, "english_packages", lambda: [("pandas", "0.0.1", Path("/nowhere"))])
    assert catalog._cache_name("english", 123, "build_english") != name


def test_cache_survives_crlf(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog, "build_python", lambda target: "a = 1\r\nb = 2\r\n")
    assert catalog.load_corpus("python") == "a = 1\r\nb = 2\r\n"
    monkeypatch.setattr(catalog, "build_python", lambda target: "rebuilt\n")
    assert catalog.load_corpus("python") == "a = 1\r\nb = 2\r\n"


def test_default_cache_dir_is_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BPE_EXPLORER_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(catalog.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    assert catalog.cache_dir() == tmp_path / "home" / ".cache" / "bpe-explorer"


def test_cache_falls_back_to_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir should be", encoding="utf-8")
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(blocker))
    monkeypatch.setattr(catalog.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    assert catalog.cache_dir() == tmp_path / "tmp" / "bpe-explorer"
    monkeypatch.setattr(catalog, "build_python", lambda target: "x = 1\n")
    assert catalog.load_corpus("python") == "x = 1\n"
    assert list((tmp_path / "tmp" / "bpe-explorer").glob("python-*.txt"))
