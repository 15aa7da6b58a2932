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
import asyncio
import copy
import errno
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import time
from concurrent.futures import CancelledError
from typing import Callable, List, Optional, Sequence, Tuple

from .._errors import ConjunctError
from ..io._atomic import _fsync_directory, _host_tag, _keep_owner_and_mode, _pid_alive
from ._cluster import connect, n_workers, require_distributed
from ._pieces import copy_range, split_ranges
from ._shared import ModelChangedError, check_model, model_digest, shared_model

__all__ = ["map_files", "run_action"]

_PIECE_RE = re.compile(r"^conjunct-piece-([0-9a-f]{12})-([0-9a-f]{12})-([0-9]+)-")
_PARTS_RE = re.compile(r"^\.conjunct-parts-([0-9a-f]{12})-([0-9]+)-")
ON_MODEL_CHANGE = ("fail", "finish")


def _remove_pieces(run: Optional[str] = None) -> int:
    """Remove, from this machine's temporary directory, the pieces of run
    ``run`` (any process) and those whose process is gone; returns how many."""
    tag, removed = _host_tag(), 0
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return 0
    for entry in entries:
        m = _PIECE_RE.match(entry.name)
        if m is None or m.group(2) != tag:
            continue
        if m.group(1) == run or not _pid_alive(int(m.group(3))):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:  # gone already
                pass
    return removed


def _run_piece(runner: Callable, model: str, digest: bytes, run: str, src: str, start: int, end: int,
               part: str) -> str:
    """On a worker: the piece [start, end) of ``src`` into a local file (same
    suffix, so format detection by name still works), ``runner(obj, piece,
    part)`` with the worker's shared model; returns ``part``. The model file
    must hold ``digest`` before and after: a task never runs on, or finishes
    with, another model than the run's."""
    _remove_pieces()  # a worker killed mid-task left its piece: the restarted one removes it
    obj = shared_model(model, digest)
    fd, piece = tempfile.mkstemp(prefix=f"conjunct-piece-{run}-{_host_tag()}-{os.getpid()}-",
                                 suffix=os.path.splitext(src)[1])
    try:
        try:
            with os.fdopen(fd, "wb") as f:
                copy_range(src, start, end, f)
        except OSError as e:
            raise OSError(e.errno, f"{e.strerror} (copying a piece of {src} to the worker's temporary directory)",
                          e.filename or piece) from None
        try:
            runner(obj, piece, part)
        except OSError as e:
            if e.filename is None:  # a write with no name: it was the part
                raise OSError(e.errno, e.strerror, part) from None
            raise
    finally:
        try:
            os.unlink(piece)
        except OSError:
            pass
    check_model(model, digest)
    return part


def map_files(model, inputs: Sequence, outputs: Sequence, runner: Callable, *, client, unit: str = "block",
              pieces_per_worker: int = 4, progress: bool = False, on_model_change: str = "fail",
              worker_timeout: Optional[float] = 60.0) -> None:
    """Process ``inputs`` into ``outputs`` on a Dask cluster with one model.

    Every input is split into pieces of whole sentences (:func:`split_ranges`);
    a task per piece calls ``runner(obj, piece_path, part_path)`` on a worker,
    where ``obj`` is the model loaded once per worker by path
    (:func:`~conjunct.dask.shared_model`); the parts are appended in order,
    as they finish, to a file beside each output that replaces the output
    only when every part is in: a failed or interrupted run leaves the output
    as it was (or absent). Only paths travel in the task graph, never the
    model. Parts, pieces and the joined file are removed on every path,
    including pieces of tasks whose worker was killed.

    Parameters
    ----------
    model : str or os.PathLike
        Model file, readable by every worker at this path.
    inputs, outputs : sequence of str
        Input files and the output file of each (``"-"``: standard output,
        written as the parts arrive: not atomic).
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
    on_model_change : {"fail", "finish"}
        The run uses the model the file holds when it starts (its content
        digest). ``"fail"``: every task checks the file still holds it and a
        replaced file fails the run (:class:`~conjunct.dask.ModelChangedError`);
        ``"finish"``: the file is copied beside the first output first and
        every task runs on the copy, whatever happens to the file.
    worker_timeout : float or None
        Fail when no worker has been connected for this many seconds (workers
        that died and were not restarted); None waits for ever.

    Raises
    ------
    ConjunctError
        A failed piece (its own error), a worker that died repeatedly while
        running a piece, no worker for ``worker_timeout`` seconds, a changed
        model file.
    """
    inputs, outputs = [os.fspath(p) for p in inputs], [os.fspath(p) for p in outputs]
    if len(inputs) != len(outputs):
        raise ConjunctError(f"{len(inputs)} inputs but {len(outputs)} outputs")
    if on_model_change not in ON_MODEL_CHANGE:
        raise ConjunctError(f"on_model_change must be one of {', '.join(ON_MODEL_CHANGE)}, got {on_model_change!r}")
    if worker_timeout is not None and not worker_timeout > 0:
        raise ConjunctError(f"worker_timeout must be a positive number of seconds or None, got {worker_timeout!r}")
    for src, dst in zip(inputs, outputs):
        if src == "-":
            raise ConjunctError("--scheduler needs an input file the workers can read, not standard input")
        if not os.path.isfile(src):
            raise ConjunctError(f"{src}: not a file (the workers read pieces of one input file)")
        _check_output(src, dst)
    model = os.path.abspath(os.fspath(model))
    digest = model_digest(model)  # the run's model; a bad file fails here, before any cluster starts
    run = secrets.token_hex(6)
    jobs: List[_Job] = []
    try:
        with connect(client) as c:
            try:
                n = n_workers(c) * max(1, int(pieces_per_worker))
                for src, dst in zip(inputs, outputs):
                    jobs.append(_Job(src, dst, _parts_folder(dst)))
                used = model if on_model_change == "fail" else _snapshot(model, digest, jobs[0].tmp)
                for job in jobs:
                    job.ranges = split_ranges(job.src, n, unit)
                    parts = [os.path.join(job.tmp, f"part-{k:06d}") for k in range(len(job.ranges))]
                    k = len(job.ranges)
                    job.futures = c.map(_run_piece, [runner] * k, [used] * k, [digest] * k, [run] * k,
                                        [os.path.abspath(job.src)] * k, [a for a, _ in job.ranges],
                                        [b for _, b in job.ranges], parts, pure=False)
                watch = _Watch(c, worker_timeout, *((model, digest) if on_model_change == "fail" else ()))
                for job in jobs:
                    _join(job, watch)
                    if progress:
                        print(f"{job.src} -> {job.dst}: {len(job.futures)} pieces", file=sys.stderr)
            except BaseException:
                c.cancel([f for job in jobs for f in job.futures])  # a failed piece: stop the others
                raise
            finally:
                _remove_remote_pieces(c, run)
    finally:
        for job in jobs:
            shutil.rmtree(job.tmp, ignore_errors=True)
        _remove_pieces(run)  # this machine's, once its workers are stopped (local:N) or done


