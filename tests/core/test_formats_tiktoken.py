"""tiktoken rank files: ranks no real tokenizer has are refused, ranks up to the limit load."""
from __future__ import annotations

import base64

import pytest

from bpe_core import BPEError
from bpe_core.formats import load_any, load_bytes


def rank_file(ranks: list[tuple[bytes, int]]) -> bytes:
    return "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks).encode("ascii")


ALL_BYTES = [(bytes([b]), b) for b in range(256)]


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ([(bytes([b]), 0) for b in range(256)], r"line 2: rank 0 is given to both b'\\x00' and b'\\x01'"),
        ([*ALL_BYTES, (b"ab", 7)], r"line 257: rank 7 is given to both b'\\x07' and b'ab'"),
        ([*ALL_BYTES, (b"ab", -1)], "line 257: rank -1 is not a token id from 0 to 2,147,483,647"),
        ([*ALL_BYTES, (b"ab", 2**31)], "line 257: rank 2147483648 is not a token id"),
        ([*ALL_BYTES, (b"ab", 10**30)], "line 257: rank 1000000000000000000000000000000 is not a token id"),
        ([*ALL_BYTES, (b"\x00", 300)], r"line 257: token b'\\x00' appears twice"),
    ],
)
def test_tiktoken_files_with_impossible_ranks_are_refused(tmp_path, ranks, message):
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(rank_file(ranks))
    for load in (lambda: load_any(path), lambda: load_bytes("bad.tiktoken", path.read_bytes())):
        with pytest.raises(BPEError, match=message) as caught:
            load()
        assert "\n" not in str(caught.value) and str(caught.value).startswith("bad.tiktoken line")


def test_tiktoken_ranks_up_to_the_limit_load(tmp_path):
    path = tmp_path / "ok.tiktoken"
    path.write_bytes(rank_file([*ALL_BYTES, (b"ab", 2**31 - 1)]))
    assert load_any(path).encode("ab abc").ids == [2**31 - 1, 32, 2**31 - 1, 99]
