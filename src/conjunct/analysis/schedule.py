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
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .._jobs import resolve_n_jobs
from ..budget import memory_budget
from ..progress import bar, forwarding

__all__ = ["StageMeter", "stage_report", "run_jobs", "Job"]

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
        self._active: List[dict] = []  # rows of the jobs running now (their peaks)

    @contextmanager
    def stage(self, name: str) -> Iterator[dict]:
        """Measure the block as phase ``name``; what the block adds to the
        yielded dict goes into its row."""
        row: dict = {"stage": name}
        high = [_status_kb("VmRSS")]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(self.INTERVAL):
                now = _status_kb("VmRSS")
                high[0] = max(high[0], now)
                with self._lock:
                    for r in self._active:
                        r["peak_kb"] = max(r["peak_kb"], now)

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
        """``fn()``, recorded as a job row: its wall and thread CPU seconds, and
        the process's peak RSS while it ran (sampled inside a :meth:`stage`)."""
        row = {"stage": name, "job": True, "peak_kb": _status_kb("VmRSS")}
        with self._lock:
            self._active.append(row)
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        try:
            return fn()
        finally:
            row.update(wall_seconds=time.perf_counter() - wall0, cpu_seconds=time.thread_time() - cpu0)
            with self._lock:
                self._active.remove(row)
                row["peak_rss_mb"] = max(row.pop("peak_kb"), _status_kb("VmRSS")) / 1024
                self.rows.append(row)

    def phases(self) -> List[dict]:
        return [r for r in self.rows if not r.get("job")]


def stage_report(rows: Sequence[dict]) -> str:
    """Rows of a :class:`StageMeter` as an aligned table (jobs indented under
    their phase: their own thread's CPU, the process's peak while they ran)
    with a total line."""
    lines = [f"{'stage':<30} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}"]
    for r in rows:
        if "wall_seconds" not in r:
            continue
        if r.get("job"):
            lines.append(f"  {r['stage']:<28} {r['wall_seconds']:>8.1f} {r['cpu_seconds']:>8.1f} {r['peak_rss_mb']:>12,.0f}")
        else:
            lines.append(f"{r['stage']:<30} {r['wall_seconds']:>8.1f} {r['cpu_seconds']:>8.1f} {r['peak_rss_mb']:>12,.0f}")
    phases = [r for r in rows if not r.get("job") and "wall_seconds" in r]
    if phases:
        lines.append(f"{'total':<30} {sum(r['wall_seconds'] for r in phases):>8.1f} "
                     f"{sum(r['cpu_seconds'] for r in phases):>8.1f} {max(r['peak_rss_mb'] for r in phases):>12,.0f}")
    return "\n".join(lines)


@dataclass
class Job:
    """A stage to train: ``fn()`` -- or, with ``after``, ``fn(results)`` of the
    jobs it waits for, by name -- its ``weight`` on the shared bar, and the
    bytes it may hold at its peak (``memory``: the scheduler starts it only
    when the estimates of the jobs running beside it leave room in the
    memory budget, :func:`conjunct.budget.memory_budget`)."""

    name: str
    fn: Callable
    weight: float = 1.0
    after: Tuple[str, ...] = ()
    memory: float = 0.0


def run_jobs(jobs: Sequence, n_jobs: Optional[int] = 1, *, meter: Optional[StageMeter] = None,
             desc: str = "training", budget: Optional[float] = None) -> Dict[str, object]:
    """Run every job (a :class:`Job` or a ``(name, fn, weight)`` tuple),
    ``n_jobs`` at a time in threads (-1: one per core); their results by name.
    A job starts once the jobs it comes ``after`` are done and its memory
    estimate fits beside those running (one job always runs); among those
    ready, the first listed starts first (list the longest first). One bar
    counts the jobs' progress, each weighted by its ``weight``: a job's own
    bars advance it and draw nothing themselves. The first error is raised
    once the running jobs stop; jobs not started never start."""
    jobs = [j if isinstance(j, Job) else Job(*j) for j in jobs]
    names = [j.name for j in jobs]
    if len(set(names)) != len(names):
        raise ValueError(f"job names repeat: {names}")
    unknown = sorted({a for j in jobs for a in j.after} - set(names))
    if unknown:
        raise ValueError(f"jobs wait for unknown jobs: {unknown}")
    threads = min(resolve_n_jobs(n_jobs), max(1, len(jobs)))
    room = float(memory_budget() if budget is None else budget)
    total = float(sum(j.weight for j in jobs)) or 1.0
    meter = meter if meter is not None else StageMeter()
    results: Dict[str, object] = {}
    with bar(total=100.0, desc=desc, unit="%", bar_format=_FORMAT) as shown:
        lock = threading.Lock()

        def advance(amount: float) -> None:
            with lock:  # never past 100 (the weights' float sum may round above it)
                shown.update(max(0.0, min(100.0 * amount / total, 100.0 - shown.n)))

        def run(job: Job) -> object:
            with forwarding(lambda fraction: advance(job.weight * fraction)) as finish:
                call = (lambda: job.fn({a: results[a] for a in job.after})) if job.after else job.fn
                out = meter.job(job.name, call)
                finish()
            return out

        waiting = list(jobs)
        running: Dict[Future, Job] = {}
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="conjunct-train") as pool:
            try:
                while waiting or running:
                    held = sum(j.memory for j in running.values())
                    for job in list(waiting):
                        if len(running) >= threads:
                            break
                        if all(a in results for a in job.after) and (not running or held + job.memory <= room):
                            waiting.remove(job)
                            running[pool.submit(run, job)] = job
                            held += job.memory
                    if not running:
                        raise ValueError(f"jobs wait for each other: {[j.name for j in waiting]}")
                    done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                    for future in done:
                        results[running.pop(future).name] = future.result()
            except BaseException:
                for future in running:
                    future.cancel()
                raise
    return {name: results[name] for name in names}


_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"
