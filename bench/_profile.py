"""Where our trainer spends its time: cProfile of one training, and its phases timed apart."""
from __future__ import annotations

import gc
import io
import time
from typing import Any

from _common import CASES, fmt, table


def profile_ours(text: str, case: str, merges: int, top: int = 25) -> str:
    import cProfile
    import pstats

    from bpe_core import Settings, train

    settings = Settings(**CASES[case]["ours"])
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    profiler.enable()
    train([text], settings, merges=merges)
    profiler.disable()
    seconds = time.perf_counter() - t0
    buf = io.StringIO()
    stats = pstats.Stats(profiler, stream=buf)
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    buf.write("\n--- by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(top)
    return (
        f"train() under cProfile: {seconds:.2f} s (profiling overhead included)\n"
        + phase_breakdown(text, settings, merges)
        + buf.getvalue()
    )


def phase_breakdown(text: str, settings: Any, merges: int) -> str:
    """Wall time of train()'s parts, without the profiler: train_counts is one big function,
    so cProfile alone cannot say how its own time splits."""
    from bpe_core.pretokenize import count_words
    from bpe_core.trainer import train_counts

    def timed(fn: Any, *, no_gc: bool = False, repeat: int = 3) -> float:
        best = float("inf")
        for _ in range(repeat):  # best of `repeat`: the machine is shared
            gc.collect()
            if no_gc:
                gc.disable()
            t0 = time.perf_counter()
            try:
                fn()
            finally:
                gc.enable()
            best = min(best, time.perf_counter() - t0)
        return best

    t_count = timed(lambda: count_words([text], settings))
    counts = count_words([text], settings)
    t_setup = timed(lambda: train_counts(counts, settings, merges=0))
    t_full = timed(lambda: train_counts(counts, settings, merges=merges))
    t_top1 = timed(lambda: train_counts(counts, settings, merges=merges, top_k=1))
    t_nogc = timed(lambda: train_counts(counts, settings, merges=merges), no_gc=True)
    loop = t_full - t_setup
    rows = [
        ["count_words", fmt(t_count), ""],
        ["train_counts setup (merges=0: symbols, linked list, pair counts, heap)", fmt(t_setup), ""],
        ["train_counts merge loop, default top_k=10", fmt(loop), f"{loop / max(merges, 1) * 1e6:.0f} us/merge"],
        ["  runner-up pairs for the chart (top_k=10 minus top_k=1)", fmt(t_full - t_top1),
         f"{(t_full - t_top1) / max(t_full, 1e-9) * 100:.0f}% of train_counts"],
        ["  cyclic GC (train_counts minus the same with gc.disable())", fmt(t_full - t_nogc),
         f"{(t_full - t_nogc) / max(t_full, 1e-9) * 100:.0f}% of train_counts"],
    ]
    return (
        "\nPhases (wall seconds, best of 3, no profiler, same process):\n"
        + table(["phase", "seconds", ""], rows, align="lrl")
        + "\n\n"
    )


# ============================================================================================
# Main
# ============================================================================================
