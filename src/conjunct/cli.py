"""The ``conjunct`` command line (also ``python -m conjunct``)."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from typing import List, NoReturn, Optional

from . import __version__
from ._errors import ConjunctError
from .budget import set_memory_budget
from .commands import COMMANDS
from .commands._common import option, refuse_output_over_input
from .progress import progress_bars


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
    for leaf in _leaves(p):
        if "--memory-budget" not in leaf._option_string_actions:
            option(leaf, "memory_budget")
    return p


def _leaves(parser: argparse.ArgumentParser):
    """The parsers that run a command (no subcommands of their own)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
    for action in subs:
        for child in dict.fromkeys(action.choices.values()):
            yield from _leaves(child)


# Exit codes: 0 done, 1 the system failed (files, memory), 2 bad input or usage, 130 interrupted.
EXIT_SYSTEM, EXIT_INPUT, EXIT_INTERRUPTED = 1, 2, 130

_OS_HINTS = {
    errno.ENOENT: "check the path (its directory must exist)",
    errno.EISDIR: "give a file name, not a directory",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EACCES: "check the permissions",
    errno.EPERM: "check the permissions",
    errno.ENOSPC: "free some disk space",
    errno.EROFS: "write somewhere else: the file system is read-only",
    errno.EFBIG: "the file would pass a size limit (ulimit -f, or the file system's)",
}


def _leave(code: int) -> NoReturn:
    """Exit the process now. Every ``with``/``finally`` block has already run
    (partial files removed, clusters closed); leaving the ``except`` block
    would free the interrupted job's data first, which took 0.45 of the 0.55 s
    from Ctrl-C to exit in ``parse train`` of EWT."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream has nothing left to say
            pass
    os._exit(code)


def _os_message(e: OSError) -> str:
    """``FILE: what happened; what to do`` for an OS error."""
    what = e.strerror or str(e)
    name = e.filename
    if name is not None and str(name) not in what:
        what = f"{name}: {what[:1].lower() + what[1:]}"
    hint = _OS_HINTS.get(e.errno)
    return f"{what}; {hint}" if hint and hint not in what else what


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    return _main(argv, leave_on_interrupt=False)


def _main(argv: Optional[List[str]], *, leave_on_interrupt: bool) -> int:
    args = build_parser().parse_args(argv)
    try:
        refuse_output_over_input(args)
        budget = getattr(args, "memory_budget", None)
        if isinstance(budget, int):
            set_memory_budget(budget)
        try:
            with progress_bars(not getattr(args, "quiet", False)):
                return args.func(args)
        finally:
            if isinstance(budget, int):
                set_memory_budget(None)
    except ConjunctError as e:
        print(f"conjunct: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("conjunct: interrupted", file=sys.stderr)
        if leave_on_interrupt:
            _leave(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except MemoryError:
        print("conjunct: error: out of memory; use less data, a lower degree or a method that needs less memory "
              "(pki), or set a memory budget (--memory-budget 8G, CONJUNCT_MEMORY_BUDGET) to be refused up front",
              file=sys.stderr)
        return EXIT_SYSTEM
    except OSError as e:
        print(f"conjunct: error: {_os_message(e)}", file=sys.stderr)
        return EXIT_SYSTEM


def run() -> NoReturn:
    """The console entry point (``conjunct``, ``python -m conjunct``): exits
    with :func:`main`'s code, at once when interrupted (see :func:`_main`)."""
    sys.exit(_main(None, leave_on_interrupt=True))


if __name__ == "__main__":  # pragma: no cover
    run()
