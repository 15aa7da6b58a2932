"""Compiled classifiers: immutable, thread-safe, batch and single-vector calls.

Every method compiles a model into a set of flat arrays (saved as sections of
the model file, and memory-mappable) plus scalar parameters; the C++ core views
those arrays without copying them.
"""

from __future__ import annotations

import os
import warnings
from typing import Callable, Dict, Optional, Tuple

import numpy as np
import scipy.sparse as sp

from . import _core
from ._errors import ConjunctError, ModelFormatError, UnknownFeaturesWarning
from ._dense_growth import dense_entries, grow_dense
from .data import as_rows, read_data
from .features import FeatureIndex, rank_space, store_features, stored_features
from .labels import DecisionRule
from .persistence import Saveable

__all__ = ["Classifier", "compile_model", "approximation_report", "METHODS", "DEFAULT_DENSE_BYTES"]

# Budget of the dense table for conjunctions among the most frequent features.
DEFAULT_DENSE_BYTES = 4 << 20

Arrays = Dict[str, np.ndarray]


def _is_kernel(model) -> bool:
    return hasattr(model, "support_vectors")


def _require_kernel(model, method: str) -> None:
    if not _is_kernel(model):
        raise ConjunctError(f"method {method!r} needs a kernel model (support vectors); this is a {type(model).__name__}")


def _n_dense(degree: int, n_outputs: int, n_features: int, dense_bytes: Optional[int], dense_features: Optional[int]) -> int:
    """How many of the most frequent features get the dense table."""
    if dense_bytes is not None and dense_features is not None:
        raise ConjunctError("give either dense_bytes or dense_features, not both")
    if degree > 4:
        return 0
    if dense_features is not None:
        if dense_features < 0:
            raise ConjunctError("dense_features must be >= 0")
        return int(min(dense_features, n_features))
    budget = DEFAULT_DENSE_BYTES if dense_bytes is None else int(dense_bytes)
    n = 0
    lo, hi = 0, n_features
    while lo < hi:  # largest n whose table fits the budget
        mid = (lo + hi + 1) // 2
        if dense_entries(mid, degree) * n_outputs * 8 <= budget:
            lo = mid
        else:
            hi = mid - 1
    n = lo
    return n


def _default_dense(store: dict, degree: int, K: int, n_dense: int, n_limit: int, dense_bytes: Optional[int],
                   dense_features: Optional[int]) -> Tuple[dict, int]:
    """With no dense size given, grow the dense table of a single-output store at
    d >= 3 while it stays within DENSE_GROWTH of its memory (see _dense_growth).

    Multi-output stores are left alone: each match adds a K-wide row either way,
    so finding it matters less, and a trial on the English parser's 4- and
    50-output classifiers at d = 3 parsed no faster for more memory."""
    if dense_bytes is not None or dense_features is not None or K != 1:
        return store, n_dense
    return grow_dense(store, degree, K, n_dense, n_limit)


def _store_arrays(store: dict) -> Arrays:
    return {f"store.{k}": np.asarray(v) for k, v in store.items() if k != "count_by_size"}


def _store_of(a: Arrays) -> dict:
    return {k[len("store."):]: v for k, v in a.items() if k.startswith("store.")}


def _kernel_meta(model) -> dict:
    return {"gamma": model.gamma, "coef0": model.coef0, "degree": model.degree}


def _alpha_arrays(alpha: np.ndarray) -> Arrays:
    """Alpha rows, stored sparse when at most half the coefficients are non-zero
    (one-vs-one models: a vector takes part in n-1 of n(n-1)/2 pairs)."""
    empty_i64, empty_i32, empty_f64 = np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float64)
    if alpha.shape[1] > 1 and np.count_nonzero(alpha) <= 0.5 * alpha.size:
        A = sp.csr_matrix(alpha)
        return {"alpha": np.zeros((0, alpha.shape[1])), "alpha_ptr": A.indptr.astype(np.int64),
                "alpha_out": A.indices.astype(np.int32), "alpha_val": A.data.astype(np.float64)}
    return {"alpha": np.ascontiguousarray(alpha, dtype=np.float64), "alpha_ptr": empty_i64, "alpha_out": empty_i32, "alpha_val": empty_f64}


