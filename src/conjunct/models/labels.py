"""Labels and decision rules: from K margins to a predicted label."""

from __future__ import annotations

import itertools
import math
from typing import Any, Dict, Iterable, List, Sequence, Tuple, Union

import numpy as np

from .._errors import ConjunctError
from ..io.validation import Meta, describe, is_int

__all__ = ["DecisionRule", "parse_label", "ovo_pairs", "labels_array", "check_rule"]

RULES = ("sign", "argmax", "ovo")


def parse_label(token: str) -> Union[int, float, str]:
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


def labels_array(labels: Iterable[Any]) -> np.ndarray:
    """Labels as a numpy array: int64 when all are integers, else float or str."""
    labels = list(labels)
    if labels and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in labels):
        return np.asarray(labels, dtype=np.int64)
    if labels and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in labels):
        return np.asarray(labels, dtype=np.float64)
    return np.asarray([str(v) for v in labels], dtype=object).astype(str)


def ovo_pairs(n_classes: int) -> List[Tuple[int, int]]:
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

    def __init__(self, kind: str, classes: Sequence[Any]) -> None:
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
            return np.asarray(margins[:, 0] > 0, dtype=np.int64)
        if self.kind == "argmax":
            return np.asarray(np.argmax(margins, axis=1), dtype=np.int64)
        votes = np.zeros((margins.shape[0], len(self.classes)), dtype=np.int64)
        for p, (i, j) in enumerate(ovo_pairs(len(self.classes))):
            positive = margins[:, p] > 0
            votes[:, i] += positive
            votes[:, j] += ~positive
        return np.asarray(np.argmax(votes, axis=1), dtype=np.int64)

    def predict(self, margins: np.ndarray) -> np.ndarray:
        """The predicted label of each row of ``margins``."""
        return np.asarray(self.classes[self.class_indices(margins)])

    def to_meta(self) -> Dict[str, Any]:
        return {"kind": self.kind, "classes": self.classes.tolist()}

    @classmethod
    def from_meta(cls, meta: Dict[str, Any]) -> "DecisionRule":
        return cls(meta["kind"], meta["classes"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DecisionRule) and self.kind == other.kind and np.array_equal(self.classes, other.classes)

    def __repr__(self) -> str:
        return f"DecisionRule({self.kind!r}, classes={self.classes.tolist()!r})"


def check_rule(meta: Meta) -> Tuple[str, int, int]:
    """(rule kind, number of classes, outputs K) of a decision rule entry in a
    model file's header (``meta.rule``), checked."""
    rule = meta.obj("rule")
    kind = rule.str("kind", ("sign", "argmax", "ovo"))
    classes = rule.list("classes")
    for i, c in enumerate(classes):
        ok = isinstance(c, str) or (is_int(c) and -(1 << 63) <= c < (1 << 63)) or (
            isinstance(c, float) and math.isfinite(c))
        if not ok:
            meta.where.meta_fail(f"{rule.path}.classes[{i}]", f"expected a string or a number, got {describe(c)}")
    n = len(classes)
    if (kind == "sign" and n != 2) or n < 2:
        meta.where.meta_fail(f"{rule.path}.classes", f"the {kind} rule needs {'exactly' if kind == 'sign' else 'at least'} "
                                                     f"2 classes, got {n}")
    return kind, n, {"sign": 1, "argmax": n, "ovo": n * (n - 1) // 2}[kind]
