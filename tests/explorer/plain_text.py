"""Reading what an AppTest page shows as Markdown, and checking that outside text stays plain text.

Streamlit draws titles, captions, notices, widget/tab/expander/metric labels and radio options
as Markdown. `shown` is a small reference for what a person reads from a string that went through
`render.md_escape`; `markdown_strings` gathers every such string of a page; `constructs` finds
what in a string would render as something other than its own characters.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

WORD_JOINER = "\u2060"
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")

# A corpus of everything Markdown, KaTeX, GFM and Streamlit would draw instead of showing.
OUTSIDE = (
    "**bold** $x$ $$y$$ ~~s~~ :red[r] :smile: :material/home: ![i](https://example.invalid/p.png) "
    "[l](https://example.invalid) https://example.invalid www.example.invalid a@example.invalid "
    "<b>h</b> &quot; _it_ `c*de` # head"
)
# Raw pieces of OUTSIDE that must never reach a Markdown string unescaped.
RAW = ("**bold**", "$x$", "~~s~~", ":red[", ":smile:", ":material/", "](https", "https://", "www.example",
       "a@example", "<b>", "&quot;", "_it_", "`c*de`")


def shown(markdown: str) -> str:
    """What a person reads from a string escaped by `md_escape` (a reference, not a renderer)."""
    spaces = re.sub(r"(?<!\\)&#32;", " ", markdown.replace(WORD_JOINER, ""))  # md_escape's leading spaces
    return _ESCAPED.sub(r"\1", spaces)


_CODE_SPAN = re.compile(r"(?<!\\)`[^`]*(?<!\\)`")
# What `md_escape` leaves in outside text: a backslash before ASCII punctuation, a word joiner, a
# space as a character reference. A code span shows a backslash as itself, so the app never writes
# one inside its own code spans: a code span holding one is outside text whose backticks were left.
_ESCAPE_MARK = re.compile(r"\\[!-/:-@\[-`{-~]|\u2060|&#32;")


def _code_spans_split(markdown: str) -> tuple[str, list[str]]:
    """`markdown` without its code spans (the insides are never rendered as Markdown), and the
    code spans that hold outside text."""
    outside: list[str] = []

    def take(match: re.Match[str]) -> str:
        if _ESCAPE_MARK.search(match.group(0)[1:-1]):
            outside.append(match.group(0))
        return ""

    return _CODE_SPAN.sub(take, markdown), outside


def constructs(markdown: str) -> list[str]:
    """What in `markdown` would be drawn as something else than its characters.

    The app's own formatting is `**bold**`, `*italics*`, `code` and `####` headings; anything
    else unescaped is a construct: `$` math, `~` strike-through, `[`/`]` links and images, `<`
    HTML tags and autolinks, `&` entities, `:name:` emoji, icons and colour directives, and bare URLs,
    www. and e-mail autolinks (which a backslash cannot stop: `md_escape` adds a word joiner).
    A code span of outside text (one holding `md_escape`'s escapes) and a backtick left over after
    the code spans are constructs too: outside text's backticks went unescaped.
    """
    without_code, found = _code_spans_split(markdown)
    body = re.sub(r"(?<!\\)&#32;", " ", without_code)  # md_escape's own leading spaces
    found += re.findall(r"(?<!\\)`", body)
    found += [m.group(0) for m in re.finditer(r"(?<!\\)(?:[$~\[\]&]|<(?=[A-Za-z/!?]))", body)]
    found += re.findall(r"(?<!\\):(?=[A-Za-z0-9_/+-])", body)  # :smile: :red[...] :material/...
    for pattern in (r"https?\\?:\\?/", r"www\\?\.", r"\w\\?@\\?\w"):  # unless a joiner breaks them
        found += [m.group(0) for m in re.finditer(pattern, body, re.IGNORECASE)]
    return found


def _labels(proto) -> Iterator[str]:
    for field in ("label", "body", "text", "help", "caption"):
        try:
            value = getattr(proto, field)
        except AttributeError:
            continue
        if isinstance(value, str) and value:
            yield value


def markdown_strings(at) -> list[tuple[str, str]]:
    """(element type, string) for every string on the page that Streamlit renders as Markdown."""
    out: list[tuple[str, str]] = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if isinstance(children, dict):  # a block: expanders and tabs have labels
            label = getattr(node, "label", None) if type(node).__name__ in ("Expander", "Tab") else None
            if isinstance(label, str) and label:
                out.append((type(node).__name__.lower(), label))
            for child in children.values():
                walk(child)
            return
        kind = getattr(node, "type", "")
        proto = getattr(node, "proto", None)
        if proto is None or kind in ("html", "code", "dataframe", "plotly_chart", "json", "text", "exception"):
            return
        for value in _labels(proto):
            out.append((kind, value))
        if kind == "radio":  # radio options are Markdown; selectbox options are plain text
            out.extend(("radio option", o) for o in proto.options)
        if kind == "metric":
            out.append(("metric value", proto.body))

    walk(at._tree)
    return out


def selectbox_options(at) -> list[str]:
    """Every selectbox option as shown: plain text, where a backslash would be seen."""
    return [option for box in at.selectbox for option in box.options]
