"""Labels and decision rules: from K margins to a predicted label."""

from __future__ import annotations

import itertools
from typing import Iterable, List, Sequence

import numpy as np

from ._errors import ConjunctError

__all__ = ["DecisionRule", "parse_label", "ovo_pairs", "labels_array"]

RULES = ("sign", "argmax", "ovo")


def parse_label(token: str):
    """A label token as int when it is an integer ("+1", "-1", "3"), else float, else str."""
    try:
        return int(token)
    except ValueError:
        pass
    try:
        value = float(token)
    except ValueError:
        return token
    return int(value) if value.is_integer() else value


def labels_array(labels: Iterable) -> np.ndarray:
    """Labels as a numpy array: int64 when all are integers, else float or str."""
    labels = list(labels)
    if labels and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in labels):
        return np.asarray(labels, dtype=np.int64)
    if labels and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in labels):
        return np.asarray(labels, dtype=np.float64)
    return np.asarray([str(v) for v in labels], dtype=object).astype(str)


def ovo_pairs(n_classes: int) -> List[tuple]:
    """One-vs-one output order (LIBSVM's): (0,1), (0,2), ..., (0,n-1), (1,2), ..."""
    return list(itertools.combinations(range(n_classes), 2))


class DecisionRule:
    """How K margins become a label.

    - ``"sign"`` (K = 1): ``classes[1]`` if the margin is > 0, else ``classes[0]``.
    - ``"argmax"`` (K = number of classes): the class with the largest margin
      (ties: the first).
    - ``"ovo"`` (K = n(n-1)/2, LIBSVM's pair order): each pair (i, j) votes for i
      when its margin is > 0, else for j; most votes wins (ties: the first).
      This is LIBSVM's and scikit-learn's ``SVC.predict``.

    Parameters
    ----------
    kind : {"sign", "argmax", "ovo"}
        The rule.
    classes : sequence
        The class labels, in output order.
    """

    def __init__(self, kind: str, classes: Sequence):
        if kind not in RULES:
            raise ConjunctError(f"unknown decision rule {kind!r}; expected one of {', '.join(RULES)}")
        self.kind = kind
        self.classes = labels_array(classes)
        n = len(self.classes)
        if kind == "sign" and n != 2:
            raise ConjunctError(f"the sign rule needs exactly 2 classes, got {n}")
        if kind in ("argmax", "ovo") and n < 2:
            raise ConjunctError(f"the {kind} rule needs at least 2 classes, got {n}")

    @property
    def n_outputs(self) -> int:
        """K, the number of margins the rule consumes."""
        n = len(self.classes)
        return {"sign": 1, "argmax": n, "ovo": n * (n - 1) // 2}[self.kind]

    def class_indices(self, margins: np.ndarray) -> np.ndarray:
        """Index into ``classes`` of each row's decision; margins is (rows, K)."""
        margins = np.asarray(margins, dtype=np.float64).reshape(-1, self.n_outputs)
        if self.kind == "sign":
            return (margins[:, 0] > 0).astype(np.int64)
        if self.kind == "argmax":
            return np.argmax(margins, axis=1)
        votes = np.zeros((margins.shape[0], len(self.classes)), dtype=np.int64)
        for p, (i, j) in enumerate(ovo_pairs(len(self.classes))):
            positive = margins[:, p] > 0
            votes[:, i] += positive
            votes[:, j] += ~positive
        return np.argmax(votes, axis=1)

    def predict(self, margins: np.ndarray) -> np.ndarray:
        """The predicted label of each row of ``margins``."""
        return self.classes[self.class_indices(margins)]

    def to_meta(self) -> dict:
        return {"kind": self.kind, "classes": self.classes.tolist()}

    @classmethod
    def from_meta(cls, meta: dict) -> "DecisionRule":
        return cls(meta["kind"], meta["classes"])

    def __eq__(self, other) -> bool:
        return isinstance(other, DecisionRule) and self.kind == other.kind and np.array_equal(self.classes, other.classes)

    def __repr__(self) -> str:
        return f"DecisionRule({self.kind!r}, classes={self.classes.tolist()!r})"
