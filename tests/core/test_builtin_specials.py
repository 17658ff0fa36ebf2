"""A built-in decodes its model's special ids (<|endoftext|>, Llama 3's <|begin_of_text|>) as tiktoken and
quicktok decode them; encoding never makes them."""
from __future__ import annotations

import pytest

from bpe_core import BPEError
from bpe_core.builtin import load_builtin
from tests.conftest import require, require_cl100k


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3", "qwen3"])
def test_a_models_special_ids_decode_to_their_text_as_the_reference_decodes(name):
    """What a model writes starts and ends with special ids (Llama 3's 128000): encoding never makes
    them, decoding gives their text, as tiktoken and quicktok decode."""
    quicktok = require("quicktok")
    if name == "cl100k_base":
        require_cl100k()
    theirs, ours = quicktok.get_encoding(name), load_builtin(name)
    specials = sorted(theirs.encode_single_token(t) for t in theirs.special_tokens_set)
    ids = [specials[0], *ours.encode_ids("Hello wörld 日本"), specials[-1], *specials]
    assert ours.decode(ids) == theirs.decode(ids)
    assert ours.encode_ids(theirs.decode([specials[0]])) != [specials[0]]  # its text is text when encoding
    with pytest.raises(BPEError, match=f"token id {specials[-1] + 1} is not in this tokenizer's vocabulary"):
        ours.decode([specials[-1] + 1])
