"""Feature indices: string features <-> integer ids, counts and frequency ranks."""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from .._lazy import sparse as sp

from .._errors import DataFormatError, ModelFormatError
from ..io.persistence import Saveable, nested, prefixed
from ..io.validation import Meta, Where
from .checks import check_feature_index
from .spec import FeatureKeys

__all__ = ["FeatureIndex", "rows_to_csr", "rank_space", "store_features", "stored_features"]


#: The largest feature id: ids are 32-bit, and so is the number of columns (id + 1).
MAX_FEATURE_ID = np.iinfo(np.int32).max - 1
#: Bytes per column of a numeric feature index and what is built on it: the
#: counts (8), the training column map (4), each compiled classifier's (4).
BYTES_PER_NUMERIC_COLUMN = 16


def rows_to_csr(rows: Sequence[Sequence[int]], n_features: Optional[int] = None, *,
                repeats: str = "error") -> sp.csr_matrix:
    """Binary CSR matrix from rows of integer feature ids.

    A row lists the ids of its active features, in any order (rows come out
    sorted). Nested lists are always read as ids: a dense 0/1 matrix must be a
    numpy array or a scipy.sparse matrix. A row that repeats an id is an error
    (``repeats="error"``, the default), because that is what a dense 0/1 row
    written as a list looks like (``[0, 1, 1, 0]``); ``repeats="merge"`` keeps
    one of each instead.

    Parameters
    ----------
    rows : sequence of sequences of int
        Active feature ids of each row (0 to ``MAX_FEATURE_ID``).
    n_features : int, optional
        Number of columns; by default one more than the largest id.
    repeats : {"error", "merge"}
        What a repeated id in a row is.
    """
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    return _csr_from_flat(_ids_array(rows), lengths, n_features, repeats=repeats)


def _ids_array(rows: Any) -> np.ndarray:
    items = list(itertools.chain.from_iterable(rows))
    flat = np.asarray(items)
    if flat.size == 0:
        return flat.astype(np.int64)
    if flat.dtype.kind in "iu":
        return flat
    for c in items:  # say which item is wrong
        if isinstance(c, str):
            raise DataFormatError(f"a row mixes feature strings ({c!r}) and integer ids")
        if not isinstance(c, (int, np.integer)) or isinstance(c, bool):
            raise DataFormatError(f"feature {c!r} is neither a string nor an integer id")
        if not 0 <= c <= MAX_FEATURE_ID:
            raise DataFormatError(f"feature id {c} is out of range (ids are 0 to {MAX_FEATURE_ID})")
    raise DataFormatError("feature ids must be integers")  # pragma: no cover


def _csr_from_flat(flat: np.ndarray, lengths: np.ndarray, n_features: Optional[int], *,
                   repeats: str = "merge") -> sp.csr_matrix:
    n_rows = len(lengths)
    if flat.size and flat.min() < 0:
        raise DataFormatError(f"negative feature id {int(flat.min())}")
    if flat.size and int(flat.max()) > MAX_FEATURE_ID:
        raise DataFormatError(f"feature id {int(flat.max())} is out of range (ids are 0 to {MAX_FEATURE_ID})")
    width = int(flat.max()) + 1 if flat.size else 0
    if n_features is None:
        n_features = width
    elif width > n_features:
        raise DataFormatError(f"feature id {width - 1} is out of range for {n_features} features")
    if n_features > np.iinfo(np.int32).max:
        raise DataFormatError(f"{n_features} features do not fit 32-bit feature ids")
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    X = sp.csr_matrix((np.ones(flat.size), flat.astype(np.int32), indptr), shape=(n_rows, n_features))
    # scipy sorts each row and adds up repeats in C (a global lexsort cost seconds on a parser's decisions).
    X.sum_duplicates()
    if X.nnz < flat.size:
        if repeats == "error":
            j = int(np.argmax(X.data > 1))
            row = int(np.searchsorted(X.indptr, j, side="right")) - 1
            raise DataFormatError(
                f"row {row} repeats feature id {int(X.indices[j])}: a row lists the ids of its active features, "
                "each once (a dense 0/1 matrix must be a numpy array or a scipy.sparse matrix: np.asarray(X))")
        X.data[:] = 1.0
    return X


