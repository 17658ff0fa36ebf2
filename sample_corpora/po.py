"""A small reader of gettext ``.po`` catalogs: each message's context, source text and translation.

Only what the parallel sample set needs: comments are skipped except the ``#,`` flags (so a
``fuzzy`` translation can be told apart), obsolete ``#~`` entries are dropped, strings may run over
several quoted lines and use C escapes, and a plural message keeps its forms apart from the
singular ones.

>>> [m.translation for m in parse_po('msgid "Log out"\\nmsgstr ""\\n"Ab" "melden"\\n')]
['Abmelden']
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Message", "PoError", "parse_po", "unescape"]


class PoError(ValueError):
    """A catalog that is not well-formed ``.po`` text; the message names the line."""


@dataclass(frozen=True)
class Message:
    """One catalog entry. ``translation`` is ``msgstr`` (empty for a plural message, whose forms
    are in ``plural_forms``, the source's plural in ``source_plural``)."""

    context: str | None
    source: str
    translation: str
    fuzzy: bool = False
    source_plural: str | None = None
    plural_forms: tuple[str, ...] = ()

    @property
    def translated(self) -> bool:
        """Whether a translator filled in the message and did not mark it fuzzy."""
        if self.fuzzy:
            return False
        if self.source_plural is not None:
            return bool(self.plural_forms) and all(self.plural_forms)
        return bool(self.translation)


_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "?": "?",
    "a": "\a", "b": "\b", "f": "\f", "v": "\v",
}
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)", re.DOTALL)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"(?:\s*"(?:[^"\\]|\\.)*")*')
_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*)$")


def unescape(body: str) -> str:
    """The value of a C-style string body (without its quotes).

    >>> unescape(r'a\\tb\\n\\"c\\" \\303\\251')
    'a\\tb\\n"c" é'
    """
    if "\\" not in body:
        return body
    # Octal and hex escapes give bytes (UTF-8 encoded text may be written that way), so the
    # string is rebuilt as bytes and decoded once.
    out = bytearray()
    position = 0
    for match in _ESCAPE.finditer(body):
        out += body[position:match.start()].encode("utf-8")
        code = match.group(1)
        if code[0] == "x" and len(code) > 1:
            out.append(int(code[1:], 16))
        elif code[0] in "01234567":
            out.append(int(code, 8) & 0xFF)
        else:
            out += _SIMPLE_ESCAPES.get(code, "\\" + code).encode("utf-8")
        position = match.end()
    out += body[position:].encode("utf-8")
    return out.decode("utf-8", errors="replace")


def _quoted(text: str, line_number: int) -> str:
    """The value of one or more quoted strings on a line (``"a" "b"`` is ``ab``, as in C)."""
    text = text.strip()
    if _STRINGS.fullmatch(text) is None:
        raise PoError(f"line {line_number}: expected a quoted string, got {text[:40]!r}")
    return "".join(unescape(body) for body in _STRING.findall(text))


class _Entry:
    """Fields of the entry being read; ``field`` names the one a continuation line extends."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.plurals: dict[int, str] = {}
        self.fuzzy = False
        self.field: str | None = None

    def empty(self) -> bool:
        return not self.fields and not self.plurals

    def message(self, line_number: int) -> Message:
        if "msgid" not in self.fields:
            raise PoError(f"line {line_number}: an entry without msgid")
        forms = tuple(self.plurals[i] for i in sorted(self.plurals))
        return Message(
            context=self.fields.get("msgctxt"),
            source=self.fields["msgid"],
            translation=self.fields.get("msgstr", ""),
            fuzzy=self.fuzzy,
            source_plural=self.fields.get("msgid_plural"),
            plural_forms=forms,
        )


def parse_po(text: str) -> list[Message]:
    """Every message of a ``.po`` catalog in file order, without the header (empty msgid) and
    without obsolete (``#~``) entries. Raises ``PoError`` on a line it cannot read."""
    messages: list[Message] = []
    entry = _Entry()

    def finish(line_number: int) -> None:
        nonlocal entry
        if not entry.empty():
            message = entry.message(line_number)
            if message.source or message.context is not None:
                messages.append(message)
        entry = _Entry()

    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish(line_number)
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in (flag.strip() for flag in line[2:].split(",")):
                if not entry.empty():
                    finish(line_number)
                entry.fuzzy = True
            continue  # translator, extracted, reference and obsolete (#~) lines
        if line.startswith('"'):
            if entry.field is None:
                raise PoError(f"line {line_number}: a string outside any msgid or msgstr")
            value = _quoted(line, line_number)
            if entry.field.startswith("["):
                index = int(entry.field[1:-1])
                entry.plurals[index] += value
            else:
                entry.fields[entry.field] += value
            continue
        match = _KEYWORD.match(line)
        if match is None:
            raise PoError(f"line {line_number}: cannot read {line[:40]!r}")
        keyword, index, rest = match.groups()
        if keyword in ("msgctxt", "msgid") and ("msgstr" in entry.fields or entry.plurals):
            finish(line_number)  # entries not separated by a blank line (a "#, fuzzy" between
            # them has already started the next entry)
        value = _quoted(rest, line_number)
        if index is not None:
            entry.plurals[int(index)] = value
            entry.field = f"[{index}]"
        else:
            entry.fields[keyword] = value
            entry.field = keyword
    finish(len(text.splitlines()) + 1)
    return messages
