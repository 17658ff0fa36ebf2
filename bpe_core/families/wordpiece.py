"""WordPiece: training (`train_wordpiece`) and the model (`WordPieceModel`): encode, decode, files.

Text -> words: optional lowercasing, then BERT's pre-tokenization (`wordpiece_text`). Training
merges by score count(ab) / (count(a) · count(b)) (`wordpiece_train`). Encoding is greedy longest
match from the start of each word, pieces after the first carrying the continuation prefix ("##");
a word with any part no token matches, or longer than `max_input_chars_per_word` characters,
becomes the unknown token as a whole, as BERT does. The vocabulary is the special tokens (counted
in the target size), the characters in code-point order, then each merged token as learned.

>>> model = train_wordpiece(["hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5],
...                         vocab_size=14, special_tokens=["[UNK]"])
>>> model.encode("hugs bugs thug").tokens
['hugs', 'bu', '##gs', '[UNK]']
>>> [(step.left, step.right, step.pair_count, step.left_count, step.right_count) for step in model.trace[:2]]
[('##g', '##s', 5, 20, 5), ('p', '##u', 17, 17, 36)]
>>> model.decode(model.encode_ids("hugs bugs!"))  # "!" never occurred in training
'hugs bugs [UNK]'
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..json_limits import load_json
from ..pretokenize import require_str, type_name
from ..settings import BPEError
from .wordpiece_model import WordPieceModel, check_options
from .wordpiece_text import count_words, resplit_counts
from .wordpiece_train import WordPieceStep, train_merges

__all__ = ["WordPieceModel", "WordPieceStep", "dumps", "loads", "train_wordpiece", "train_wordpiece_from_counts"]

DEFAULT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_VOCAB_SIZE = 1_000_000


def dumps(model: WordPieceModel) -> str:
    """Our JSON as text."""
    from ..formats._common import dump_json  # a late import: the formats import the families

    return dump_json(model.to_dict())


def loads(text: str) -> WordPieceModel:
    """A model from our JSON text; a one-line BPEError when it is not valid JSON or malformed."""
    try:
        data = load_json(text, where="the WordPiece model")
    except json.JSONDecodeError as exc:
        raise BPEError(f"not a WordPiece model file: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    return WordPieceModel.from_dict(data)


def train_wordpiece(
    texts: str | Iterable[str],
    *,
    vocab_size: int,
    lowercase: bool = False,
    special_tokens: Sequence[str] = DEFAULT_SPECIALS,
    unk_token: str = "[UNK]",
    prefix: str = "##",
    max_input_chars_per_word: int = 100,
    cleanup: bool = True,
) -> WordPieceModel:
    """Train WordPiece on texts (each one on its own: no word spans two texts)."""
    if isinstance(texts, (str, bytes, bytearray)):
        texts = [texts]  # bytes too: require_str then says to decode them
    if not isinstance(lowercase, bool):
        raise BPEError(f"lowercase must be true or false, not {type_name(lowercase)}")
    counts = count_words((require_str(t) for t in texts), lowercase=lowercase)
    return _train(counts, vocab_size=vocab_size, lowercase=lowercase, special_tokens=special_tokens,
                  unk_token=unk_token, prefix=prefix, max_input_chars_per_word=max_input_chars_per_word,
                  cleanup=cleanup)


def train_wordpiece_from_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: int,
    lowercase: bool = False,
    special_tokens: Sequence[str] = DEFAULT_SPECIALS,
    unk_token: str = "[UNK]",
    prefix: str = "##",
    max_input_chars_per_word: int = 100,
    cleanup: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> WordPieceModel:
    """Train WordPiece on word counts, e.g. `count_sources` in word mode (whitespace words).

    Each counted word is cut again by BERT's pre-tokenizer (and lowercased if asked), so counts
    made by whitespace splitting train exactly as the texts would. The order of the counts does
    not matter: ties are broken by the pairs' strings.
    """
    if not isinstance(word_counts, Mapping):
        raise BPEError(f"word counts must be a mapping of word -> count, not {type_name(word_counts)}")
    if not isinstance(lowercase, bool):
        raise BPEError(f"lowercase must be true or false, not {type_name(lowercase)}")
    for word, count in word_counts.items():
        require_str(word, what="a counted word")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise BPEError(f"the count of {word!r} must be a whole number of at least 1, not {count!r}")
    counts = resplit_counts(word_counts.items(), lowercase=lowercase)
    return _train(counts, vocab_size=vocab_size, lowercase=lowercase, special_tokens=special_tokens,
                  unk_token=unk_token, prefix=prefix, max_input_chars_per_word=max_input_chars_per_word,
                  cleanup=cleanup, progress=progress)


def _train(counts: Mapping[str, int], *, vocab_size: int, lowercase: bool, special_tokens: Sequence[str],
           unk_token: str, prefix: str, max_input_chars_per_word: int, cleanup: bool,
           progress: Callable[[int, int], None] | None = None) -> WordPieceModel:
    check_options(unk_token=unk_token, prefix=prefix, max_input_chars_per_word=max_input_chars_per_word)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not 1 <= vocab_size <= MAX_VOCAB_SIZE:
        raise BPEError(f"the vocabulary size must be a whole number from 1 to {MAX_VOCAB_SIZE:,}, not {vocab_size!r}")
    specials = _check_specials(special_tokens, unk_token)
    # A word longer than max_input_chars_per_word encodes as the unknown token whole, so nothing
    # learned from it could ever be used on it; leaving it out also keeps one giant "word" (a
    # text without spaces) from costing a rewrite of thousands of symbols at every step.
    counts = {word: n for word, n in counts.items() if len(word) <= max_input_chars_per_word}
    tokens, trace = train_merges(counts, vocab_size=vocab_size, specials=specials, prefix=prefix, progress=progress)
    return WordPieceModel(tokens, unk_token=unk_token, prefix=prefix,
                          max_input_chars_per_word=max_input_chars_per_word, lowercase=lowercase,
                          cleanup=cleanup, special_tokens=specials, trace=trace)


def _check_specials(special_tokens: Sequence[str], unk_token: str) -> list[str]:
    """The special tokens in order, the unknown token first if the list lacks it."""
    if isinstance(special_tokens, str) or not isinstance(special_tokens, Sequence):
        raise BPEError(f"special tokens must be a list of str, not {type_name(special_tokens)}")
    specials = list(special_tokens)
    for token in specials:
        if not isinstance(token, str) or not token:
            raise BPEError(f"every special token must be a non-empty str, not {token!r}")
    if len(set(specials)) != len(specials):
        raise BPEError("a special token appears twice")
    return specials if unk_token in specials else [unk_token, *specials]
