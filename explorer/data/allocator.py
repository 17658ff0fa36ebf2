"""glibc's allocator, told to hand the server's memory back to the system sooner.

A server lives long, with one thread per session's script: glibc's defaults keep what those threads
freed. Two settings (`SETTINGS`):

* blocks of 256 kB and more (a vocabulary's tables, a corpus's text, a page's arrays) are mapped on
  their own and unmapped when freed, instead of being carved from heaps that a small object left
  behind keeps from shrinking (glibc raises that threshold as it goes, up to 32 MB);
* at most two heaps (memory freed in one heap cannot serve a thread of another).

glibc reads them from the environment when a process starts (`environment`: what `python -m explorer`
adds before it starts the server again with them), or takes them while it runs (`tune`: what the
app does under `streamlit run`, at its first run). Measured with bench/bench_session_cycles.py
(4 cycles of 4 sessions): set while running, the server held 244-282 MB after each cycle and grew
29-37 MB from the first to the last; given in the environment, it grew 3 MB. Either way a setting
whoever started the server chose (the same variables, or a malloc tunable in `GLIBC_TUNABLES`) is
left alone. This module imports nothing heavy: the launcher reads it before the server starts.
"""
from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Mapping

# (its environment variable, mallopt's parameter number in malloc.h, the value)
SETTINGS = (("MALLOC_MMAP_THRESHOLD_", -3, 256 * 1024), ("MALLOC_ARENA_MAX", -8, 2))


def _chosen_elsewhere(environ: Mapping[str, str]) -> bool:
    return "glibc.malloc." in environ.get("GLIBC_TUNABLES", "")


def glibc() -> bool:
    return platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to add to `environ` for a process started with it ({} when there is nothing to add:
    not glibc, or whoever started us chose)."""
    if not glibc() or _chosen_elsewhere(environ):
        return {}
    return {name: str(value) for name, _, value in SETTINGS if not environ.get(name)}


def tune() -> list[str]:
    """Make the settings in this running process (those the environment does not give); the names made."""
    if _chosen_elsewhere(os.environ):
        return []
    made = []
    try:
        libc = ctypes.CDLL("libc.so.6")
        for name, parameter, value in SETTINGS:
            if not os.environ.get(name) and libc.mallopt(parameter, value) == 1:
                made.append(name)
    except (OSError, AttributeError):  # not glibc
        return []
    return made


def give_back() -> None:
    """Ask glibc to return free pages to the system (nothing elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
