"""Ids back to text for a merge list (`Tokenizer.decode`): the ids checked, special tokens read.

>>> ids_argument([3, 4])
[3, 4]
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence

from .pretokenize import symbols_to_bytes, type_name
from .settings import BPEError


def ids_argument(ids: object) -> list[int]:
    """`ids` as a list of ints: a sequence of whole numbers (Python or NumPy ints; not floats, not bools)."""
    if isinstance(ids, (str, bytes, bytearray)) or not isinstance(ids, Iterable):
        raise BPEError(f"decode takes a list of token ids (whole numbers), not {type_name(ids)}")
    ids = list(ids)
    return ids if all(type(i) is int for i in ids) else [_token_id_arg(i) for i in ids]


def _token_id_arg(value: object) -> int:
    """A token id given to decode, as an int; floats, bools and the like are refused."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)  # type: ignore[arg-type]  # ints and NumPy integers, never floats
        except TypeError:
            pass
    raise BPEError(f"token ids are whole numbers; {value!r} ({type_name(value)}) is not a token id")


def decode_with_specials(ids: Sequence[int], id_to_token: Mapping[int, str], specials: Mapping[int, str], *,
                         byte_level: bool, decode_tokens: Callable[[Sequence[str]], str]) -> str:
    """Ids some of which are special tokens, their text in place, as tiktoken decodes: byte-level,
    every token's bytes and then UTF-8 over the whole; otherwise each stretch between them decoded.

    >>> decode_with_specials([0, 9, 1], {0: "a", 1: "b"}, {9: "<s>"}, byte_level=False, decode_tokens="".join)
    'a<s>b'
    """
    if byte_level:
        data = b"".join(specials[i].encode("utf-8") if i in specials else symbols_to_bytes(id_to_token[i])
                        for i in ids)
        return data.decode("utf-8", errors="replace")
    out: list[str] = []
    run: list[str] = []
    for i in ids:
        if i in specials:
            out += [decode_tokens(run), specials[i]]
            run = []
        else:
            run.append(id_to_token[i])
    return "".join(out) + decode_tokens(run)
