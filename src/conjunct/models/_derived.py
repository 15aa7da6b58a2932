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

from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from .. import _core
from .._errors import ModelFormatError
from ..budget import check_memory
from .classifier_checks import check_fstrie_inputs

__all__ = ["DERIVABLE", "FSTRIE_DERIVABLE", "derivable", "restore"]

#: What a split classifier's file may leave out.
DERIVABLE = ("rare_indices", "rare_indptr", "store.dense", "store.row_value", "store.weight")
#: The store's trie, which it may leave out too: every conjunction of common
#: features its support vectors hold.
TRIE = ("store.child_begin", "store.label", "store.root_map")
#: What an fstrie classifier's file may leave out: its prefixes' margins (from
#: its base and trie), and, over a degree-2 split base, what that base's may.
FSTRIE_DERIVABLE = ("trie.weight",)
#: Whether saving leaves an fstrie's prefix margins out. Off: recomputing them
#: walks the base once per trie node (one add_remainder each, as the compiler
#: did), which costs the Japanese text pipeline's full-size parser about as
#: much as the rest of its load, to save 8 bytes per node. Loading recomputes
#: them whenever a file leaves them out.
LEAVE_OUT_PREFIX_MARGINS = False


def _split_d2(method: Any, params: Any) -> bool:
    return method == "split" and isinstance(params, Mapping) and params.get("degree") == 2


