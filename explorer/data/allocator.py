"""glibc's allocator, told to hand the server's memory back to the system sooner.

A server lives long, with one thread per session's script: glibc's defaults keep what those threads
freed. Two settings (`SETTINGS`), made by `tune` once the server runs (at its first run):

* blocks of 256 kB and more (a vocabulary's tables, a corpus's text, a page's arrays) are mapped on
  their own and unmapped when freed, instead of being carved from heaps that a small object left
  behind keeps from shrinking (glibc raises that threshold as it goes, up to 32 MB);
* at most two heaps for the threads yet to get one (memory freed in one heap cannot serve a thread
  of another).

Measured with bench/bench_session_cycles.py (4 cycles of 4 sessions): the server held 244-282 MB
after each cycle, against 320-376 MB without them. The same settings given in the environment
before the server starts did no better in a run of the same bench (262-299 MB, +37 MB from the first
cycle to the last, as here). A setting whoever started the server chose (the same variables, or a
malloc tunable in `GLIBC_TUNABLES`) is left alone.
"""
from __future__ import annotations

import ctypes
import os

# (its environment variable, mallopt's parameter number in malloc.h, the value)
SETTINGS = (("MALLOC_MMAP_THRESHOLD_", -3, 256 * 1024), ("MALLOC_ARENA_MAX", -8, 2))


def tune() -> list[str]:
    """Make the settings in this running process (those the environment does not give); the names made."""
    if "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
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
