"""Online passive-aggressive learning with the polynomial kernel (Yoshinaga & Kitsuregawa 2010):
:class:`PAClassifier` and its four margin modes."""

from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._errors import ConjunctError
from ..io.validation import MAX_DEGREE
from ..models.kernel import KernelModel
from ..models.linear import ConjunctiveLinearModel
from .base import OnlineEstimator, not_fitted_error
from .calibration import fit_sigmoids, held_out_margins, sigmoid_proba
from .checks import check_int, check_kernel_range, check_positive
from .encoding import encode_labels
from .expand import expand

__all__ = ["PAClassifier", "LEARNERS", "MARGINS", "STEPS", "default_common_features"]

LEARNERS = ("perceptron", "pa", "pa1", "pa2")
STEPS = ("kernel", "opal")
MARGINS = ("kernel", "expanded", "split", "slicing")


def default_common_features(degree: int, n_outputs: int = 1) -> int:
    """N used when ``common_features`` is None (split / slicing): as many of the
    most frequent features as the weight trie keeps in dense tables (32 MB
    of weights at d <= 2, 16 MB from d = 3, where the partial-margin trie
    needs about as much: all features at d = 1, about 2,900 at d = 2, 230 at
    d = 3 and 84 at d = 4 for one output; fewer for more outputs).

    Yoshinaga & Kitsuregawa 2010 found the fastest N to shrink as d grows (4,000 at d = 2, 250 at
    d = 3 on its parsing task): the expanded side costs about |x|^d per
    example, while reused partial margins keep the kernel side cheap.
    ``benchmarks/bench_train.py`` measures the trade-off on real data.

    Parameters
    ----------
    degree : int
        Kernel degree d.
    n_outputs : int
        Margins per example (1 for two classes, else the number of classes).

    Returns
    -------
    int
    """
    return int(_core.dense_capacity(degree=int(degree), n_outputs=int(n_outputs)))


