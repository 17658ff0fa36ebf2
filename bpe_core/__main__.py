"""`python -m bpe_core`: the command line."""
from __future__ import annotations

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: the same one line as later
    print("\nerror: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
