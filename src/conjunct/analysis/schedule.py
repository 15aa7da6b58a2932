"""Training a text pipeline's stages: independent stages (the segmenter or
tokenizer, every jackknife fold's tagger, the final tagger; then the stages
that read the jackknifed tags) run at once in threads -- their training loops
run in C++ without the GIL and share the Python data, nothing is copied per
job -- with one progress bar for the lot, and every stage measured (wall
seconds, CPU seconds, peak resident memory) for ``analyze train -v``.
"""

from __future__ import annotations

import resource
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .._jobs import resolve_n_jobs
from ..progress import bar, forwarding

__all__ = ["StageMeter", "stage_report", "run_jobs", "Job"]

#: A job: (name, the call that trains it, its weight on the shared bar).
Job = Tuple[str, Callable[[], object], float]


def _status_kb(field: str) -> int:
    """A size of this process from /proc/self/status (kB), 0 where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _peak_kb() -> int:
    return _status_kb("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class StageMeter:
    """Wall seconds, CPU seconds and peak RSS of each training phase (a stage,
    or stages run at once), and wall and CPU seconds of each job inside a
    phase, in ``rows`` (what ``analyze train -v`` prints).

    A phase's CPU is the whole process's (every thread); a job's is its own
    thread's. A phase's peak is the larger of the resident sizes a sampling
    thread saw during it and the process's high-water mark when that rose
    during the phase; the mark is never reset, so an outside measurement of
    the whole run (``/usr/bin/time``) stays right.
    """

    INTERVAL = 0.02

    def __init__(self):
        self.rows: List[dict] = []
        self._lock = threading.Lock()

    @contextmanager
    def stage(self, name: str) -> Iterator[dict]:
        """Measure the block as phase ``name``; what the block adds to the
        yielded dict goes into its row."""
        row: dict = {"stage": name}
        high = [_status_kb("VmRSS")]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(self.INTERVAL):
                high[0] = max(high[0], _status_kb("VmRSS"))

        watcher = threading.Thread(target=sample, name="conjunct-rss", daemon=True)
        mark0, wall0, cpu0 = _peak_kb(), time.perf_counter(), time.process_time()
        with self._lock:
            self.rows.append(row)  # before its jobs' rows
        watcher.start()
        try:
            yield row
        finally:
            done.set()
            watcher.join()
            mark1 = _peak_kb()
            peak = max(high[0], _status_kb("VmRSS"), mark1 if mark1 > mark0 else 0)
            row.update(wall_seconds=time.perf_counter() - wall0, cpu_seconds=time.process_time() - cpu0,
                       peak_rss_mb=peak / 1024)

    def job(self, name: str, fn: Callable[[], object]) -> object:
        """``fn()``, its wall and thread CPU seconds recorded as a job row."""
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        try:
            return fn()
        finally:
            row = {"stage": name, "job": True, "wall_seconds": time.perf_counter() - wall0,
                   "cpu_seconds": time.thread_time() - cpu0}
            with self._lock:
                self.rows.append(row)

    def phases(self) -> List[dict]:
        return [r for r in self.rows if not r.get("job")]


def stage_report(rows: Sequence[dict]) -> str:
    """Rows of a :class:`StageMeter` as an aligned table (jobs indented under
    their phase) with a total line."""
    lines = [f"{'stage':<30} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}"]
    for r in rows:
        if "wall_seconds" not in r:
            continue
        if r.get("job"):
            lines.append(f"  {r['stage']:<28} {r['wall_seconds']:>8.1f} {r['cpu_seconds']:>8.1f}")
        else:
            lines.append(f"{r['stage']:<30} {r['wall_seconds']:>8.1f} {r['cpu_seconds']:>8.1f} {r['peak_rss_mb']:>12,.0f}")
    phases = [r for r in rows if not r.get("job") and "wall_seconds" in r]
    if phases:
        lines.append(f"{'total':<30} {sum(r['wall_seconds'] for r in phases):>8.1f} "
                     f"{sum(r['cpu_seconds'] for r in phases):>8.1f} {max(r['peak_rss_mb'] for r in phases):>12,.0f}")
    return "\n".join(lines)


def run_jobs(jobs: Sequence[Job], n_jobs: Optional[int] = 1, *, meter: Optional[StageMeter] = None,
             desc: str = "training") -> Dict[str, object]:
    """Run every job's call, ``n_jobs`` at a time in threads (-1: one per
    core), started in the given order (put the longest first); their results
    by name. One bar counts the jobs' progress, each weighted by its
    ``weight``: a job's own bars advance it (they draw nothing themselves).
    The first error is raised once the running jobs stop; jobs not started
    are cancelled."""
    names = [name for name, _, _ in jobs]
    if len(set(names)) != len(names):
        raise ValueError(f"job names repeat: {names}")
    threads = min(resolve_n_jobs(n_jobs), max(1, len(jobs)))
    total = float(sum(w for _, _, w in jobs)) or 1.0
    meter = meter if meter is not None else StageMeter()
    with bar(total=100.0, desc=desc, unit="%", bar_format=_FORMAT) as shown:
        lock = threading.Lock()

        def advance(amount: float) -> None:
            with lock:  # never past 100 (the weights' float sum may round above it)
                shown.update(max(0.0, min(100.0 * amount / total, 100.0 - shown.n)))

        def run(name: str, fn: Callable[[], object], weight: float) -> object:
            with forwarding(lambda fraction: advance(weight * fraction)) as finish:
                out = meter.job(name, fn)
                finish()
            return out

        if threads == 1:
            return {name: run(name, fn, w) for name, fn, w in jobs}
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="conjunct-train") as pool:
            futures = [pool.submit(run, *job) for job in jobs]
            try:
                return {name: f.result() for name, f in zip(names, futures)}
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"
