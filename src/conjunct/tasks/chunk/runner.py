"""The left-to-right chunking loop: in C++ around a compiled classifier
(:class:`YamchaChunker`: one call per batch, from the tokens' strings through
the feature engine to the tags), and in Python, one call per token
(:func:`chunk_reference`, the specification it is tested against)."""

from __future__ import annotations

from typing import List

import numpy as np

from ... import _core
from ..._errors import ModelFormatError
from ..runner import Runner, check_classifier, engine_keys, events_matrix, per_sentence
from .features import features_with, spec

__all__ = ["YamchaChunker", "chunk_reference"]


class YamchaChunker(Runner):
    """The left-to-right chunking loop (C++) around a compiled multi-class
    classifier over the chunking features."""

    def __init__(self, classifier, *, window: int = 2, early_exit: bool = True):
        check_classifier(classifier, "chunking", rules=("sign", "argmax", "ovo"))
        super().__init__([classifier])
        self.classifier = classifier
        self.early_exit = early_exit
        classes = [str(c) for c in classifier.rule.classes]
        self.classes = np.asarray(classes, dtype=object)
        keys = engine_keys(classifier.features, spec(window), "chunking")
        try:
            self.features = _core.ChunkFeatures(tables=keys.tables(), classes=classes)
        except ValueError as e:  # a spec naming positions or attributes the chunk templates do not have
            raise ModelFormatError(f"section features.keys: {e}") from None

    def chunk_many(self, sentences, *, collect: bool = False, timing: bool = False):
        """Tags of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix (events for an fstrie)."""
        clf = self.classifier
        labels, decisions, clf_seconds, total, events, sentence_ptr = self.features.chunk(
            classifier=clf.compiled, early_exit=self.early_exit,
            sentences=sentences if isinstance(sentences, (list, tuple)) else list(sentences), timing=timing,
            collect=collect)
        self.count(decisions=int(decisions), classifier_seconds=clf_seconds, loop_seconds=total)
        result = per_sentence(self.classes[labels], sentence_ptr)
        if not collect:
            return result
        return result, events_matrix(*events, len(clf.features))

    run = chunk_many


def chunk_reference(classifier, sentences, window: int = 2) -> List[List[str]]:
    """The same left-to-right chunking in plain Python, one ``predict_one``
    per token over feature strings (slow; the reference the C++ loop is tested against)."""
    out = []
    for s in sentences:
        tags: List[str] = []
        for i in range(len(s)):
            tags.append(str(classifier.predict_one(features_with(s, i, tags, window))))
        out.append(tags)
    return out
