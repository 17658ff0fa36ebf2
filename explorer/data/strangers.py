"""Guards for tokenizers from strangers (uploads): their regexes are timed, their library's panics caught.

A tokenizer read from an upload has its patterns compiled under `MATCH_SECONDS`
(`bpe_core.parts.pattern_limit`): a pattern that backtracks without bound stops with a one-line
message instead of holding the server. `tokenizers`, loading the same file for a round trip,
panics on such a pattern; a Rust panic derives from BaseException, and `answered` tells it
from Ctrl-C and Streamlit's own stop and rerun, which must go on.
"""
from __future__ import annotations

MATCH_SECONDS = 2.0  # a search of a stranger's pattern, plus its text's share (pattern_limit.PER_CHARACTER)


def answered(exc: BaseException) -> bool:
    """Whether a page answers `exc` with a message: any Exception, and a Rust library's panic (pyo3's
    PanicException), which is no Exception but no request to stop either (an `except Exception` lets it
    end the script's thread, and the page would never finish). Ctrl-C and Streamlit's stop and rerun go on."""
    panic = type(exc).__module__ == "pyo3_runtime" or type(exc).__name__ == "PanicException"
    return isinstance(exc, Exception) or panic
