"""The l1-regularised log-linear model over explicit conjunctions (the l1-LLM
of Yoshinaga & Kitsuregawa 2009): :class:`L1LogLinearClassifier`."""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._errors import ConjunctError
from ..models.linear import ConjunctiveLinearModel
from .base import OnlineEstimator
from .checks import check_int, check_positive
from .encoding import encode_labels

__all__ = ["L1LogLinearClassifier"]


class L1LogLinearClassifier(OnlineEstimator):
    """The l1-regularised log-linear model over explicit conjunctions (l1-LLM, Yoshinaga & Kitsuregawa 2009).

    Features are all conjunctions of 1..``degree`` primitive features of each
    example (registered on first sight); training is SGD with the cumulative l1
    penalty of Tsuruoka et al. (2009): round k uses the learning rate
    ``eta0 * decay ** (k / N)`` (N examples), and each weight touched by an
    example is clipped towards zero by the penalty it has not yet received.
    Conjunctions whose weights end at zero are not part of the model.

    Parameters
    ----------
    degree : int, default 2
        Largest conjunction size d.
    C : float, default 1.0
        l1 strength (the objective is ``sum log p(y|x) - C ||w||_1``).
    n_iter : int, default 10
        Epochs.
    eta0 : float, default 1.0
        Initial learning rate.
    decay : float, default 0.85
        The learning rate is multiplied by this per epoch (smoothly per round).
    shuffle, random_state, verbose, callback, binarize
        As for :class:`PAClassifier`.

    Attributes
    ----------
    model_ : ConjunctiveLinearModel
        Non-zero conjunction weights, intercept, classes, feature index.
    classes_, feature_index_, history_, n_iter_, n_features_in_, feature_names_in_
        As for :class:`PAClassifier`.
    stats_ : dict
        ``conjunctions`` (registered), ``nonzero`` (in the model), ``memory_bytes``.
    """

    def __init__(self, degree: int = 2, *, C: float = 1.0, n_iter: int = 10, eta0: float = 1.0, decay: float = 0.85,
                 shuffle: bool = True, random_state=None, verbose: int = 0,
                 callback: Optional[Callable[[dict], object]] = None, binarize: bool = False):
        self.degree = degree
        self.C = C
        self.n_iter = n_iter
        self.eta0 = eta0
        self.decay = decay
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.binarize = binarize

    def _validated(self) -> dict:
        C = float(self.C)
        if not (math.isfinite(C) and C >= 0):
            raise ConjunctError(f"C must be a non-negative number, got {self.C!r}")
        decay = check_positive("decay", self.decay)
        if decay > 1:
            raise ConjunctError(f"decay must be in (0, 1], got {self.decay!r}")
        return dict(degree=check_int("degree", self.degree, 1), C=C, eta0=check_positive("eta0", self.eta0),
                    decay=decay, n_iter=check_int("n_iter", self.n_iter, 1))

    def fit(self, X, y, sample_weight=None) -> "L1LogLinearClassifier":
        """Train on X, y from scratch for ``n_iter`` epochs (N = the number of examples).

        ``sample_weight`` (non-negative, one per example) scales each
        example's gradient; the l1 penalty is applied per example as without weights.
        """
        params = self._validated()
        M, y, w = self._begin(X, y, None, True, params, sample_weight)
        self._train(M, y, params["n_iter"], M.shape[0], w)
        return self

    def partial_fit(self, X, y, classes: Optional[Sequence] = None, n_examples: Optional[int] = None,
                    sample_weight=None) -> "L1LogLinearClassifier":
        """One pass over X, y. ``n_examples`` is N of the schedule and penalty
        (default: the size of this batch); ``sample_weight`` as for :meth:`fit`."""
        params = self._validated()
        M, y, w = self._begin(X, y, classes, self._first_partial(classes), params, sample_weight)
        N = check_int("n_examples", n_examples, 1) if n_examples is not None else max(M.shape[0], 1)
        self._train(M, y, 1, N, w)
        return self

    def _new_trainer(self):
        p = self._params
        return _core.L1Trainer(degree=p["degree"], n_outputs=self._K, C=p["C"], eta0=p["eta0"], decay=p["decay"])

    def _train(self, M: sp.csr_matrix, y: np.ndarray, n_iter: int, n_examples: int, weights=None) -> None:
        trainer = self._live_trainer()
        self._encoder.learn(M)
        indptr, indices = self._encoder.internal(M)
        labels = encode_labels(y, self.classes_)
        V, K = self._encoder.n_internal, self._K

        def step(ip, ix, lab, order):
            trainer.run(indptr=ip, indices=ix, labels=lab, order=order, n_examples=n_examples, n_features=V, n_outputs=K,
                        weights=weights)

        def info():
            return dict(rounds=trainer.samples, updates=trainer.samples, conjunctions=trainer.n_conjunctions,
                        memory_bytes=trainer.memory_bytes)

        self._epochs(indptr, indices, labels, n_iter, bool(self.shuffle), step, info)
        self.n_iter_ = self._epochs_done
        self._publish()

    def _publish(self) -> None:
        trainer = self._trainer
        c_indptr, c_internal, weights, _ = trainer.export(all=False, n_outputs=self._K)
        enc = self._encoder
        C = sp.csr_matrix((np.ones(c_internal.size), enc.columns[c_internal], c_indptr),
                          shape=(len(c_indptr) - 1, enc.n_columns()))
        self.feature_index_ = enc.index
        self.model_ = ConjunctiveLinearModel(C, weights, np.asarray(trainer.bias), classes=self.classes_,
                                             decision="sign" if self._K == 1 else "argmax", features=enc.index,
                                             source="conjunct L1LogLinearClassifier")
        self.stats_ = dict(conjunctions=int(trainer.n_conjunctions), nonzero=int(self.model_.n_conjunctions),
                           memory_bytes=int(trainer.memory_bytes), rounds=int(trainer.samples))
        self._set_n_features()

    def _save_trainer(self, trainer) -> dict:
        indptr, indices, w, q = trainer.export(all=True, n_outputs=self._K)
        return dict(indptr=indptr, indices=indices, weights=w, penalties=q, bias=np.asarray(trainer.bias),
                    u=trainer.u, samples=trainer.samples)

    def _load_trainer(self, saved: dict):
        trainer = self._new_trainer()
        trainer.load(indptr=saved["indptr"], indices=saved["indices"], weights=np.ascontiguousarray(saved["weights"]),
                     penalties=np.ascontiguousarray(saved["penalties"]), n_outputs=self._K)
        trainer.bias = [float(v) for v in saved["bias"]]
        trainer.u = float(saved["u"])
        trainer.samples = int(saved["samples"])
        return trainer

    def decision_function(self, X) -> np.ndarray:
        """Class scores (log-odds for two classes): shape (n,) or (n, n_classes)."""
        M = self._columns_of(X)
        trainer = self._live_trainer()
        indptr, indices = self._encoder.internal(M)
        out = trainer.margins(indptr=indptr, indices=indices, n_outputs=self._K)
        return out[:, 0] if self._K == 1 else out

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n, n_classes)."""
        m = self.decision_function(X)
        if self._K == 1:
            p = 1.0 / (1.0 + np.exp(-np.asarray(m)))
            return np.column_stack([1.0 - p, p])
        z = np.exp(m - m.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
