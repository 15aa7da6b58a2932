"""The ``conjunct`` command line (also ``python -m conjunct``)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

from . import __version__
from ._errors import ConjunctError
from .commands import COMMANDS
from .commands._common import resolve_output


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="conjunct",
        description="Fast, exact classification, training and decoding with conjunctive features.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        resolve_output(args)
        return args.func(args)
    except ConjunctError as e:
        print(f"conjunct: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
