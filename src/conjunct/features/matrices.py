"""Binary feature matrices from what users pass: a scipy.sparse matrix, a
dense 0/1 array, rows of feature ids or rows of feature strings
(:func:`as_binary_csr`, :func:`as_rows`)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
from .._lazy import sparse as sp

from .._errors import DataFormatError
from .index import FeatureIndex, rows_to_csr

__all__ = ["as_binary_csr", "as_rows"]


def as_binary_csr(X: Any, *, binarize: bool = False) -> sp.csr_matrix:
    """A canonical binary CSR matrix (int32 indices, sorted, no duplicates or zeros).

    Accepts any scipy sparse matrix or array (any index dtype) and dense 2-D
    arrays. Values other than 0 and 1 raise unless ``binarize``.

    Parameters
    ----------
    X : sparse matrix or array-like
        The examples.
    binarize : bool
        Treat any non-zero value as 1 instead of raising.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise DataFormatError(f"expected a 2-D matrix, got an array of shape {arr.shape}")
        X = sp.csr_matrix(arr)
    if X.shape[1] > np.iinfo(np.int32).max:
        raise DataFormatError(f"{X.shape[1]} columns do not fit 32-bit feature ids")
    X.sum_duplicates()
    X.eliminate_zeros()
    if X.data.size:
        if not np.all(np.isfinite(X.data)):
            raise DataFormatError("the matrix has non-finite values")
        if not binarize:
            bad = np.flatnonzero(X.data != 1)
            if bad.size:
                row = int(np.searchsorted(X.indptr, bad[0], side="right") - 1)
                raise DataFormatError(
                    f"row {row}, column {int(X.indices[bad[0]])} has value {X.data[bad[0]]!r}, but features must be "
                    "binary (0 or 1); pass binarize=True to treat non-zero values as 1"
                )
    X.data = np.ones(X.indices.size, dtype=np.float64)
    X.indices = X.indices.astype(np.int32, copy=False)
    X.indptr = X.indptr.astype(np.int64, copy=False)
    return X


def as_rows(X: Any, features: Optional[FeatureIndex] = None, *, binarize: bool = False,
            n_features: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(indptr int64, indices int32) of any supported input.

    Accepts a scipy sparse matrix, a dense 2-D array (its width must be
    ``n_features``), or a list of feature lists: strings go through
    ``features``; integers are column ids.
    """
    if sp.issparse(X):
        X = as_binary_csr(X, binarize=binarize)
        return X.indptr, X.indices
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise DataFormatError(f"expected a 2-D matrix or a list of feature lists, got an array of shape {X.shape}")
        if n_features is not None and X.shape[1] != n_features:
            raise DataFormatError(f"X has {X.shape[1]} columns, but the model expects {n_features}")
        X = as_binary_csr(X, binarize=binarize)
        return X.indptr, X.indices
    if isinstance(X, (str, bytes)):
        raise DataFormatError("expected a matrix or a list of feature lists, got a string")
    rows = X if isinstance(X, list) else list(X)
    if _row_kind(rows) == "str":
        if features is None or features.is_numeric:
            raise DataFormatError("string features need a model with named features (a FeatureIndex)")
        M = features.transform(rows)
    else:
        M = rows_to_csr(rows)
    return M.indptr.astype(np.int64, copy=False), M.indices.astype(np.int32, copy=False)


def _row_kind(rows: List[Any]) -> str:
    for r in rows:
        if isinstance(r, (str, bytes)):
            raise DataFormatError("each example must be a list of features, not a single string")
        for f in r:
            if isinstance(f, str):
                return "str"
            return "int"
    return "int"
