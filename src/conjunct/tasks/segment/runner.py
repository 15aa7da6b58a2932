"""Batched boundary decisions with a compiled binary classifier
(:class:`BoundaryClassifier`), and the same one boundary at a time over feature
strings (:func:`segment_reference`, the specification it is tested against)."""

from __future__ import annotations

import time
from typing import List, Sequence

import numpy as np

from ..runner import Runner, check_classifier, events_matrix
from .features import SegmentEncoder, boundary_features
from .oracle import words_from_boundaries

__all__ = ["BoundaryClassifier", "segment_reference"]


class BoundaryClassifier(Runner):
    """Batched boundary decisions with a compiled binary classifier."""

    COUNTERS = ("decisions", "classifier_seconds", "encode_seconds")

    def __init__(self, classifier, *, ngram: int = 3, early_exit: bool = True, n_jobs: int = 1):
        check_classifier(classifier, "word segmentation's")
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        self.n_jobs = n_jobs
        self.encoder = SegmentEncoder(ngram, classifier.features)
        self.cut_class = [str(c) for c in classifier.rule.classes].index("1")

    def boundaries(self, texts: Sequence[str], *, collect: bool = False):
        """Per text, a boolean array: a word ends before character b (index b - 1)."""
        t0 = time.perf_counter()
        indptr, cols, ptr = self.encoder.encode(texts)
        t1 = time.perf_counter()
        clf = self.classifier
        index = clf._core.predict_batch(indptr=indptr, indices=cols, n_threads=int(self.n_jobs), early_exit=bool(self.early_exit))
        t2 = time.perf_counter()
        self.count(decisions=len(index), classifier_seconds=t2 - t1, encode_seconds=t1 - t0)
        cuts = np.asarray(index) == self.cut_class
        result = [cuts[ptr[k]:ptr[k + 1]] for k in range(len(texts))]
        if not collect:
            return result
        keep = cols >= 0  # features the model does not know carry no weight
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))[keep]
        kept_ptr = np.zeros(len(indptr), dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(indptr) - 1), out=kept_ptr[1:])
        return result, events_matrix(kept_ptr, cols[keep], len(clf.features))

    def run(self, texts: Sequence[str], *, collect: bool = False, timing: bool = False):
        """:meth:`boundaries` (it always times itself)."""
        return self.boundaries(texts, collect=collect)

    def segment_many(self, texts: Sequence[str]) -> List[List[str]]:
        return [words_from_boundaries(t, b) for t, b in zip(texts, self.boundaries(texts))]


def segment_reference(classifier, texts: Sequence[str], ngram: int = 3) -> List[List[str]]:
    """Segmentation with one ``predict_one`` per boundary over the feature strings of
    :func:`boundary_features` (slow; the reference the vectorised path is tested against)."""
    out = []
    for text in texts:
        cuts = [str(classifier.predict_one(boundary_features(text, b, ngram))) == "1" for b in range(1, len(text))]
        out.append(words_from_boundaries(text, cuts))
    return out
