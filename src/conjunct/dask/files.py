"""Files on a cluster: each input split into pieces of whole sentences, every
piece run on a worker that holds the model once, the outputs joined in order.

The driver only finds where pieces start (a seek and a short read per piece);
workers read their own byte ranges, so the input must be on a file system
every worker sees at the same path, as must the model and the output's
directory (part files are written beside the output, then joined in order
and removed). Output is byte-identical to the serial run whenever each
sentence's output depends on that sentence alone, which holds for every
conjunct tagger and pipeline.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import sys
import tempfile
from typing import Callable, List, Sequence, Tuple

from .._errors import ConjunctError
from ._cluster import connect, n_workers
from ._shared import shared_model

__all__ = ["split_ranges", "map_files", "run_action"]

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


def _copy_range(src: str, start: int, end: int, dst) -> None:
    with open(src, "rb") as f:
        f.seek(start)
        left = end - start
        while left:
            chunk = f.read(min(left, 1 << 22))
            if not chunk:
                raise ConjunctError(f"{src} changed while it was being read (shorter than {end} bytes)")
            dst.write(chunk)
            left -= len(chunk)


def _run_piece(runner: Callable, model: str, src: str, start: int, end: int, part: str) -> str:
    """On a worker: the piece [start, end) of ``src`` into a local file (same
    suffix, so format detection by name still works), ``runner(obj, piece,
    part)`` with the worker's shared model; returns ``part``."""
    obj = shared_model(model)
    suffix = os.path.splitext(src)[1]
    fd, piece = tempfile.mkstemp(prefix="conjunct-piece-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            _copy_range(src, start, end, f)
        runner(obj, piece, part)
    finally:
        os.unlink(piece)
    return part


def map_files(model, inputs: Sequence, outputs: Sequence, runner: Callable, *, client, unit: str = "block",
              pieces_per_worker: int = 4, progress: bool = False) -> None:
    """Process ``inputs`` into ``outputs`` on a Dask cluster with one model.

    Every input is split into pieces of whole sentences (:func:`split_ranges`);
    a task per piece calls ``runner(obj, piece_path, part_path)`` on a worker,
    where ``obj`` is the model loaded once per worker by path
    (:func:`~conjunct.dask.shared_model`); the parts are appended to each
    output in order as they finish, then removed. Only paths travel in the
    task graph, never the model.

    Parameters
    ----------
    model : str or os.PathLike
        Model file, readable by every worker at this path.
    inputs, outputs : sequence of str
        Input files and the output file of each (``"-"``: standard output).
    runner : callable
        ``runner(obj, input_path, output_path)``, picklable (a module-level
        function or an instance of a module-level class): what serial
        processing of one file does.
    client : distributed.Client or str
        The cluster (see :func:`~conjunct.dask.connect`).
    unit : {"block", "line"}
        Where sentences end (see :func:`split_ranges`).
    pieces_per_worker : int
        Pieces per worker and input; more balance the load, fewer cost less.
    progress : bool
        A line on standard error per finished input.
    """
    inputs, outputs = [os.fspath(p) for p in inputs], [os.fspath(p) for p in outputs]
    if len(inputs) != len(outputs):
        raise ConjunctError(f"{len(inputs)} inputs but {len(outputs)} outputs")
    for src in inputs:
        if src == "-":
            raise ConjunctError("--scheduler needs an input file the workers can read, not standard input")
        if not os.path.isfile(src):
            raise ConjunctError(f"{src}: not a file (the workers read pieces of one input file)")
    model = os.path.abspath(os.fspath(model))
    with connect(client) as c:
        n = n_workers(c) * max(1, int(pieces_per_worker))
        jobs = []
        try:
            for src, dst in zip(inputs, outputs):
                where = os.path.dirname(os.path.abspath(dst)) if dst != "-" else os.getcwd()
                tmp = tempfile.mkdtemp(prefix=".conjunct-parts-", dir=where)
                jobs.append((src, dst, tmp, []))
                ranges = split_ranges(src, n, unit)
                parts = [os.path.join(tmp, f"part-{k:06d}") for k in range(len(ranges))]
                jobs[-1][3].extend(c.map(_run_piece, [runner] * len(ranges), [model] * len(ranges),
                                         [os.path.abspath(src)] * len(ranges), [a for a, _ in ranges],
                                         [b for _, b in ranges], parts, pure=False))
            for src, dst, tmp, futures in jobs:
                _join(dst, futures)
                if progress:
                    print(f"{src} -> {dst}: {len(futures)} pieces", file=sys.stderr)
        except BaseException:
            c.cancel([f for job in jobs for f in job[3]])  # a failed piece: stop the others
            raise
        finally:
            for job in jobs:
                shutil.rmtree(job[2], ignore_errors=True)


def _join(dst: str, futures) -> None:
    """The parts, in order, into ``dst`` (each appended as soon as it and those before it are done)."""
    out = sys.stdout.buffer if dst == "-" else open(dst, "wb")
    try:
        if dst == "-":
            sys.stdout.flush()
        for fut in futures:
            part = fut.result()
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 22)
            os.unlink(part)
    finally:
        if dst == "-":
            out.flush()
        else:
            out.close()


class _Action:
    """A CLI action as a runner: the same function the serial command runs,
    given the piece as input, the part as output and the shared model."""

    def __init__(self, args: argparse.Namespace):
        self.args = args

    def __call__(self, obj, piece: str, part: str) -> None:
        ns = copy.copy(self.args)
        ns.data, ns.output, ns.preloaded, ns.scheduler, ns.quiet = piece, part, obj, None, True
        status = ns.func(ns)
        if status:
            raise ConjunctError(f"the action failed on a piece of {self.args.data} (status {status})")


def run_action(args: argparse.Namespace, unit: str = "block") -> int:
    """Run a CLI action on the cluster ``args.scheduler`` (see :func:`map_files`).

    Parameters
    ----------
    args : argparse.Namespace
        The action's parsed options: ``func`` (the serial action, which reads
        ``data``, writes ``output`` and loads ``model`` through
        ``commands._common.load_object``), ``model``, ``data``, ``output``,
        ``scheduler``, ``quiet``.
    unit : {"block", "line"}
        Where the input's sentences end (see :func:`split_ranges`).

    Returns
    -------
    int
        0 (errors raise).
    """
    args = copy.copy(args)
    scheduler, output = args.scheduler, getattr(args, "output", None) or "-"
    map_files(args.model, [args.data], [output], _Action(args), client=scheduler, unit=unit,
              progress=not getattr(args, "quiet", True))
    return 0
