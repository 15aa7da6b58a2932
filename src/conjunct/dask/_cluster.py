"""Connecting to a Dask cluster: a scheduler address, or ``local:N`` worker processes."""

from __future__ import annotations

import contextlib
import re
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
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            yield client
        return
    if scheduler.startswith("local"):
        raise ConjunctError(f"bad scheduler {scheduler!r}: local workers are written local:N (N >= 1)")
    try:
        client = distributed.Client(scheduler, timeout="30s")
    except OSError as e:
        raise ConjunctError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    with client:
        yield client


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
