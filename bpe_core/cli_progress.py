"""Progress bars for the command line, drawn by tqdm on stderr.

Bars are drawn only when stderr is a terminal or `--progress` asks, so piped logs and tests stay
clean. tqdm is optional: without it there is no bar, and nothing fails.
"""
from __future__ import annotations

import sys
from typing import Any

try:
    from tqdm import tqdm
except ImportError:  # no bar without tqdm; everything else works
    tqdm = None

from .counting import CountProgress


def bars_wanted(forced: bool) -> bool:
    """Whether to draw bars: asked for, or stderr is a terminal (and tqdm is installed)."""
    return tqdm is not None and (forced or sys.stderr.isatty())


class CountBar:
    """Counting progress: bytes read, partitions done. Call it with each `CountProgress`."""

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, state: CountProgress) -> None:
        if self._bar is None:
            self._bar = tqdm(
                total=state.bytes_total, desc="counting", unit="B", unit_scale=True, file=sys.stderr, leave=True,
                bar_format="{l_bar}{bar}| {n_fmt}B/{total_fmt}B [{elapsed}<{remaining}, {rate_fmt}{postfix}]",
            )
        self._bar.set_postfix_str(f"{state.partitions_done:,}/{state.partitions_total:,} partitions", refresh=False)
        self._bar.update(state.bytes_done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class MergeBar:
    """Training progress: merges made. The trainer calls it with (done, total)."""

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = tqdm(total=total, desc="training", unit=" merges", file=sys.stderr, leave=True)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
