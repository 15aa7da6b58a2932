"""Feature indices: string features <-> integer ids, counts and frequency ranks."""

from __future__ import annotations

import itertools
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import scipy.sparse as sp

from ._errors import DataFormatError

__all__ = ["FeatureIndex", "rows_to_csr"]


def rows_to_csr(rows: Sequence[Sequence[int]], n_features: Optional[int] = None) -> sp.csr_matrix:
    """Binary CSR matrix from rows of integer feature ids.

    Duplicate ids in a row are removed and each row is sorted.

    Parameters
    ----------
    rows : sequence of sequences of int
        Active feature ids of each row (non-negative).
    n_features : int, optional
        Number of columns; by default one more than the largest id.
    """
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    flat = np.asarray(list(itertools.chain.from_iterable(rows)))
    if flat.size == 0:
        flat = flat.astype(np.int64)
    elif flat.dtype.kind not in "iu":
        bad = next(c for c in itertools.chain.from_iterable(rows) if not isinstance(c, (int, np.integer)) or isinstance(c, bool))
        raise DataFormatError(f"feature {bad!r} is neither a string nor an integer id")
    return _csr_from_flat(flat, lengths, n_features)


def _csr_from_flat(flat: np.ndarray, lengths: np.ndarray, n_features: Optional[int]) -> sp.csr_matrix:
    n_rows = len(lengths)
    if flat.size and flat.min() < 0:
        raise DataFormatError(f"negative feature id {int(flat.min())}")
    width = int(flat.max()) + 1 if flat.size else 0
    if n_features is None:
        n_features = width
    elif width > n_features:
        raise DataFormatError(f"feature id {width - 1} is out of range for {n_features} features")
    if n_features > np.iinfo(np.int32).max:
        raise DataFormatError(f"{n_features} features do not fit 32-bit feature ids")
    row_of = np.repeat(np.arange(n_rows, dtype=np.int64), lengths)
    order = np.lexsort((flat, row_of))
    flat, row_of = flat[order], row_of[order]
    keep = np.ones(flat.size, dtype=bool)
    keep[1:] = (flat[1:] != flat[:-1]) | (row_of[1:] != row_of[:-1])
    flat, row_of = flat[keep], row_of[keep]
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=n_rows), out=indptr[1:])
    data = np.ones(flat.size, dtype=np.float64)
    return sp.csr_matrix((data, flat.astype(np.int32), indptr), shape=(n_rows, n_features))