def _alpha_args(a: Arrays):
    return a["alpha"], a["alpha_ptr"], a["alpha_out"], a["alpha_val"]


def _build_pkb(model) -> Tuple[dict, Arrays]:
    col_map, M = model.internal_space()
    arrays = {
        "col_map": col_map,
        "sv_indptr": M.indptr.astype(np.int64),
        "sv_indices": M.indices.astype(np.int32),
        **_alpha_arrays(model.dual_coef),
        "bias": model.intercept,
    }
    return _kernel_meta(model), arrays


def _core_pkb(meta: dict, a: Arrays):
    return _core.make_pkb(a["col_map"], meta["gamma"], meta["coef0"], meta["degree"], a["sv_indptr"], a["sv_indices"], *_alpha_args(a), a["bias"])


def _build_pki(model) -> Tuple[dict, Arrays]:
    col_map, M = model.internal_space()
    postings = M.T.tocsr()
    postings.sort_indices()
    lengths = np.diff(M.indptr)
    meta = dict(_kernel_meta(model), n_sv=int(M.shape[0]), max_sv_length=int(lengths.max()) if lengths.size else 0)
    arrays = {
        "col_map": col_map,
        "inv_indptr": postings.indptr.astype(np.int64),
        "inv_indices": postings.indices.astype(np.int32),
        **_alpha_arrays(model.dual_coef),
        "bias": model.intercept,
    }
    return meta, arrays


def _core_pki(meta: dict, a: Arrays):
    return _core.make_pki(
        a["col_map"], meta["gamma"], meta["coef0"], meta["degree"], a["inv_indptr"], a["inv_indices"],
        meta["n_sv"], meta["max_sv_length"], *_alpha_args(a), a["bias"],
    )


def _constant_bias(model) -> np.ndarray:
    """Margin of the empty vector: b + c_d(0) * sum_i alpha_i for kernel models."""
    if _is_kernel(model):
        c0 = model.kernel.subset_weights()[0]
        return (model.intercept + c0 * model.dual_coef.sum(axis=0)).astype(np.float64)
    return model.intercept.astype(np.float64)


def _build_pke(model, sigma: float = 0.0, min_support: int = 1, dense_bytes: Optional[int] = None,
               dense_features: Optional[int] = None, max_conjunctions: Optional[int] = None) -> Tuple[dict, Arrays]:
    if sigma < 0 or not np.isfinite(sigma):
        raise ConjunctError(f"sigma must be >= 0, got {sigma}")
    if int(min_support) < 1:
        raise ConjunctError(f"min_support must be >= 1, got {min_support}")
    K = model.n_outputs
    if _is_kernel(model):
        col_map, M = model.internal_space()
        F = M.shape[1]
        degree = model.degree
        n_dense = _n_dense(degree, K, F, dense_bytes, dense_features)
        alpha = _alpha_arrays(model.dual_coef)
        store = _expand(model, M, alpha, K, F, float(sigma), int(min_support), n_dense, F, max_conjunctions)
        store, n_dense = _default_dense(store, degree, K, n_dense, F, dense_bytes, dense_features)
    else:
        if sigma != 0.0 or min_support != 1:
            raise ConjunctError("sigma and min_support apply to kernel expansions; a conjunctive linear model is stored as is")
        col_map, M = rank_space(model.conjunctions, model.feature_counts(), model.n_columns)
        F = M.shape[1]
        degree = model.degree
        n_dense = _n_dense(degree, K, F, dense_bytes, dense_features)
        store = _core.build_conjunction_store(M.indptr.astype(np.int64), M.indices.astype(np.int32),
                                              np.ascontiguousarray(model.weights), K, F, n_dense)
        store, n_dense = _default_dense(store, degree, K, n_dense, F, dense_bytes, dense_features)
    counts = np.asarray(store["count_by_size"]).tolist()
    meta = {"degree": int(degree), "n_dense": int(n_dense), "sigma": float(sigma), "min_support": int(min_support),
            "n_features": int(F), "n_conjunctions": int(sum(counts)), "conjunctions_by_size": counts}
    arrays = {"col_map": col_map, "bias": _constant_bias(model), **_store_arrays(store)}
    return meta, arrays