def _check_numeric_width(n: int) -> None:
    from ..budget import check_memory

    check_memory(n * BYTES_PER_NUMERIC_COLUMN,
                 f"a numeric feature index of {n} columns (largest feature id {n - 1}) and the column maps built on it",
                 "feature ids are column numbers: number features densely from 0 (or use feature strings)")


class FeatureIndex(Saveable):
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

    def __init__(self, names: Optional[Iterable[str]] = None, counts: Any = None,
                 n_features: Optional[int] = None) -> None:
        # Names read from a file stay bytes until a string is asked for: a loaded
        # model's engine reads keys, and decoding and hashing every name cost
        # a pipeline's load time and memory (and every full garbage collection).
        self._pending: Optional[Tuple[bytes, np.ndarray]] = None
        if names is None:
            self._names_list: Optional[List[str]] = None
            self._ids_map: Optional[Dict[str, int]] = None
            n = len(counts) if counts is not None else int(n_features or 0)
            if counts is None:
                _check_numeric_width(n)
        else:
            self._set_names([n if type(n) is str else str(n) for n in names])
            n = len(self._names_list or ())
        self.counts = np.zeros(n, dtype=np.int64) if counts is None else np.array(counts, dtype=np.int64)
        if self.counts.shape != (n,):
            raise DataFormatError(f"counts has shape {self.counts.shape}, expected ({n},)")
        if self.counts.size and self.counts.min() < 0:
            raise DataFormatError("feature counts must be non-negative")
        #: The features' templates and codes (:class:`~conjunct.features.spec.FeatureKeys`)
        #: when a task's feature engine reads them; dropped when features are added.
        self.keys: Optional[FeatureKeys] = None

    def _set_names(self, names: List[str]) -> None:
        self._names_list = names
        # One C-level pass (a load builds hundreds of thousands); a repeat is found only if there is one.
        self._ids_map = dict(zip(names, range(len(names))))
        if len(self._ids_map) != len(names):
            seen: Dict[str, int] = {}
            for i, name in enumerate(names):
                if seen.setdefault(name, i) != i:
                    raise DataFormatError(f"feature {name!r} appears twice in the feature index")

    def _decode_pending(self) -> None:
        """The names held as bytes since loading, as strings (once)."""
        pending, self._pending = self._pending, None
        assert pending is not None
        blob, offsets = pending
        o = offsets.tolist()
        if blob.isascii():  # byte offsets are character offsets: slice one decoded string
            text = blob.decode("ascii")
            self._set_names([text[o[i]:o[i + 1]] for i in range(len(o) - 1)])
        else:
            self._set_names([blob[o[i]:o[i + 1]].decode("utf-8", "surrogatepass") for i in range(len(o) - 1)])

    @property
    def _names(self) -> Optional[List[str]]:
        if self._pending is not None:
            self._decode_pending()
        return self._names_list

    @property
    def _ids(self) -> Optional[Dict[str, int]]:
        if self._pending is not None:
            self._decode_pending()
        return self._ids_map

    # -- construction -------------------------------------------------------
    @classmethod
    def from_data(cls, feature_lists: Iterable[Iterable[str]]) -> "FeatureIndex":
        """Index every feature of ``feature_lists`` (in first-seen order) and count them."""
        index = cls(names=[])
        index.transform(feature_lists, add=True, count=True)
        return index

    @classmethod
    def numeric(cls, n_features: int, counts: Any = None) -> "FeatureIndex":
        """A numeric index of ``n_features`` columns."""
        return cls(names=None, counts=counts, n_features=n_features)

    # -- basic queries --------------------------------------------------------
    def subset(self, ids: "np.ndarray | Sequence[int]") -> "FeatureIndex":
        """The index of features ``ids`` (ascending), renumbered 0.. in that
        order, with their counts and keys."""
        ids = np.asarray(ids, dtype=np.int64)
        if self._names is None:
            return FeatureIndex.numeric(len(ids), counts=self.counts[ids])
        out = FeatureIndex(names=[self._names[i] for i in ids], counts=self.counts[ids])
        if self.keys is not None and len(self.keys) == len(self):
            out.keys = type(self.keys)(self.keys.spec, self.keys.vocabs, self.keys.template_of[ids], self.keys.codes[ids])
        return out

    @property
    def is_numeric(self) -> bool:
        """Whether features are column numbers rather than strings."""
        return self._names_list is None and self._pending is None

    @property
    def names(self) -> Optional[List[str]]:
        """Feature strings in id order (``None`` for a numeric index)."""
        return self._names

    def __len__(self) -> int:
        return int(self.counts.size)

    def __contains__(self, name: str) -> bool:
        return self._ids is not None and name in self._ids

    def __eq__(self, other: object) -> bool:
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
            assert self._names is not None  # named: both or neither
            fid = len(self._names)
            self._ids[name] = fid
            self._names.append(name)
            self.counts = np.append(self.counts, 0)
            self.keys = None
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
        without them) unless ``add`` is true; anything but a string (``None``,
        a number) is an error. ``count`` adds each row's features to the counts.
        """
        if self._ids is None:
            raise TypeError("this model's features are numeric column ids; pass integer ids or a CSR matrix, not strings")
        # Every per-string step runs in C (chain, map, dict.fromkeys, np.fromiter):
        # a loop in Python here was the longest silent step before training an EWT parser.
        rows = _feature_rows(feature_lists)
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        flat = list(itertools.chain.from_iterable(rows))
        lookup = self._ids
        try:
            if add:
                new = [f for f in dict.fromkeys(flat) if f not in lookup]
                if not all(isinstance(f, str) for f in new):
                    _raise_non_string(rows)
                assert self._names is not None
                first = len(self._names)
                self._names.extend(new)
                if new:
                    self.keys = None
                lookup.update(zip(new, range(first, first + len(new))))
                if len(self._names) > self.counts.size:
                    self.counts = np.concatenate([self.counts, np.zeros(len(self._names) - self.counts.size, dtype=np.int64)])
                ids = np.fromiter(map(lookup.__getitem__, flat), dtype=np.int64, count=len(flat))
            else:
                ids = np.fromiter(map(lookup.get, flat, itertools.repeat(-1)), dtype=np.int64, count=len(flat))
        except TypeError:  # an unhashable item (a list among the strings)
            _raise_non_string(rows)
        if not add and ids.size and ids.min() < 0:  # unknown features: fine if they are strings
            unknown = np.flatnonzero(ids < 0)
            if not all(isinstance(flat[j], str) for j in unknown):
                _raise_non_string(rows)
            kept = ids >= 0
            lengths = np.bincount(np.repeat(np.arange(len(rows)), lengths)[kept], minlength=len(rows)).astype(np.int64)
            ids = ids[kept]
        X = _csr_from_flat(ids, lengths, len(self), repeats="merge")
        if count:
            self.counts += np.bincount(X.indices, minlength=len(self)).astype(np.int64)
        return X

    def count(self, X: sp.csr_matrix) -> None:
        """Add the column counts of a binary CSR matrix (numeric or already mapped)."""
        width = X.shape[1]
        if width > len(self):
            if not self.is_numeric:
                raise DataFormatError(f"matrix has {width} columns but the index has {len(self)} features")
            _check_numeric_width(width)
            self.counts = np.concatenate([self.counts, np.zeros(width - len(self), dtype=np.int64)])
        self.counts += np.bincount(X.indices, minlength=len(self)).astype(np.int64)

    kind = "feature_index"

    def to_container(self) -> Tuple[str, Dict[str, Any], Dict[str, np.ndarray]]:
        return (self.kind, *self.to_arrays())

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Dict[str, np.ndarray], where: Where) -> None:
        check_feature_index(meta, arrays, where)

    @classmethod
    def from_container(cls, meta: Dict[str, Any], arrays: Dict[str, np.ndarray], name: str = "<model>") -> "FeatureIndex":
        try:
            return cls.from_arrays(meta, arrays)
        except (KeyError, ValueError, TypeError) as e:
            raise ModelFormatError(f"corrupt feature index ({e})", name) from None

    def info(self) -> Dict[str, Any]:
        """A summary of the index (number of features, whether numeric, counts)."""
        return {
            "kind": "feature index",
            "features": len(self),
            "named": not self.is_numeric,
            "total_count": int(self.counts.sum()),
            "most_frequent": [self.name(int(i)) for i in self.order()[:10]],
        }

    def to_arrays(self) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
        """(metadata, arrays) for the model file format."""
        arrays = {"counts": self.counts}
        if self._pending is not None:  # never decoded: the bytes as read
            arrays["names_blob"] = np.frombuffer(self._pending[0], dtype=np.uint8)
            arrays["names_offsets"] = self._pending[1]
        elif self._names_list is not None:
            encoded = [n.encode("utf-8", "surrogatepass") for n in self._names_list]
            offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
            np.cumsum([len(e) for e in encoded], out=offsets[1:])
            arrays["names_blob"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
            arrays["names_offsets"] = offsets
        meta: Dict[str, Any] = {"numeric": self.is_numeric, "n_features": len(self)}
        if self.keys is not None and len(self.keys) == len(self):
            meta["keys"], own = self.keys.to_arrays()
            arrays.update(prefixed(own, "keys"))
        return meta, arrays

    @classmethod
    def from_arrays(cls, meta: Dict[str, Any], arrays: Mapping[str, np.ndarray]) -> "FeatureIndex":
        counts = np.asarray(arrays["counts"], dtype=np.int64)
        if meta.get("numeric"):
            return cls.numeric(len(counts), counts=counts)
        blob = bytes(np.asarray(arrays["names_blob"], dtype=np.uint8))
        offsets = np.asarray(arrays["names_offsets"], dtype=np.int64)
        if len(offsets) != len(counts) + 1 or (len(offsets) and offsets[-1] != len(blob)):
            raise DataFormatError("feature names do not match the feature counts")
        index = cls(names=None, counts=counts)
        index._pending = (blob, offsets)
        if "keys" in meta:
            index.keys = FeatureKeys.from_arrays(meta["keys"], nested(arrays, "keys"))
        return index


def _feature_rows(feature_lists: Iterable[Iterable[str]]) -> List[Sequence[str]]:
    """The examples as a list of lists or tuples of features (other iterables copied)."""
    rows: List[Any] = feature_lists if isinstance(feature_lists, list) else list(feature_lists)
    types = set(map(type, rows))
    if any(issubclass(t, (str, bytes)) for t in types):
        raise DataFormatError("each example must be a list of feature strings, not a single string")
    if not types <= {list, tuple}:
        rows = [r if isinstance(r, (list, tuple)) else list(r) for r in rows]
    return rows


def _raise_non_string(rows: Sequence[Sequence[Any]]) -> None:
    """Name the first feature that is not a string (the fast paths only know there is one)."""
    for k, feats in enumerate(rows):
        for f in feats:
            if not isinstance(f, str):
                raise DataFormatError(f"example {k}: feature {f!r} is not a string")
    raise AssertionError("no feature is wrong")  # pragma: no cover - called only when one is


def store_features(features: Optional[FeatureIndex], meta: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
    """Put ``features`` (if any) into another object's file: its meta under
    ``"features"``, its arrays under ``features.`` names."""
    if features is not None:
        meta["features"], own = features.to_arrays()
        arrays.update(prefixed(own, "features"))


def stored_features(meta: Dict[str, Any], arrays: Mapping[str, np.ndarray]) -> Optional[FeatureIndex]:
    """The feature index :func:`store_features` put into a file, or None."""
    if "features" not in meta:
        return None
    return FeatureIndex.from_arrays(meta["features"], nested(arrays, "features"))


def rank_space(matrix: sp.csr_matrix, counts: np.ndarray, n_columns: int) -> Tuple[np.ndarray, sp.csr_matrix]:
    """(col_map, matrix in internal ids) with the features used by ``matrix``
    renumbered by descending ``counts`` (ties by column id); unused columns map to -1.

    The fast classifiers work in this space: internal id 0 is the most frequent
    feature, and the rows of the returned matrix are sorted internal ids.
    """
    used = np.unique(matrix.indices)
    order = used[np.lexsort((used, -counts[used]))]
    col_map = np.full(n_columns, -1, dtype=np.int32)
    col_map[order] = np.arange(order.size, dtype=np.int32)
    internal = col_map[matrix.indices]
    row_of = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    perm = np.lexsort((internal, row_of))
    M = sp.csr_matrix(
        (np.ones(internal.size), internal[perm].astype(np.int32), matrix.indptr.astype(np.int64)),
        shape=(matrix.shape[0], order.size),
    )
    return col_map, M