class PAClassifier(OnlineEstimator):
    """Online passive-aggressive learning with conjunctive features (the polynomial kernel).

    Trains ``m(x) = b + sum_i alpha_i (gamma |s_i ∩ x| + coef0) ** degree`` one
    example at a time (Yoshinaga & Kitsuregawa 2010, Algorithm 1). Every margin mode computes the
    same margins and so trains the same model; they differ in speed and memory.

    Parameters
    ----------
    degree : int, default 2
        Degree d of the kernel: conjunctions of up to d features.
    C : float, default 1.0
        Aggressiveness of PA-I / PA-II.
    learner : {"pa1", "pa2", "pa", "perceptron"}, default "pa1"
        Step size: PA-I ``min(C, loss / q)``, PA-II ``loss / (q + 1/(2C))``, PA
        ``loss / q``, perceptron 1, with ``q = k(x, x) = (gamma |x| + coef0)^d``
        (twice that for multi-class, whose update moves two classes).
    step : {"kernel", "opal"}, default "kernel"
        What q is. ``"kernel"``: the squared norm of the update in the
        kernel's feature space, ``k(x, x)`` (Crammer et al. 2006).
        ``"opal"``: opal's rule, ``q = |x|``, the number of active features,
        whatever the degree, so that PA-I is opal's ``min(C, loss / |x|)``
        and trains opal's model. Its steps are larger (fewer support vectors,
        faster training) and overshoot, so rounding differences grow: the
        margin modes agree on short runs only (docs/training.md).
    margin : {"slicing", "split", "expanded", "kernel"}, default "slicing"
        How margins are computed: ``"kernel"`` PKI over the support set,
        ``"expanded"`` explicit weights of every conjunction, ``"split"``
        explicit weights of the ``common_features`` most frequent features and
        the kernel for the rest, ``"slicing"`` kernel slicing.
    n_iter : int, default 10
        Epochs over the training data.
    average : bool, default True
        Return the averaged model (the mean of the models after every round).
    common_features : int or None, default None
        N for ``"split"`` and ``"slicing"``: conjunctions among the N most
        frequent features get explicit weights. None picks
        :func:`default_common_features`.
    memory_budget : float or None, default None
        Megabytes the explicit weights may take (``"split"``, ``"slicing"``):
        when exceeded, N is halved and the weights of conjunctions with rarer
        features are dropped (they move to the kernel side; the model does not
        change). With a budget and ``common_features=None``, N starts at all features.
    reuse : bool or None, default None
        Slicing: reuse partial margins of earlier rounds (False is SL* in
        Yoshinaga & Kitsuregawa 2010). None: for d >= 3, where it pays (Yoshinaga & Kitsuregawa 2010, §3.2.1; at d <= 2 the
        weight trie is cheaper than its bookkeeping).
    terminate : bool or None, default None
        Slicing: stop a margin computation once its bounds prove no update.
        None: the learner decides by measurement, at every degree: it times
        blocks of margin computations with and without termination and keeps
        the faster (bounding every partial margin costs as much as computing
        the cheap ones, so termination does not always pay). The model is the
        same either way. True: always; False: never. With reuse and
        termination off, slicing is kernel splitting (SP in Yoshinaga &
        Kitsuregawa 2010).
    fit_intercept : bool, default False
        Learn a bias per output as the weight of a constant coordinate. By
        default (as opal) the kernel's constant term ``coef0 ** d * sum(alpha)``
        plays that role.
    gamma, coef0 : float, default 1.0
        Kernel ``(gamma |s ∩ x| + coef0) ** degree``; gamma > 0.
    shuffle : bool or "once", default True
        Shuffle the examples before each epoch; ``"once"``: shuffle them once
        and keep that order in every epoch of a ``fit`` (opal's ``-s``; with
        ``step="opal"`` it trains opal's kind of model, whose support vectors
        number about 5% fewer on J.DepP's data than with a new order every
        epoch).
    random_state : int, numpy Generator or None
        Seed of the shuffling.
    verbose : int, default 0
        1: a line per epoch on stderr (examples/s, updates, support vectors,
        memory); 2: also every 20,000 rounds.
    callback : callable or None
        Called with a progress dict after every epoch and every 20,000 rounds;
        returning False stops training.
    trace : bool, default False
        Record every round's margins, bounds and updates in ``trace_`` (for
        exactness checks; costs memory).
    binarize : bool, default False
        Matrix input: any non-zero value is an active feature (FeatureHasher
        output with values -1 or 2, counts). False refuses values other than
        0 and 1.
    probability : bool, default False
        Fit Platt scaling in ``fit`` so that ``predict_proba`` exists: margins
        of each example from a model trained without it (3-fold
        cross-fitting, as LIBSVM's ``-b 1``; training costs about 3 times as
        much) fit ``p = 1 / (1 + exp(A m + B))`` per class (multi-class: one
        sigmoid per class, normalised).

    Attributes
    ----------
    model_ : KernelModel
        The trained model (averaged if ``average``), with the feature index
        whose training counts give classifiers their frequency ranks.
    classes_ : ndarray
        Class labels (two classes: ``classes_[1]`` is the positive one).
    feature_index_ : FeatureIndex
        Feature strings (or a numeric index) with training counts.
    stats_ : dict
        Counters (rounds, updates, terminated margins, reused partial margins,
        ...) and memory in bytes of the trainer's structures.
    history_ : list of dict
        The progress reports.
    n_iter_ : int
        Epochs run.
    n_features_in_ : int
        Columns of matrix input (or, for feature lists, columns / distinct features seen).
    feature_names_in_ : ndarray of str
        Column names of a DataFrame passed to ``fit``.
    calibration_ : ndarray of shape (n_sigmoids, 2)
        Platt's (A, B) per sigmoid when ``probability=True``.
    """

    def __init__(self, degree: int = 2, *, C: float = 1.0, learner: str = "pa1", step: str = "kernel", margin: str = "slicing",
                 n_iter: int = 10, average: bool = True, common_features: Optional[int] = None,
                 memory_budget: Optional[float] = None, reuse: Optional[bool] = None, terminate: Optional[bool] = None,
                 fit_intercept: bool = False, gamma: float = 1.0, coef0: float = 1.0, shuffle=True,
                 random_state=None, verbose: int = 0, callback: Optional[Callable[[dict], object]] = None,
                 trace: bool = False, binarize: bool = False, probability: bool = False):
        self.degree = degree
        self.C = C
        self.learner = learner
        self.step = step
        self.margin = margin
        self.n_iter = n_iter
        self.average = average
        self.common_features = common_features
        self.memory_budget = memory_budget
        self.reuse = reuse
        self.terminate = terminate
        self.fit_intercept = fit_intercept
        self.gamma = gamma
        self.coef0 = coef0
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.trace = trace
        self.binarize = binarize
        self.probability = probability

    # -- parameters --------------------------------------------------------------------------------------
    def _validated(self) -> dict:
        degree = check_int("degree", self.degree, 1)
        if self.learner not in LEARNERS:
            raise ConjunctError(f"unknown learner {self.learner!r}; expected one of {', '.join(LEARNERS)}")
        if getattr(self, "step", "kernel") not in STEPS:  # estimators pickled before the option: the kernel rule
            raise ConjunctError(f"unknown step rule {self.step!r}; expected one of {', '.join(STEPS)}")
        if not (isinstance(self.shuffle, (bool, int, np.bool_, np.integer)) or self.shuffle == "once"):
            raise ConjunctError(f"shuffle must be True, False or 'once', got {self.shuffle!r}")
        if self.margin not in MARGINS:
            raise ConjunctError(f"unknown margin mode {self.margin!r}; expected one of {', '.join(MARGINS)}")
        N = check_int("common_features", self.common_features, 0, allow_none=True)
        if N is not None and self.margin in ("kernel", "expanded"):
            raise ConjunctError(f"common_features applies to the split and slicing modes, not {self.margin!r}")
        budget = 0
        if self.memory_budget is not None:
            if self.margin not in ("split", "slicing"):
                raise ConjunctError(f"memory_budget applies to the split and slicing modes, not {self.margin!r}")
            budget = max(1, int(check_positive("memory_budget", self.memory_budget) * 1e6))
        if N is None:
            # -2: the trainer's automatic N (dense tables); -1: all features (a budget then halves it).
            N = -1 if budget or self.margin not in ("split", "slicing") else -2
        if degree > MAX_DEGREE:
            raise ConjunctError(f"degree must be an integer in [1, {MAX_DEGREE}], got {self.degree!r}")
        coef0 = self.coef0
        if isinstance(coef0, bool) or not isinstance(coef0, (int, float, np.integer, np.floating)) \
                or not (math.isfinite(coef0) and coef0 >= 0):
            # Training needs k increasing in the overlap: the slicing bounds,
            # early termination and the PA step's k(x, x) assume it.
            raise ConjunctError(f"coef0 must be a finite number >= 0, got {self.coef0!r}")
        coef0 = float(coef0)
        reuse = degree >= 3 if self.reuse is None else bool(self.reuse)
        # None: termination where the learner measures it faster (adaptive).
        terminate = True if self.terminate is None else bool(self.terminate)
        return dict(degree=degree, gamma=check_positive("gamma", self.gamma), coef0=coef0,
                    C=check_positive("C", self.C), N=N, budget=budget, reuse=reuse, terminate=terminate,
                    adaptive_terminate=self.terminate is None,
                    n_iter=check_int("n_iter", self.n_iter, 1))

    # -- training -----------------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "PAClassifier":
        """Train on X, y from scratch for ``n_iter`` epochs.

        Parameters
        ----------
        X : sparse matrix, 0/1 array-like (numpy, pandas), or list of feature lists (strings or ids)
        y : array-like of labels (two or more classes)
        sample_weight : array-like of shape (n,), optional
            Non-negative weight of each example: it scales C for PA-I and
            PA-II, and the step for PA and the perceptron (0: the example
            never updates the model). Every margin mode trains the same model.
        """
        params = self._validated()
        M, y, w = self._begin(X, y, None, True, params, sample_weight)
        rows = self._training_rows(M, y)
        # Training reads the rows in internal ids: M (a copy of X) is let go
        # unless calibration needs it.
        kept, M = (M if self.probability else None), None
        self._train(rows, params["n_iter"], self._shuffle_mode(), w)
        if self.probability:
            self._fit_calibration(kept, y, w, params["n_iter"])
        return self

    def partial_fit(self, X, y, classes: Optional[Sequence] = None, sample_weight=None) -> "PAClassifier":
        """One pass over X, y, continuing from the current model.

        ``classes`` (every class that will ever occur) is required on the first
        call. Features first seen in a later call rank after the known ones.
        ``sample_weight`` as for :meth:`fit`. ``probability=True`` needs ``fit``.
        """
        params = self._validated()
        M, y, w = self._begin(X, y, classes, self._first_partial(classes), params, sample_weight)
        self._train(self._training_rows(M, y), 1, self._shuffle_mode(), w)
        return self

    def _shuffle_mode(self):
        """True, False or "once" (see ``shuffle``)."""
        return "once" if self.shuffle == "once" else bool(self.shuffle)

    def _new_trainer(self):
        p = self._params
        return _core.PaTrainer(gamma=p["gamma"], coef0=p["coef0"], degree=p["degree"], n_outputs=self._K,
                               learner=self.learner, step=getattr(self, "step", "kernel"), C=p["C"], margin=self.margin, common_features=p["N"],
                               reuse=p["reuse"], terminate=p["terminate"], fit_intercept=bool(self.fit_intercept),
                               weight_budget=p["budget"], trace=bool(self.trace),
                               adaptive_terminate=p.get("adaptive_terminate", False))

    def _training_rows(self, M: sp.csr_matrix, y: np.ndarray):
        """The live trainer, sized for ``M``'s features, and (indptr, internal
        feature ids, label ids) of the rows to train on."""
        trainer = self._live_trainer()
        self._encoder.learn(M)
        trainer.ensure_features(self._encoder.n_internal)
        indptr, indices = self._encoder.internal(M)
        p = self._params
        lengths = np.diff(indptr)
        check_kernel_range(p["degree"], p["gamma"], p["coef0"],
                           (int(lengths.max()) if lengths.size else 0) + bool(self.fit_intercept))
        return trainer, indptr, indices, encode_labels(y, self.classes_)

    def _train(self, rows, n_iter: int, shuffle, weights=None) -> None:
        """n_iter epochs over ``rows``, what ``_training_rows`` returns."""
        trainer, indptr, indices, labels = rows
        p = self._params
        traces: List[dict] = []

        def step(ip, ix, lab, order):
            trainer.run(indptr=ip, indices=ix, labels=lab, order=order, weights=weights)
            if self.trace:
                traces.append(trainer.trace())

        def info():
            s = trainer.stats()
            return dict(rounds=s["rounds"], updates=s["updates"], support_vectors=s["support_vectors"],
                        memory_bytes=s["memory_bytes"]["total"])

        self._epochs(indptr, indices, labels, n_iter, shuffle, step, info)
        self.n_iter_ = self._epochs_done
        self.stats_ = trainer.stats()
        if self.trace:
            self._append_trace(traces)
        self._publish()
        model = self.model_
        if not (np.all(np.isfinite(model.dual_coef)) and np.all(np.isfinite(model.intercept))):
            raise ConjunctError(f"training produced non-finite weights (degree={p['degree']}, gamma={p['gamma']:g}, "
                                f"coef0={p['coef0']:g}, C={p['C']:g}): lower degree, gamma, coef0 or C")

    def _append_trace(self, traces: List[dict]) -> None:
        old = [self.trace_] if hasattr(self, "trace_") else []
        parts = old + traces
        self.trace_ = {k: np.concatenate([t[k] for t in parts]) for k in parts[0]} if parts else {}

    def _publish(self) -> None:
        """model_ from the trainer's current state."""
        trainer = self._trainer
        sv_indptr, sv_internal, alpha, bias = trainer.export(average=bool(self.average))
        enc = self._encoder
        # The trainer is at its largest here, so the temporaries stay small: 32-bit column ids
        # gathered directly (the model keeps int32 indices) and one-byte values (the model copies
        # the matrix and sets its own float values).
        cols = np.take(enc.columns.astype(np.int32), sv_internal)
        del sv_internal
        S = sp.csr_matrix((np.ones(cols.size, dtype=bool), cols, sv_indptr), shape=(len(sv_indptr) - 1, enc.n_columns()))
        del cols
        p = self._params
        self.feature_index_ = enc.index
        self.model_ = KernelModel(
            S, alpha, bias, degree=p["degree"], gamma=p["gamma"], coef0=p["coef0"], classes=self.classes_,
            decision="sign" if self._K == 1 else "argmax", features=enc.index,
            source=f"conjunct PAClassifier({self.learner}, margin={self.margin}, average={bool(self.average)})",
        )
        self._set_n_features()

    # -- state for pickling ---------------------------------------------------------------------------
    def _save_trainer(self, trainer) -> dict:
        sv_indptr, sv_indices, _, _ = trainer.export(average=False)
        return dict(events=trainer.events(), sv_indptr=sv_indptr, sv_indices=sv_indices, rounds=trainer.rounds,
                    n_features=trainer.n_features)

    def _load_trainer(self, saved: dict):
        trainer = self._new_trainer()
        trainer.ensure_features(int(saved["n_features"]))
        ev = saved["events"]
        trainer.replay(sv_indptr=saved["sv_indptr"], sv_indices=saved["sv_indices"], sv=ev["sv"], pos=ev["pos"],
                       neg=ev["neg"], tau=ev["tau"], round=ev["round"], rounds=int(saved["rounds"]))
        return trainer

    # -- prediction -------------------------------------------------------------------------------------
    def decision_function(self, X) -> np.ndarray:
        """Margins: shape (n,) for two classes, else (n, n_classes)."""
        M = self._columns_of(X)
        return self.model_.decision_function(M)

    # -- probabilities: Platt scaling on held-out margins ----------------------------------------------
    def _fit_calibration(self, M: sp.csr_matrix, y: np.ndarray, weights, n_iter: int) -> None:
        """Sigmoids fitted on margins of models that did not see the example (3 folds)."""
        held = held_out_margins(self, M, y, weights, n_iter)
        self.calibration_ = fit_sigmoids(held, y, self.classes_, weights)

    @property
    def predict_proba(self):
        """Class probabilities, shape (n, n_classes): Platt scaling of the
        margins (only with ``probability=True``; see the class docstring)."""
        if not self.probability:
            raise AttributeError("predict_proba needs probability=True (Platt scaling fitted during fit)")
        return self._predict_proba

    def _predict_proba(self, X) -> np.ndarray:
        margins = self.decision_function(X)
        if not hasattr(self, "calibration_"):
            raise not_fitted_error()("predict_proba needs a fit() with probability=True (partial_fit fits no calibration)")
        return sigmoid_proba(margins, self.calibration_)

    def to_linear(self) -> ConjunctiveLinearModel:
        """The explicit weights of ``model_`` (kernel expansion; see :func:`expand`)."""
        self._check_fitted()
        return expand(self.model_)

    @property
    def n_support_(self) -> int:
        """Number of support vectors of ``model_``."""
        self._check_fitted()
        return self.model_.n_support_vectors
