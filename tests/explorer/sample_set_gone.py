"""The shipped multilingual sample set as if its files were gone, for the pages that read it."""
from __future__ import annotations

import shutil
from pathlib import Path

from sample_corpora import languages, shipped


def forget_read_set() -> None:
    """Drop the pages' cached read of the set (`_texts`), so their next run reads it again.

    Streamlit clears one cached function through the function itself, which a page defines anew on each run
    inside AppTest; clearing every cache would also drop the server's worker pool.
    """
    from streamlit.runtime.caching.cache_resource_api import _resource_caches

    for caches in list(_resource_caches._function_caches.values()):
        for cache in list(caches.values()):
            if cache.display_name.rsplit(".", 1)[-1] == "_texts":
                cache.clear()


def remove_shipped_set(monkeypatch, folder: Path) -> str:
    """Make every read of the set find its manifest but not its files (as in a damaged checkout); returns
    the message the reader raises, which the pages are to show."""
    shutil.copy(shipped.DATA / shipped.MANIFEST, folder / shipped.MANIFEST)
    monkeypatch.setattr(languages, "read_shipped", lambda name: shipped.read_shipped(name, folder=folder))
    forget_read_set()
    try:
        languages.load_parallel()
    except RuntimeError as exc:
        return str(exc)
    raise AssertionError("the set was read though its files are gone")
