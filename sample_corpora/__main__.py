"""`python -m sample_corpora parallel DIR`: write the multilingual parallel set as DIR/<code>.txt files.

That folder is what `python -m bpe_core report --parallel DIR` reads: the same messages in each
language, en.txt the reference. Errors are one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .catalog import write_atomically
from .languages import list_languages, load_parallel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sample_corpora", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parallel = commands.add_parser("parallel", help="write the parallel set as DIR/<language code>.txt files")
    parallel.add_argument("directory", metavar="DIR", help="where to write (created if missing)")
    args = parser.parse_args(argv)
    folder = Path(args.directory)
    try:
        texts = load_parallel()
        folder.mkdir(parents=True, exist_ok=True)
        for code, text in texts.items():
            write_atomically(folder / f"{code}.txt", text)
    except RuntimeError as exc:  # Django or Sphinx not installed
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {exc.filename or folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    names = ", ".join(f"{lang.code} ({lang.name})" for lang in list_languages())
    print(f"wrote {len(texts)} languages to {folder}: {names}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
