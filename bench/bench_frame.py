"""Time the animation's frame-building functions on a large corpus (server time per frame).

    python bench/bench_frame.py                # english sample repeated to ~5 MB, 2,000 merges

A frame is what one tick of the player computes: the frame data (`frames.build_frame`), the
merge card and word chips (HTML), both figures, and the JSON `st.plotly_chart` makes of them.
Streamlit's own overhead for a fragment rerun (a few milliseconds) comes on top.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import plotly.io as pio  # noqa: E402
import plotly.tools  # noqa: E402

from bpe_core import Settings  # noqa: E402
from explorer import charts  # noqa: E402
from explorer.frames import build_frame  # noqa: E402
from explorer.render import merge_card_html, word_rows_html  # noqa: E402
from explorer.training import TrainRequest, train_corpus  # noqa: E402
from sample_corpora import load_corpus  # noqa: E402


def frame_once(trained, step: int) -> None:
    frame = build_frame(trained, step, words=14)
    if frame.merge is not None:
        m = frame.merge
        merge_card_html(left=m.left, right=m.right, token=m.token, count=m.count, rank=m.rank,
                        vocab_size=m.vocab_size, births=trained.tokenizer.birth)
    word_rows_html(frame.rows)
    for fig in (charts.top_pairs_figure(frame.pairs),
                charts.compression_figure(trained.curve, step=step, collapse=trained.collapse_step)):
        # What st.plotly_chart does with a figure before sending it.
        spec = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
        pio.to_json(spec, validate=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english")
    parser.add_argument("--mb", type=float, default=5.0, help="repeat the corpus up to this many MB")
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--mode", default="word")
    args = parser.parse_args(argv)

    text = load_corpus(args.corpus)
    target = int(args.mb * 1_000_000)
    size = len(text.encode("utf-8"))
    text = text * max(1, round(target / size)) if size < target else text
    print(f"corpus {args.corpus}: {len(text.encode('utf-8')) / 1e6:.2f} MB")
    started = time.perf_counter()
    trained = train_corpus([text], TrainRequest(Settings(mode=args.mode), "merges", args.merges))
    print(f"training {trained.steps:,} merges: {time.perf_counter() - started:.1f} s")

    rng = random.Random(0)
    frame_once(trained, 1)  # warm-up (imports, caches)
    times = []
    for _ in range(args.frames):
        step = rng.randint(0, trained.steps)
        t0 = time.perf_counter()
        frame_once(trained, step)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"{len(times)} frames: median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
