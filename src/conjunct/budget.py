"""Memory budgets: estimate an allocation before making it, and refuse with a
clear error past a limit instead of exhausting the machine.

The budget is, by precedence:

1. :func:`set_memory_budget` (process-wide, e.g. from a command-line flag);
2. the ``CONJUNCT_MEMORY_BUDGET`` environment variable: bytes with an optional
   unit (``8G``, ``512MiB``, ``2e9``) or a share of the memory (``75%``);
3. half of the memory available to the process: physical memory, or less when
   a cgroup limit or an address-space limit (``ulimit -v``) says so.

Code about to make a large allocation whose size depends on its input calls
:func:`check_memory` with its estimate first.

>>> from conjunct.budget import check_memory, memory_budget
>>> check_memory(1 << 20, "a small table")   # fine
"""

from __future__ import annotations

import functools
import os
import re
from typing import Optional, Tuple, Union

from ._errors import ConjunctError

__all__ = ["MemoryBudgetError", "check_memory", "memory_budget", "set_memory_budget", "available_memory",
           "parse_size", "format_bytes", "ENV_VAR", "DEFAULT_SHARE"]

ENV_VAR = "CONJUNCT_MEMORY_BUDGET"
#: Share of the available memory one allocation may take by default.
DEFAULT_SHARE = 0.5

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1000, "KIB": 1 << 10, "M": 1 << 20, "MB": 1000 ** 2, "MIB": 1 << 20,
          "G": 1 << 30, "GB": 1000 ** 3, "GIB": 1 << 30, "T": 1 << 40, "TB": 1000 ** 4, "TIB": 1 << 40}
_override: Optional[int] = None


class MemoryBudgetError(ConjunctError):
    """An operation would need more memory than the budget allows."""


def format_bytes(n: float) -> str:
    """``n`` bytes for people: ``16.0 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def available_memory() -> Optional[int]:
    """Bytes of memory this process may use: physical memory, lowered by a cgroup
    memory limit or an address-space rlimit; None when unknown."""
    limits = list(_static_limits())
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            limits.append(int(soft))
    except (ImportError, ValueError, OSError):
        pass
    return min(limits) if limits else None


@functools.lru_cache(maxsize=1)
def _static_limits() -> Tuple[int, ...]:
    """Physical memory and cgroup limits (read once: files under /sys)."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 60):
            limits.append(int(text))
    return tuple(limits)


def parse_size(text: Union[str, int, float]) -> int:
    """Bytes from ``8G``, ``512MiB``, ``2e9``, ``1073741824`` or ``75%`` (of :func:`available_memory`)."""
    if isinstance(text, bool):
        raise ConjunctError(f"memory budget {text!r} is not a size")
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        s = str(text).strip()
        m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(%|[a-zA-Z]*)", s)
        if not m or (m.group(2) != "%" and m.group(2).upper() not in _UNITS):
            raise ConjunctError(f"memory budget {text!r} is not a size (examples: 8G, 512MiB, 2e9, 75%)")
        number, unit = float(m.group(1)), m.group(2)
        if unit == "%":
            total = available_memory()
            if total is None:
                raise ConjunctError(f"memory budget {text!r}: the amount of memory is unknown here; give bytes")
            value = total * number / 100
        else:
            value = number * _UNITS[unit.upper()]
    if not value >= 0 or value == float("inf"):
        raise ConjunctError(f"memory budget {text!r} must be a non-negative size")
    return int(value)


def set_memory_budget(value: Union[str, int, float, None]) -> None:
    """Set the process-wide budget (see :func:`parse_size`); ``None`` restores the default."""
    global _override
    _override = None if value is None else parse_size(value)


def _budget() -> Tuple[int, str]:
    if _override is not None:
        return _override, "set by set_memory_budget"
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            return parse_size(env), f"{ENV_VAR}={env}"
        except ConjunctError as e:
            raise ConjunctError(f"{ENV_VAR}: {e}") from None
    total = available_memory()
    if total is None:
        return 1 << 62, "no limit known"
    return int(total * DEFAULT_SHARE), f"half of the {format_bytes(total)} available"


def memory_budget() -> int:
    """The budget in bytes."""
    return _budget()[0]


def check_memory(nbytes: int, what: str, hint: Optional[str] = None) -> None:
    """Raise :class:`MemoryBudgetError` when ``nbytes`` (the estimate of an
    allocation for ``what``) exceeds the budget.

    Parameters
    ----------
    nbytes : int
        Estimated bytes.
    what : str
        What would be allocated (goes into the message: "<what> would need ...").
    hint : str, optional
        How to need less (goes into the message).
    """
    budget, source = _budget()
    if nbytes <= budget:
        return
    message = f"{what} would need {format_bytes(nbytes)}, over the memory budget of {format_bytes(budget)} ({source})"
    if hint:
        message += f"; {hint}"
    message += f"; to allow it, set {ENV_VAR} (e.g. {ENV_VAR}=64G) or call conjunct.budget.set_memory_budget"
    raise MemoryBudgetError(message)
