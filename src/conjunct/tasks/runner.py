"""What every pipeline's decision loop shares.

A runner holds a task's compiled classifiers and runs its loop over many
sentences (in C++, or batched). It counts what it does -- decisions, the time
inside the classifier, the time of the whole loop -- so that a pipeline's
``evaluate`` can say where the time goes, and it turns the feature vectors a
run classified (``collect=True``) into CSR matrices: the events an fstrie is
built from.
"""

from __future__ import annotations

from typing import Dict, Sequence, Tuple

import numpy as np
from .._lazy import sparse as sp

from .._errors import ModelFormatError
from ..features.spec import FeatureKeys, FeatureSpec

__all__ = ["Runner", "events_matrix", "check_classifier", "per_sentence", "engine_keys", "text_buffers"]


def events_matrix(indptr: np.ndarray, ids: np.ndarray, width: int) -> sp.csr_matrix:
    """The classified vectors of a run as a binary CSR matrix of ``width``
    columns (a feature a vector holds twice counts once)."""
    matrix = sp.csr_matrix((np.ones(len(ids)), ids, indptr), shape=(len(indptr) - 1, width))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


def check_classifier(classifier, what: str, rules: Sequence[str] = ("sign",)) -> None:
    """A runner looks the task's feature strings up and reads its classifier's
    margins with one of ``rules``: check both before a run."""
    if classifier.rule.kind not in rules:
        raise ValueError(f"the {what} classifier needs a {' or '.join(rules)} decision rule, not {classifier.rule.kind!r}")
    index = classifier.features
    if index is None or index.is_numeric:
        raise ValueError(f"the {what} classifier needs a named feature index (the task's feature strings)")


def engine_keys(index, expected: FeatureSpec, what: str, name: str = "<model>") -> FeatureKeys:
    """The feature keys of a boundary model's feature index: the ones its
    file stores (which must be of the ``expected`` templates), or, for a file
    written before feature keys, read from its feature names and kept on the
    index so that the file saved next stores them. A name the templates do
    not read means the model was trained on other features: retrain it."""
    keys = getattr(index, "keys", None)
    if keys is not None:
        if keys.spec != expected:
            raise ModelFormatError(f"section features.keys: the {what} classifier's feature templates are not the "
                                   f"{what} templates of its configuration (ngram); retrain it", name)
        return keys
    try:
        keys = FeatureKeys.from_names(expected, index.names)
    except ValueError as e:
        raise ModelFormatError(f"{e}: the {what} model was trained on other features; retrain it", name) from None
    index.keys = keys
    return keys


def keys_at_load(pipeline, component: str, expected: FeatureSpec, what: str, name: str) -> None:
    """What a pipeline on the feature engine does with a loaded file: a file
    written before feature keys converts (its names read through the
    templates) or is refused (retrain it), and the runner's C++ tables are
    built now, so the first batch costs what later ones do."""
    for obj in (pipeline.models_.get(component), pipeline.classifiers_.get(component)):
        if obj is not None and obj.features is not None and not obj.features.is_numeric:
            engine_keys(obj.features, expected, what, name)
    try:
        pipeline.runner()
    except ModelFormatError as e:
        raise ModelFormatError(e.problem, name) from None


def per_sentence(values: np.ndarray, ptr: np.ndarray) -> list:
    """Per-token values (a C++ loop's output) as one list per sentence, cut at the offsets ``ptr``."""
    flat, cuts = values.tolist(), ptr.tolist()
    return [flat[a:b] for a, b in zip(cuts, cuts[1:])]


class Runner:
    """Base of the task runners: counters, and the classifiers it runs with.

    Subclasses call ``super().__init__(classifiers)``, implement
    ``run(inputs, *, collect=False, timing=False)`` -- the output, or with
    ``collect`` ``(output, events per component...)`` -- and add to the
    counters with :meth:`count`.
    """

    #: What the runner counts; every name ending in "decisions" is a classifier call.
    COUNTERS: Tuple[str, ...] = ("decisions", "classifier_seconds", "loop_seconds")

    def __init__(self, classifiers: Sequence):
        self._classifiers = tuple(classifiers)
        for name in self.COUNTERS:
            setattr(self, name, 0 if name.endswith("decisions") else 0.0)

    def uses(self, classifiers: Sequence) -> bool:
        """Whether this runner runs with exactly these classifier objects."""
        classifiers = tuple(classifiers)
        return len(classifiers) == len(self._classifiers) and all(a is b for a, b in zip(classifiers, self._classifiers))

    def count(self, **amounts) -> None:
        """Add to the counters."""
        for name, amount in amounts.items():
            setattr(self, name, getattr(self, name) + amount)

    def counters(self) -> Dict[str, float]:
        """The counters' current values."""
        return {name: getattr(self, name) for name in self.COUNTERS}

    def run(self, inputs, *, collect: bool = False, timing: bool = False):
        raise NotImplementedError


def text_buffers(texts: Sequence[str]) -> Tuple[bytes, np.ndarray]:
    """The texts as one UTF-8 buffer and the byte offset of each (plus the end)."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return b"".join(encoded), offsets
