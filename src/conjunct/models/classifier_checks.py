"""The compiled classifiers' sections in a model file: one :class:`MethodSpec`
per classification method (its scalar parameters, its sections, and what ties
them together), in :data:`METHOD_SPECS`, whose names are the core's methods
(``conjunct._core.METHODS``). ``Classifier.check_sections`` calls
:func:`check_classifier`; the C++ checks at open are the second line.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ..features.checks import optional_features
from .labels import check_rule
from ..io.validation import (MAX_COLUMNS, Arrays, Meta, Where, blocks, check_budget, check_finite, check_kernel_magnitude,
                         check_pointers, check_range, check_rows_ascending, csr, is_int, kernel, max_row_length, section)

__all__ = ["MethodSpec", "METHOD_SPECS", "check_classifier", "check_fstrie_inputs", "MAX_CLASSIFIER_DEGREE"]

#: The compiled classifiers' kernels (the core computes powers up to 63).
MAX_CLASSIFIER_DEGREE = 63
#: Dense conjunction tables cover conjunctions of at most this many features.
MAX_DENSE_DEGREE = 4


def _stats(params: Meta, keys: Sequence[str]) -> None:
    """Counts shown by ``info`` only."""
    for key in keys:
        params.int(key, 0, 1 << 62, optional=True, none=True)
    sizes = params.list("conjunctions_by_size", optional=True)
    if sizes is not None and not all(is_int(v) and v >= 0 for v in sizes):
        params.where.meta_fail(params._p("conjunctions_by_size"), "expected a list of counts")


def _bias(arrays: Arrays, where: Where, K: int) -> np.ndarray:
    bias = section(arrays, where, "bias", "<f8", (K,))
    check_finite(bias, where, "bias")
    return bias


def _alpha(arrays: Arrays, where: Where, n_sv: int, K: int) -> Tuple[np.ndarray, ...]:
    """Alpha rows: dense (n_sv x K) or sparse (alpha of shape (0, K) and a CSR triplet)."""
    alpha = section(arrays, where, "alpha", "<f8", (None, K))
    ptr = section(arrays, where, "alpha_ptr", "<i8", (None,))
    out = section(arrays, where, "alpha_out", "<i4", (None,))
    val = section(arrays, where, "alpha_val", "<f8", (None,))
    sparse = alpha.shape[0] == 0 and ptr.size > 0
    if sparse:
        if ptr.size != n_sv + 1:
            where.section_fail("alpha_ptr", f"{ptr.size} offsets, expected {n_sv + 1} (support vectors + 1)")
        if val.size != out.size:
            where.section_fail("alpha_val", f"{val.size} values but {out.size} output ids")
        check_pointers(ptr, out.size, where, "alpha_ptr")
        check_range(out, 0, K, where, "alpha_out")
        check_rows_ascending(ptr, out, where, "alpha_out")
        check_finite(val, where, "alpha_val")
        return (val,)
    if alpha.shape[0] != n_sv:
        where.section_fail("alpha", f"{alpha.shape[0]} rows, expected {n_sv} (one per support vector)")
    if ptr.size or out.size or val.size:
        where.fail(f"sections {where.prefix}alpha_ptr/out/val must be empty when alpha is dense")
    check_finite(alpha, where, "alpha")
    return (alpha,)


def _col_map(arrays: Arrays, where: Where, n_columns: int, n_features: Optional[int] = None) -> int:
    """Column -> internal id map: a bijection from the used columns onto 0..F-1 (the
    others -1). Returns F, which is ``n_features`` when given."""
    cm = section(arrays, where, "col_map", "<i4", (n_columns,))
    F = int(np.count_nonzero(cm >= 0)) if n_features is None else n_features
    if F > cm.size:  # before anything of size F is allocated
        where.meta_fail("params.n_features", f"is {F}, more than the {cm.size} columns of the column map")
    check_range(cm, -1, F, where, "col_map")
    counts = np.zeros(F, dtype=np.int64)
    for s, e in blocks(cm.size):
        block = cm[s:e]
        counts += np.bincount(block[block >= 0], minlength=F)
    if F and int(counts.min()) != 1:
        i = int(np.argmin(counts)) if int(counts.min()) == 0 else int(np.argmax(counts))
        where.section_fail("col_map", f"internal id {i} is used by {int(counts[i])} columns, expected exactly one")
    return F


def _trie(arrays: Arrays, where: Where, n_labels: int, *, descending: bool, max_depth: Optional[int],
          label_limit: Optional[int] = None) -> int:
    """A breadth-first trie (util/trie.h): node 0 the root, children of n are
    [child_begin[n], child_begin[n+1]) with strictly ascending labels in
    [0, label_limit), root_map[f] the root's child labelled f (or -1). Labels
    along a path descend (conjunction stores: rarest first) or ascend (fstrie:
    frequent first). Returns the number of nodes."""
    label = section(arrays, where, "label", "<i4", (None,))
    n = label.size
    if n == 0:
        where.section_fail("label", "no nodes (a trie has at least its root)")
    child_begin = section(arrays, where, "child_begin", "<i4", (n + 1,))
    root_map = section(arrays, where, "root_map", "<i4", (n_labels,))
    # The child lists partition nodes 1..n-1 (monotone offsets from 1 to n), and
    # every node's children come after it: each non-root node has one parent, before it.
    check_pointers(child_begin, n, where, "child_begin", first=1)
    internal = np.flatnonzero(child_begin[1:] > child_begin[:-1])  # nodes with children
    late = np.flatnonzero(child_begin[internal] <= internal)
    if late.size:
        v = int(internal[late[0]])
        where.section_fail("child_begin", f"node {v}'s children start at {int(child_begin[v])}, not after the node")
    limit = n_labels if label_limit is None else label_limit
    check_range(label[1:], 0, limit, where, "label", first_index=1)
    # Siblings ascend: a label may drop only where a child list starts.
    starts = np.zeros(n + 1, dtype=bool)
    starts[child_begin[internal]] = True
    rising = starts[2:n] | (label[2:] > label[1:-1])
    if not rising.all():
        c = 2 + int(np.argmin(rising))
        where.section_fail("label", f"node {c}'s label {int(label[c])} does not exceed its previous sibling's "
                                    f"({int(label[c - 1])})")
    # Path order: a node's children all descend (ascend) from its label, so its last (first) child does.
    inner = internal[internal > 0]
    child = child_begin[inner + 1] - 1 if descending else child_begin[inner]
    bad = np.flatnonzero(label[child] >= label[inner] if descending else label[child] <= label[inner])
    if bad.size:
        v = int(child[bad[0]])
        order = "smaller" if descending else "larger"
        where.section_fail("label", f"node {v}'s label {int(label[v])} is not {order} than its parent's")
    # The root map lists exactly the root's children.
    check_range(root_map, -1, n, where, "root_map")
    first = label[1:int(child_begin[1])]
    if np.any(root_map[first] != np.arange(1, first.size + 1, dtype=np.int64)):
        where.section_fail("root_map", "does not point to the root's children by their labels")
    if int(np.count_nonzero(root_map >= 0)) != first.size:
        where.section_fail("root_map", f"has {int(np.count_nonzero(root_map >= 0))} entries for {first.size} root children")
    if max_depth is not None:
        lo, hi, depth = 0, 1, 0
        while lo < hi:
            lo, hi = int(child_begin[lo]), int(child_begin[hi])
            depth += 1 if lo < hi else 0
            if depth > max_depth:
                where.section_fail("child_begin", f"the trie is deeper than {max_depth} (the degree)")
    return n


def _store(arrays: Arrays, where: Where, *, degree: int, n_dense: int, n_features: int, K: int,
           label_limit: Optional[int] = None) -> None:
    """A conjunction store (classify/conjunction_store.h): dense levels for the
    n_dense most frequent features, a trie keyed rarest member first."""
    st = where.sub("store")
    # Early-exit prediction keeps two bounds per feature and output.
    check_budget(16 * n_features * K, f"the early-exit bounds of {n_features} features x {K} outputs", where,
                  "params.n_features")
    if n_dense > 0 and degree > MAX_DENSE_DEGREE:
        where.meta_fail("params.n_dense", f"a dense table needs degree <= {MAX_DENSE_DEGREE}, the degree is {degree}")
    entries = sum(math.comb(n_dense, r) for r in range(1, min(degree, MAX_DENSE_DEGREE) + 1)) if n_dense else 0
    dense = section(arrays, st, "dense", "<f8", (None,))
    if dense.size != entries * K:
        st.section_fail("dense", f"{dense.size} values, expected {entries * K} ({entries} conjunctions of the "
                                 f"{n_dense} dense features x {K} outputs)")
    check_finite(dense, st, "dense")
    n_nodes = _trie(arrays, st, n_features, descending=True, max_depth=degree, label_limit=label_limit)
    if st.prefix + "row_begin" not in arrays:
        weight = section(arrays, st, "weight", "<f8", (n_nodes * K,))
        check_finite(weight, st, "weight")
        return
    # Sparse rows: each trie node's non-zero outputs, ascending.
    if K < 2:
        st.section_fail("row_begin", f"sparse rows need K >= 2 outputs, the model has {K}")
    if st.prefix + "weight" in arrays:
        st.section_fail("weight", "a store has dense or sparse rows, not both")
    begin = section(arrays, st, "row_begin", "<i8", (n_nodes + 1,))
    values = section(arrays, st, "row_value", "<f8", (None,))
    outputs = section(arrays, st, "row_output", "<i4", (values.size,))
    if begin[0] != 0 or begin[-1] != values.size:
        st.section_fail("row_begin", f"must run from 0 to the number of values ({values.size}), "
                                     f"runs from {begin[0]} to {begin[-1]}")
    if np.any(np.diff(begin) < 0):
        st.section_fail("row_begin", f"decreases at index {int(np.argmax(np.diff(begin) < 0)) + 1}")
    if outputs.size and (outputs.min() < 0 or outputs.max() >= K):
        bad = int(np.argmax((outputs < 0) | (outputs >= K)))
        st.section_fail("row_output", f"value {int(outputs[bad])} at index {bad} is outside [0, {K})")
    # Ascending within each row: a step that does not rise must start a new row.
    falls = np.flatnonzero(np.diff(outputs) <= 0) + 1
    if falls.size and not np.all(np.isin(falls, begin)):
        bad = int(falls[~np.isin(falls, begin)][0])
        st.section_fail("row_output", f"does not ascend within its row at index {bad}")
    check_finite(values, st, "row_value")


class MethodSpec:
    """How one classification method's data are checked.

    Parameters
    ----------
    params : callable
        ``params(meta) -> dict`` checks the method's scalar parameters (a
        :class:`Meta` of ``params``) and returns the values the checks need.
    check : callable
        ``check(params, arrays, where, K, n_columns) -> int`` checks the
        sections (names relative to ``where.prefix``) and returns the number of
        internal features.
    """

    def __init__(self, params: Callable[[Meta], Dict[str, Any]], check: Callable[..., int]) -> None:
        self.params = params
        self.check = check


def _pkb_params(p: Meta) -> Dict[str, Any]:
    return {"kernel": kernel(p, MAX_CLASSIFIER_DEGREE)}


def _pkb_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns)
    ptr, _ = csr(arrays, where, "sv_indptr", "sv_indices", None, F)
    alpha = _alpha(arrays, where, ptr.size - 1, K)
    _bias(arrays, where, K)
    if ptr.size > 1:
        check_kernel_magnitude(p["kernel"], max_row_length(ptr), alpha, where, "alpha")
    return F


def _pki_params(p: Meta) -> Dict[str, Any]:
    return {"kernel": kernel(p, MAX_CLASSIFIER_DEGREE), "n_sv": p.int("n_sv", 0, MAX_COLUMNS), "max_sv_length": p.int("max_sv_length", 0, MAX_COLUMNS)}


def _pki_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns)
    n_sv = p["n_sv"]
    alpha = _alpha(arrays, where, n_sv, K)  # first: its sections bound n_sv by the file's size
    _bias(arrays, where, K)
    _, ids = csr(arrays, where, "inv_indptr", "inv_indices", F, n_sv)
    # The overlap |s ∩ x| indexes a kernel table of max_sv_length + 1 entries.
    longest = int(np.bincount(ids, minlength=1).max()) if ids.size else 0
    if not longest <= p["max_sv_length"] <= F:
        where.meta_fail("params.max_sv_length", f"is {p['max_sv_length']}, but the longest support vector has {longest} "
                                                f"features (and there are {F})")
    if n_sv:
        check_kernel_magnitude(p["kernel"], longest, alpha, where, "alpha")
    return F


def _pke_params(p: Meta) -> Dict[str, Any]:
    _stats(p, ("n_conjunctions",))
    p.float("sigma", 0.0, optional=True)
    p.int("min_support", 1, 1 << 62, optional=True)
    return {"degree": p.int("degree", 1, MAX_CLASSIFIER_DEGREE), "n_dense": p.int("n_dense", 0, MAX_COLUMNS),
            "n_features": p.int("n_features", 0, MAX_COLUMNS)}


def _pke_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns, p["n_features"])
    if p["n_dense"] > F:
        where.meta_fail("params.n_dense", f"is {p['n_dense']}, more than the {F} features")
    _bias(arrays, where, K)
    _store(arrays, where, degree=p["degree"], n_dense=p["n_dense"], n_features=F, K=K)
    return F


def _split_params(p: Meta) -> Dict[str, Any]:
    _stats(p, ("n_conjunctions",))
    out = _pke_params(p)
    out.update(kernel=kernel(p, MAX_CLASSIFIER_DEGREE), n_common=p.int("n_common", 0, MAX_COLUMNS),
               max_sv_length=p.int("max_sv_length", 0, MAX_COLUMNS))
    return out


def _split_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int) -> int:
    F = _col_map(arrays, where, n_columns, p["n_features"])
    n_common, n_dense = p["n_common"], p["n_dense"]
    if not n_dense <= n_common <= F:
        where.meta_fail("params.n_common", f"expected n_dense ({n_dense}) <= n_common ({n_common}) <= features ({F})")
    _bias(arrays, where, K)
    _store(arrays, where, degree=p["degree"], n_dense=n_dense, n_features=F, K=K, label_limit=n_common)
    sv_ptr, sv_ids = csr(arrays, where, "sv_indptr", "sv_indices", None, F)
    n_sv = sv_ptr.size - 1
    rare_ptr, rare_ids = csr(arrays, where, "rare_indptr", "rare_indices", F - n_common, n_sv)
    # The rare postings must be the support vectors' rare features, transposed:
    # overlaps then never exceed a support vector's length (the kernel table's size).
    _check_transpose(sv_ptr, sv_ids, rare_ptr, rare_ids, n_common, F, where)
    longest = max_row_length(sv_ptr)
    if not longest <= p["max_sv_length"] <= F:
        where.meta_fail("params.max_sv_length", f"is {p['max_sv_length']}, but the longest support vector has "
                                                f"{longest} features (and there are {F})")
    alpha = _alpha(arrays, where, n_sv, K)
    if n_sv:
        check_kernel_magnitude(p["kernel"], longest, alpha, where, "alpha")
    return F


def _check_transpose(sv_ptr: np.ndarray, sv_ids: np.ndarray, rare_ptr: np.ndarray, rare_ids: np.ndarray, n_common: int,
                     F: int, where: Where) -> None:
    # Checked as (feature, support vector) pairs in one int64 each (numpy: importing scipy.sparse for its
    # transpose would cost a third of loading a pipeline). The support vectors' pairs are distinct; the
    # postings' pairs, when strictly increasing, are too, so equal sorted arrays mean the same postings.
    n_rare, n_sv = F - n_common, max(sv_ptr.size - 1, 1)
    rows = np.repeat(np.arange(sv_ptr.size - 1, dtype=np.int64), np.diff(sv_ptr))
    keep = sv_ids >= n_common
    feats = sv_ids[keep].astype(np.int64) - n_common
    indptr = np.zeros(n_rare + 1, dtype=np.int64)
    np.cumsum(np.bincount(feats, minlength=n_rare), out=indptr[1:])
    same = np.array_equal(indptr, rare_ptr)
    if same:
        posted = np.repeat(np.arange(n_rare, dtype=np.int64), np.diff(rare_ptr)) * n_sv + rare_ids
        same = bool((posted[1:] > posted[:-1]).all()) and np.array_equal(np.sort(feats * n_sv + rows[keep]), posted)
    if not same:
        where.section_fail("rare_indices", "the rare-feature postings do not match the support vectors")


def _fstrie_params(p: Meta) -> Dict[str, Any]:
    base = p.str("base", ("pke", "split"))
    base_meta = p.obj("base_params")
    base_params = METHOD_SPECS[base].params(base_meta)
    degree = p.int("degree", 1, MAX_CLASSIFIER_DEGREE)
    if degree != base_params["degree"]:
        p.where.meta_fail("params.degree", f"is {degree}, but the base's degree is {base_params['degree']}")
    p.int("max_nodes", 0, 1 << 62, optional=True, none=True)
    _stats(p, ("events", "distinct_events", "nodes_before_pruning", "nodes"))
    return {"base": base, "base_params": base_params}


def _fstrie_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int, weight: bool = True) -> int:
    base_where = where.sub("base")
    F = METHOD_SPECS[p["base"]].check(p["base_params"], arrays, base_where, K, n_columns)
    col_map = section(arrays, where, "col_map", "<i4", (n_columns,))
    if not np.array_equal(col_map, arrays[base_where.prefix + "col_map"]):
        where.section_fail("col_map", "differs from the base classifier's column map")
    trie = where.sub("trie")
    n_nodes = _trie(arrays, trie, F, descending=False, max_depth=None)
    if weight:
        check_finite(section(arrays, trie, "weight", "<f8", (n_nodes * K,)), trie, "weight")
    return F


def _adaptive_params(p: Meta) -> Dict[str, Any]:
    warm = p.bool("warm_start")
    p.int("cache_rows", 0, MAX_COLUMNS)
    p.str("eviction", ("lru", "lfu"))
    p.bool("doorkeeper")
    p.str("sharing", ("thread", "shared"))
    p.int("shards", 1, 4096)
    if warm:  # a static fstrie under the cache: the fstrie's own parameters
        return dict(_fstrie_params(p), warm_start=True)
    base = p.str("base", ("pke", "split"))
    base_params = METHOD_SPECS[base].params(p.obj("base_params"))
    degree = p.int("degree", 1, MAX_CLASSIFIER_DEGREE)
    if degree != base_params["degree"]:
        p.where.meta_fail("params.degree", f"is {degree}, but the base's degree is {base_params['degree']}")
    return {"base": base, "base_params": base_params, "warm_start": False}


def _adaptive_check(p: Dict[str, Any], arrays: Arrays, where: Where, K: int, n_columns: int) -> int:
    if p["warm_start"]:
        return _fstrie_check(p, arrays, where, K, n_columns)
    base_where = where.sub("base")
    F = METHOD_SPECS[p["base"]].check(p["base_params"], arrays, base_where, K, n_columns)
    col_map = section(arrays, where, "col_map", "<i4", (n_columns,))
    if not np.array_equal(col_map, arrays[base_where.prefix + "col_map"]):
        where.section_fail("col_map", "differs from the base classifier's column map")
    return F


#: Per classification method: its scalar parameters and its sections.
METHOD_SPECS: Dict[str, MethodSpec] = {
    "pkb": MethodSpec(_pkb_params, _pkb_check),
    "pki": MethodSpec(_pki_params, _pki_check),
    "pke": MethodSpec(_pke_params, _pke_check),
    "split": MethodSpec(_split_params, _split_check),
    "fstrie": MethodSpec(_fstrie_params, _fstrie_check),
    "adaptive": MethodSpec(_adaptive_params, _adaptive_check),
}


def check_fstrie_inputs(meta: Dict[str, Any], arrays: Arrays, name: str) -> None:
    """An fstrie classifier's sections but ``trie.weight`` (its base, column
    map and trie: what recomputing the weights reads), checked before the core
    sees them (``m.`` names)."""
    where = Where(name)
    m = Meta(meta, "", where)
    _, _, K = check_rule(m)
    n_columns = m.int("n_columns", 0, MAX_COLUMNS)
    params = _fstrie_params(m.obj("params"))
    _fstrie_check(params, arrays, where.sub("m"), K, n_columns, weight=False)


def check_classifier(meta: Meta, arrays: Arrays, where: Where) -> None:
    method = meta.str("method", tuple(METHOD_SPECS))
    _, _, K = check_rule(meta)
    n_columns = meta.int("n_columns", 0, MAX_COLUMNS)
    named, n_names = optional_features(meta, arrays, where)
    if named and n_names > n_columns:
        where.meta_fail("n_columns", f"is {n_columns}, fewer than the {n_names} named features")
    spec = METHOD_SPECS[method]
    params = spec.params(meta.obj("params"))
    spec.check(params, arrays, where.sub("m"), K, n_columns)
