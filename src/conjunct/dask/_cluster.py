"""Connecting to a Dask cluster: a scheduler address, or ``local:N`` worker processes."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import warnings
from typing import Iterator

from .._errors import ConjunctError

INSTALL_HINT = "conjunct.dask needs dask and distributed: pip install 'conjunct[dask]'"


def require_distributed():
    """The ``distributed`` module, or a ConjunctError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise ConjunctError(INSTALL_HINT) from None
    return distributed


@contextlib.contextmanager
def connect(scheduler) -> Iterator:
    """A ``distributed.Client`` for ``scheduler``, closed on exit.

    Parameters
    ----------
    scheduler : str or distributed.Client
        ``"local:N"`` starts a local cluster of N single-threaded worker
        processes (stopped on exit); any other string is a scheduler address
        (``"tcp://host:8786"``); a Client is used as it is (and left open).
        While a cluster conjunct connected to is in use, Dask's log handlers
        print only critical messages (conjunct reports failures itself, in
        one line); a failure inside the block kills a ``local:N`` cluster's
        workers at once, and closing never takes more than about 20 s.

    Yields
    ------
    distributed.Client
    """
    distributed = require_distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if not isinstance(scheduler, str) or not scheduler:
        raise ConjunctError(f"a scheduler is an address or local:N, got {scheduler!r}")
    m = re.fullmatch(r"local:(\d+)", scheduler)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise ConjunctError(f"local:N needs at least one worker, got {scheduler!r}")
        with _quiet():
            try:
                # conjunct reports a failed run itself, in one line: the cluster's own log stays quiet
                with warnings.catch_warnings():  # another cluster's dashboard port: ours takes another
                    warnings.filterwarnings("ignore", message="Port .* is already in use")
                    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                       dashboard_address=None, silence_logs=logging.CRITICAL)
            except Exception as e:  # a nanny or worker that could not start
                raise ConjunctError(f"could not start a local Dask cluster of {n} workers: {_one_line(e)}") from None
            try:
                with _one_line_errors(distributed):
                    client = distributed.Client(cluster)
                    try:
                        yield client
                    except BaseException:
                        _kill_workers(cluster)  # the outcome is known: stop at once, not after their tasks
                        raise
                    finally:
                        _close(client)
            finally:
                _close(cluster)
        return
    if scheduler.startswith("local"):
        raise ConjunctError(f"bad scheduler {scheduler!r}: local workers are written local:N (N >= 1)")
    try:
        client = distributed.Client(scheduler, timeout="30s")
    except OSError as e:
        raise ConjunctError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    with _quiet(), _one_line_errors(distributed):
        try:
            yield client
        finally:
            _close(client)


CLOSE_TIMEOUT = 20.0  # seconds a client or local cluster may take to close before it is left to exit


def _close(thing) -> None:
    """Close a client or a local cluster in bounded time: a cluster whose
    workers keep dying must not hold the command after its result is known."""
    try:
        thing.close(timeout=CLOSE_TIMEOUT)
    except Exception:  # already failing or closed: the run's own outcome is what is reported
        pass


def _kill_workers(cluster) -> None:
    """Kill a local cluster's worker processes (a failed or interrupted run:
    closing them gracefully waits for their running tasks)."""
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        try:
            pid = nanny.pid
            if pid:
                os.kill(pid, signal.SIGKILL)
        except Exception:  # gone already
            pass


def _one_line(e: BaseException) -> str:
    """An exception and its causes as one line."""
    parts = []
    while e is not None and len(parts) < 4:
        text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        if text not in parts:
            parts.append(text)
        e = e.__cause__ or e.__context__
    return "; ".join(parts).replace("\n", " ")


@contextlib.contextmanager
def _one_line_errors(distributed):
    """The cluster's own failures (a worker that died running a task too
    often, a nanny that failed) as one-line ConjunctErrors."""
    try:
        yield
    except distributed.KilledWorker as e:
        worker = getattr(e.last_worker, "address", e.last_worker)
        raise ConjunctError(f"a Dask worker died {e.allowed_failures + 1} times while running task {e.task!r} "
                            f"(killed, crashed or out of memory; last {worker})") from None
    except RuntimeError as e:
        if "Nanny" not in str(e) and "Worker" not in str(e):
            raise
        raise ConjunctError(f"the Dask cluster failed: {_one_line(e)}") from None


@contextlib.contextmanager
def _quiet():
    """Dask's log handlers at CRITICAL while conjunct runs on a cluster it
    connected to: a worker lost and restarted is expected, and a failure is
    reported once, by conjunct."""
    from distributed.utils import silence_logging_cmgr

    with silence_logging_cmgr(logging.CRITICAL):
        yield


def n_workers(client) -> int:
    """Workers connected to ``client``'s scheduler (at least 1).

    Parameters
    ----------
    client : distributed.Client
        A connected client.

    Returns
    -------
    int
    """
    return max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
