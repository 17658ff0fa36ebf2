"""The multilingual parallel sample set (sample_corpora/po.py, parallel.py, languages.py)."""
from __future__ import annotations

import doctest
import gettext
import unicodedata
from pathlib import Path

import pytest

import sample_corpora
from sample_corpora import languages, parallel
from sample_corpora import po as po_reader
from sample_corpora.po import PoError, parse_po, unescape
from tests.conftest import missing

REPO = Path(__file__).resolve().parents[2]

# Unicode ranges of the scripts the set must cover (the letters of each language's text are
# counted in them).
SCRIPT_RANGES = {
    "Latin": [(0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F)],
    "Cyrillic": [(0x400, 0x4FF)],
    "Greek": [(0x370, 0x3FF), (0x1F00, 0x1FFF)],
    "Arabic": [(0x600, 0x6FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)],
    "Devanagari": [(0x900, 0x97F)],
    "Han": [(0x4E00, 0x9FFF), (0x3400, 0x4DBF)],
    "Kana": [(0x3040, 0x30FF)],
    "Hangul": [(0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F)],
}
EXPECTED_SCRIPTS = {  # the catalog's script name -> the ranges that make up its letters
    "Latin": ("Latin",), "Cyrillic": ("Cyrillic",), "Greek": ("Greek",), "Arabic": ("Arabic",),
    "Devanagari": ("Devanagari",), "Han": ("Han",), "Han and Kana": ("Han", "Kana"), "Hangul": ("Hangul",),
}


def script_of(ch: str) -> str | None:
    code = ord(ch)
    for name, ranges in SCRIPT_RANGES.items():
        if any(low <= code <= high for low, high in ranges):
            return name
    return None


def script_shares(text: str) -> dict[str, float]:
    letters = [ch for ch in text if ch.isalpha()]
    counts: dict[str, int] = {}
    for ch in letters:
        name = script_of(ch) or "other"
        counts[name] = counts.get(name, 0) + 1
    return {name: count / len(letters) for name, count in counts.items()}


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    """The shipped set (tests/corpora/test_shipped.py checks it is what `build_parallel` makes)."""
    return languages.load_parallel()


def require_catalogs() -> None:
    for package in ("django", "sphinx"):
        if parallel.package_root(package) is None:
            missing(f"the {package} package is not installed")


# ---- the .po reader ---------------------------------------------------------------------------

PO = r'''# A translator's comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#: admin.py:1
msgid "Log out"
msgstr "Abmelden"

#, fuzzy, python-format
msgid "Hello %(name)s"
msgstr "Hallo %(name)s"

msgctxt "month"
msgid "May"
msgstr "Mai"

msgid ""
"Two lines,\n"
"with a \"quote\" and a tab\t."
msgstr "Zwei Zeilen,\n" "mit \"Zitat\" und Tab\t."

msgid "One item"
msgid_plural "%d items"
msgstr[0] "Ein Element"
msgstr[1] "%d Elemente"

msgid "Untranslated"
msgstr ""

#~ msgid "Old"
#~ msgstr "Alt"
'''


def test_po_reader_reads_every_kind_of_entry() -> None:
    messages = parse_po(PO)
    assert [(m.context, m.source, m.translation, m.fuzzy, m.translated) for m in messages] == [
        (None, "Log out", "Abmelden", False, True),
        (None, "Hello %(name)s", "Hallo %(name)s", True, False),  # fuzzy: not a translation yet
        ("month", "May", "Mai", False, True),
        (None, 'Two lines,\nwith a "quote" and a tab\t.', 'Zwei Zeilen,\nmit "Zitat" und Tab\t.', False, True),
        (None, "One item", "", False, True),
        (None, "Untranslated", "", False, False),
    ]
    plural = messages[4]
    assert plural.source_plural == "%d items" and plural.plural_forms == ("Ein Element", "%d Elemente")


def test_po_reader_escapes_and_errors() -> None:
    assert unescape(r"\303\251t\xc3\xa9 \\n") == "été \\n"
    with pytest.raises(PoError, match="line 2"):
        parse_po('msgid "a"\nmsgstr "b\n')
    with pytest.raises(PoError, match="line 1"):
        parse_po('"orphan"\n')


def test_po_reader_agrees_with_the_compiled_catalogs() -> None:
    """Every translated message the reader finds in Django's and Sphinx's catalogs is what was
    compiled into the .mo file beside it (fuzzy ones left out, plurals form by form)."""
    checked = 0
    for package in ("django", "sphinx"):
        root = parallel.package_root(package)
        if root is None:
            missing(f"the {package} package is not installed")
        for po in sorted(root.glob("**/locale/*/LC_MESSAGES/*.po"))[::7]:  # a seventh of them: quick
            with open(po.with_suffix(".mo"), "rb") as fh:
                compiled = {key: value for key, value in gettext.GNUTranslations(fh)._catalog.items() if key != ""}
            mine: dict[object, str] = {}
            for m in parse_po(po.read_text(encoding="utf-8")):
                if m.translated:
                    key = m.source if m.context is None else f"{m.context}\x04{m.source}"
                    if m.source_plural is None:
                        mine[key] = m.translation
                    else:
                        mine.update({(key, i): form for i, form in enumerate(m.plural_forms)})
            # Sphinx's .mo files come from Babel, which fills an untranslated plural's forms with
            # the English ones; the set leaves plurals out anyway, so singular messages must match
            # exactly and every plural form read must be the compiled one.
            singular = {key: value for key, value in compiled.items() if not isinstance(key, tuple)}
            assert {key: value for key, value in mine.items() if not isinstance(key, tuple)} == singular, po
            assert all(compiled[key] == value for key, value in mine.items() if isinstance(key, tuple)), po
            checked += 1
    assert checked > 150


