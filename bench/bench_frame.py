"""Server time to build the animation player's frames, and the bytes sent, on the 5 MB English sample.

    python bench/bench_frame.py                       # word, text and bytes modes
    python bench/bench_frame.py --modes word --merges 5000
    python bench/bench_frame.py --mb 0.3 --merges 300      # a quick look (the smoke test's)

The browser plays and scrubs the frames on its own (explorer/ui/player); the server builds them a
window at a time (the family's `player.window`) and sends them as JSON. For each mode this prints the
window a page opens with (a training of at most 6,000 merges in word or bytes mode is sent whole),
the small window a far scrub asks for, and the window asked for ahead while playing: median server
time of a few builds, and the size of the JSON. Streamlit's own cost for a rerun comes on top.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from bpe_core import Settings
from explorer.data.training import TrainRequest, train_corpus
from explorer.display.frames import passage_mode
from explorer.ui import player
from explorer.ui.animation import WORDS_SHOWN, frames_of
from sample_corpora import load_corpus

DEFAULT_MERGES = {"word": 5000, "text": 2000, "bytes": 2000}


def timed_window(trained, first: int, last: int, repeats: int) -> tuple[float, int]:
    """Median milliseconds to build the window, and its JSON size in bytes."""
    times = []
    window = None
    for _ in range(repeats):
        started = time.perf_counter()
        window = frames_of(trained).window(trained, first, last, words=WORDS_SHOWN)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), len(json.dumps(window).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english")
    parser.add_argument("--modes", default="word,text,bytes")
    parser.add_argument("--merges", type=int, default=None, help="default: 5,000 in word mode, 2,000 otherwise")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mb", type=float, default=None, help="only the corpus's first MB (default: all of it)")
    args = parser.parse_args(argv)

    text = load_corpus(args.corpus)
    if args.mb is not None:
        text = text.encode("utf-8")[:int(args.mb * 1e6)].decode("utf-8", "ignore")
    print(f"corpus {args.corpus}: {len(text.encode('utf-8')) / 1e6:.2f} MB")
    for mode in args.modes.split(","):
        merges = args.merges or DEFAULT_MERGES[mode]
        started = time.perf_counter()
        trained = train_corpus([text], TrainRequest(Settings(mode=mode), "merges", merges))
        steps = trained.steps
        passage = passage_mode(trained)
        print(f"\n{mode} mode, {steps:,} merges (trained in {time.perf_counter() - started:.1f} s); "
              f"{'a passage of the text' if passage else 'the most frequent words'} a frame")
        middle = steps // 2
        opening = player.window_bounds(1, steps, passage=passage)
        cases = [("page opens at step 1", opening)]
        if opening == (0, steps):
            print("  every step is sent when the page opens: scrubbing and playing ask the server for nothing")
        else:
            cases += [
                (f"far scrub to step {middle:,}", player.window_bounds(middle, steps, passage=passage, jump=True)),
                (f"playing on from step {middle:,}", player.window_bounds(middle, steps, passage=passage)),
            ]
        for label, (first, last) in cases:
            ms, size = timed_window(trained, first, last, args.repeats)
            frames = last - first + 1
            print(f"  {label:<32} steps {first:>5,}-{last:<5,} ({frames:>5,} frames): "
                  f"{ms:7.1f} ms, {size / 1000:8.1f} KB "
                  f"({ms / frames:.2f} ms and {size / frames / 1000:.2f} KB a frame)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
