"""Training rows built batch by batch: a task's oracle names its decisions'
features as strings, and holding the strings of every decision of a treebank
at once costs about 60 bytes per feature (2 GB for the English tokenizer on
EWT train). :class:`RowBuilder` maps each batch's strings to ids of a growing
:class:`~conjunct.features.index.FeatureIndex` as it comes and keeps 4 bytes per
feature; the index gets the features in order of first occurrence with their
counts, exactly as the strings given all at once would give it, so an
estimator trained on the rows learns the same model."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from .._lazy import sparse as sp

__all__ = ["RowBuilder", "release_free_memory"]


class RowBuilder:
    """Rows of one classifier's training examples, added a batch at a time."""

    def __init__(self):
        from ..features.index import FeatureIndex

        self.index = FeatureIndex(names=[])
        self._lengths: List[np.ndarray] = []
        self._indices: List[np.ndarray] = []
        self.labels: list = []

    def add(self, feature_lists: Sequence[Sequence[str]], labels: Sequence) -> None:
        """Append a batch of examples (feature strings per example, and their labels)."""
        if len(feature_lists) != len(labels):
            raise ValueError(f"{len(feature_lists)} feature lists for {len(labels)} labels")
        X = self.index.transform(feature_lists, add=True, count=True)
        self._lengths.append(np.diff(X.indptr))
        self._indices.append(X.indices.astype(np.int32, copy=False))
        self.labels.extend(labels)

    def __len__(self) -> int:
        return len(self.labels)

    def rows(self) -> Tuple["IndexedRows", list]:
        """(the rows as :class:`~conjunct.training.inputs.IndexedRows`, their labels);
        the builder is emptied."""
        from ..training.inputs import IndexedRows

        indices = np.concatenate(self._indices) if self._indices else np.zeros(0, dtype=np.int32)
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, dtype=np.int64)
        self._indices, self._lengths = [], []
        indptr = np.zeros(lengths.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # One byte per stored 1: training reads the columns only.
        M = sp.csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(lengths.size, len(self.index)))
        labels, self.labels = self.labels, []
        release_free_memory()
        return IndexedRows(M, self.index), labels


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``;
    nothing elsewhere): the batches' strings, freed, leave holes that would
    otherwise stay resident while the stages trained beside this one allocate."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
