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