class FeatureIndex:
    """A bidirectional map between string features and integer ids.

    It also holds per-feature counts (the number of training examples in which a
    feature is active) and derives frequency ranks from them: rank 1 is the most
    frequent feature; ties are broken by id (first seen first), so ranks are
    deterministic.

    A *numeric* index (``names=None``) has no strings: feature ``i`` is column ``i``
    of the input. Imported LIBSVM-style models use it.

    Parameters
    ----------
    names : iterable of str, optional
        Feature strings in id order. ``None`` makes a numeric index.
    counts : array-like of int, optional
        Per-feature counts (zeros by default).
    n_features : int, optional
        Size of a numeric index when ``counts`` is not given.
    """

    def __init__(self, names: Optional[Iterable[str]] = None, counts=None, n_features: Optional[int] = None):
        if names is None:
            self._names: Optional[List[str]] = None
            self._ids: Optional[Dict[str, int]] = None
            n = len(counts) if counts is not None else int(n_features or 0)
        else:
            self._names = [str(n) for n in names]
            self._ids = {}
            for i, name in enumerate(self._names):
                if self._ids.setdefault(name, i) != i:
                    raise DataFormatError(f"feature {name!r} appears twice in the feature index")
            n = len(self._names)
        self.counts = np.zeros(n, dtype=np.int64) if counts is None else np.array(counts, dtype=np.int64)
        if self.counts.shape != (n,):
            raise DataFormatError(f"counts has shape {self.counts.shape}, expected ({n},)")
        if self.counts.size and self.counts.min() < 0:
            raise DataFormatError("feature counts must be non-negative")

    # -- construction -------------------------------------------------------
    @classmethod
    def from_data(cls, feature_lists: Iterable[Iterable[str]]) -> "FeatureIndex":
        """Index every feature of ``feature_lists`` (in first-seen order) and count them."""
        index = cls(names=[])
        index.transform(feature_lists, add=True, count=True)
        return index

    @classmethod
    def numeric(cls, n_features: int, counts=None) -> "FeatureIndex":
        """A numeric index of ``n_features`` columns."""
        return cls(names=None, counts=counts, n_features=n_features)

    # -- basic queries --------------------------------------------------------
    @property
    def is_numeric(self) -> bool:
        """Whether features are column numbers rather than strings."""
        return self._names is None

    @property
    def names(self) -> Optional[List[str]]:
        """Feature strings in id order (``None`` for a numeric index)."""
        return self._names

    def __len__(self) -> int:
        return int(self.counts.size)

    def __contains__(self, name: str) -> bool:
        return self._ids is not None and name in self._ids

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, FeatureIndex)
            and self._names == other._names
            and np.array_equal(self.counts, other.counts)
        )

    def __repr__(self) -> str:
        kind = "numeric" if self.is_numeric else "named"
        return f"FeatureIndex({kind}, n_features={len(self)})"

    def id(self, name: str) -> int:
        """The id of ``name``; ``KeyError`` if it is unknown."""
        if self._ids is None:
            raise TypeError("a numeric feature index has no feature strings")
        return self._ids[name]

    def get(self, name: str, default: int = -1) -> int:
        """The id of ``name``, or ``default`` if it is unknown."""
        if self._ids is None:
            raise TypeError("a numeric feature index has no feature strings")
        return self._ids.get(name, default)

    def name(self, feature_id: int) -> str:
        """The string of feature ``feature_id`` (its number for a numeric index)."""
        if self._names is None:
            if not 0 <= feature_id < len(self):
                raise IndexError(feature_id)
            return str(feature_id)
        return self._names[feature_id]

    def add(self, name: str) -> int:
        """The id of ``name``, adding it (with count 0) if it is new."""
        if self._ids is None:
            raise TypeError("cannot add strings to a numeric feature index")
        fid = self._ids.get(name)
        if fid is None:
            fid = len(self._names)
            self._ids[name] = fid
            self._names.append(name)
            self.counts = np.append(self.counts, 0)
        return fid

    # -- ranks ----------------------------------------------------------------
    def order(self) -> np.ndarray:
        """Feature ids from the most to the least frequent (ties by id)."""
        return np.lexsort((np.arange(len(self)), -self.counts)).astype(np.int64)

    def ranks(self) -> np.ndarray:
        """1-based frequency rank of every feature id (1 = most frequent)."""
        ranks = np.empty(len(self), dtype=np.int64)
        ranks[self.order()] = np.arange(1, len(self) + 1)
        return ranks

    # -- conversion -------------------------------------------------------------
    def transform(self, feature_lists: Iterable[Iterable[str]], *, add: bool = False, count: bool = False) -> sp.csr_matrix:
        """Binary CSR matrix of string feature lists.

        Unknown features are dropped (they carry no weight in a model trained
        without them) unless ``add`` is true. ``count`` adds each row's features
        to the counts.
        """
        if self._ids is None:
            raise TypeError("this model's features are numeric column ids; pass integer ids or a CSR matrix, not strings")
        rows: List[List[int]] = []
        lookup = self._ids
        if add:
            names = self._names
            for feats in feature_lists:
                row = []
                for f in _feature_strings(feats):
                    fid = lookup.get(f)
                    if fid is None:
                        if not isinstance(f, str):
                            raise DataFormatError(f"feature {f!r} is not a string")
                        fid = lookup[f] = len(names)
                        names.append(f)
                    row.append(fid)
                rows.append(row)
            if len(names) > self.counts.size:
                self.counts = np.concatenate([self.counts, np.zeros(len(names) - self.counts.size, dtype=np.int64)])
        else:
            for feats in feature_lists:
                rows.append([fid for fid in map(lookup.get, _feature_strings(feats)) if fid is not None])
        X = rows_to_csr(rows, n_features=len(self))
        if count:
            self.counts += np.bincount(X.indices, minlength=len(self)).astype(np.int64)
        return X

    def count(self, X: sp.csr_matrix) -> None:
        """Add the column counts of a binary CSR matrix (numeric or already mapped)."""
        width = X.shape[1]
        if width > len(self):
            if not self.is_numeric:
                raise DataFormatError(f"matrix has {width} columns but the index has {len(self)} features")
            self.counts = np.concatenate([self.counts, np.zeros(width - len(self), dtype=np.int64)])
        self.counts += np.bincount(X.indices, minlength=len(self)).astype(np.int64)

    kind = "feature_index"

    def save(self, path) -> None:
        """Write the index to ``path`` (conjunct's model file format, atomically)."""
        from . import model_io

        model_io.write_container(path, self.kind, *self.to_arrays())

    def to_container(self):
        return (self.kind, *self.to_arrays())

    @classmethod
    def from_container(cls, meta: dict, arrays: Dict[str, np.ndarray], name: str = "<model>") -> "FeatureIndex":
        try:
            return cls.from_arrays(meta, arrays)
        except (KeyError, ValueError, TypeError) as e:
            from ._errors import ModelFormatError

            raise ModelFormatError(f"corrupt feature index ({e})", name) from None

    def __reduce__(self):
        from . import model_io, persistence

        return (persistence.from_bytes, (model_io.dumps(*self.to_container()),))

    def info(self) -> dict:
        """A summary of the index (number of features, whether numeric, counts)."""
        return {
            "kind": "feature index",
            "features": len(self),
            "named": not self.is_numeric,
            "total_count": int(self.counts.sum()),
            "most_frequent": [self.name(int(i)) for i in self.order()[:10]],
        }

    def to_arrays(self) -> Tuple[dict, Dict[str, np.ndarray]]:
        """(metadata, arrays) for the model file format."""
        arrays = {"counts": self.counts}
        if self._names is not None:
            encoded = [n.encode("utf-8", "surrogatepass") for n in self._names]
            offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
            np.cumsum([len(e) for e in encoded], out=offsets[1:])
            arrays["names_blob"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
            arrays["names_offsets"] = offsets
        return {"numeric": self._names is None, "n_features": len(self)}, arrays

    @classmethod
    def from_arrays(cls, meta: dict, arrays: Dict[str, np.ndarray]) -> "FeatureIndex":
        counts = np.asarray(arrays["counts"], dtype=np.int64)
        if meta.get("numeric"):
            return cls.numeric(len(counts), counts=counts)
        blob = bytes(np.asarray(arrays["names_blob"], dtype=np.uint8))
        offsets = np.asarray(arrays["names_offsets"], dtype=np.int64)
        if len(offsets) != len(counts) + 1 or (len(offsets) and offsets[-1] != len(blob)):
            raise DataFormatError("feature names do not match the feature counts")
        names = [blob[offsets[i]:offsets[i + 1]].decode("utf-8", "surrogatepass") for i in range(len(counts))]
        return cls(names=names, counts=counts)


def _feature_strings(feats) -> Iterable[str]:
    if isinstance(feats, str):
        raise DataFormatError("each example must be a list of feature strings, not a single string")
    return feats
