"""Starting and stopping a server on this machine for the browser benchmarks (loopback only)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

START_TIMEOUT = 90.0  # seconds; the two cores may be busy


def streamlit_options(port: int) -> list[str]:
    """The `streamlit run` options of every benchmark's server: headless, loopback only, no file watcher."""
    return ["--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


def app_command(port: int, *extra: str) -> list[str]:
    """The README's command for the app (`python -m explorer`, explorer/ui/launch.py) on `port`, with `extra`
    options after the common ones."""
    return [sys.executable, "-m", "explorer", *streamlit_options(port), *extra]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(command: list[str], *, port: int, cwd: Path, log_path: Path, env: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen, str]:
    """Run `command` (a server listening on 127.0.0.1:`port`) until /_stcore/health answers ok."""
    log = open(log_path, "w")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with code {process.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
                if answer.read().decode().strip() == "ok":
                    return process, base
        except OSError:
            pass
        time.sleep(0.3)
    stop(process)
    raise SystemExit(f"the server did not answer on {base} within {START_TIMEOUT:.0f} s; see {log_path}")


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (state, parent, ...); [] once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return []


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc; [] elsewhere)."""
    entries = os.scandir("/proc") if os.path.isdir("/proc") else ()
    return [int(e.name) for e in entries if e.name.isdigit() and _stat(e.name)[1:2] == [str(pid)]]


def running(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, ended and not yet reaped, does not)."""
    state = _stat(pid)[:1]
    return bool(state) and state != ["Z"]


def stop(process: subprocess.Popen, *, children_wait: float = 30.0) -> None:
    """Stop the server this benchmark started (only that process), then wait for the processes it had
    started (its cache warming, its workers) to end, as they do when their parent has: a warming still
    writing would put its caches back into a folder the benchmark is about to remove."""
    started = children(process.pid)
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    deadline = time.monotonic() + children_wait
    while started and time.monotonic() < deadline:
        started = [pid for pid in started if running(pid)]
        time.sleep(0.1)


def rss_mb(pid: int) -> float:
    """The resident set of process `pid` in MB (VmRSS); 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
