"""Timing helpers shared by the demo and the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_seconds(fn: Callable[[], object], *, repeats: int = 5, warmup: int = 1, min_seconds: float = 0.0) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs after ``warmup`` runs.

    With ``min_seconds``, each measured run loops ``fn`` until that much time has
    passed and reports the time per call.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        times.append(elapsed / calls)
    return statistics.median(times)


def interleaved_medians(fns, *, repeats: int = 5, warmup: int = 1) -> dict:
    """Median wall time of each function, measured in rounds that run every
    function once, so that drifting machine load affects all of them alike."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}
