"""Where a file's pieces start: byte ranges of whole sentences (blank-line
blocks or single lines), found with a seek and a short read per piece, and
the copy of one range (what a worker reads)."""

from __future__ import annotations

import os
from typing import List, Tuple

from .._errors import ConjunctError

__all__ = ["split_ranges", "copy_range", "UNITS"]

UNITS = ("block", "line")
_SCAN = 1 << 16


def split_ranges(path, n_pieces: int, unit: str = "block") -> List[Tuple[int, int]]:
    """Byte ranges ``[start, end)`` cutting ``path`` into at most ``n_pieces``
    pieces of about equal size, each of whole sentences.

    Parameters
    ----------
    path : str or os.PathLike
        The input file.
    n_pieces : int
        Pieces wanted (fewer for a small file).
    unit : {"block", "line"}
        ``"block"``: a piece ends after a blank (or whitespace-only) line, so
        blank-line-separated sentences (CoNLL-U, CoNLL-2000, word-per-line)
        stay whole; ``"line"``: after any line break (one sentence per line).

    Returns
    -------
    list of (int, int)
        Contiguous ranges covering the file, in order.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    name = os.fspath(path)
    size = os.path.getsize(name)
    cuts = [0]
    with open(name, "rb") as f:
        for k in range(1, max(1, int(n_pieces))):
            aim = max(size * k // n_pieces, cuts[-1])
            cut = _next_cut(f, aim, size, unit)
            if cut >= size:
                break
            if cut > cuts[-1]:
                cuts.append(cut)
    cuts.append(size)
    return list(zip(cuts[:-1], cuts[1:]))


def _next_cut(f, aim: int, size: int, unit: str) -> int:
    """The first piece boundary at or after ``aim``: the start of a line that
    follows a line break (``line``) or a blank line (``block``)."""
    if aim == 0:
        return 0
    f.seek(aim - 1)
    f.readline()  # to the end of the line holding byte aim - 1: the next line starts at a boundary of lines
    if unit == "line":
        return f.tell()
    while True:
        line = f.readline()
        if not line:
            return size
        if not line.strip():  # a blank line ends a sentence; the next piece starts after it
            return f.tell()


def copy_range(src: str, start: int, end: int, dst) -> None:
    with open(src, "rb") as f:
        f.seek(start)
        left = end - start
        while left:
            chunk = f.read(min(left, 1 << 22))
            if not chunk:
                raise ConjunctError(f"{src} changed while it was being read (shorter than {end} bytes)")
            dst.write(chunk)
            left -= len(chunk)


# Pieces are copied to the worker's temporary directory as
# conjunct-piece-<run>-<host>-<pid>-<random><suffix>: <host> tags the machine, boot and pid
# namespace (as model saves do), so a task can remove the pieces of worker processes
# that were killed mid-task on its machine, and the driver every piece of its run.
