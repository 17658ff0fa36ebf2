"""BPE trained for the pages: count the corpus's words, train, and gather the compression curve.

The curve and the collapse step are the engine's (`bpe_core.analysis.compression`); the Watch page
plays the merge list's own record (`Tokenizer.training`), so the bundle has no story.
"""
from __future__ import annotations

from bpe_core import BPEError, train_from_counts
from bpe_core.analysis import collapse_step, compression_curve
from bpe_core.pretokenize import count_words, counted_word_text
from explorer.data.training import TOP_WORDS, Progress, Trained, TrainRequest, count_with_progress


def train(texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
          count_progress: Progress | None = None) -> Trained:
    """The request trained on the texts (`training.train_corpus`)."""
    settings = request.settings
    counts = count_words(texts, settings) if count_progress is None else count_with_progress(
        texts, settings, count_progress)
    if not counts:
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    kwargs = {"merges": request.amount} if request.target == "merges" else {"vocab_size": request.amount}
    tokenizer = train_from_counts(counts, settings, top_k=10, progress=progress, **kwargs)
    result = tokenizer.training  # always set for a tokenizer trained here
    return Trained(
        tokenizer=tokenizer,
        request=request,
        top_words=[(counted_word_text(w, settings), n) for w, n in counts.most_common(TOP_WORDS)],
        curve=compression_curve(result, counts, settings),
        collapse_step=collapse_step(result),
        alphabet=len(result.base),  # the engine refuses a vocabulary smaller than this
    )
