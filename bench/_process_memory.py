"""Peak memory of a process and all its descendants (Dask workers, a CLI's cluster), sampled with psutil.

`/proc/self/status`'s VmHWM gives one process's exact peak, and a Dask worker can report its own
(`ru_maxrss`, through `client.run`); a process tree seen from outside needs sampling: every
`interval` seconds each process's resident set is read, keeping each one's highest and the
highest sum. A peak shorter than the interval can be missed, so the figures are lower bounds.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import psutil


@dataclass
class ProcessPeak:
    pid: int
    name: str  # a short label from the command line
    peak_kib: int = 0


@dataclass
class TreeSampler:
    """Samples `root` (a pid; default: this process) and its descendants until stopped."""

    root: int | None = None
    interval: float = 0.1
    include_root: bool = True
    peaks: dict[int, ProcessPeak] = field(default_factory=dict)
    peak_total_kib: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> TreeSampler:
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def sample(self) -> None:
        try:
            root = psutil.Process(self.root) if self.root else psutil.Process()
            procs = ([root] if self.include_root else []) + root.children(recursive=True)
        except psutil.Error:
            return
        total = 0
        for proc in procs:
            try:
                rss = proc.memory_info().rss // 1024
                if proc.pid not in self.peaks:
                    self.peaks[proc.pid] = ProcessPeak(proc.pid, _label(proc))
            except psutil.Error:
                continue
            peak = self.peaks[proc.pid]
            peak.peak_kib = max(peak.peak_kib, rss)
            total += rss
        self.peak_total_kib = max(self.peak_total_kib, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)
        self.sample()

    def summary(self) -> dict[str, Any]:
        return {
            "sampled_every_s": self.interval,
            "peak_total_mib": round(self.peak_total_kib / 1024, 1),
            "processes": [
                {"pid": p.pid, "name": p.name, "peak_mib": round(p.peak_kib / 1024, 1)}
                for p in sorted(self.peaks.values(), key=lambda p: p.pid)
            ],
        }


def _label(proc: psutil.Process) -> str:
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return "?"
    text = " ".join(cmd)
    if "multiprocessing.spawn" in text or "spawn_main" in text:
        return "dask worker (spawned)"
    if "multiprocessing.resource_tracker" in text:
        return "resource tracker"
    if "-m bpe_core" in text or (len(cmd) > 2 and cmd[1:3] == ["-m", "bpe_core"]):
        return "python -m bpe_core"
    return " ".join(c.rsplit("/", 1)[-1] for c in cmd[:3])[:60]

