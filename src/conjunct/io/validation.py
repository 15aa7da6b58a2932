"""The shared checks of a model file's contents, made before any object is built.

A model file is data from strangers (its digest only detects accidents): each kind checks its
header entry and sections with these tools in its class's ``check_sections``, next to the code
that builds it, and the file layer calls :func:`validate` once per object. The checks never copy
a section (memory maps stay views) and scan large arrays in blocks."""

from __future__ import annotations

import builtins
import math
from typing import Any, Dict, Iterator, Mapping, NoReturn, Optional, Sequence, Tuple

import numpy as np

from .._errors import ModelFormatError
from ..budget import MemoryBudgetError, check_memory

__all__ = ["validate", "Where", "Meta", "MISSING", "section", "csr", "check_finite", "check_range", "check_pointers",
           "check_strings", "check_rows_ascending", "check_budget", "check_kernel_magnitude", "kernel",
           "max_row_length", "blocks", "describe", "is_int", "is_number", "MAX_DEGREE", "MAX_COLUMNS"]

#: Largest kernel degree / conjunction size a file may state (tries store depths in a byte).
MAX_DEGREE = 255
#: Feature ids are 32-bit: at most this many input columns.
MAX_COLUMNS = np.iinfo(np.int32).max
# Margins beyond this are taken as overflow (the kernel or the weights are garbage).
_MAX_LOG_MAGNITUDE = math.log(1e300)
_BLOCK = 1 << 20
Arrays = Mapping[str, np.ndarray]


class Where:
    """Names the file and the object (a prefix of section names) errors are about."""

    def __init__(self, name: str, prefix: str = "") -> None:
        self.name = name
        self.prefix = prefix

    def sub(self, prefix: str) -> "Where":
        return Where(self.name, f"{self.prefix}{prefix}.")

    def fail(self, problem: str) -> NoReturn:
        raise ModelFormatError(problem, self.name)

    def section_fail(self, key: str, problem: str) -> NoReturn:
        raise ModelFormatError(f"section {self.prefix + key!r}: {problem}", self.name)

    def meta_fail(self, path: str, problem: str) -> NoReturn:
        raise ModelFormatError(f"header field {path!r}: {problem}", self.name)


MISSING = object()


