"""`python -m sample_corpora`: rebuild the shipped samples, or write the parallel set as files.

    python -m sample_corpora build [--check]   rebuild data/ from the installed packages (build.py)
    python -m sample_corpora parallel DIR      write the parallel set as DIR/<code>.txt files

`parallel` writes what `python -m bpe_core report --parallel DIR` reads: the same messages in each
language, en.txt the reference. `build --check` writes nothing and exits 1 when a shipped file is not
what a fresh build makes. Errors are one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .catalog import write_atomically
from .languages import list_languages, load_parallel


def _build(check: bool) -> int:
    from . import build  # reads the packages' files: only here

    texts = build.built_texts()
    if check:
        stale = build.differences(texts, build.DATA)
        for name, why in stale.items():
            print(f"{name}: {why}", file=sys.stderr)
        print(f"{len(texts) - len(stale)} of {len(texts)} shipped files are what a fresh build makes", file=sys.stderr)
        return 1 if stale else 0
    written = build.write(texts, build.DATA)
    print(f"wrote {len(written)} of {len(texts)} files to {build.DATA}" + (f": {', '.join(written)}" if written else
                                                                          " (the others were already built)"),
          file=sys.stderr)
    return 0


def _parallel(folder: Path) -> int:
    texts = load_parallel()
    folder.mkdir(parents=True, exist_ok=True)
    for code, text in texts.items():
        write_atomically(folder / f"{code}.txt", text)
    names = ", ".join(f"{lang.code} ({lang.name})" for lang in list_languages())
    print(f"wrote {len(texts)} languages to {folder}: {names}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sample_corpora", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build = commands.add_parser("build", help="rebuild the shipped samples in data/ from the installed packages")
    build.add_argument("--check", action="store_true", help="compare with a fresh build; write nothing")
    parallel = commands.add_parser("parallel", help="write the parallel set as DIR/<language code>.txt files")
    parallel.add_argument("directory", metavar="DIR", help="where to write (created if missing)")
    args = parser.parse_args(argv)
    try:
        return _build(args.check) if args.command == "build" else _parallel(Path(args.directory))
    except RuntimeError as exc:  # a source package not installed; a shipped file missing or damaged
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {exc.filename or 'the files'}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
