"""Partial counts travel between Dask processes packed: the same words, counts and order come back."""
from __future__ import annotations

import pickle
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.packed_counts import PackedCounts, packed

# Any word a source can give, the separator (NUL, which a JSON record may hold) and the empty word included.
words = st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "\x00", "é", "😀", "\ud7ff"]), max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(words, st.integers(1, 2**40)), max_size=12))
def test_packed_counts_round_trip_through_pickle_in_order(pairs: list[tuple[str, int]]) -> None:
    counts = Counter(dict(pairs))
    back = pickle.loads(pickle.dumps(packed(counts), protocol=5))
    assert isinstance(back, PackedCounts)
    assert list(back.items()) == list(counts.items())


def test_packed_counts_pickle_as_one_joined_string_and_an_array() -> None:
    counts = Counter({"low": 5, "lower": 2, "": 1})
    func, (joined, n, values) = packed(counts).__reduce__()
    assert (func.__name__, joined, n, len(values)) == ("unpack_counts", "low\x00lower\x00", 3, 24)
    # A word holding NUL: pickled as a plain mapping instead, still in order.
    func, (mapping,) = packed(Counter({"a\x00b": 1, "c": 2})).__reduce__()
    assert func is PackedCounts and list(mapping.items()) == [("a\x00b", 1), ("c", 2)]
    assert packed(counts) is not counts and packed(pc := packed(counts)) is pc