class _Job:
    """One input, its output, its parts folder and its pieces' futures."""

    def __init__(self, src: str, dst: str, tmp: str):
        self.src, self.dst, self.tmp = src, dst, tmp
        self.ranges: List[Tuple[int, int]] = []
        self.futures: list = []


def _check_output(src: str, dst: str) -> None:
    """Refuse an output that is a directory or the input itself, before any work."""
    if dst == "-":
        return
    if os.path.isdir(dst):
        raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name", dst)
    try:
        same = os.path.samefile(src, dst)
    except OSError:  # no output yet
        same = False
    if same:
        raise ConjunctError(f"{dst}: the output is the input file; write to another file")


def _parts_folder(dst: str) -> str:
    """A new folder for the parts (and the joined output) in the output's
    directory, so that the joined file is renamed into place on one file
    system; provably stale folders of drivers that were killed are removed."""
    where = os.path.dirname(os.path.realpath(dst)) if dst != "-" else os.getcwd()
    tag = _host_tag()
    try:
        entries = list(os.scandir(where))
    except OSError:
        entries = []
    for entry in entries:
        m = _PARTS_RE.match(entry.name)
        if m is not None and m.group(1) == tag and not _pid_alive(int(m.group(2))):
            shutil.rmtree(entry.path, ignore_errors=True)
    try:
        return tempfile.mkdtemp(prefix=f".conjunct-parts-{tag}-{os.getpid()}-", dir=where)
    except OSError as e:
        raise OSError(e.errno, f"cannot write the output beside {dst}: {e.strerror}", dst) from None


def _snapshot(model: str, digest: bytes, where: str) -> str:
    """A private copy of ``model`` holding ``digest``, for a run that finishes
    on the model it started with whatever happens to the file."""
    from ..io.model_io import read_container

    copy_path = os.path.join(where, "model" + os.path.splitext(model)[1])
    shutil.copyfile(model, copy_path)
    try:
        read_container(copy_path, mmap=True)  # whole and intact: the content matches its digest
        if model_digest(copy_path) != digest:
            raise ConjunctError("another digest")
    except ConjunctError:
        raise ModelChangedError(f"{model}: the model file changed while the run copied it; rerun when it is "
                                f"finished") from None
    return copy_path


def _remove_remote_pieces(c, run: str) -> None:
    """Ask every worker to remove its pieces of ``run`` (those of killed tasks);
    at most a few seconds, never an error: each task also removes the pieces
    of dead processes on its machine."""
    import threading

    def ask():
        try:
            c.run(_remove_pieces, run, on_error="ignore")
        except BaseException:  # the cluster is going away: nothing to clean there
            pass

    t = threading.Thread(target=ask, daemon=True)
    t.start()
    t.join(5.0)


