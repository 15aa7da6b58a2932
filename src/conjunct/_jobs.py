"""``n_jobs`` as scikit-learn reads it: a count of threads, or negative for
"every core but ``-n_jobs - 1``" (-1: every core)."""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from ._errors import ConjunctError

__all__ = ["resolve_n_jobs", "cpu_count"]


def cpu_count() -> int:
    """Cores this process may run on (its CPU affinity where the OS says)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


def resolve_n_jobs(n_jobs: Optional[int]) -> int:
    """Threads for ``n_jobs``: None is 1, ``n >= 1`` is n, ``-1`` every core,
    ``-2`` all but one (at least 1); 0 and non-integers are errors."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ConjunctError(f"n_jobs must be a non-zero integer (-1: every core), got {n_jobs!r}")
    n = int(n_jobs)
    return n if n > 0 else max(cpu_count() + 1 + n, 1)