def _core_pke(meta: dict, a: Arrays):
    return _core.make_pke(a["col_map"], _store_of(a), meta["degree"], meta["n_dense"], a["bias"])


def _expand(model, M, alpha, K, F, sigma, min_support, n_dense, max_feature, max_conjunctions):
    try:
        return _core.expand_kernel(model.gamma, model.coef0, model.degree, M.indptr.astype(np.int64),
                                   M.indices.astype(np.int32), *_alpha_args(alpha), K, F, sigma, min_support, n_dense,
                                   max_feature, -1 if max_conjunctions is None else int(max_conjunctions))
    except ValueError as e:
        raise ConjunctError(str(e)) from None


def _build_split(model, common_features: Optional[int] = None, min_support: Optional[float] = None,
                 dense_bytes: Optional[int] = None, dense_features: Optional[int] = None,
                 max_conjunctions: Optional[int] = None) -> Tuple[dict, Arrays]:
    _require_kernel(model, "split")
    if common_features is not None and min_support is not None:
        raise ConjunctError("give either common_features or min_support, not both")
    col_map, M = model.internal_space()
    F = M.shape[1]
    support = np.bincount(M.indices, minlength=F)
    if common_features is not None:
        if common_features < 0:
            raise ConjunctError("common_features must be >= 0")
        n_common = int(min(common_features, F))
    elif model.degree == 1 and min_support is None:
        # At d = 1 the expansion of every feature is the linear weight vector:
        # never larger than the support vectors, so nothing is left to the kernel.
        n_common = F
    else:
        # Goldberg & Elhadad: a feature is common when it occurs in at least
        # min_support support vectors (an int) or that share of them (a float < 1);
        # default 0.5%. The common set is then the top ranks of that size.
        threshold = 0.005 if min_support is None else min_support
        if threshold < 1:
            threshold = threshold * M.shape[0]
        n_common = int(np.count_nonzero(support >= max(threshold, 1)))
    K = model.n_outputs
    degree = model.degree
    n_dense = min(_n_dense(degree, K, F, dense_bytes, dense_features), n_common)
    alpha = _alpha_arrays(model.dual_coef)
    store = _expand(model, M, alpha, K, F, 0.0, 1, n_dense, n_common, max_conjunctions)
    store, n_dense = _default_dense(store, degree, K, n_dense, n_common, dense_bytes, dense_features)
    postings = M.T.tocsr()
    postings.sort_indices()
    rare = postings[n_common:]
    lengths = np.diff(M.indptr)
    counts = np.asarray(store["count_by_size"]).tolist()
    meta = {"degree": int(degree), "gamma": model.gamma, "coef0": model.coef0, "n_dense": int(n_dense),
            "n_common": n_common, "n_features": int(F), "max_sv_length": int(lengths.max()) if lengths.size else 0,
            "n_conjunctions": int(sum(counts)), "conjunctions_by_size": counts}
    arrays = {"col_map": col_map, "bias": _constant_bias(model), **_store_arrays(store),
              "sv_indptr": M.indptr.astype(np.int64), "sv_indices": M.indices.astype(np.int32),
              "rare_indptr": rare.indptr.astype(np.int64), "rare_indices": rare.indices.astype(np.int32), **alpha}
    return meta, arrays


def _core_split(meta: dict, a: Arrays):
    return _core.make_split(a["col_map"], _store_of(a), meta["n_dense"], meta["n_common"], meta["gamma"], meta["coef0"],
                            meta["degree"], a["sv_indptr"], a["sv_indices"], a["rare_indptr"], a["rare_indices"],
                            *_alpha_args(a), meta["max_sv_length"], a["bias"])


def _events_rows(model, col_map: np.ndarray, events) -> Tuple[np.ndarray, np.ndarray]:
    """Events as CSR rows of internal ids (-1 for features the model does not know)."""
    if events is None:
        if not _is_kernel(model):
            raise ConjunctError("an fstrie for a conjunctive linear model needs events (feature vectors from the task)")
        S = model.support_vectors
        indptr, indices = S.indptr.astype(np.int64), S.indices.astype(np.int32)
    elif isinstance(events, (str, os.PathLike)):
        X, _ = read_data(events, features=model.features)
        indptr, indices = X.indptr.astype(np.int64), X.indices.astype(np.int32)
    else:
        indptr, indices = as_rows(events, model.features)
    inside = indices < col_map.size
    internal = np.full(indices.size, -1, dtype=np.int32)
    internal[inside] = col_map[indices[inside]]
    return indptr, internal


