"""Progress bars for long jobs (training epochs, tagging and parsing files).

Bars are drawn by tqdm (the ``progress`` extra: ``pip install conjunct[progress]``)
on standard error, and only inside :func:`progress_bars` — the command line
turns them on unless ``-q`` is given — when standard error is a terminal.
They never write to standard output. Library calls outside that block draw
nothing, so scripts and tests see no bars.

>>> from conjunct.progress import bar
>>> with bar(total=3, desc="work") as b:   # outside progress_bars: draws nothing
...     b.update(3)
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import time
from typing import Callable, Iterable, Iterator, List, Optional, TypeVar

import numpy as np

__all__ = ["progress_bars", "bar", "bars_enabled", "say", "status", "each", "batches", "Slices", "forwarding"]

T = TypeVar("T")

_enabled: contextvars.ContextVar[bool] = contextvars.ContextVar("conjunct_progress_bars", default=False)
# Set inside forwarding(): bars report their progress to it instead of drawing.
_sink: contextvars.ContextVar[Optional["_Sink"]] = contextvars.ContextVar("conjunct_progress_sink", default=None)


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


@contextlib.contextmanager
def progress_bars(enabled: bool = True, *, force: bool = False) -> Iterator[bool]:
    """Draw bars inside this block when ``enabled``, tqdm is installed and
    standard error is a terminal (``force``: whatever standard error is).
    Yields whether bars are drawn."""
    on = bool(enabled) and _tqdm() is not None and (force or _isatty(sys.stderr))
    token = _enabled.set(on)
    try:
        yield on
    finally:
        _enabled.reset(token)


def bars_enabled() -> bool:
    """Whether :func:`bar` draws (inside an enabled :func:`progress_bars`)."""
    return _enabled.get()


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Silent:
    """What :func:`bar` returns when bars are off: accepts the calls, draws nothing."""

    n = 0

    def update(self, n: float = 1) -> None:
        self.n += n

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def set_description_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Sink:
    """A job's progress (0..1, never going back), reported to a callback as increments."""

    def __init__(self, report: Callable[[float], None]):
        self.report = report
        self.done = 0.0

    def reach(self, fraction: float) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        if fraction > self.done:
            self.report(fraction - self.done)
            self.done = fraction


class _Forward(_Silent):
    """A bar inside :func:`forwarding`: its fraction done moves the job's progress."""

    def __init__(self, total: Optional[float], sink: _Sink):
        self.n = 0
        self.total = total
        self.sink = sink

    def update(self, n: float = 1) -> None:
        self.n += n
        if self.total:
            self.sink.reach(self.n / self.total)


@contextlib.contextmanager
def forwarding(report: Callable[[float], None]) -> Iterator[Callable[[], None]]:
    """Inside this block (in this thread) bars draw nothing and report the
    fraction of the job done instead: ``report(increment)``, increments adding
    up to at most 1 (a later bar advances the job once it passes the earlier
    ones). Yields ``finish()``, which completes the job's share."""
    sink = _Sink(report)
    token = _sink.set(sink)
    try:
        yield lambda: sink.reach(1.0)
    finally:
        _sink.reset(token)


def bar(total: Optional[float] = None, desc: str = "", unit: str = "it", **kwargs):
    """A tqdm bar on standard error with rate and ETA (``total`` None: a
    counter with its rate), or a silent stand-in when bars are off."""
    sink = _sink.get()
    if sink is not None:
        return _Forward(total, sink)
    tqdm = _tqdm() if _enabled.get() else None
    if tqdm is None:
        return _Silent()
    # A terminal that reports no width (a bare pty) gets 80 columns, not an empty bar.
    width = _columns(sys.stderr)
    size = {} if width > 0 else dict(ncols=80, nrows=24)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=width > 0, leave=True,
                unit_scale=True, mininterval=0.2, **size, **kwargs)


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


def say(line: str) -> None:
    """Print a line on standard error without breaking a bar being drawn."""
    tqdm = _tqdm() if _enabled.get() else None
    if tqdm is None:
        print(line, file=sys.stderr, flush=True)
    else:
        tqdm.write(line, file=sys.stderr)


def status(line: str) -> None:
    """A line on standard error only where bars are drawn (the command line on
    a terminal): what a silent step is doing, for steps that cannot count."""
    if _enabled.get():
        say(line)


def _total(items) -> Optional[int]:
    try:
        return len(items)
    except TypeError:  # a generator or a stream: a counter with its rate
        return None


def each(items: Iterable[T], *, desc: str, unit: str = " sentences", delay: float = 0.0) -> Iterator[T]:
    """The items one at a time, a bar counting them (rate, and ETA when
    ``items`` has a length). Ctrl-C acts between items."""
    with bar(total=_total(items), desc=desc, unit=unit, delay=delay) as shown:
        for item in items:
            yield item
            shown.update(1)


def batches(items: Iterable[T], size: int, *, desc: str, unit: str = " sentences", delay: float = 0.0
            ) -> Iterator[List[T]]:
    """Lists of up to ``size`` consecutive items, each yielded as soon as it is
    read (a stream is never read ahead), a bar counting the items done (rate,
    and ETA when ``items`` has a length)."""
    with bar(total=_total(items), desc=desc, unit=unit, delay=delay) as shown:
        batch: List[T] = []
        for item in items:
            batch.append(item)
            if len(batch) == size:
                yield batch
                shown.update(len(batch))
                batch = []
        if batch:
            yield batch
            shown.update(len(batch))


# Long C++ passes run in slices of about SLICE_SECONDS (the number of items
# adapts to the speed), so Ctrl-C acts and bars move within a fraction of a second.
SLICE_SECONDS = 0.05
FIRST_SLICE, MIN_SLICE, MAX_SLICE = 1024, 64, 1 << 20


class Slices:
    """Runs a pass over ``order`` as calls on consecutive slices of it, each
    about :data:`SLICE_SECONDS` long. The caller's ``step`` must carry its
    state from one call to the next (the trainers do), so the result is the
    same as one call's; Python handles Ctrl-C between slices."""

    def __init__(self):
        self.size = FIRST_SLICE

    def run(self, step: Callable[[np.ndarray], None], order: np.ndarray, shown=None) -> None:
        """Call ``step(part)`` on consecutive parts of ``order``; ``shown`` (a bar) counts them."""
        lo = 0
        while lo < order.size:
            size = self.size
            part = order[lo:lo + size]
            t0 = time.perf_counter()
            step(part)
            took = time.perf_counter() - t0
            lo += part.size
            if shown is not None:
                shown.update(part.size)
            if part.size == size:  # adapt to the current speed, at most doubling or halving
                scale = min(max(SLICE_SECONDS / max(took, 1e-6), 0.5), 2.0)
                self.size = int(min(max(size * scale, MIN_SLICE), MAX_SLICE))
