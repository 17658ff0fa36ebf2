"""How many steps a second the training player really shows in Chromium, against the speed asked for.

    python bench/bench_player.py                          # multilingual sample, 200 merges, 4, 8, 15 steps/s, 5 s each
    python bench/bench_player.py --speeds 15 --seconds 5 --corpus english --merges 5000

Starts its own `python -m explorer` (the README's command) on a free port, opens the player through a link, picks a
speed, presses Play and records the step the player shows (its `data-step`) on every animation frame
with the browser's clock, for `--seconds` after the press's own rerun has settled. For each speed it
prints the distinct steps shown per second, that rate as a share of the speed asked for, and the steps
skipped (the player shows every merge: one step a frame at most, so a busy machine slows it down
rather than skipping). The browser test counts steps on Playwright's clock instead, which no load can
slow; this script is where the real figure lives. Figures go to stdout and bench/results/.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import _server
from _browser import chromium, new_page, require_chromium
from _common import ROOT, machine_info, table, write_json

ROOT_NODE = """(() => {
  for (const host of document.querySelectorAll('.stBidiComponent *')) {
    const root = host.shadowRoot && host.shadowRoot.querySelector('.bp-root');
    if (root) return root;
  }
  return document.querySelector('.bp-root');
})()"""

RECORD = """async (ms) => {
  const seen = [];
  const t0 = performance.now();
  await new Promise((done) => {
    const tick = () => {
      const root = %s;
      seen.push([performance.now() - t0, root ? Number(root.dataset.step) : -1]);
      if (performance.now() - t0 < ms) requestAnimationFrame(tick); else done();
    };
    requestAnimationFrame(tick);
  });
  return seen;
}""" % ROOT_NODE


def measure(page, base: str, path: str, speed: float, seconds: float) -> dict:
    """Play at `speed` from step 1 and record `seconds` of it: the rate shown and the steps skipped."""
    page.goto(base + path)
    page.get_by_role("button", name="Play").wait_for(timeout=300_000)
    page.get_by_label("Speed (steps per second)").select_option(f"{speed:g}")
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Pause").wait_for()
    page.wait_for_timeout(800)  # the press's own rerun redraws the page once: measure the steady play
    seen = page.evaluate(RECORD, int(seconds * 1000))
    page.get_by_role("button", name="Pause").click()
    steps = [step for _, step in seen]
    distinct = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
    skipped = sum(b - a - 1 for a, b in zip(distinct, distinct[1:]) if b > a + 1)
    elapsed = seen[-1][0] / 1000
    frames = len(seen) / elapsed if elapsed else 0.0
    rate = (len(distinct) - 1) / elapsed if elapsed else 0.0
    return {"speed": speed, "seconds": round(elapsed, 2), "steps_shown": len(distinct) - 1,
            "rate": round(rate, 2), "share": round(rate / speed, 3), "skipped": skipped,
            "frames_per_second": round(frames, 1), "first": distinct[0], "last": distinct[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="multilingual", help="a sample id (default multilingual)")
    parser.add_argument("--merges", type=int, default=200)
    parser.add_argument("--speeds", default="4,8,15", help="comma-separated steps per second (the player's choices)")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to record each speed")
    parser.add_argument("--json", default=None, help="where to write the results (default bench/results/)")
    args = parser.parse_args(argv)
    require_chromium()
    speeds = [float(s) for s in args.speeds.split(",") if s.strip()]
    path = f"/?corpus={args.corpus}&merges={args.merges}&step=1"
    port = _server.free_port()
    log_path = Path(tempfile.gettempdir()) / "bench-player-server.log"
    command = _server.app_command(port)
    process, base = _server.start(command, port=port, cwd=ROOT, log_path=log_path)
    rows = []
    try:
        with chromium() as browser:
            context, page = new_page(browser)
            try:
                for speed in speeds:
                    rows.append(measure(page, base, path, speed, args.seconds))
            finally:
                context.close()
    finally:
        _server.stop(process)
    print(f"player on {args.corpus}, {args.merges:,} merges, {args.seconds:g} s a speed")
    print(table(["asked (steps/s)", "shown (steps/s)", "shown / asked", "skipped", "frames/s", "steps"],
                [[f"{r['speed']:g}", f"{r['rate']:.1f}", f"{r['share']:.2f}", r["skipped"], r["frames_per_second"],
                  f"{r['first']}..{r['last']}"] for r in rows]))
    out = write_json("player", {"machine": machine_info(), "corpus": args.corpus, "merges": args.merges,
                                "rows": rows}, args.json)
    print(f"AGREEMENT: {'no step skipped' if all(r['skipped'] == 0 for r in rows) else 'steps skipped'}")
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
