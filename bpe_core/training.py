"""`train` and `train_from_counts`: the public ways to train a tokenizer.

They check the caller's arguments (one-line BPEError messages), run the incremental trainer
(`trainer.py`) and wrap its result in a `Tokenizer` (`model.py`).
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from dataclasses import replace

from .model import Tokenizer
from .pretokenize import char_to_byte, count_words, require_str, type_name
from .settings import BPEError, Settings
from .trainer import MAX_TOKEN_LENGTH, Progress, train_counts


def _check_settings(settings: object) -> Settings:
    if settings is None:
        return Settings()
    if not isinstance(settings, Settings):
        raise BPEError(f"settings must be a bpe_core.Settings, not {type_name(settings)}")
    return settings


def train(
    texts: str | Iterable[str],
    settings: Settings | None = None,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    top_k: int = 10,
    progress: Progress | None = None,
    max_token_length: int | None = MAX_TOKEN_LENGTH,
) -> Tokenizer:
    """Train a tokenizer on one text or several (each split on its own).

    The target is `merges` (a number of merges, 0 or more) or `vocab_size` (base symbols plus
    merged tokens; below the corpus's alphabet it is refused), not both; with neither,
    DEFAULT_MERGES (1000) merges are learned, or fewer if the pairs run out first.
    No token grows past `max_token_length` characters (MAX_TOKEN_LENGTH, 1000; None: no limit),
    which bounds memory on text trained without pre-tokenization.
    Wrong arguments raise BPEError with a one-line message.

    >>> train("low lower", merges=1).merges  # ties go to the greatest pair: ('o', 'w') > ('l', 'o')
    [('o', 'w')]
    >>> len(train("low lower").merges)  # no target: up to 1000 merges; here the pairs run out
    6
    """
    settings = _check_settings(settings)
    if isinstance(texts, str):
        texts = [require_str(texts)]
    elif isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Iterable):
        hint = ": decode it first (UTF-8)" if isinstance(texts, (bytes, bytearray)) else ""
        raise BPEError(f"train takes a text (str) or a list of texts, not {type_name(texts)}{hint}")
    else:
        texts = list(texts)
        for n, text in enumerate(texts, 1):
            require_str(text, what=f"text {n:,} of {len(texts):,}")
    return train_from_counts(
        count_words(texts, settings),
        settings,
        merges=merges,
        vocab_size=vocab_size,
        top_k=top_k,
        progress=progress,
        max_token_length=max_token_length,
    )


def train_from_counts(
    word_counts: Mapping[str, int],
    settings: Settings,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    top_k: int = 10,
    progress: Progress | None = None,
    max_token_length: int | None = MAX_TOKEN_LENGTH,
) -> Tokenizer:
    """Train from word counts as `count_words` returns them (for callers that keep the counts).

    Words are non-empty strings (in bytes mode written in byte symbols, as `count_words` gives
    them), counts whole numbers of 1 or more. The target works as in `train`.

    >>> train_from_counts({"low": 5, "lower": 2}, Settings(), merges=2).merges
    [('o', 'w'), ('l', 'ow')]
    """
    settings = _check_settings(settings)
    if not isinstance(word_counts, Mapping):
        raise BPEError(f"word counts must be a mapping of word -> count, not {type_name(word_counts)}")
    if not word_counts:
        raise BPEError("the corpus is empty: there is nothing to train on")
    _check_counts(word_counts, settings)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise BPEError(f"top_k must be a whole number of 1 or more, not {top_k!r}")
    result = train_counts(
        word_counts,
        settings,
        merges=merges,
        vocab_size=vocab_size,
        top_k=top_k,
        progress=progress,
        max_token_length=max_token_length,
    )
    return Tokenizer(
        settings=settings,
        merges=[(m.left, m.right) for m in result.trace],
        base=result.base,
        training=result,
    )


def _check_counts(word_counts: Mapping[str, int], settings: Settings) -> None:
    """Refuse what no corpus could give: words that are not text, counts that are not whole and positive."""
    for word, count in word_counts.items():
        if type(count) is not int and (isinstance(count, bool) or not isinstance(count, numbers.Integral)):
            raise BPEError(f"word counts must be whole numbers of 1 or more; {word!r} has {count!r}")
        if count < 1:
            raise BPEError(f"word counts must be whole numbers of 1 or more; {word!r} has {count!r}")
        if type(word) is not str:
            raise BPEError(f"the words of word counts must be str, not {type_name(word)} ({word!r})")
        if not word:
            raise BPEError("word counts hold an empty word: every word needs at least one character")
        if not word.isascii():
            require_str(word, what="a word of the word counts")
    if settings.mode == "bytes":
        strange = set("".join(word_counts)).difference(char_to_byte())
        if strange:
            raise BPEError(
                "in bytes mode, word counts hold words written in byte symbols (as count_words gives them); "
                f"{min(strange)!r} is not a byte symbol"
            )


def first_merges(tokenizer: Tokenizer, merges: int) -> Tokenizer:
    """The tokenizer training with only its first `merges` merges would have made, without training.

    Training is greedy: each merge depends only on the ones before it, so fewer merges learn exactly
    the first ones, and their trace and pair counts are the first ones too. Asking for more merges
    than were made is answered only when training stopped early (no pair left): more changes nothing.

    >>> tok = train("low low lower newest", merges=4)
    >>> first_merges(tok, 2).merges == tok.merges[:2] == train("low low lower newest", merges=2).merges
    True
    """
    result = tokenizer.training
    if result is None:
        raise BPEError("only a tokenizer trained here has a training record to cut")
    made = len(tokenizer.merges)
    ran_out = not result.stop_reason.startswith("reached")
    if isinstance(merges, bool) or not isinstance(merges, int) or merges < 0 or (merges > made and not ran_out):
        raise BPEError(f"only the first {made:,} merges of this tokenizer are known, not {merges!r}")
    k = min(merges, made)
    cut = replace(
        result, trace=result.trace[:k], top_pairs=result.top_pairs[:k], requested_merges=merges,
        stop_reason=result.stop_reason if merges > made else "reached the requested number of merges",
        stats={}, final_usage={},  # both describe the corpus after every merge: recomputed on demand
    )
    return Tokenizer(settings=tokenizer.settings, merges=tokenizer.merges[:k], base=result.base, training=cut)