class _Watch:
    """The cluster's workers, polled while the driver waits: how often a
    worker was lost, and a failure once none has been connected for
    ``timeout`` seconds; and the model file, when given, which must still
    hold ``digest`` (a replaced model fails the run at once)."""

    def __init__(self, client, timeout: Optional[float], model: Optional[str] = None, digest: Optional[bytes] = None):
        self.client, self.timeout, self.model, self.digest = client, timeout, model, digest
        self.seen = self._workers() or set()
        self.lost, self.empty_since, self.next_poll = 0, None, 0.0

    def _workers(self):
        try:
            return set(self.client.scheduler_info(n_workers=-1)["workers"])
        except Exception:  # the scheduler is unreachable: no worker either
            return None

    def poll(self) -> Optional[str]:
        """Why the run cannot go on (no worker for ``timeout`` seconds, or a
        local cluster whose nannies gave up restarting their workers), else None."""
        now = time.monotonic()
        if now < self.next_poll:
            return None
        self.next_poll = now + 0.5
        if self.model is not None:  # the tasks check too, but only when they start or end
            check_model(self.model, self.digest)
        workers = self._workers() or set()
        self.lost += len(self.seen - workers)
        self.seen = workers
        if workers:
            self.empty_since = None
            return None
        if self.empty_since is None:
            self.empty_since = now
        cluster = getattr(self.client, "cluster", None)
        if self.lost and cluster is not None and not getattr(cluster, "workers", True) and now - self.empty_since >= 1:
            return (f"every worker of the local cluster died and none could be restarted (workers were lost "
                    f"{self.lost} times in this run)")
        if self.timeout is not None and now - self.empty_since >= self.timeout:
            return (f"no Dask worker for {self.timeout:g} s (workers were lost {self.lost} times in this run and none "
                    f"came back; a cluster whose workers take longer to start needs a longer --worker-timeout)")
        return None


def _join(job: _Job, watch: _Watch) -> None:
    """The parts, in order, into a file beside ``job.dst`` (each appended as
    soon as it and those before it are done), renamed over ``job.dst`` once
    all are in; standard output and non-regular files (``/dev/null``, a FIFO)
    are written as the parts arrive."""
    distributed = require_distributed()
    dst, n = job.dst, len(job.futures)
    out, joined = _open_joined(dst, job.tmp)
    kept = "" if dst == "-" else f"; {dst} was left as it was"
    try:
        for k, (fut, (a, b)) in enumerate(zip(job.futures, job.ranges)):
            where = f"{job.src}: piece {k + 1} of {n} (bytes {a:,}-{b:,})"
            while not fut.done():
                why = watch.poll()
                if why:
                    left = sum(not f.done() for f in job.futures) - 1
                    raise ConjunctError(f"{why}: {where}{f' and {left} more' if left > 0 else ''} not done{kept}")
                time.sleep(0.05)
            try:
                part = fut.result()
            except distributed.KilledWorker as e:
                worker = getattr(e.last_worker, "address", e.last_worker)
                raise ConjunctError(
                    f"{where}: its worker died {e.allowed_failures + 1} times while running it (killed, crashed or "
                    f"out of memory; last {worker}); workers were lost {watch.lost} times in this run{kept}") from None
            except (CancelledError, asyncio.CancelledError):
                raise ConjunctError(f"{where}: cancelled (the connection to the Dask scheduler was lost){kept}") from None
            except OSError as e:
                if e.filename is not None and str(e.filename).startswith(job.tmp):
                    raise OSError(e.errno, e.strerror, dst) from None  # a part: name the output
                raise
            try:
                _append(part, out)
            except OSError as e:
                raise OSError(e.errno, e.strerror, dst if dst != "-" else "standard output") from None
            os.unlink(part)
        if joined is not None:
            try:
                out.flush()
                os.fsync(out.fileno())
            except OSError as e:
                raise OSError(e.errno, e.strerror, dst) from None
            out.close()
            os.replace(joined, os.path.realpath(dst))
            _fsync_directory(os.path.dirname(os.path.realpath(dst)))
    finally:
        if dst == "-":
            out.flush()
        else:
            out.close()


def _append(part: str, out) -> None:
    with open(part, "rb") as f:
        shutil.copyfileobj(f, out, 1 << 22)


def _open_joined(dst: str, tmp: str):
    """(binary file to append the parts to, its path to rename over ``dst``
    or None when written in place)."""
    if dst == "-":
        sys.stdout.flush()
        return sys.stdout.buffer, None
    target = os.path.realpath(dst)  # a symlink stays one: its target gets the output
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):  # /dev/null, a FIFO: nothing to rename over
        return open(target, "wb"), None
    joined = os.path.join(tmp, "joined")
    # 0o666: the kernel applies the umask, as for any new file; an existing output keeps its mode and owner
    fd = os.open(joined, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    if old is not None:
        _keep_owner_and_mode(fd, old)
    return os.fdopen(fd, "wb"), joined


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
              progress=not getattr(args, "quiet", True), on_model_change=getattr(args, "on_model_change", "fail"),
              worker_timeout=getattr(args, "worker_timeout", 60.0) or None)
    return 0
