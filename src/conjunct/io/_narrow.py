"""Lossless narrowing of a model file's integer sections.

Index sections (trie children and labels, CSR pointers, output ids, feature
name offsets, counts) hold values far smaller than their ``<i4`` / ``<i8``
dtype allows. A file may store such a section in a narrower dtype, or, for a
non-decreasing one (pointers, offsets), as the differences of consecutive
values in a narrow unsigned dtype; its header record then says how to give the
array back (``"decode": {"dtype": "<i4", "delta": true}``). Reading widens it
to exactly the array that was saved, before any check sees it, so everything
past the container is unchanged. A section whose values start below 0 only
by a few (trie labels with the root's -1, codes with -1 for "none") may be
stored as its values minus its smallest, in a narrow unsigned dtype
(``"offset": -1``: add it back). Floats are never narrowed: a weight's every
bit is the model's.

The price: a narrowed section is widened into memory, so ``mmap=True`` maps
only the sections stored as they are (the floats, which are most of a file).
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from .._errors import ModelFormatError

__all__ = ["narrow", "widen", "uses_offset", "MIN_ENTRIES"]

# Sections smaller than this are stored as they are (nothing to gain).
MIN_ENTRIES = 1024
_WIDE = ("<i8", "<i4", "<u8", "<u4", "<i2", "<u2")
_NARROW = ("|u1", "|i1", "<u2", "<i2", "<u4", "<i4")  # smallest first
_UNSIGNED = ("|u1", "<u2", "<u4")


def _fits(lo: int, hi: int, dtype: str) -> bool:
    info = np.iinfo(np.dtype(dtype))
    return info.min <= lo and hi <= info.max


def narrow(a: np.ndarray) -> Optional[Tuple[np.ndarray, dict]]:
    """(the stored array, its record's ``decode`` entry) for an integer
    section that a narrower form holds exactly, or None."""
    if a.dtype.str not in _WIDE or a.size < MIN_ENTRIES:
        return None
    best = None
    lo, hi = int(a.min()), int(a.max())
    plain = next((d for d in _NARROW if _fits(lo, hi, d)), None)
    if plain is not None and np.dtype(plain).itemsize < a.itemsize:
        best = (np.dtype(plain).itemsize, plain, False)
    if lo < 0:  # shifted to start at 0
        d = next((d for d in _UNSIGNED if _fits(0, hi - lo, d)), None)
        if d is not None and np.dtype(d).itemsize < (best[0] if best else a.itemsize):
            best = (np.dtype(d).itemsize, d, lo)
    if a.ndim == 1 and lo >= 0:
        steps = np.diff(a, prepend=a.dtype.type(0))
        if steps.min() >= 0:  # non-decreasing
            d = next((d for d in _UNSIGNED if _fits(0, int(steps.max()), d)), None)
            if d is not None and np.dtype(d).itemsize < (best[0] if best else a.itemsize):
                best = (np.dtype(d).itemsize, d, True)
    if best is None:
        return None
    _, dtype, how = best
    if how is True or how is False:
        stored = (np.diff(a, prepend=a.dtype.type(0)) if how else a).astype(dtype)
        return stored, {"dtype": a.dtype.str, "delta": how}
    return (a - a.dtype.type(how)).astype(dtype), {"dtype": a.dtype.str, "delta": False, "offset": how}


def uses_offset(decode: dict) -> bool:
    """Whether a ``decode`` entry shifts its values (format version 3)."""
    return "offset" in decode


def check_record(record: dict, label: str, name: str) -> None:
    """A section record's ``decode`` entry is one :func:`widen` can follow
    (called on every record with one, while the header is read)."""
    decode = record["decode"]
    if not isinstance(decode, dict) or set(decode) - {"offset"} != {"dtype", "delta"} or decode["dtype"] not in _WIDE \
            or not isinstance(decode["delta"], bool):
        raise ModelFormatError(f"corrupt model file: section {label}: 'decode' must be an object with a dtype of "
                               f"{', '.join(_WIDE)}, a boolean 'delta' and maybe an integer 'offset'", name)
    stored = record["dtype"]
    if "offset" in decode:
        offset, info = decode["offset"], np.iinfo(np.dtype(decode["dtype"]))
        if type(offset) is not int or decode["delta"] or stored not in _UNSIGNED \
                or not info.min <= offset < 0 or offset + np.iinfo(np.dtype(stored)).max > info.max:
            raise ModelFormatError(f"corrupt model file: section {label}: an 'offset' is a negative integer added to "
                                   f"values stored in {', '.join(_UNSIGNED)} that stay within {decode['dtype']}, "
                                   f"without 'delta' (got {offset!r:.40} for {stored})", name)
        return
    if decode["delta"]:
        if stored not in _UNSIGNED or len(record["shape"]) != 1:
            raise ModelFormatError(f"corrupt model file: section {label}: differences are stored in a 1-D array of "
                                   f"{', '.join(_UNSIGNED)}, not {stored} of shape {record['shape']}", name)
    elif stored not in _NARROW or not np.can_cast(np.dtype(stored), np.dtype(decode["dtype"]), "safe"):
        raise ModelFormatError(f"corrupt model file: section {label}: {stored} does not widen to {decode['dtype']}", name)


def widen(stored: np.ndarray, decode: dict, label: str, name: str) -> np.ndarray:
    """The array a narrowed section holds (``decode`` checked by :func:`check_record`)."""
    target = np.dtype(decode["dtype"])
    if "offset" in decode:  # check_record: the sum stays within the target dtype
        out = stored.astype(target)
        out += target.type(decode["offset"])
        return out
    if not decode["delta"]:
        return stored.astype(target)
    if stored.size > 1 << 31:  # steps below 2**32, at most 2**31 of them: the running sum cannot wrap in int64
        raise ModelFormatError(f"corrupt model file: section {label}: {stored.size} differences, more than 2**31", name)
    last = int(stored.sum(dtype=np.int64))  # the largest value: summing first lets the running sum be in the target dtype
    if last > np.iinfo(target).max:
        raise ModelFormatError(f"corrupt model file: section {label}: its values pass the largest {target.str} "
                               f"({last})", name)
    return np.cumsum(stored, dtype=target)
