"""Compiled classifiers: immutable, thread-safe, batch and single-vector calls.

Compiling is one call into the C++ core, which turns the model (its arrays,
features renumbered by frequency rank) into the classifier's named arrays and
scalar meta; opening is another, which checks those arrays and builds the
classifier on views of them, without a copy. The arrays are the sections of
the model file, so a memory-mapped file is classified from the map itself.
"""

from __future__ import annotations

import os
import warnings
from math import comb
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np
from .._lazy import sparse as sp

from .. import _core
from .._errors import ConjunctError, ModelFormatError, UnknownFeaturesWarning
from .._jobs import resolve_n_jobs
from ..budget import MemoryBudgetError, check_memory, format_bytes, memory_budget
from ..features.index import FeatureIndex, store_features, stored_features
from ..features.matrices import as_rows
from ..io.data import read_data
from ..io.persistence import Saveable
from ..io.validation import Meta, Where
from ..progress import bar, bars_enabled
from ._derived import derivable, restore
from .classifier_checks import check_classifier
from .labels import DecisionRule

__all__ = ["Classifier", "compile_model", "approximation_report", "METHODS", "DEFAULT_DENSE_BYTES"]

# Budget of the dense table for conjunctions among the most frequent features.
DEFAULT_DENSE_BYTES = int(_core.DEFAULT_DENSE_BYTES)

# The classification methods (see docs/classification.md), as the core lists them.
METHODS: Tuple[str, ...] = tuple(_core.METHODS)

Arrays = Dict[str, np.ndarray]


def _is_kernel(model: Any) -> bool:
    return hasattr(model, "support_vectors")


def _model_arrays(model: Any) -> Tuple[Arrays, Dict[str, Any]]:
    """(arrays, kernel parameters) of ``model`` in internal feature ids."""
    col_map, M = model.internal_space()
    if _is_kernel(model):
        arrays = {"sv_indptr": M.indptr.astype(np.int64), "sv_indices": M.indices.astype(np.int32),
                  "dual_coef": np.ascontiguousarray(model.dual_coef, dtype=np.float64)}
        kernel: Dict[str, Any] = {"gamma": float(model.gamma), "coef0": float(model.coef0), "degree": int(model.degree)}
    else:
        arrays = {"conj_indptr": M.indptr.astype(np.int64), "conj_indices": M.indices.astype(np.int32),
                  "weights": np.ascontiguousarray(model.weights, dtype=np.float64)}
        kernel = {}
    arrays["col_map"] = col_map
    arrays["intercept"] = np.ascontiguousarray(model.intercept, dtype=np.float64)
    return arrays, kernel


def _events(model: Any, events: Any) -> Arrays:
    """Events as CSR rows of column ids (default: the support vectors)."""
    if events is None:
        if not _is_kernel(model):
            raise ConjunctError("an fstrie for a conjunctive linear model needs events (feature vectors from the task)")
        S = model.support_vectors
        indptr, indices = S.indptr, S.indices
    elif isinstance(events, (str, os.PathLike)):
        X, _ = read_data(events, features=model.features)
        indptr, indices = X.indptr, X.indices
    else:
        indptr, indices = as_rows(events, model.features)
    return {"events_indptr": np.asarray(indptr, dtype=np.int64), "events_indices": np.asarray(indices, dtype=np.int32)}


