"""Training input -> the trainers' internal ids: feature columns ranked by
training frequency, labels as +1/-1 or class indices."""

from __future__ import annotations

from typing import Optional

import numpy as np
import scipy.sparse as sp

from .._errors import DataFormatError
from ..features.index import FeatureIndex, rows_to_csr
from ..features.matrices import _row_kind, as_binary_csr
from ..models.labels import labels_array
from .inputs import IndexedRows

__all__ = ["FeatureEncoder", "encode_labels"]


class FeatureEncoder:
    """Columns of the training data -> internal ids (frequency ranks, 0 = most frequent).

    Ranks come from the training counts (string features: the FeatureIndex's
    counts; integer / matrix input: column counts), ties broken by column id.
    Features first seen by a later ``partial_fit`` get the next ids: ranks of
    known features never change, because the tries are keyed by them.
    """

    def __init__(self):
        self.index: Optional[FeatureIndex] = None
        self.col_map = np.zeros(0, dtype=np.int32)    # column -> internal id, -1 if never seen
        self.columns = np.zeros(0, dtype=np.int64)    # internal id -> column

    @property
    def n_internal(self) -> int:
        return int(self.columns.size)

    @property
    def named(self) -> bool:
        return self.index is not None and not self.index.is_numeric

    def columns_of(self, X, *, learn: bool) -> sp.csr_matrix:
        """Binary CSR (column ids) of X; with ``learn``, new features are added and counted."""
        if isinstance(X, IndexedRows):
            if not learn or self.index is not None:
                raise DataFormatError("rows indexed by a task's feature engine can only start a training (fit)")
            self.index = X.index
            return X.matrix
        if sp.issparse(X) or isinstance(X, np.ndarray):
            # Columns are column ids (the feature index's ids for string features).
            # A matrix already canonical (matrix_or_rows' output) is not copied again.
            M = X if _is_canonical_binary(X) else as_binary_csr(X)
            if learn:
                if self.index is None:
                    self.index = FeatureIndex.numeric(M.shape[1])
                self.index.count(M)
            return M
        if isinstance(X, (str, bytes)):
            raise DataFormatError("expected a matrix or a list of feature lists, got a string")
        rows = X if isinstance(X, list) else list(X)
        if _row_kind(rows) == "str":
            if self.index is not None and not self.named:
                raise DataFormatError("this estimator was trained on integer features; string features cannot be mapped")
            if learn:
                if self.index is None:
                    self.index = FeatureIndex(names=[])
                return self.index.transform(rows, add=True, count=True)
            if self.index is None:
                raise DataFormatError("string features need a fitted feature index")
            return self.index.transform(rows)
        # Integer ids are column ids (the feature index's ids for string features).
        M = rows_to_csr(rows, n_features=len(self.index) if self.named else None)
        if learn:
            if self.index is None:
                self.index = FeatureIndex.numeric(M.shape[1])
            self.index.count(M)
        return M

    def learn(self, M: sp.csr_matrix) -> None:
        """Assign internal ids to the columns of M that have none yet (most frequent first)."""
        counts = self.index.counts
        width = max(len(counts), M.shape[1])
        if self.col_map.size < width:
            self.col_map = np.concatenate([self.col_map, np.full(width - self.col_map.size, -1, dtype=np.int32)])
        used = np.unique(M.indices)
        new = used[self.col_map[used] < 0]
        if new.size:
            c = np.zeros(new.size, dtype=np.int64)
            inside = new < len(counts)
            c[inside] = counts[new[inside]]
            new = new[np.lexsort((new, -c))]
            self.col_map[new] = np.arange(self.n_internal, self.n_internal + new.size, dtype=np.int32)
            self.columns = np.concatenate([self.columns, new.astype(np.int64)])

    def internal(self, M: sp.csr_matrix):
        """(indptr int64, indices int32) of M in internal ids, rows ascending; unknown columns dropped."""
        idx = np.full(M.indices.size, -1, dtype=np.int32)
        inside = M.indices < self.col_map.size
        idx[inside] = self.col_map[M.indices[inside]]
        keep = idx >= 0
        if not keep.all():
            row = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
            counts = np.bincount(row[keep], minlength=M.shape[0])
            indptr = np.zeros(M.shape[0] + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            idx = idx[keep]
        else:
            indptr = M.indptr.astype(np.int64)
        I = sp.csr_matrix((np.ones(idx.size), idx, indptr), shape=(M.shape[0], max(self.n_internal, 1)))
        I.sort_indices()
        return I.indptr.astype(np.int64, copy=False), I.indices.astype(np.int32, copy=False)

    def n_columns(self) -> int:
        return max(len(self.index) if self.index is not None else 0, int(self.col_map.size))


def _is_canonical_binary(X) -> bool:
    """X is what ``as_binary_csr`` returns: CSR, int32 indices, int64 pointers, sorted without
    duplicates, every value 1."""
    return (isinstance(X, sp.csr_matrix) and X.indices.dtype == np.int32 and X.indptr.dtype == np.int64
            and X.data.dtype == np.float64 and bool(X.has_canonical_format) and bool(np.all(X.data == 1.0)))


def encode_labels(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """+1/-1 for two classes (classes[1] is +1), else class indices, as int32."""
    pos = np.searchsorted(classes, y)
    pos_c = np.clip(pos, 0, len(classes) - 1)
    bad = classes[pos_c] != y
    if np.any(bad):
        raise DataFormatError(f"label {y[np.flatnonzero(bad)[0]]!r} is not one of the classes {classes.tolist()}")
    if len(classes) == 2:
        return np.where(pos_c == 1, 1, -1).astype(np.int32)
    return pos_c.astype(np.int32)