# ---- the sample set ---------------------------------------------------------------------------


def test_catalog_names_source_and_licence_of_every_language() -> None:
    langs = sample_corpora.list_languages()
    assert [lang.code for lang in langs][0] == "en"
    assert len(langs) >= 12 and len({lang.code for lang in langs}) == len(langs)
    assert {"Latin", "Cyrillic", "Greek", "Arabic", "Devanagari", "Han"} <= {lang.script for lang in langs}
    for lang in langs:
        assert lang.name and lang.script in EXPECTED_SCRIPTS
        assert "Django" in lang.source and "Sphinx" in lang.source
        assert "BSD-3-Clause" in lang.licence and "BSD-2-Clause" in lang.licence
        assert dict(lang.locales).keys() == {"django", "sphinx"}


def test_source_packages_are_pinned() -> None:
    """Pinned where the test command installs them, and not where the app's light install does."""
    def pinned(name: str) -> dict[str, str]:
        lines = (REPO / name).read_text(encoding="utf-8").splitlines()
        return dict(line.split("==", 1) for line in lines if "==" in line and not line.startswith("#"))

    assert not {"django", "sphinx"} & set(pinned("requirements.txt"))
    pins = pinned("requirements-dev.txt")
    versions = parallel.source_versions()
    if None in versions.values():
        missing("the django or sphinx package is not installed")
    assert versions == {"django": pins["django"], "sphinx": pins["sphinx"]}


def test_every_language_has_20_kb_in_its_script(texts: dict[str, str]) -> None:
    assert list(texts) == [lang.code for lang in languages.list_languages()]
    for lang in languages.list_languages():
        text = texts[lang.code]
        assert len(text.encode("utf-8")) >= 20_000, lang.code
        shares = script_shares(text)
        own = sum(shares.get(name, 0.0) for name in EXPECTED_SCRIPTS[lang.script])
        # Placeholders (%(name)s), product names and acronyms are Latin in every language (a
        # Chinese character is a word, so Latin letters are 29% of the Chinese text's letters).
        assert own >= 0.65 and set(shares) <= {*EXPECTED_SCRIPTS[lang.script], "Latin"}, (lang.code, shares)
    assert script_shares(texts["ja"]).get("Kana", 0) > 0.2  # Japanese, not Chinese


def test_the_set_is_parallel(texts: dict[str, str]) -> None:
    """Message i of every language translates English message i: same count, same placeholders."""
    require_catalogs()
    parallel_text = parallel.build_parallel([(lang.code, dict(lang.locales)) for lang in languages.list_languages()])
    english = parallel_text.messages["en"]
    assert len(english) > 900 and len(set(english)) == len(english)
    assert "Log out" in english and all(any(ch.isalpha() for ch in m) for m in english)
    i = english.index("Log out")
    assert parallel_text.messages["fr"][i] == "Déconnexion"
    assert parallel_text.messages["ru"][i] == "Выйти"
    for code, messages in parallel_text.messages.items():
        assert len(messages) == len(english), code
        assert parallel_text.text(code) == texts[code]
        for source, translation in zip(english, messages, strict=True):
            for placeholder in ("%(name)s", "%(model)s", "%(filename)s"):
                assert (placeholder in source) <= (placeholder in translation), (code, source, translation)


def test_the_set_is_read_as_shipped(texts: dict[str, str], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path))
    monkeypatch.setattr(parallel, "build_parallel", lambda *a, **k: pytest.fail("built at run time"))
    monkeypatch.setattr(parallel, "package_root", lambda package: None)  # as without Django and Sphinx
    assert languages.load_parallel() == texts
    assert languages.load_language("hi") == texts["hi"]
    assert not list(tmp_path.iterdir())  # nothing cached: read from the shipped files
    with pytest.raises(ValueError, match="valid codes are: en, fr"):
        languages.load_language("xx")


def test_texts_are_clean(texts: dict[str, str]) -> None:
    for code, text in texts.items():
        assert text.endswith("\n") and "\ufffd" not in text, code
        assert all(unicodedata.category(ch) != "Cs" for ch in text), code


def test_a_missing_package_is_named(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="'django' package is not installed"):
        parallel.build_parallel([("en", {}), ("fr", {"django": "fr", "sphinx": "fr"})],
                                roots={"django": tmp_path / "nowhere"})


def test_the_po_readers_examples_hold() -> None:
    """sample_corpora is outside the doctest paths (pyproject's testpaths), so its examples run here."""
    result = doctest.testmod(po_reader)
    assert result.attempted >= 2 and result.failed == 0