def compile_model(model: Any, method: str, **params: Any) -> "Classifier":
    """Compile ``model`` with ``method`` (one of :data:`METHODS`).

    For ``"fstrie"``, ``events`` are feature vectors (a matrix, lists of
    features or a data file; default: the support vectors), and ``base`` is
    ``"pke"``, ``"split"`` or an already compiled pke / split
    :class:`Classifier` of the same model, reused as the trie's base instead
    of being built again. ``"adaptive"`` takes the same ``base``, and
    ``warm_start`` events for a static fstrie under its cache.
    """
    if method not in METHODS:
        raise ConjunctError(f"unknown classification method {method!r}; expected one of {', '.join(METHODS)}")
    if method in ("pkb", "pki", "split") and not _is_kernel(model):
        raise ConjunctError(f"method {method!r} needs a kernel model (support vectors); this is a {type(model).__name__}")
    params = dict(params)
    inputs: Arrays = {}
    kernel: Dict[str, Any] = {}
    if method == "fstrie":
        inputs.update(_events(model, params.pop("events", None)))
    elif method == "adaptive" and params.get("warm_start") is not None:
        inputs.update(_events(model, params.pop("warm_start")))
    params.pop("warm_start", None)
    if method in ("fstrie", "adaptive") and isinstance(params.get("base"), Classifier):
        base = params["base"]
        if base.method not in ("pke", "split"):
            raise ConjunctError(f"the {method} classifier's base must be a pke or split classifier, got a {base.method} one")
        if base.n_outputs != model.n_outputs or base.n_columns != model.n_columns:
            raise ConjunctError(f"the {method} classifier's base was compiled from another model")
        params.update(base=base.method, base_params=base.meta)
        inputs.update({f"base.{k}": v for k, v in base.arrays.items()})
    if "base.col_map" not in inputs:
        model_arrays, kernel = _model_arrays(model)
        inputs.update(model_arrays)
    expands = _is_kernel(model) and (method in ("pke", "split") or
                                     (method in ("fstrie", "adaptive") and "base.col_map" not in inputs))
    by_budget = expands and params.get("max_conjunctions") is None
    if expands:
        _check_dense(model, params)
    if by_budget:
        params["max_conjunctions"] = memory_budget() // _bytes_per_conjunction(model.n_outputs)
    try:
        with bar(desc=f"compiling {method}", unit=" steps", delay=0.5) as shown:
            meta, arrays = _core.compile_classifier(method=method, arrays=inputs, model=kernel, options=params,
                                                    progress=_mover(shown))
    except _core.LimitExceededError as e:
        if by_budget:
            raise _expansion_over_budget(model, params["max_conjunctions"]) from None
        raise ConjunctError(str(e)) from None
    except ValueError as e:
        raise ConjunctError(str(e)) from None
    return Classifier(method, meta, arrays, model.rule, model.features, model.n_columns)


def _mover(shown: Any) -> Optional[Callable[[int], None]]:
    """The core's progress callback for a bar (None when no bar is drawn: the
    core still checks for Ctrl-C about every 0.1 s)."""
    if not bars_enabled():
        return None
    return lambda done: shown.update(done - shown.n)


# Peak bytes per mined conjunction: its row of K weights, parent, label and
# depth, times 3 for the builder's vector growth plus the finished copy.
def _bytes_per_conjunction(K: int) -> int:
    return 3 * (8 * int(K) + 9)


def _expansion_over_budget(model: Any, limit: int) -> MemoryBudgetError:
    """Without an explicit max_conjunctions the memory budget caps the
    expansion (a running count in the core): it grows like |s|^d per support
    vector and would otherwise run until the machine runs out of memory."""
    return MemoryBudgetError(
        f"the degree-{model.degree} kernel expansion of {model.support_vectors.shape[0]:,} support vectors passed {limit:,} conjunctions ({format_bytes(limit * _bytes_per_conjunction(model.n_outputs))}), "
        f"over the memory budget of {format_bytes(memory_budget())}; use pki, split (fewer common features), "
        f"sigma > 0, or a larger budget (CONJUNCT_MEMORY_BUDGET, conjunct.budget.set_memory_budget, "
        f"conjunct --memory-budget)")


