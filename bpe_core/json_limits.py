"""JSON from outside, parsed under limits: how deep it nests and how many digits a number has.

`json.loads` recurses once per level of nesting and fails with a RecursionError somewhere past a
thousand levels (where depends on the caller's stack), and it refuses an integer of more digits
than Python converts (4,300 by default) with a ValueError; neither names the file. `load_json`
turns both into one line naming where the JSON came from and the limit, and refuses nesting
deeper than MAX_JSON_DEPTH levels, far more than any tokenizer file, counts header or record
needs, so that no code walking the value afterwards can run out of stack either.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from .settings import BPEError

MAX_JSON_DEPTH = 100


def max_digits() -> int:
    """The most digits an integer may have for Python to convert it (0: no limit)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return int(get()) if get is not None else 0


def too_deep(where: str) -> BPEError:
    return BPEError(f"{where}: JSON nested too deeply (more than {MAX_JSON_DEPTH} levels, the limit)")


def load_json(text: str | bytes, *, where: str | Callable[[], str]) -> Any:
    """The value of the JSON `text`. What is not JSON at all raises json.JSONDecodeError, for the
    caller to word; JSON nested deeper than MAX_JSON_DEPTH levels, or holding a number of more
    digits than Python converts, is a one-line BPEError starting with `where` (a file name, or
    "name: line 3"; or a function giving it, called only then, when finding the line costs a count).

    >>> load_json('{"a": [1, 2]}', where="x.json")
    {'a': [1, 2]}
    >>> load_json("[" * 101 + "]" * 101, where="x.json")
    Traceback (most recent call last):
    ...
    bpe_core.settings.BPEError: x.json: JSON nested too deeply (more than 100 levels, the limit)
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise too_deep(_named(where)) from None
    except UnicodeDecodeError as exc:  # bytes that are not UTF-8 (nor UTF-16 or 32)
        raise BPEError(f"{_named(where)}: not UTF-8 text (invalid byte at offset {exc.start})") from None
    except ValueError as exc:  # the only other one json.loads raises: an integer of too many digits
        limit = max_digits()
        detail = f"more than {limit:,} digits (the limit)" if limit else str(exc).splitlines()[0]
        raise BPEError(f"{_named(where)}: a number with {detail}") from None
    if _may_be_deep(text) and _deeper_than(value, MAX_JSON_DEPTH):
        raise too_deep(_named(where))
    return value


def _named(where: str | Callable[[], str]) -> str:
    return where if isinstance(where, str) else where()


def _may_be_deep(text: str | bytes) -> bool:
    """Whether `text` has more brackets than MAX_JSON_DEPTH (counted in C, strings included: an
    upper bound of the depth), so the exact walk is skipped for small JSON such as a record."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") > MAX_JSON_DEPTH
    return text.count(b"[") + text.count(b"{") > MAX_JSON_DEPTH


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests more than `limit` lists and objects deep, walked level by
    level without recursion (a list of a million merges costs about a tenth of its parsing)."""
    level = [value] if isinstance(value, (list, dict)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [item for container in level for item in (container.values() if type(container) is dict
                                                            else container)
                 if type(item) is list or type(item) is dict]
    return False