def _allowed(method: Any, params: Any) -> Tuple[str, ...]:
    if _split_d2(method, params):
        return DERIVABLE + TRIE
    if method == "fstrie" and isinstance(params, Mapping):
        base = tuple(f"base.{d}" for d in DERIVABLE + TRIE) if _split_d2(params.get("base"), params.get("base_params")) else ()
        return FSTRIE_DERIVABLE + base
    return ()


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _base(arrays: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
    return {k[5:]: v for k, v in arrays.items() if k.startswith("base.")}


def derivable(method: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> List[str]:
    """The sections of a compiled classifier that loading recomputes exactly
    (recomputed here and compared byte for byte); [] for other methods."""
    allowed = _allowed(method, params)
    if not allowed:
        return []
    if method == "split":
        return _split_same(params, arrays)
    same = []
    if len(allowed) > len(FSTRIE_DERIVABLE):  # over a degree-2 split base
        same = [f"base.{d}" for d in _split_same(params["base_params"], _base(arrays))]
    if LEAVE_OUT_PREFIX_MARGINS:
        out = _core.fstrie_derived(meta=dict(params), arrays=dict(arrays))
        if _same(arrays["trie.weight"], out["trie.weight"]):
            same.append("trie.weight")
    return same


def _split_same(params: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> List[str]:
    """The sections of a degree-2 split classifier that recomputing gives byte for byte: its trie and
    weights from the support vectors alone, or, when the trie is not the one they give, its weights
    over the trie it has."""
    out = _core.split_derived(meta=dict(params), arrays={k: v for k, v in arrays.items() if k not in TRIE})
    if not all(_same(arrays[t], out[t]) for t in TRIE):
        out = _core.split_derived(meta=dict(params), arrays=dict(arrays))
    return [d for d in DERIVABLE + TRIE if d in arrays and d in out and _same(arrays[d], out[d])]


def restore(meta: Dict[str, Any], arrays: Dict[str, np.ndarray], name: str) -> Dict[str, np.ndarray]:
    """``arrays`` (a classifier's sections, ``m.`` names) with the sections its
    header's ``derived`` field names recomputed; unchanged without one."""
    derived = meta.get("derived") if isinstance(meta, dict) else None
    if derived is None:
        return arrays
    where = "corrupt model file: classifier header field 'derived'"
    method, params = meta.get("method"), meta.get("params")
    allowed = _allowed(method, params)
    if not allowed or not isinstance(derived, list) \
            or not all(isinstance(d, str) and d in allowed for d in derived) or len(set(derived)) != len(derived):
        raise ModelFormatError(f"{where}: expected a list of distinct names among {list(DERIVABLE + TRIE)} of a "
                               f"degree-2 split classifier or {list(FSTRIE_DERIVABLE)} (and its degree-2 split base's, "
                               f"'base.' and those) of an fstrie classifier, got {derived!r:.200}", name)
    missing = [d for d in derived if f"m.{d}" not in arrays]
    if not missing:  # recomputed already (persistence.build restores before Classifier.from_container)
        return arrays
    if len(missing) < len(derived):
        raise ModelFormatError(f"{where}: names sections the file also holds "
                               f"({', '.join(d for d in derived if d not in missing)})", name)
    own = {k[2:]: v for k, v in arrays.items() if k.startswith("m.")}
    if method == "split":
        return {**arrays, **{f"m.{d}": v for d, v in _split(params, own, derived, name).items()}}
    base_names = [d[5:] for d in derived if d.startswith("base.")]
    if base_names:
        own.update({f"base.{d}": v for d, v in _split(params["base_params"], _base(own), base_names, name).items()})
    if "trie.weight" in derived:
        full = {**arrays, **{f"m.{k}": v for k, v in own.items()}}
        check_fstrie_inputs(meta, full, name)  # the base, column map and trie, before the core reads them
        n_nodes = int(np.asarray(own["trie.label"]).size)
        check_memory(16 * n_nodes * max(1, int(np.asarray(own["base.bias"]).size)),
                     "recomputing an fstrie classifier's weights at load")
        try:
            own["trie.weight"] = _core.fstrie_derived(meta=params, arrays=own)["trie.weight"]
        except (ValueError, TypeError, KeyError, RuntimeError, OverflowError) as e:
            raise ModelFormatError(f"corrupt model file: the fstrie classifier's weights cannot be recomputed ({e})",
                                   name) from None
    return {**arrays, **{f"m.{d}": own[d] for d in derived}}


def _split(params: Any, own: Dict[str, np.ndarray], derived: List[str], name: str) -> Dict[str, np.ndarray]:
    """A degree-2 split classifier's sections ``derived``, recomputed from ``own``."""
    if not isinstance(params, dict):
        raise ModelFormatError("corrupt model file: classifier header field 'params': expected an object", name)
    n_features, col_map = params.get("n_features"), own.get("col_map")
    if isinstance(n_features, int) and col_map is not None and n_features > np.asarray(col_map).size:
        # each internal id is one column's: checked before anything of n_features entries is allocated
        raise ModelFormatError(f"corrupt model file: classifier header field 'params.n_features': {n_features} is "
                               f"more than the column map's {np.asarray(col_map).size} entries", name)
    _check_budget(params, own)
    try:
        out = _core.split_derived(meta=params, arrays=own)
    except (ValueError, TypeError, KeyError, RuntimeError, OverflowError) as e:
        raise ModelFormatError(f"corrupt model file: the split classifier's derived sections cannot be recomputed "
                               f"({e})", name) from None
    lacking = [d for d in derived if d not in out]
    if lacking:  # e.g. store.row_value of a store whose sparse rows' other sections are gone
        raise ModelFormatError(f"corrupt model file: classifier header field 'derived': names {', '.join(lacking)}, "
                               "which this classifier's store layout does not have", name)
    return {d: out[d] for d in derived}


def _check_budget(params: Mapping[str, Any], own: Mapping[str, np.ndarray]) -> None:
    """The recomputation's memory (sums of both signs per value, then the values) within the budget."""
    n_dense, n_features, bias = params.get("n_dense"), params.get("n_features"), own.get("bias")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (n_dense, n_features)) \
            or not 0 <= n_dense <= n_features or bias is None:
        return  # the C++ checks refuse it
    K = int(np.asarray(bias).size)
    entries = n_dense + n_dense * (n_dense - 1) // 2
    if "store.label" in own:
        nodes = int(np.asarray(own["store.label"]).size)
    else:  # the trie recomputed too: at most one node per feature and per pair of features of a support vector
        lengths = np.diff(np.asarray(own.get("sv_indptr", (0,)), dtype=np.int64))
        nodes = 1 + min(int((lengths * (lengths + 1) // 2).sum()), n_features * (n_features + 1) // 2)
        check_memory(12 * nodes + 16 * int(np.asarray(own.get("sv_indices", ())).size) + 4 * n_features,
                     "recomputing a split classifier's trie at load")
    values = int(np.asarray(own.get("store.row_output", ())).size) if "store.row_begin" in own else nodes * K
    check_memory(24 * (entries * K + values), "recomputing a split classifier's weights at load")
