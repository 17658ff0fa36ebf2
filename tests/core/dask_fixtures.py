"""The Dask cluster the counting tests share within a module (each module starts and stops its own)."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from tests.conftest import require


@contextmanager
def local_cluster() -> Iterator[str]:
    """A LocalCluster of 2 single-threaded worker processes, silent; yields its scheduler address."""
    distributed = require("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL + 1
    ) as local:
        yield local.scheduler_address
