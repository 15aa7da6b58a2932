"""The left-to-right chunking loop: in C++ around a compiled classifier
(:class:`YamchaChunker`), and in Python, one call per token
(:func:`chunk_reference`, the specification it is tested against)."""

from __future__ import annotations

from typing import List

import numpy as np

from ... import _core
from ..runner import Runner, check_classifier, events_matrix, per_sentence
from .features import ChunkEncoder, features_with

__all__ = ["YamchaChunker", "chunk_reference"]


class YamchaChunker(Runner):
    """The left-to-right chunking loop (C++) around a compiled multi-class
    classifier over the chunking features."""

    def __init__(self, classifier, *, window: int = 2, early_exit: bool = True):
        check_classifier(classifier, "chunking", rules=("sign", "argmax", "ovo"))
        super().__init__([classifier])
        index = classifier.features
        self.classifier = classifier
        self.early_exit = early_exit
        self.encoder = ChunkEncoder(index, window)
        classes = [str(c) for c in classifier.rule.classes]
        self.classes = np.asarray(classes, dtype=object)
        get = index.get
        self.prev1 = np.asarray([get(f) for f in (f"t[-1]={c}" for c in classes + ["BOS"])], dtype=np.int32)
        self.prev2 = np.asarray([get(f) for f in (f"t[-2]={c}" for c in classes + ["BOS"])], dtype=np.int32)

    def chunk_many(self, sentences, *, collect: bool = False, timing: bool = False):
        """Tags of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix (events for an fstrie)."""
        enc = self.encoder.encode(sentences)
        clf = self.classifier
        labels, decisions, clf_seconds, total, events = _core.chunk_yamcha(
            clf._core, clf.rule.kind, len(clf.rule.classes), self.early_exit, enc["sentence_ptr"], enc["token_ptr"],
            enc["token_ids"], self.prev1, self.prev2, timing, collect)
        self.count(decisions=int(decisions), classifier_seconds=clf_seconds, loop_seconds=total)
        result = per_sentence(self.classes[labels], enc["sentence_ptr"])
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
