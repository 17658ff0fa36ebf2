"""Starting and stopping a server on this machine for the browser benchmarks (loopback only)."""
from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from pathlib import Path

START_TIMEOUT = 90.0  # seconds; the two cores may be busy


def streamlit_options(port: int) -> list[str]:
    """The `streamlit run` options of every benchmark's server: headless, loopback only, no file watcher."""
    return ["--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


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


def stop(process: subprocess.Popen) -> None:
    """Stop the server this benchmark started (only that process)."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


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
