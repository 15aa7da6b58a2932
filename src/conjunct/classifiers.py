"""Compiled classifiers: immutable, thread-safe, batch and single-vector calls.

Every method compiles a model into a set of flat arrays (saved as sections of
the model file, and memory-mappable) plus scalar parameters; the C++ core views
those arrays without copying them.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import numpy as np
import scipy.sparse as sp

from . import _core, model_io
from ._errors import ConjunctError, ModelFormatError
from .data import as_rows
from .features import FeatureIndex
from .labels import DecisionRule

__all__ = ["Classifier", "compile_model", "METHODS"]

Arrays = Dict[str, np.ndarray]


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


# method -> (builder from a model, constructor of the core object from its arrays)
METHODS: Dict[str, Tuple[Callable, Callable]] = {
    "pkb": (_build_pkb, _core_pkb),
    "pki": (_build_pki, _core_pki),
}


def compile_model(model, method: str, **params) -> "Classifier":
    """Compile ``model`` with ``method`` (see :data:`METHODS`)."""
    if method not in METHODS:
        raise ConjunctError(f"unknown classification method {method!r}; expected one of {', '.join(METHODS)}")
    if params:
        raise ConjunctError(f"method {method!r} takes no parameters, got {', '.join(params)}")
    build, _ = METHODS[method]
    meta, arrays = build(model)
    return Classifier(method, meta, arrays, model.rule, model.features, model.n_columns)


class Classifier:
    """A compiled, immutable classifier.

    Obtain one with ``model.compile(method)`` or :func:`conjunct.load`. It is
    safe to share between threads; every call releases the GIL.

    Attributes
    ----------
    method : str
        The classification method.
    rule : DecisionRule
        How margins become labels.
    features : FeatureIndex or None
        Feature strings, for string input.
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
        return self.rule.classes

    @property
    def n_outputs(self) -> int:
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

    def predict(self, X, *, n_jobs: int = 1, binarize: bool = False) -> np.ndarray:
        """Predicted label of every row of X."""
        indptr, indices = as_rows(X, self.features, binarize=binarize, n_features=self.n_columns)
        index = self._core.predict_batch(indptr, indices, self.rule.kind, len(self.rule.classes), int(n_jobs))
        return self.rule.classes[index]

    # -- single-vector calls (one decision of a parser) ---------------------------------
    def _columns(self, x) -> np.ndarray:
        if isinstance(x, np.ndarray) and x.dtype == np.int32 and x.ndim == 1:
            return x
        if len(x) and isinstance(x[0], str):
            if self.features is None or self.features.is_numeric:
                raise ConjunctError("string features need a model with named features (a FeatureIndex)")
            get = self.features.get
            return np.fromiter((get(f) for f in x), dtype=np.int32, count=len(x))
        try:
            return np.asarray(x, dtype=np.int32).reshape(-1)
        except (TypeError, ValueError, OverflowError) as e:
            raise ConjunctError(f"a feature vector must be feature strings or integer ids ({e})") from None

    def decision_function_one(self, x) -> np.ndarray:
        """Margins (shape (K,)) of one feature vector: strings, ids, or an int32 array."""
        return self._core.margins_one(self._columns(x))

    def predict_one(self, x):
        """Predicted label of one feature vector."""
        return self.rule.classes[self._core.predict_one(self._columns(x), self.rule.kind, len(self.rule.classes))]

    # -- persistence ---------------------------------------------------------------------
    def to_container(self):
        meta = {"method": self.method, "params": self.meta, "rule": self.rule.to_meta(), "n_columns": self.n_columns}
        arrays = {f"m.{k}": v for k, v in self.arrays.items()}
        if self.features is not None:
            fmeta, farrays = self.features.to_arrays()
            meta["features"] = fmeta
            arrays.update({f"features.{k}": v for k, v in farrays.items()})
        return self.kind, meta, arrays

    @classmethod
    def from_container(cls, meta: dict, arrays: Arrays, name: str = "<model>") -> "Classifier":
        from .models import _features_from

        try:
            method = meta["method"]
            if method not in METHODS:
                raise ModelFormatError(f"unknown classification method {method!r} (written by a newer conjunct?)", name)
            own = {k[2:]: v for k, v in arrays.items() if k.startswith("m.")}
            return cls(method, meta["params"], own, DecisionRule.from_meta(meta["rule"]), _features_from(meta, arrays), meta["n_columns"])
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, ModelFormatError):
                raise
            raise ModelFormatError(f"corrupt classifier ({e})", name) from None

    def save(self, path) -> None:
        """Write the compiled classifier to ``path`` (atomically)."""
        model_io.write_container(path, *self.to_container())

    def __reduce__(self):
        from . import persistence

        return (persistence.from_bytes, (model_io.dumps(*self.to_container()),))

    def info(self) -> dict:
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
