"""Batched boundary decisions with a compiled binary classifier
(:class:`BoundaryClassifier`: one C++ call per batch, from the texts' UTF-8
bytes to the class of every boundary), and the same one boundary at a time
over feature strings (:func:`segment_reference`, the specification it is
tested against)."""

from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from ... import _core
from ..._errors import ModelFormatError
from ..._jobs import resolve_n_jobs
from ...features.spec import FeatureSpec
from ..runner import Runner, check_classifier, engine_keys, events_matrix, text_buffers
from .dictionary import WordDictionary
from .features import boundary_features, spec
from .oracle import words_from_boundaries

__all__ = ["BoundaryClassifier", "segment_reference", "text_buffers", "boundary_engine"]


def boundary_engine(index, expected: FeatureSpec, what: str, dictionary: Optional[WordDictionary] = None):
    """The C++ boundary features over a model's feature keys (and the known
    words of its dictionary flags)."""
    keys = engine_keys(index, expected, what)
    words = {} if dictionary is None else dict(zip(("dictionary_words", "dictionary_offsets"), dictionary.to_arrays()))
    if words:
        words["dictionary_words"] = words["dictionary_words"].tobytes()
    try:
        return _core.BoundaryFeatures(tables=keys.tables(), **words)
    except ValueError as e:  # a spec naming positions or attributes the boundary templates do not have
        raise ModelFormatError(f"section features.keys: {e}") from None


class BoundaryClassifier(Runner):
    """Batched boundary decisions with a compiled binary classifier: features
    and decisions of a whole batch in one C++ call with the GIL released."""

    COUNTERS = ("decisions", "classifier_seconds", "encode_seconds")

    def __init__(self, classifier, *, ngram: int = 3, dictionary: Optional[WordDictionary] = None,
                 early_exit: bool = True, n_jobs: int = 1, type_ngram: Optional[int] = None,
                 longest_match: bool = False):
        check_classifier(classifier, "word segmentation's")
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        self.n_jobs = n_jobs
        self.ngram = ngram
        self.type_ngram = type_ngram
        self.features = boundary_engine(classifier.features,
                                        spec(ngram, dictionary=dictionary is not None, type_ngram=type_ngram,
                                             longest_match=longest_match and dictionary is not None),
                                        "word segmentation", dictionary)
        self.cut_class = [str(c) for c in classifier.rule.classes].index("1")

    def classify(self, texts: Sequence[str], gaps: str = "all", collect: bool = False):
        """(positions, per-text offsets into them, class indices, events or None) of a batch."""
        clf = self.classifier
        blob, offsets = text_buffers(texts)
        positions, text_ptr, classes, events, feature_s, classify_s = self.features.classify(
            classifier=clf.compiled, early_exit=bool(self.early_exit),
            n_threads=resolve_n_jobs(self.n_jobs), text=blob, offsets=offsets, gaps=gaps, collect=collect)
        self.count(decisions=len(classes), classifier_seconds=classify_s, encode_seconds=feature_s)
        return positions, text_ptr, classes, events

    def boundaries(self, texts: Sequence[str], *, collect: bool = False):
        """Per text, a boolean array: a word ends before character b (index b - 1)."""
        _, ptr, classes, events = self.classify(texts, collect=collect)
        cuts = classes == self.cut_class
        result = [cuts[a:b] for a, b in zip(ptr.tolist(), ptr[1:].tolist())]
        if not collect:
            return result
        return result, events_matrix(events[0], events[1], len(self.classifier.features))

    def run(self, texts: Sequence[str], *, collect: bool = False, timing: bool = False):
        """:meth:`boundaries` (it always times itself)."""
        return self.boundaries(texts, collect=collect)

    def segment_many(self, texts: Sequence[str]) -> List[List[str]]:
        """The words of every text."""
        positions, ptr, classes, _ = self.classify(texts)
        at = positions[classes == self.cut_class]
        # The cut positions of text k, as indices into `at`.
        ends = np.searchsorted(np.flatnonzero(classes == self.cut_class), ptr).tolist()
        cuts = at.tolist()
        out = []
        for k, text in enumerate(texts):
            edges = [0, *cuts[ends[k]:ends[k + 1]], len(text)]
            out.append([text[a:b] for a, b in zip(edges, edges[1:])] if text else [])
        return out


def segment_reference(classifier, texts: Sequence[str], ngram: int = 3,
                      dictionary: Optional[WordDictionary] = None, type_ngram: Optional[int] = None,
                      longest_match: bool = False) -> List[List[str]]:
    """Segmentation with one ``predict_one`` per boundary over the feature strings of
    :func:`boundary_features` (slow; the reference the batched path is tested against)."""
    out = []
    for text in texts:
        cuts = [str(classifier.predict_one(boundary_features(text, b, ngram, dictionary, type_ngram, longest_match))) == "1"
                for b in range(1, len(text))]
        out.append(words_from_boundaries(text, cuts))
    return out
