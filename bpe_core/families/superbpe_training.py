"""`train_superbpe` and `train_superbpe_from_counts`: argument checks around the two-phase
trainer (`superbpe_trainer.py`), giving a `SuperBPEModel`."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..pretokenize import type_name
from ..settings import TIE_BREAKS, BPEError, Settings
from ..trainer import MAX_TOKEN_LENGTH, Progress
from ..training import _check_counts
from .superbpe import MAX_WORDS, check_pretokenizer, count_both
from .superbpe_model import SuperBPEModel
from .superbpe_trainer import check_targets, train_phases

BASE_SIZE = 256  # every byte is a base symbol


def train_superbpe(
    texts: str | Iterable[str],
    *,
    vocab_size: int,
    transition: int | None = None,
    pretokenizer: str = "superbpe",
    tie_break: str = "count-pair",
    min_frequency: int = 1,
    top_k: int = 10,
    max_token_length: int | None = MAX_TOKEN_LENGTH,
    max_words: int | None = MAX_WORDS,
    colon_rule: bool = True,
    progress: Progress | None = None,
) -> SuperBPEModel:
    """Train SuperBPE on one text or several (each split on its own).

    `vocab_size` counts the 256 bytes and every merged token; phase one learns merges up to a
    vocabulary of `transition` (default: 90% of `vocab_size`, the paper's best ratio), phase two
    the rest. `pretokenizer` is phase one's split: "superbpe" (the paper's) or one of the engine's
    bytes-mode patterns. `max_words` and `colon_rule` are phase two's rules (None / False: off);
    `progress(done, total)` hears of the merges made, both phases together.
    Wrong arguments raise BPEError with a one-line message.

    >>> model = train_superbpe(["by the way, by the way, by the way"], vocab_size=270, transition=262)
    >>> model.encode("by the way").tokens
    ['byĠtheĠway']
    >>> model.transition, len(model.merges), model.training.stop_reason  # phase one's merges, all merges
    (6, 11, 'no pair is left that phase two may merge')
    """
    _check_options(vocab_size, transition, pretokenizer, tie_break, min_frequency, top_k, max_words, colon_rule)
    one, two = count_both(texts, pretokenizer)
    return train_superbpe_from_counts(
        one, two, vocab_size=vocab_size, transition=transition, pretokenizer=pretokenizer, tie_break=tie_break,
        min_frequency=min_frequency, top_k=top_k, max_token_length=max_token_length, max_words=max_words,
        colon_rule=colon_rule, progress=progress,
    )


def train_superbpe_from_counts(
    phase_one_counts: Mapping[str, int],
    phase_two_counts: Mapping[str, int],
    *,
    vocab_size: int,
    transition: int | None = None,
    pretokenizer: str = "superbpe",
    tie_break: str = "count-pair",
    min_frequency: int = 1,
    top_k: int = 10,
    max_token_length: int | None = MAX_TOKEN_LENGTH,
    max_words: int | None = MAX_WORDS,
    colon_rule: bool = True,
    progress: Progress | None = None,
) -> SuperBPEModel:
    """Train from the two word counts of one corpus, in byte symbols and first-appearance order:
    `count_phase_one(texts, pretokenizer)` and `count_phase_two(texts)` (module `superbpe`).

    >>> from bpe_core.families.superbpe import count_phase_one, count_phase_two
    >>> texts = ["in the end, in the end"]
    >>> a = train_superbpe_from_counts(count_phase_one(texts), count_phase_two(texts), vocab_size=262, transition=258)
    >>> a.merges == train_superbpe(texts, vocab_size=262, transition=258).merges
    True
    """
    _check_options(vocab_size, transition, pretokenizer, tie_break, min_frequency, top_k, max_words, colon_rule)
    vocab_size, transition = check_targets(vocab_size, transition, BASE_SIZE)
    settings = Settings(mode="bytes", pretokenizer="none", tie_break=tie_break, min_frequency=min_frequency)
    for name, counts in (("phase-one", phase_one_counts), ("phase-two", phase_two_counts)):
        if not isinstance(counts, Mapping):
            raise BPEError(f"{name} word counts must be a mapping of word -> count, not {type_name(counts)}")
        if not counts:
            raise BPEError(f"the {name} word counts are empty: there is nothing to train on")
        _check_counts(counts, settings)
    if max_token_length is not None and (
        isinstance(max_token_length, bool) or not isinstance(max_token_length, int) or max_token_length < 1
    ):
        raise BPEError(f"the longest token must be a whole number of 1 or more, or None; not {max_token_length!r}")
    training = train_phases(
        phase_one_counts, phase_two_counts, settings, vocab_size=vocab_size, transition=transition, top_k=top_k,
        max_token_length=max_token_length, max_words=max_words, colon_rule=colon_rule, progress=progress,
    )
    return SuperBPEModel(
        merges=[(s.left, s.right) for s in training.trace],
        transition=training.transition,
        tie_break=tie_break,
        pretokenizer=pretokenizer,
        max_words=max_words,
        colon_rule=colon_rule,
        training=training,
    )


def _check_options(
    vocab_size: object, transition: object, pretokenizer: object, tie_break: object, min_frequency: object,
    top_k: object, max_words: object, colon_rule: object,
) -> None:
    check_targets(vocab_size, transition, BASE_SIZE)
    check_pretokenizer(pretokenizer)
    if tie_break not in TIE_BREAKS:
        raise BPEError(f"unknown tie-break {tie_break!r}; choose one of: {', '.join(TIE_BREAKS)}")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 1:
        raise BPEError(f"the minimum frequency must be a whole number of 1 or more, not {min_frequency!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise BPEError(f"top_k must be a whole number of 1 or more, not {top_k!r}")
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1):
        raise BPEError(f"max_words must be a whole number of 1 or more, or None; not {max_words!r}")
    if not isinstance(colon_rule, bool):
        raise BPEError(f"colon_rule must be True or False, not {colon_rule!r}")
