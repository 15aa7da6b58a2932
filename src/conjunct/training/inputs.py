"""The estimators' inputs checked as scikit-learn checks them (without requiring
it): X as a binary matrix or as feature lists, its width and column names,
the label type of y, and sample weights. Messages use scikit-learn's wording
where its conformance checks look for it."""

from __future__ import annotations

import warnings
from typing import Optional, Tuple, Union

import numpy as np
import scipy.sparse as sp

from .._errors import DataFormatError
from ..features.matrices import as_binary_csr
from ..models.labels import labels_array

__all__ = ["matrix_or_rows", "check_labels", "check_sample_weight", "DataConversionWarning", "IndexedRows"]


class _DataConversionWarning(UserWarning):
    """A column-vector y was raveled."""


def _conversion_warning() -> type:
    # scikit-learn's class when it is installed (its conformance checks look
    # for it), imported only here: importing scikit-learn with every training
    # costs about 100 MB of memory and a second.
    try:
        from sklearn.exceptions import DataConversionWarning
    except ImportError:  # pragma: no cover - scikit-learn is optional
        return _DataConversionWarning
    return DataConversionWarning


def __getattr__(name: str):
    if name == "DataConversionWarning":
        return _conversion_warning()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class IndexedRows:
    """Training rows a task's feature engine has already turned into ids: a
    binary CSR matrix whose column k is feature k of ``index``, a named
    :class:`~conjunct.features.index.FeatureIndex` holding the rows' counts. Given
    to an estimator's ``fit``, it trains the model the same rows as feature
    strings would, without a string per feature."""

    def __init__(self, matrix: sp.csr_matrix, index):
        if index.is_numeric or matrix.shape[1] != len(index):
            raise DataFormatError("indexed rows need a named feature index with one entry per column")
        self.matrix = matrix
        self.index = index

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __eq__(self, other: object) -> bool:
        """The same rows over the same named features (counts and keys included)."""
        if not isinstance(other, IndexedRows):
            return NotImplemented
        a, b = self.matrix, other.matrix
        return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
                and np.array_equal(a.data, b.data) and self.index == other.index)

    __hash__ = None  # type: ignore[assignment]  # mutable arrays: equal by value, not hashable


Input = Union[sp.csr_matrix, list, IndexedRows]


def _is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "to_numpy")


def _dense_rows(rows) -> bool:
    """Whether a list of rows holds dense values (floats or array rows) rather
    than feature lists (strings or integer ids, the documented list input)."""
    for r in rows:
        if isinstance(r, np.ndarray):
            return r.dtype.kind == "f"  # an int array lists feature ids
        if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
            return False
        for v in r:
            return isinstance(v, (float, np.floating)) and not isinstance(v, bool)
    return False


def matrix_or_rows(X, *, binarize: bool, fitting: bool) -> Tuple[Input, Optional[np.ndarray], bool]:
    """(X as a canonical binary CSR matrix or as a list of feature lists,
    the column names of a DataFrame or None, whether X was dense).

    Matrix input: scipy sparse, numpy arrays, DataFrames and other array-likes
    (``__array__``), and lists of float rows. Lists of strings or of integer
    ids are feature lists. ``fitting``: at least one example and one column.
    """
    names = None
    if isinstance(X, IndexedRows):
        if fitting and X.matrix.shape[0] < 1:
            raise DataFormatError("Found 0 sample(s) (an empty list of examples) while a minimum of 1 is required.")
        return X, None, False
    if _is_dataframe(X):
        columns = list(X.columns)
        if columns and all(isinstance(c, str) for c in columns):
            names = np.asarray(columns, dtype=object)
        X = X.to_numpy()
    if X is None:
        raise DataFormatError("expected X as a matrix or a list of feature lists, got None")
    if isinstance(X, (str, bytes)):
        raise DataFormatError("expected a matrix or a list of feature lists, got a string")
    if not sp.issparse(X) and not isinstance(X, np.ndarray):
        if isinstance(X, (list, tuple)):
            if not _dense_rows(X):
                return list(X), names, False
        elif not hasattr(X, "__array__"):
            return list(X), names, False
        X = _as_numeric_array(X)
    shape, dense = X.shape, not sp.issparse(X)
    if sp.issparse(X):
        X = sp.csr_matrix(X)  # any format (dok, lil, coo, 64-bit indices)
        if np.iscomplexobj(X.data):
            raise DataFormatError("Complex data not supported")
        data = X.data
    else:
        X = _as_numeric_array(X)
        if X.ndim != 2:
            raise DataFormatError(
                f"Expected a 2-D array, got an array of shape {X.shape}. Reshape your data: X.reshape(1, -1) "
                "for one example or X.reshape(-1, 1) for one feature")
        shape, data = X.shape, X
    if fitting and shape[0] < 1:
        raise DataFormatError(f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required.")
    if fitting and shape[1] < 1:
        raise DataFormatError(f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is required.")
    if not np.all(np.isfinite(data)):
        raise DataFormatError("Input X contains NaN or infinity")
    return as_binary_csr(X, binarize=binarize), names, dense


def _as_numeric_array(X) -> np.ndarray:
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise DataFormatError("Complex data not supported")
    if arr.dtype == object:
        arr = arr.astype(np.float64)  # a TypeError names what is not a number
    elif arr.dtype.kind not in "biuf":
        raise DataFormatError(f"expected numeric values in a matrix, got dtype {arr.dtype}; "
                              "feature strings go in lists of feature lists")
    return arr


def check_labels(y, n_rows: Optional[int], estimator: str) -> np.ndarray:
    """y as a 1-D label array: a column vector is raveled with a warning;
    continuous targets, complex values, NaN and a length other than X's
    (``n_rows``; None: not checked yet) raise."""
    if y is None:
        raise DataFormatError(f"{estimator} requires y to be passed, but the target y is None")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it was raveled",
                      _conversion_warning(), stacklevel=4)
        y = y.ravel()
    if y.ndim != 1:
        raise DataFormatError(f"y should be a 1d array, got an array of shape {y.shape} instead")
    if np.iscomplexobj(y):
        raise DataFormatError("Complex data not supported")
    if y.dtype == object:
        y = labels_array(y.tolist())
    if n_rows is not None and y.shape[0] != n_rows:
        raise DataFormatError(f"X has {n_rows} examples but y has {y.shape[0]} labels")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise DataFormatError("Input y contains NaN or infinity")
        if np.any(y != np.round(y)):
            raise DataFormatError("Unknown label type: continuous. A classifier needs class labels "
                                  "(integers or strings), not continuous values")
    return y


def check_sample_weight(sample_weight, n_rows: int) -> Optional[np.ndarray]:
    """Per-example weights as a float64 array (None stays None; a number applies to every example)."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_rows, float(w))
    if w.ndim != 1 or w.shape[0] != n_rows:
        raise DataFormatError(f"sample_weight.shape == {w.shape}, expected ({n_rows},): one weight per example")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise DataFormatError("sample_weight must be finite and non-negative")
    if n_rows and not np.any(w > 0):
        raise DataFormatError("sample_weight is zero for every example: nothing to learn from")
    return np.ascontiguousarray(w)
