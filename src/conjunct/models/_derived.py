"""Sections a compiled classifier's file leaves out because loading
recomputes them bit for bit.

A degree-2 kernel-splitting classifier (method ``split``) holds its support
vectors and their alpha, and, derived from them, the weights of every
conjunction of common features (the store's dense table and trie rows) and
the rare features' postings (the support vectors transposed). The weights are
most of a file (a full-size English text pipeline: 35 of its 74 MiB).
``_core.split_derived`` recomputes them from the support vectors, alpha and
the store's trie, summing every weight as the compiler does (per conjunction
and output: the positive alpha in support-vector order, then the negative ones,
then the kernel's subset weight times their sum), so the recomputed arrays
are the compiled ones, bit for bit.

Exactness is checked, not assumed: a section is left out of a file only after
the recomputation gave exactly its bytes (:func:`derivable`), and the file
names the sections it left out (the classifier's ``derived`` header field).
Loading recomputes them before any check sees the sections
(:func:`restore`), so everything past it is unchanged.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

import numpy as np

from .. import _core
from .._errors import ModelFormatError
from ..budget import check_memory

__all__ = ["DERIVABLE", "derivable", "restore"]

#: What a split classifier's file may leave out.
DERIVABLE = ("rare_indices", "rare_indptr", "store.dense", "store.row_value", "store.weight")


def derivable(method: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> List[str]:
    """The sections of a compiled classifier that loading recomputes exactly
    (recomputed here and compared byte for byte); [] for other methods."""
    if method != "split" or params.get("degree") != 2:
        return []
    out = _core.split_derived(meta=dict(params), arrays=dict(arrays))
    same = []
    for name in DERIVABLE:
        if name in arrays and name in out:
            a, b = np.asarray(arrays[name]), np.asarray(out[name])
            if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes():
                same.append(name)
    return same


def restore(meta: Dict[str, Any], arrays: Dict[str, np.ndarray], name: str) -> Dict[str, np.ndarray]:
    """``arrays`` (a classifier's sections, ``m.`` names) with the sections its
    header's ``derived`` field names recomputed; unchanged without one."""
    derived = meta.get("derived") if isinstance(meta, dict) else None
    if derived is None:
        return arrays
    where = "corrupt model file: classifier header field 'derived'"
    if meta.get("method") != "split" or not isinstance(derived, list) \
            or not all(isinstance(d, str) and d in DERIVABLE for d in derived) or len(set(derived)) != len(derived):
        raise ModelFormatError(f"{where}: expected a list of distinct names among {list(DERIVABLE)} of a split "
                               f"classifier, got {derived!r:.200}", name)
    missing = [d for d in derived if f"m.{d}" not in arrays]
    if not missing:  # recomputed already (persistence.build restores before Classifier.from_container)
        return arrays
    if len(missing) < len(derived):
        raise ModelFormatError(f"{where}: names sections the file also holds "
                               f"({', '.join(d for d in derived if d not in missing)})", name)
    params = meta.get("params")
    own = {k[2:]: v for k, v in arrays.items() if k.startswith("m.")}
    if not isinstance(params, dict):
        raise ModelFormatError("corrupt model file: classifier header field 'params': expected an object", name)
    _check_budget(params, own)
    try:
        out = _core.split_derived(meta=params, arrays=own)
    except (ValueError, TypeError, KeyError, RuntimeError, OverflowError) as e:
        raise ModelFormatError(f"corrupt model file: the split classifier's derived sections cannot be recomputed "
                               f"({e})", name) from None
    lacking = [d for d in derived if d not in out]
    if lacking:  # e.g. store.row_value of a store whose sparse rows' other sections are gone
        raise ModelFormatError(f"{where}: names {', '.join(lacking)}, which this classifier's store layout does "
                               "not have", name)
    return {**arrays, **{f"m.{d}": out[d] for d in derived}}


def _check_budget(params: Mapping[str, Any], own: Mapping[str, np.ndarray]) -> None:
    """The recomputation's memory (sums of both signs per value, then the values) within the budget."""
    n_dense, bias = params.get("n_dense"), own.get("bias")
    n_features = int(np.asarray(own.get("store.root_map", ())).size)
    if not isinstance(n_dense, int) or isinstance(n_dense, bool) or not 0 <= n_dense <= n_features or bias is None:
        return  # the C++ checks refuse it
    K = int(np.asarray(bias).size)
    entries = n_dense + n_dense * (n_dense - 1) // 2
    nodes = int(np.asarray(own.get("store.label", ())).size)
    values = int(np.asarray(own.get("store.row_output", ())).size) if "store.row_begin" in own else nodes * K
    check_memory(24 * (entries * K + values), "recomputing a split classifier's weights at load")
