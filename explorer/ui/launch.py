"""`python -m explorer [streamlit run's options]`: the app's server, started ready for its first visitor.

It serves explorer/app.py as `streamlit run explorer/app.py` would, with the same options (`--server.port
8502`, `--server.address 0.0.0.0`, ...), and does what that command cannot: as soon as the server runs,
a thread prepares what its first visitor would otherwise wait for (explorer/ui/preload.py).
`streamlit run explorer/app.py` still works; its first visitor then waits for that work.
"""
from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app.py"


def streamlit_arguments(options: Sequence[str]) -> list[str]:
    """`streamlit run`'s arguments for the app with the user's options."""
    return ["run", str(APP), *options]


def _log_to_terminal() -> None:
    """The app's own lines (what was preloaded, a warming that stopped) on the terminal, as Streamlit's are."""
    logger = logging.getLogger("explorer")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False  # once, whatever else is configured


def main(argv: Sequence[str] | None = None) -> int:
    options = sys.argv[1:] if argv is None else list(argv)
    if options[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    from streamlit.web import cli

    from explorer.ui import preload

    _log_to_terminal()
    preload.start()
    cli.main(streamlit_arguments(options), prog_name="streamlit")  # exits with the server
    return 0
