"""Parallel text in many languages from the translation catalogs of installed packages.

Django and Sphinx ship their interface messages translated into dozens of languages as gettext
catalogs (``.po``). A message's English source and its translations say the same thing, so
keeping only the messages translated in *every* chosen language gives texts with the same
content in each language: the fair ground for comparing what a tokenizer charges each one.

Messages are read in a fixed order (catalogs sorted by path; within a catalog, the order of its
English template), and the build is deterministic for given package versions.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .po import Message, parse_po

__all__ = ["CatalogSource", "ParallelText", "build_parallel", "package_root", "source_versions"]


@dataclass(frozen=True)
class CatalogSource:
    """A package's catalogs: ``templates`` globs (under the package folder) find the English
    templates; ``translation`` is the translated catalog's path, with ``{stem}`` the folder above
    the template's ``locale`` (``contrib/admin``), ``{locale}`` and ``{name}`` the template's stem."""

    package: str  # import name, and the distribution's
    templates: tuple[str, ...]
    translation: str  # a format string with {stem}, {locale}, {name}


SOURCES = (
    # Django: django/conf/locale/en/LC_MESSAGES/django.po and each contrib app's, plus djangojs.po.
    CatalogSource("django", ("conf/locale/en/LC_MESSAGES/*.po", "contrib/*/locale/en/LC_MESSAGES/*.po"),
                  "{stem}/locale/{locale}/LC_MESSAGES/{name}.po"),
    # Sphinx: sphinx/locale/sphinx.pot and sphinx/locale/<locale>/LC_MESSAGES/sphinx.po.
    CatalogSource("sphinx", ("locale/sphinx.pot",), "locale/{locale}/LC_MESSAGES/{name}.po"),
)


@dataclass(frozen=True)
class ParallelText:
    """The same messages in each language: ``messages[code][i]`` translates ``messages["en"][i]``."""

    messages: Mapping[str, tuple[str, ...]]

    def text(self, code: str) -> str:
        """One language's messages, one after another, each ending with a newline."""
        return "".join(message + "\n" for message in self.messages[code])


def package_root(package: str) -> Path | None:
    """The installed folder of an import package, or None if it is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def source_versions() -> dict[str, str | None]:
    """The installed version of each source package (None when missing)."""
    versions: dict[str, str | None] = {}
    for source in SOURCES:
        try:
            versions[source.package] = importlib.metadata.version(source.package)
        except importlib.metadata.PackageNotFoundError:
            versions[source.package] = None
    return versions


def _templates(root: Path, source: CatalogSource) -> list[Path]:
    found = {path for pattern in source.templates for path in root.glob(pattern)}
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _translation_path(root: Path, template: Path, source: CatalogSource, locale: str) -> Path:
    relative = template.relative_to(root)
    if template.suffix == ".pot":  # sphinx/locale/sphinx.pot
        stem = ""
    else:  # <stem>/locale/en/LC_MESSAGES/<name>.po
        stem = relative.parents[3].as_posix() if len(relative.parts) > 4 else ""
    path = source.translation.format(stem=stem, locale=locale, name=template.stem)
    return root / path.lstrip("/")


def _read(path: Path) -> list[Message]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return parse_po(text)


def _candidates(
    root: Path, source: CatalogSource, locales: Mapping[str, str]
) -> Iterator[tuple[str, dict[str, str]]]:
    """(English source, {language: translation}) for each singular message of each template that
    every language has translated (plural messages are left out: languages differ in how many
    forms they have)."""
    for template in _templates(root, source):
        translated: dict[str, dict[tuple[str | None, str], str]] = {}
        for code, locale in locales.items():
            table = translated[code] = {}
            for message in _read(_translation_path(root, template, source, locale)):
                if message.translated and message.source_plural is None:
                    table[(message.context, message.source)] = message.translation
        for message in _read(template):
            if message.source_plural is not None:
                continue
            key = (message.context, message.source)
            if all(key in table for table in translated.values()):
                yield message.source, {code: table[key] for code, table in translated.items()}


def _has_letter(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def build_parallel(
    languages: Sequence[tuple[str, Mapping[str, str]]],
    *,
    roots: Mapping[str, Path] | None = None,
) -> ParallelText:
    """Messages translated in every language of ``languages``, each ``(code, {package: locale})``;
    the language whose code is ``en`` gets the English sources.

    A message is kept once (the first catalog that has its English source) and only if its
    English source has a letter (``%s — %s`` says nothing in any language). ``roots`` points at
    the packages' folders (default: the installed ones); a missing package raises RuntimeError
    naming it.
    """
    codes = [code for code, _ in languages]
    if len(set(codes)) != len(codes):
        raise ValueError(f"duplicate language codes in {codes}")
    out: dict[str, list[str]] = {code: [] for code in codes}
    seen: set[str] = set()
    for source in SOURCES:
        root = (roots or {}).get(source.package) or package_root(source.package)
        if root is None or not root.is_dir():
            raise RuntimeError(
                f"the {source.package!r} package is not installed; "
                "bash scripts/install.sh installs the pinned version"
            )
        locales = {code: where[source.package] for code, where in languages if code != "en"}
        for english, translations in _candidates(root, source, locales):
            if english in seen or not _has_letter(english):
                continue
            seen.add(english)
            for code in codes:
                out[code].append(english if code == "en" else translations[code])
    return ParallelText({code: tuple(messages) for code, messages in out.items()})