class Meta:
    """Typed access to one JSON object of the header; ``path`` names it in errors.
    Each accessor returns the checked value (None for an absent optional one)."""

    def __init__(self, value: Any, path: builtins.str, where: Where) -> None:
        if not isinstance(value, dict):
            where.meta_fail(path, f"expected an object, got {describe(value)}")
        self.d: Dict[builtins.str, Any] = value
        self.path = path
        self.where = where

    def _p(self, key: builtins.str) -> builtins.str:
        return f"{self.path}.{key}" if self.path else key

    def raw(self, key: builtins.str, optional: builtins.bool = False) -> Any:
        v = self.d.get(key, MISSING)
        if v is MISSING and not optional:
            self.where.meta_fail(self._p(key), "missing")
        return v

    def int(self, key: builtins.str, lo: builtins.int, hi: builtins.int, *, optional: builtins.bool = False,
            none: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING or (none and v is None):
            return None
        if not is_int(v) or not lo <= v <= hi:
            self.where.meta_fail(self._p(key), f"expected an integer in [{lo}, {hi}], got {describe(v)}")
        return builtins.int(v)

    def float(self, key: builtins.str, lo: builtins.float = -math.inf, hi: builtins.float = math.inf, *,
              lo_open: builtins.bool = False, optional: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING:
            return None
        ok = is_number(v) and math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi
        if not ok:
            bound = f"{'>' if lo_open else '>='} {lo:g}" if lo > -math.inf else "finite"
            self.where.meta_fail(self._p(key), f"expected a number ({bound}), got {describe(v)}")
        return builtins.float(v)

    def str(self, key: builtins.str, choices: Optional[Sequence[builtins.str]] = None, *,
            optional: builtins.bool = False, none: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING or (none and v is None):
            return None
        if not isinstance(v, builtins.str) or (choices is not None and v not in choices):
            expected = f"one of {', '.join(map(repr, choices))}" if choices is not None else "a string"
            self.where.meta_fail(self._p(key), f"expected {expected}, got {describe(v)}")
        return v

    def bool(self, key: builtins.str, *, optional: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING:
            return None
        if not isinstance(v, builtins.bool):
            self.where.meta_fail(self._p(key), f"expected true or false, got {describe(v)}")
        return v

    def obj(self, key: builtins.str, *, optional: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING:
            return None
        return Meta(v, self._p(key), self.where)

    def only(self, keys: Sequence[builtins.str]) -> None:
        """No field but ``keys``."""
        unknown = sorted(set(self.d) - set(keys))
        if unknown:
            self.where.meta_fail(self._p(unknown[0]), "unknown parameter")

    def list(self, key: builtins.str, *, optional: builtins.bool = False, none: builtins.bool = False) -> Any:
        v = self.raw(key, optional)
        if v is MISSING or (none and v is None):
            return None
        if not isinstance(v, builtins.list):
            self.where.meta_fail(self._p(key), f"expected a list, got {describe(v)}")
        return v


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def describe(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def section(arrays: Arrays, where: Where, key: str, dtype: str, shape: Tuple[Optional[int], ...]) -> np.ndarray:
    """The section ``key`` with exactly ``dtype`` and ``shape`` (None: any length)."""
    a = arrays.get(where.prefix + key)
    if a is None:
        where.fail(f"missing section {where.prefix + key!r}")
    if a.dtype.str != dtype:
        where.section_fail(key, f"dtype {a.dtype.str}, expected {dtype}")
    if a.ndim != len(shape) or any(want is not None and got != want for got, want in zip(a.shape, shape)):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        where.section_fail(key, f"shape {tuple(a.shape)}, expected {want}")
    return a


def blocks(n: int, overlap: int = 0) -> Iterator[Tuple[int, int]]:
    """[start, end) blocks covering n items; with ``overlap`` = 1 and n = size - 1,
    a[s + 1:e] against a[s:e - 1] covers every pair of neighbours of an array of ``size``."""
    for start in range(0, n, _BLOCK):
        yield start, min(n + overlap, start + _BLOCK + overlap)


def check_finite(a: np.ndarray, where: Where, key: str) -> None:
    if a.size == 0:
        return
    flat = a.reshape(-1)  # a view: sections are C-contiguous
    with np.errstate(all="ignore"):
        total = np.add.reduce(flat)  # NaN and infinities propagate; only then look closer
    if math.isfinite(total):
        return
    for s, e in blocks(flat.size):
        bad = np.flatnonzero(~np.isfinite(flat[s:e]))
        if bad.size:
            where.section_fail(key, f"non-finite value {flat[s + bad[0]]!r} at index {s + int(bad[0])}")


def check_range(a: np.ndarray, lo: int, hi: int, where: Where, key: str, first_index: int = 0) -> None:
    """lo <= a < hi everywhere (``a`` may be a slice starting at ``first_index`` of the section)."""
    if a.size == 0:
        return
    amin, amax = int(a.min()), int(a.max())
    if amin < lo or amax >= hi:
        bad = amin if amin < lo else amax
        index = first_index + int(np.argmax(a.reshape(-1) == bad))
        where.section_fail(key, f"value {bad} at index {index} is outside [{lo}, {hi})")


def check_pointers(ptr: np.ndarray, n_items: int, where: Where, key: str, first: int = 0) -> None:
    """CSR-style offsets: first ``first`` (0), non-decreasing, last = n_items."""
    if ptr.size == 0:
        where.section_fail(key, "empty (offsets need at least one entry)")
    if ptr[0] != first:
        where.section_fail(key, f"first offset is {int(ptr[0])}, expected {first}")
    if ptr[-1] != n_items:
        where.section_fail(key, f"last offset is {int(ptr[-1])}, expected {n_items} (the number of entries)")
    for s, e in blocks(ptr.size - 1, 1):
        down = np.flatnonzero(ptr[s + 1:e] < ptr[s:e - 1])
        if down.size:
            i = s + int(down[0])
            where.section_fail(key, f"offsets decrease at index {i + 1} ({int(ptr[i])} then {int(ptr[i + 1])})")


def check_strings(blob: np.ndarray, offsets: np.ndarray, where: Where, blob_key: str, offsets_key: str) -> None:
    """Each string ``blob[offsets[i]:offsets[i + 1]]`` (pointers checked) is UTF-8, surrogates allowed:
    one decode of the whole blob, and no offset cuts a character."""
    data = blob.tobytes()
    try:
        data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as e:
        i = int(np.searchsorted(offsets, e.start, side="right")) - 1
        where.section_fail(blob_key, f"string {i} is not UTF-8: byte 0x{data[e.start]:02x} at byte {e.start} "
                                     f"({e.reason})")
    starts = offsets[:-1]
    inside = starts[starts < blob.size]
    cut = np.flatnonzero((blob[inside] & 0xC0) == 0x80)
    if cut.size:
        i = int(np.flatnonzero(starts < blob.size)[cut[0]])
        where.section_fail(offsets_key, f"offset {int(starts[i])} at index {i} cuts a UTF-8 character")


def check_rows_ascending(ptr: np.ndarray, ids: np.ndarray, where: Where, key: str) -> None:
    """Strictly ascending ids within every row ids[ptr[r]:ptr[r + 1]] (``ptr`` already checked)."""
    for s, e in blocks(ids.size - 1, 1) if ids.size > 1 else ():
        up = ids[s + 1:e] > ids[s:e - 1]  # pair (j - 1, j) for j in [s + 1, e)
        if up.all():
            continue
        i0, i1 = np.searchsorted(ptr, [s + 1, e])
        up[ptr[i0:i1] - (s + 1)] = True  # a row may start lower than the previous one ended
        if not up.all():
            j = s + 1 + int(np.argmin(up))
            where.section_fail(key, f"ids within a row must be strictly ascending (index {j - 1}: {int(ids[j - 1])}, "
                                    f"then {int(ids[j])})")


def csr(arrays: Arrays, where: Where, ptr_key: str, ids_key: str, n_rows: Optional[int], n_cols: int,
        *, ascending: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    ptr = section(arrays, where, ptr_key, "<i8", (None if n_rows is None else n_rows + 1,))
    ids = section(arrays, where, ids_key, "<i4", (None,))
    check_pointers(ptr, ids.size, where, ptr_key)
    check_range(ids, 0, n_cols, where, ids_key)
    if ascending:
        check_rows_ascending(ptr, ids, where, ids_key)
    return ptr, ids


def max_row_length(ptr: np.ndarray) -> int:
    """The longest row of a CSR matrix (``ptr`` checked; 0 without rows)."""
    return max((int(np.max(ptr[s + 1:e] - ptr[s:e - 1])) for s, e in blocks(ptr.size - 1, 1)), default=0)


def check_budget(nbytes: int, what: str, where: Where, field: str) -> None:
    """A few bytes of a file must not make a later call allocate gigabytes."""
    try:
        check_memory(nbytes, what)
    except MemoryBudgetError as e:
        where.meta_fail(field, str(e))


def kernel(meta: Meta, max_degree: int = MAX_DEGREE) -> Tuple[int, float, float]:
    """(degree, gamma, coef0) of a polynomial kernel's header fields."""
    return (meta.int("degree", 1, max_degree), meta.float("gamma"), meta.float("coef0"))


def check_kernel_magnitude(poly: Tuple[int, float, float], max_overlap: int, alpha: Sequence[np.ndarray],
                           where: Where, key: str) -> None:
    """(gamma m + coef0)^degree and sum |alpha| k stay far from overflow for overlaps m <= max_overlap."""
    degree, gamma, coef0 = poly
    base = max(abs(coef0), abs(gamma * max_overlap + coef0))  # |gamma m + c| peaks at an end point
    log_k = degree * math.log(base) if base > 0 else -math.inf
    if log_k > _MAX_LOG_MAGNITUDE:
        where.fail(f"header fields 'gamma', 'coef0' and 'degree': the kernel ({gamma:g} * m + {coef0:g}) ** {degree} "
                   f"overflows for overlaps up to {max_overlap}")
    with np.errstate(over="ignore"):  # an overflow to inf is what this looks for
        total = float(sum(np.abs(a.reshape(-1)[s:e]).sum() for a in alpha for s, e in blocks(a.size)))
    if total > 0 and log_k + math.log(total) > _MAX_LOG_MAGNITUDE:
        where.section_fail(key, f"coefficients times the kernel overflow (sum |alpha| = {total:g}, "
                                f"largest kernel value = exp({log_k:.0f}))")


def validate(kind: str, meta: Dict[str, Any], arrays: Arrays, name: str = "<model>", owner: Optional[type] = None) -> None:
    """Check the header entry ``meta`` and the sections ``arrays`` of one object
    of ``kind`` (section names relative to the object) with the checks of
    ``owner``, the class registered for ``kind`` (its ``check_sections``).

    Raises
    ------
    ModelFormatError
        Naming the file (``name``), the section or header field, and the problem.
    """
    check = getattr(owner, "check_sections", None)
    if check is None or getattr(owner, "kind", None) != kind:
        raise ModelFormatError(f"header field 'kind': unknown model kind {kind!r} (written by a newer conjunct?)", name)
    check(Meta(meta, "", Where(name)), arrays, Where(name))
