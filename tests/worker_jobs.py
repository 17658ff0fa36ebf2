"""Jobs for the worker-pool tests, imported by the worker process by name ("tests.worker_jobs:wait")."""
from __future__ import annotations

import time


def wait(texts, seconds, report):
    """Sleep: time passes by the clock, none of it the processor's."""
    time.sleep(seconds)
    return "waited"


def spin(texts, seconds, report):
    """Compute for `seconds` of the processor's time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "spun"


def pid(texts, payload, report):
    """The worker's process id, and how many tasks this process has run before (kept between tasks)."""
    import os

    global _runs
    _runs += 1
    return os.getpid(), _runs - 1


_runs = 0


def fail(texts, message, report):
    from bpe_core import BPEError

    raise BPEError(message)


def loaded_builtins(texts, payload, report):
    """The built-ins this worker process holds loaded (what a preparation left in a kept process)."""
    from bpe_core.formats import builtin

    return sorted(builtin._loaded)


def twins_made(texts, payload, report):
    """The split patterns whose faster twin this worker process has made (`bpe_core.fast_pattern`)."""
    from bpe_core import pretokenize

    return sorted(name for name, fast in pretokenize._FAST.items() if fast._made)