def _check_dense(model: Any, params: Dict[str, Any]) -> None:
    """An explicit dense table (dense_features, dense_bytes) must fit the memory budget."""
    K = model.n_outputs
    if params.get("dense_bytes") is not None:
        check_memory(int(params["dense_bytes"]), "the dense table (dense_bytes)", "give a smaller dense_bytes (--dense-bytes)")
    n = params.get("dense_features")
    if n is not None and 1 <= model.degree <= 4 and n > 0:
        n = min(int(n), model.n_columns)
        entries = sum(comb(n, r) for r in range(1, model.degree + 1))
        check_memory(entries * K * 8, f"a dense table of {n:,} features at degree {model.degree}",
                     "give fewer dense_features (--dense-features) or a dense_bytes size (--dense-bytes)")


def approximation_report(approximate: "Classifier", exact: "Classifier", X: Any, *, n_jobs: int = 1) -> Dict[str, Any]:
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


def _describe(x: Any) -> str:
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

    def __init__(self, method: str, meta: Dict[str, Any], arrays: Arrays, rule: DecisionRule,
                 features: Optional[FeatureIndex], n_columns: int):
        self.method = method
        self.meta = meta
        self.arrays = arrays
        self.rule = rule
        self.features = features
        self.n_columns = int(n_columns)
        try:
            self._core = _core.open_classifier(method=method, meta=meta, arrays=arrays, rule=rule.kind,
                                               n_classes=len(rule.classes))
        except (ValueError, TypeError) as e:
            raise ModelFormatError(f"the {method} classifier's data are malformed: {e}") from None

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
    def compiled(self) -> _core.CompiledClassifier:
        """The classifier in the core (``conjunct._core.CompiledClassifier``),
        with its ``method``, decision ``rule``, ``n_classes`` and ``n_outputs``.
        The C++ task loops (parsers, chunker, segmenter, tokenizer) take it
        alone: its rule and classes come with it, checked once at opening."""
        return self._core

    @property
    def nbytes(self) -> int:
        """Bytes held by the classifier's arrays (the model's memory)."""
        return int(sum(a.nbytes for a in self.arrays.values()))

    # -- batch calls -----------------------------------------------------------------
    def decision_function(self, X: Any, *, n_jobs: int = 1, binarize: bool = False) -> np.ndarray:
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
        indptr, indices = self._rows(X, binarize)
        out = self._core.margins_batch(indptr=indptr, indices=indices, n_threads=resolve_n_jobs(n_jobs))
        return out[:, 0] if out.shape[1] == 1 else out

    def predict(self, X: Any, *, n_jobs: int = 1, binarize: bool = False, early_exit: bool = True) -> np.ndarray:
        """Predicted label of every row of X.

        With ``early_exit`` (the default), pke, split and fstrie classifiers stop
        adding conjunction weights as soon as bounds on what is left prove the
        decision (Yoshinaga & Kitsuregawa 2010 §3.2.2); decisions are the same as without it.
        """
        indptr, indices = self._rows(X, binarize)
        index = self._core.predict_batch(indptr=indptr, indices=indices, n_threads=resolve_n_jobs(n_jobs),
                                         early_exit=bool(early_exit))
        return self.rule.classes[index]

    def _rows(self, X: Any, binarize: bool) -> Tuple[np.ndarray, np.ndarray]:
        """(indptr int64, indices int32) of X. A CSR matrix whose values are all
        1 is passed on as it is: the core sorts each row, drops duplicates and
        columns the model does not know, so it needs no canonical copy."""
        if sp.issparse(X) and X.format == "csr" and X.indices.dtype == np.int32 and (X.data.size == 0 or (
                X.data.min() == 1 and X.data.max() == 1)):
            return X.indptr.astype(np.int64, copy=False), X.indices
        return as_rows(X, self.features, binarize=binarize, n_features=self.n_columns)

    # -- single-vector calls (one decision of a parser) ---------------------------------
    def _columns(self, x: Any) -> np.ndarray:
        """Column ids of one feature vector: feature strings, integer ids, or an
        int32 array (taken as is: the fast path of a parser's inner loop)."""
        if type(x) is np.ndarray and x.ndim == 1 and x.dtype.char == "i" and x.dtype.isnative:
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

    def _check_unknown(self, x: Any, ids: np.ndarray) -> None:
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

    def decision_function_one(self, x: Any) -> np.ndarray:
        """Margins (shape (K,)) of one feature vector: strings, ids, or an int32 array.

        A string, floats, ``None`` or a number among feature strings raise
        ``ConjunctError``. Unknown features carry no weight; when *none* of a
        non-empty vector's features is known, an ``UnknownFeaturesWarning`` says
        so (the margins are the empty vector's: usually a sign of features named
        differently from training).
        """
        return self._core.margins_one(self._columns(x))

    def predict_one(self, x: Any, *, early_exit: bool = True) -> Any:
        """Predicted label of one feature vector (see ``predict`` for
        ``early_exit`` and :meth:`decision_function_one` for the input checks)."""
        return self.rule.classes[self._core.predict_one(self._columns(x), bool(early_exit))]

    # -- the adaptive classifier's cache ----------------------------------------------------
    def cache_stats(self) -> Dict[str, Any]:
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

    def without_unused_features(self) -> "Classifier":
        """This classifier over only the named features that carry weight
        (``col_map`` >= 0), in their order: a feature string left out is unknown
        and weighs nothing, as it did, so every input of feature strings gets the
        same margins, while the file and its load skip the names. Column ids
        change meaning, so the task pipelines (which read strings) use it."""
        if self.features is None or self.features.is_numeric:
            return self
        used = np.flatnonzero(np.asarray(self.arrays["col_map"]) >= 0)
        if len(used) == self.n_columns:
            return self
        arrays = {k: np.ascontiguousarray(v[used]) if k == "col_map" or k.endswith(".col_map") else v
                  for k, v in self.arrays.items()}
        return Classifier(self.method, self.meta, arrays, self.rule, self.features.subset(used), len(used))

    # -- persistence ---------------------------------------------------------------------
    def to_container(self) -> Tuple[str, Dict[str, Any], Arrays]:
        meta = {"method": self.method, "params": self.meta, "rule": self.rule.to_meta(), "n_columns": self.n_columns}
        derived = getattr(self, "_derived", None)
        if derived is None:  # checked once: the arrays never change
            derived = self._derived = derivable(self.method, self.meta, self.arrays)
        if derived:
            meta["derived"] = list(derived)
        arrays = {f"m.{k}": v for k, v in self.arrays.items() if k not in derived}
        store_features(self.features, meta, arrays)
        return self.kind, meta, arrays

    @classmethod
    def restore_sections(cls, meta: Dict[str, Any], arrays: Arrays, name: str = "<model>") -> Arrays:
        """The sections the file left out (header field ``derived``), recomputed exactly (:mod:`._derived`)."""
        return restore(meta, arrays, name)

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Arrays, where: Where) -> None:
        check_classifier(meta, arrays, where)

    @classmethod
    def from_container(cls, meta: Dict[str, Any], arrays: Arrays, name: str = "<model>") -> "Classifier":
        try:
            method = meta["method"]
            if method not in METHODS:
                raise ModelFormatError(f"unknown classification method {method!r} (written by a newer conjunct?)", name)
            arrays = restore(meta, arrays, name)
            own = {k[2:]: v for k, v in arrays.items() if k.startswith("m.")}
            clf = cls(method, meta["params"], own, DecisionRule.from_meta(meta["rule"]), stored_features(meta, arrays), meta["n_columns"])
            if meta.get("derived") is not None:  # recomputed exactly at load (restore_sections): left out again
                clf._derived = list(meta["derived"])
            return clf
        except ModelFormatError as e:
            raise ModelFormatError(e.problem, name) from None
        except (KeyError, TypeError, ValueError) as e:
            raise ModelFormatError(f"corrupt classifier ({e})", name) from None

    def info(self) -> Dict[str, Any]:
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
