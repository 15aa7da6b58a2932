"""Probabilities from margins: Platt scaling (Platt 1999, with the target
smoothing of Lin, Lin & Weng 2007) fitted on held-out margins from
cross-fitting, as LIBSVM's ``-b 1`` and pecco's sigmoid."""

from __future__ import annotations

from typing import Optional

import numpy as np
import scipy.sparse as sp

__all__ = ["held_out_margins", "fit_sigmoids", "sigmoid_proba", "FOLDS"]

#: Folds of the cross-fitting that gives every training example a held-out margin.
FOLDS = 3


def _folds(y: np.ndarray, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold of each example, dealt round-robin within each class (stratified)."""
    fold = np.empty(y.shape[0], dtype=np.int64)
    start = 0
    for c in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == c))
        fold[members] = (start + np.arange(members.size)) % n_folds
        start += members.size
    return fold


def held_out_margins(estimator, M: sp.csr_matrix, y: np.ndarray, weights: Optional[np.ndarray], n_iter: int) -> np.ndarray:
    """Margins of every row of M from a copy of ``estimator`` trained on the other folds
    (same parameters and ``n_iter`` epochs; ``partial_fit`` with every class
    declared when a class is missing from those folds)."""
    params = {**estimator.get_params(), "probability": False, "verbose": 0, "callback": None, "trace": False}
    rng = np.random.default_rng(estimator.random_state if isinstance(estimator.random_state, (int, np.integer)) else None)
    fold = _folds(y, FOLDS, rng)
    K = 1 if len(estimator.classes_) == 2 else len(estimator.classes_)
    held = np.zeros((M.shape[0], K))
    for f in range(FOLDS):
        test, train = np.flatnonzero(fold == f), np.flatnonzero(fold != f)
        if test.size == 0 or train.size == 0:
            continue
        sub = type(estimator)(**{**params, "random_state": int(rng.integers(2**31))})
        w = None if weights is None else weights[train]
        if np.unique(y[train]).size == len(estimator.classes_):
            sub.fit(M[train], y[train], sample_weight=w)
        else:  # a class missing from these folds: declare every class
            for _ in range(n_iter):
                sub.partial_fit(M[train], y[train], classes=estimator.classes_, sample_weight=w)
        held[test] = sub.decision_function(M[test]).reshape(test.size, K)
    return held


def _platt(margins: np.ndarray, positive: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(A, B) minimising the log-loss of ``p = 1 / (1 + exp(A m + B))`` against
    smoothed targets ((N+ + 1) / (N+ + 2) and 1 / (N- + 2))."""
    n_pos, n_neg = weights[positive].sum(), weights[~positive].sum()
    target = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(ab):
        z = ab[0] * margins + ab[1]
        # -log p = log(1 + e^z); -log(1 - p) = log(1 + e^z) - z
        value = np.sum(weights * (np.logaddexp(0.0, z) - (1.0 - target) * z))
        g = weights * (target - np.exp(-np.logaddexp(0.0, z)))  # d/dz = t - p
        return value, np.array([np.sum(g * margins), np.sum(g)])

    start = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    import scipy.optimize  # here only: its import costs about a second and 25 MB

    return scipy.optimize.minimize(loss, start, jac=True, method="L-BFGS-B").x


def fit_sigmoids(held: np.ndarray, y: np.ndarray, classes: np.ndarray, weights: Optional[np.ndarray]) -> np.ndarray:
    """Platt's (A, B) per output: one sigmoid for two classes, one per class (one against the rest) otherwise."""
    w = np.ones(y.shape[0]) if weights is None else weights
    if held.shape[1] == 1:
        return _platt(held[:, 0], y == classes[1], w)[None, :]
    return np.vstack([_platt(held[:, k], y == classes[k], w) for k in range(held.shape[1])])


def sigmoid_proba(margins: np.ndarray, ab: np.ndarray) -> np.ndarray:
    """Probabilities (n, n_classes) of margins under the sigmoids ``ab``."""
    m = np.asarray(margins, dtype=np.float64)
    if m.ndim == 1:
        p = np.exp(-np.logaddexp(0.0, ab[0, 0] * m + ab[0, 1]))
        return np.column_stack([1.0 - p, p])
    p = np.exp(-np.logaddexp(0.0, m * ab[:, 0] + ab[:, 1]))
    total = p.sum(axis=1, keepdims=True)
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / m.shape[1])