def _build_fstrie(model, events=None, max_nodes: Optional[int] = None, max_bytes: Optional[int] = None,
                  base: str = "pke", **base_params) -> Tuple[dict, Arrays]:
    if base not in ("pke", "split"):
        raise ConjunctError(f"the fstrie's base must be 'pke' or 'split', got {base!r}")
    if max_nodes is not None and max_bytes is not None:
        raise ConjunctError("give either max_nodes or max_bytes, not both")
    base_meta, base_arrays = METHODS[base][0](model, **base_params)
    base_core = METHODS[base][1](base_meta, base_arrays)
    col_map = base_arrays["col_map"]
    indptr, internal = _events_rows(model, col_map, events)
    K = model.n_outputs
    if max_bytes is not None:
        max_nodes = max(int(max_bytes) // (8 + 8 * K), 0)
    limit = -1 if max_nodes is None else int(max_nodes)
    if max_nodes is not None and max_nodes < 0:
        raise ConjunctError("max_nodes must be >= 0")
    built = _core.build_fstrie(base_core, indptr, internal, int(base_meta["degree"]), int(base_meta["n_features"]), limit)
    stats = {k: int(built[k]) for k in ("events", "distinct_events", "nodes_before_pruning", "nodes")}
    trie = {f"trie.{k}": np.asarray(built[k]) for k in ("child_begin", "label", "root_map", "weight")}
    meta = {"degree": base_meta["degree"], "base": base, "base_params": base_meta, "max_nodes": max_nodes, **stats}
    arrays = {"col_map": col_map, **trie, **{f"base.{k}": v for k, v in base_arrays.items()}}
    return meta, arrays


def _core_fstrie(meta: dict, a: Arrays):
    base = meta["base"]
    base_arrays = {k[len("base."):]: v for k, v in a.items() if k.startswith("base.")}
    base_core = METHODS[base][1](meta["base_params"], base_arrays)
    trie = {k[len("trie."):]: v for k, v in a.items() if k.startswith("trie.")}
    return _core.make_fstrie(a["col_map"], trie, base_core)


# -- the self-adaptive classifier (caches the margins of prefixes met in the stream) ---------------------
ADAPTIVE_DEFAULTS = {"cache_rows": 1 << 16, "eviction": "lru", "doorkeeper": True, "sharing": "thread", "shards": 1}


def _build_adaptive(model, cache_rows: int = ADAPTIVE_DEFAULTS["cache_rows"], eviction: str = "lru", base: str = "pke",
                    warm_start=None, doorkeeper: bool = True, sharing: str = "thread", shards: int = 1,
                    max_nodes: Optional[int] = None, max_bytes: Optional[int] = None, **base_params) -> Tuple[dict, Arrays]:
    """The base classifier (and, with ``warm_start`` events, a static fstrie of
    at most ``max_nodes`` / ``max_bytes`` over it) plus the cache's parameters;
    the cache itself is runtime state and starts empty."""
    if isinstance(cache_rows, bool) or not isinstance(cache_rows, (int, np.integer)) or cache_rows < 0:
        raise ConjunctError(f"cache_rows must be an integer >= 0, got {cache_rows!r}")
    if eviction not in ("lru", "lfu"):
        raise ConjunctError(f"eviction must be 'lru' or 'lfu', got {eviction!r}")
    if sharing not in ("thread", "shared"):
        raise ConjunctError(f"sharing must be 'thread' (a cache per thread) or 'shared', got {sharing!r}")
    if isinstance(shards, bool) or not isinstance(shards, (int, np.integer)) or not 1 <= shards <= 4096:
        raise ConjunctError(f"shards must be an integer in 1..4096, got {shards!r}")
    if base not in ("pke", "split"):
        raise ConjunctError(f"the adaptive classifier's base must be 'pke' or 'split', got {base!r}")
    if warm_start is None:
        if max_nodes is not None or max_bytes is not None:
            raise ConjunctError("max_nodes / max_bytes size the warm-start trie: give warm_start events too")
        base_meta, base_arrays = METHODS[base][0](model, **base_params)
        meta = {"degree": base_meta["degree"], "base": base, "base_params": base_meta, "warm_start": False}
        arrays = {"col_map": base_arrays["col_map"], **{f"base.{k}": v for k, v in base_arrays.items()}}
    else:
        meta, arrays = _build_fstrie(model, events=warm_start, max_nodes=max_nodes, max_bytes=max_bytes, base=base,
                                     **base_params)
        meta = dict(meta, warm_start=True)
    meta.update(cache_rows=int(cache_rows), eviction=eviction, doorkeeper=bool(doorkeeper), sharing=sharing,
                shards=int(shards))
    return meta, arrays


def _core_adaptive(meta: dict, a: Arrays):
    base_arrays = {k[len("base."):]: v for k, v in a.items() if k.startswith("base.")}
    base_core = METHODS[meta["base"]][1](meta["base_params"], base_arrays)
    trie = {k[len("trie."):]: v for k, v in a.items() if k.startswith("trie.")} if meta["warm_start"] else None
    return _core.make_adaptive(col_map=a["col_map"], base=base_core, trie=trie, cache_rows=meta["cache_rows"],
                               eviction=meta["eviction"], doorkeeper=meta["doorkeeper"], sharing=meta["sharing"],
                               shards=meta["shards"])


# method -> (builder from a model, constructor of the core object from its arrays)
METHODS: Dict[str, Tuple[Callable, Callable]] = {
    "pkb": (_build_pkb, _core_pkb),
    "pki": (_build_pki, _core_pki),
    "pke": (_build_pke, _core_pke),
    "split": (_build_split, _core_split),
    "fstrie": (_build_fstrie, _core_fstrie),
    "adaptive": (_build_adaptive, _core_adaptive),
}


def compile_model(model, method: str, **params) -> "Classifier":
    """Compile ``model`` with ``method`` (see :data:`METHODS`)."""
    if method not in METHODS:
        raise ConjunctError(f"unknown classification method {method!r}; expected one of {', '.join(METHODS)}")
    if method in ("pkb", "pki"):
        _require_kernel(model, method)
    build, _ = METHODS[method]
    try:
        meta, arrays = build(model, **params)
    except TypeError as e:
        if "unexpected keyword" in str(e):
            raise ConjunctError(f"method {method!r}: {e}") from None
        raise
    return Classifier(method, meta, arrays, model.rule, model.features, model.n_columns)


def approximation_report(approximate: "Classifier", exact: "Classifier", X, *, n_jobs: int = 1) -> dict:
    """How an approximate classifier (PKE with sigma > 0 or min_support > 1)
    deviates from an exact one on X: decisions changed and the largest margin error."""
    a = approximate.decision_function(X, n_jobs=n_jobs)
    b = exact.decision_function(X, n_jobs=n_jobs)
    da, db = approximate.predict(X, n_jobs=n_jobs), exact.predict(X, n_jobs=n_jobs)
    n = int(np.shape(a)[0])
    err = np.abs(np.asarray(a) - np.asarray(b))
    return {
        "examples": n,
        "changed_decisions": int(np.sum(da != db)),
        "changed_share": float(np.mean(da != db)) if n else 0.0,
        "max_margin_error": float(err.max()) if err.size else 0.0,
        "mean_margin_error": float(err.mean()) if err.size else 0.0,
    }


def _describe(x) -> str:
    items = list(x[:3]) if hasattr(x, "__getitem__") else []
    return f"{type(x).__name__} starting {items!r}"


class Classifier(Saveable):
    """A compiled, immutable classifier.

    Obtain one with ``model.compile(method)`` or :func:`conjunct.load`. It is
    safe to share between threads; every call releases the GIL.

    Parameters
    ----------
    method : str
        The classification method.
    meta : dict
        The method's scalar parameters.
    arrays : dict of str to ndarray
        The method's arrays (the sections of its model file).
    rule : DecisionRule
        How margins become labels.
    features : FeatureIndex or None
        Feature strings, for string input.
    n_columns : int
        Number of input columns the classifier knows.
    """

    kind = "classifier"

    def __init__(self, method: str, meta: dict, arrays: Arrays, rule: DecisionRule,
                 features: Optional[FeatureIndex], n_columns: int):
        self.method = method
        self.meta = meta
        self.arrays = arrays
        self.rule = rule
        self.features = features
        self.n_columns = int(n_columns)
        try:
            self._core = METHODS[method][1](meta, arrays)
        except (KeyError, TypeError) as e:
            raise ModelFormatError(f"the {method} classifier's data are incomplete or malformed ({e})") from None

    # -- properties -------------------------------------------------------------
    @property
    def classes(self) -> np.ndarray:
        """Class labels, in the decision rule's order."""
        return self.rule.classes

    @property
    def n_outputs(self) -> int:
        """K, the number of margins per input."""
        return self._core.n_outputs

    @property
    def nbytes(self) -> int:
        """Bytes held by the classifier's arrays (the model's memory)."""
        return int(sum(a.nbytes for a in self.arrays.values()))

    # -- batch calls -----------------------------------------------------------------
    def decision_function(self, X, *, n_jobs: int = 1, binarize: bool = False) -> np.ndarray:
        """Margins of every row of X.

        Parameters
        ----------
        X : sparse matrix, 2-D array, or list of feature lists
            Binary features: column ids, or feature strings for models with a
            feature index. Features unseen in training carry no weight.
        n_jobs : int
            Threads to split the rows over.

        Returns
        -------
        numpy.ndarray
            Shape (n,) when the model has one output, else (n, K).
        """
        indptr, indices = as_rows(X, self.features, binarize=binarize, n_features=self.n_columns)
        out = self._core.margins_batch(indptr, indices, int(n_jobs))
        return out[:, 0] if out.shape[1] == 1 else out

    def predict(self, X, *, n_jobs: int = 1, binarize: bool = False, early_exit: bool = True) -> np.ndarray:
        """Predicted label of every row of X.

        With ``early_exit`` (the default), pke, split and fstrie classifiers stop
        adding conjunction weights as soon as bounds on what is left prove the
        decision (seed 001 §3.2.2); decisions are the same as without it.
        """
        indptr, indices = as_rows(X, self.features, binarize=binarize, n_features=self.n_columns)
        index = self._core.predict_batch(indptr, indices, self.rule.kind, len(self.rule.classes), int(n_jobs), bool(early_exit))
        return self.rule.classes[index]

    # -- single-vector calls (one decision of a parser) ---------------------------------
    def _columns(self, x) -> np.ndarray:
        """Column ids of one feature vector: feature strings, integer ids, or an
        int32 array (taken as is: the fast path of a parser's inner loop)."""
        if isinstance(x, np.ndarray) and x.dtype == np.int32 and x.ndim == 1:
            return x
        if isinstance(x, (str, bytes)):
            raise ConjunctError(f"one feature vector is a list of features, not a string ({x[:40]!r}); "
                                "pass [feature] for a single feature")
        if len(x) and isinstance(x[0], str):
            if self.features is None or self.features.is_numeric:
                raise ConjunctError("string features need a model with named features (a FeatureIndex)")
            get = self.features.get
            found = [get(f) for f in x]
            if -1 in found:  # cheaper than a numpy reduction on a short vector
                self._check_unknown(x, np.asarray(found))
            return np.array(found, dtype=np.int32)
        if not len(x):
            return np.zeros(0, dtype=np.int32)
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError, OverflowError):
            arr = np.asarray(x, dtype=object)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise ConjunctError(f"a feature vector must be feature strings or integer ids, got {_describe(x)}")
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high > np.iinfo(np.int32).max - 1:
            raise ConjunctError(f"feature id {low if low < 0 else high} is out of range (ids are 0 to 2**31 - 2)")
        if low >= self.n_columns:
            warnings.warn(f"none of the feature ids {arr[:5].tolist()} is known to the model "
                          f"({self.n_columns} columns): the vector is classified as empty", UnknownFeaturesWarning, stacklevel=3)
        return np.asarray(arr, dtype=np.int32)

    def _check_unknown(self, x, ids: np.ndarray) -> None:
        """Unknown string features carry no weight; anything but a string is an
        error (as in batch calls), and a vector with no known feature warns."""
        for k in np.flatnonzero(ids < 0):
            if not isinstance(x[k], str):
                raise ConjunctError(f"feature {x[k]!r} (position {int(k)}) is not a string: a feature vector is "
                                    "all feature strings or all integer ids")
        if ids.max() < 0:
            warnings.warn(f"none of the features {list(x[:3])}{'...' if len(x) > 3 else ''} is known to the model: "
                          "the vector is classified as empty (are they the features the model was trained on?)",
                          UnknownFeaturesWarning, stacklevel=3)

    def decision_function_one(self, x) -> np.ndarray:
        """Margins (shape (K,)) of one feature vector: strings, ids, or an int32 array.

        A string, floats, ``None`` or a number among feature strings raise
        ``ConjunctError``. Unknown features carry no weight; when *none* of a
        non-empty vector's features is known, an ``UnknownFeaturesWarning`` says
        so (the margins are the empty vector's: usually a sign of features named
        differently from training).
        """
        return self._core.margins_one(self._columns(x))

    def predict_one(self, x, *, early_exit: bool = True):
        """Predicted label of one feature vector (see ``predict`` for
        ``early_exit`` and :meth:`decision_function_one` for the input checks)."""
        return self.rule.classes[self._core.predict_one(self._columns(x), self.rule.kind, len(self.rule.classes), bool(early_exit))]

    # -- the adaptive classifier's cache ----------------------------------------------------
    def cache_stats(self) -> dict:
        """Counters of an ``adaptive`` classifier's caches (over every thread or shard):
        calls, positions (features classified) and how many the warm-start trie
        (``static_positions``) and the cache (``cached_positions``) covered,
        ``full_hits``, nodes inserted / evicted / held, and ``hit_rate``, the
        share of positions covered by either."""
        if self.method != "adaptive":
            raise ConjunctError(f"cache_stats needs an adaptive classifier, not {self.method!r}")
        st = _core.adaptive_stats(self._core)
        covered = st["static_positions"] + st["cached_positions"]
        st["hit_rate"] = covered / st["positions"] if st["positions"] else 0.0
        return st

    def clear_cache(self) -> None:
        """Empty an ``adaptive`` classifier's caches and counters (the state after loading)."""
        if self.method != "adaptive":
            raise ConjunctError(f"clear_cache needs an adaptive classifier, not {self.method!r}")
        _core.adaptive_clear(self._core)

    # -- persistence ---------------------------------------------------------------------
    def to_container(self):
        meta = {"method": self.method, "params": self.meta, "rule": self.rule.to_meta(), "n_columns": self.n_columns}
        arrays = {f"m.{k}": v for k, v in self.arrays.items()}
        store_features(self.features, meta, arrays)
        return self.kind, meta, arrays

    @classmethod
    def from_container(cls, meta: dict, arrays: Arrays, name: str = "<model>") -> "Classifier":
        try:
            method = meta["method"]
            if method not in METHODS:
                raise ModelFormatError(f"unknown classification method {method!r} (written by a newer conjunct?)", name)
            own = {k[2:]: v for k, v in arrays.items() if k.startswith("m.")}
            return cls(method, meta["params"], own, DecisionRule.from_meta(meta["rule"]), stored_features(meta, arrays), meta["n_columns"])
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, ModelFormatError):
                raise
            raise ModelFormatError(f"corrupt classifier ({e})", name) from None

    def info(self) -> dict:
        """A summary of the classifier (what ``conjunct info`` prints)."""
        return {
            "kind": f"compiled classifier ({self.method})",
            "outputs": self.n_outputs,
            "decision": self.rule.kind,
            "classes": self.classes.tolist(),
            "memory_bytes": self.nbytes,
            **{k: v for k, v in self.meta.items()},
        }

    def __repr__(self) -> str:
        return f"Classifier(method={self.method!r}, K={self.n_outputs}, {self.nbytes / 1e6:.2f} MB)"
