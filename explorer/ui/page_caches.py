"""The pages' shared caches, defined here rather than in the pages' scripts.

A page's script runs anew at each run, in a namespace of its own that nothing keeps once the run is
over. A cache defined in the script would tie that namespace to `server_caches`' registry (through
the function's globals), and with it every value of the page's last run, from whichever session ran
it: a visitor's corpus, four trained models, the built-ins it showed. Defined in a module, a cache
refers to the module's namespace only.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.overlap import Overlap, vocabulary_overlap
from explorer.data.families import FamiliesCache
from explorer.display import vocabulary as vocabulary_view
from explorer.ui import tokenizer_picker as picker
from explorer.ui.server_caches import kept_while_used


@kept_while_used(st.cache_resource(show_spinner=False))
def families() -> FamiliesCache:
    """The Families page's trained sets (the last few corpora and settings), shared by every session."""
    return FamiliesCache()


@kept_while_used(st.cache_resource(show_spinner=False, max_entries=4))
def builtin_overlap(name_a: str, name_b: str, _a: Tokenizer, _b: Tokenizer) -> Overlap:
    """Two built-ins (loaded, named) compared once, shared by every session while in use; never modified."""
    return vocabulary_overlap(_a, _b)


@kept_while_used(st.cache_resource(show_spinner=False, max_entries=2))  # ~15 MB each
def builtin_frame(name: str) -> pd.DataFrame:
    """A built-in's whole Vocabulary table, made once and shared while in use (200k rows take half a
    second); never modified."""
    return vocabulary_view.vocab_frame(picker.vocab_rows(picker.load(name), picker.builtin_key(name)))
