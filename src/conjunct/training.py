"""Training with conjunctive features.

- :class:`PAClassifier`: online perceptron / PA / PA-I / PA-II with the
  polynomial kernel (Crammer et al. 2006), binary and multi-class, averaged,
  with four margin modes that train the same model: ``"kernel"`` (PKI over the
  growing support set), ``"expanded"`` (explicit weights of every
  conjunction), ``"split"`` (explicit weights for the N most frequent features,
  kernel for the rest) and ``"slicing"`` (kernel slicing with reuse of partial
  margins and early termination; Yoshinaga & Kitsuregawa 2010). The result is a
  :class:`~conjunct.models.KernelModel` that every classifier accepts.
- :class:`L1LogLinearClassifier`: the l1-regularised log-linear baseline over
  explicit conjunctions (SGD with cumulative l1 penalty, Tsuruoka et al. 2009),
  giving a :class:`~conjunct.linear.ConjunctiveLinearModel`.
- :func:`expand`: the explicit weights of a kernel model (kernel expansion),
  as a :class:`~conjunct.linear.ConjunctiveLinearModel`.

Both estimators follow scikit-learn's conventions (parameters stored verbatim,
fitted attributes ending in ``_``, ``get_params`` / ``set_params``, ``clone``,
pickle) without requiring scikit-learn. Inputs are scipy sparse matrices (any
index dtype), dense 0/1 arrays, or lists of feature lists (strings, through a
:class:`~conjunct.features.FeatureIndex` built from the training data, or
integer column ids).
"""

from __future__ import annotations

import inspect
import math
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from . import _core
from ._errors import ConjunctError, DataFormatError
from .data import _row_kind, as_binary_csr, as_rows
from .features import FeatureIndex, rows_to_csr
from .labels import labels_array
from .linear import ConjunctiveLinearModel
from .models import KernelModel

__all__ = ["PAClassifier", "L1LogLinearClassifier", "expand", "LEARNERS", "MARGINS", "default_common_features"]

LEARNERS = ("perceptron", "pa", "pa1", "pa2")
MARGINS = ("kernel", "expanded", "split", "slicing")

# Rounds between progress reports when verbose >= 2 or a callback is given.
_PROGRESS_EVERY = 20000


def default_common_features(degree: int, n_outputs: int = 1) -> int:
    """N used when ``common_features`` is None (split / slicing): as many of the
    most frequent features as the weight trie keeps in dense tables (about
    32 MB of weights: all features at d = 1, about 2,900 at d = 2, 290 at
    d = 3 and 115 at d = 4 for one output; fewer for more outputs).

    Seed 001 found the fastest N to shrink as d grows (4,000 at d = 2, 250 at
    d = 3 on its parsing task): the expanded side costs about |x|^d per
    example, while reused partial margins keep the kernel side cheap.
    ``benchmarks/bench_train.py`` measures the trade-off on real data.
    """
    return int(_core.dense_capacity(degree=int(degree), n_outputs=int(n_outputs)))


# -- scikit-learn compatibility without requiring scikit-learn -----------------------------------
try:  # pragma: no cover - exercised when scikit-learn is installed (the test extra)
    from sklearn.base import BaseEstimator as _Base
    from sklearn.base import ClassifierMixin as _ClassifierMixin
except ImportError:  # pragma: no cover - exercised without scikit-learn

    class _Base:  # type: ignore[no-redef]
        """get_params / set_params as scikit-learn's BaseEstimator defines them."""

        @classmethod
        def _get_param_names(cls) -> List[str]:
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep: bool = True) -> dict:
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for key, value in params.items():
                if key not in valid:
                    raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}")
                setattr(self, key, value)
            return self

        def __repr__(self) -> str:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class _ClassifierMixin:  # type: ignore[no-redef]
        _estimator_type = "classifier"


# -- shared input handling ------------------------------------------------------------------------------
class _Encoder:
    """Columns of the training data -> internal ids (frequency ranks, 0 = most frequent).

    Ranks come from the training counts (string features: the FeatureIndex's
    counts; integer / matrix input: column counts), ties broken by column id.
    Features first seen by a later ``partial_fit`` get the next ids: ranks of
    known features never change, because the tries are keyed by them.
    """

    def __init__(self):
        self.index: Optional[FeatureIndex] = None
        self.col_map = np.zeros(0, dtype=np.int32)    # column -> internal id, -1 if never seen
        self.columns = np.zeros(0, dtype=np.int64)    # internal id -> column

    @property
    def n_internal(self) -> int:
        return int(self.columns.size)

    @property
    def named(self) -> bool:
        return self.index is not None and not self.index.is_numeric

    def columns_of(self, X, *, learn: bool) -> sp.csr_matrix:
        """Binary CSR (column ids) of X; with ``learn``, new features are added and counted."""
        if sp.issparse(X) or isinstance(X, np.ndarray):
            # Columns are column ids (the feature index's ids for string features).
            M = as_binary_csr(X)
            if learn:
                if self.index is None:
                    self.index = FeatureIndex.numeric(M.shape[1])
                self.index.count(M)
            return M
        if isinstance(X, (str, bytes)):
            raise DataFormatError("expected a matrix or a list of feature lists, got a string")
        rows = X if isinstance(X, list) else list(X)
        if _row_kind(rows) == "str":
            if self.index is not None and not self.named:
                raise DataFormatError("this estimator was trained on integer features; string features cannot be mapped")
            if learn:
                if self.index is None:
                    self.index = FeatureIndex(names=[])
                return self.index.transform(rows, add=True, count=True)
            if self.index is None:
                raise DataFormatError("string features need a fitted feature index")
            return self.index.transform(rows)
        # Integer ids are column ids (the feature index's ids for string features).
        M = rows_to_csr(rows, n_features=len(self.index) if self.named else None)
        if learn:
            if self.index is None:
                self.index = FeatureIndex.numeric(M.shape[1])
            self.index.count(M)
        return M

    def learn(self, M: sp.csr_matrix) -> None:
        """Assign internal ids to the columns of M that have none yet (most frequent first)."""
        counts = self.index.counts
        width = max(len(counts), M.shape[1])
        if self.col_map.size < width:
            self.col_map = np.concatenate([self.col_map, np.full(width - self.col_map.size, -1, dtype=np.int32)])
        used = np.unique(M.indices)
        new = used[self.col_map[used] < 0]
        if new.size:
            c = np.zeros(new.size, dtype=np.int64)
            inside = new < len(counts)
            c[inside] = counts[new[inside]]
            new = new[np.lexsort((new, -c))]
            self.col_map[new] = np.arange(self.n_internal, self.n_internal + new.size, dtype=np.int32)
            self.columns = np.concatenate([self.columns, new.astype(np.int64)])

    def internal(self, M: sp.csr_matrix):
        """(indptr int64, indices int32) of M in internal ids, rows ascending; unknown columns dropped."""
        idx = np.full(M.indices.size, -1, dtype=np.int32)
        inside = M.indices < self.col_map.size
        idx[inside] = self.col_map[M.indices[inside]]
        keep = idx >= 0
        if not keep.all():
            row = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
            counts = np.bincount(row[keep], minlength=M.shape[0])
            indptr = np.zeros(M.shape[0] + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            idx = idx[keep]
        else:
            indptr = M.indptr.astype(np.int64)
        I = sp.csr_matrix((np.ones(idx.size), idx, indptr), shape=(M.shape[0], max(self.n_internal, 1)))
        I.sort_indices()
        return I.indptr.astype(np.int64, copy=False), I.indices.astype(np.int32, copy=False)

    def n_columns(self) -> int:
        return max(len(self.index) if self.index is not None else 0, int(self.col_map.size))


def _labels_of(y, n_rows: int) -> np.ndarray:
    y = np.asarray(y)
    if y.dtype == object:
        y = labels_array(y.reshape(-1).tolist()) if y.ndim == 1 else y
    if y.ndim != 1:
        raise DataFormatError(f"y must be one-dimensional, got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise DataFormatError(f"X has {n_rows} examples but y has {y.shape[0]} labels")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise DataFormatError("y has non-finite labels")
    return y


def _encode_labels(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """+1/-1 for two classes (classes[1] is +1), else class indices, as int32."""
    pos = np.searchsorted(classes, y)
    pos_c = np.clip(pos, 0, len(classes) - 1)
    bad = classes[pos_c] != y
    if np.any(bad):
        raise DataFormatError(f"label {y[np.flatnonzero(bad)[0]]!r} is not one of the classes {classes.tolist()}")
    if len(classes) == 2:
        return np.where(pos_c == 1, 1, -1).astype(np.int32)
    return pos_c.astype(np.int32)


def _check_int(name: str, value, low: int, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConjunctError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not (math.isfinite(value) and value > 0):
        raise ConjunctError(f"{name} must be a positive number, got {value!r}")
    return float(value)


class _OnlineEstimator(_ClassifierMixin, _Base):
    """Shared epochs, progress, prediction and pickling of the two estimators."""

    # -- progress ---------------------------------------------------------------------------------
    def _report(self, info: dict) -> bool:
        """Print / hand progress to the callback; False stops training."""
        self.history_.append(info)
        if self.verbose >= 2 or (self.verbose and info["epoch_done"]):
            mem = info.get("memory_bytes")
            mem_text = f", {mem / 1e6:.1f} MB" if mem is not None else ""
            extra = f", {info['support_vectors']:,} SVs" if "support_vectors" in info else ""
            print(f"[{type(self).__name__}] epoch {info['epoch']}: {info['rounds']:,} rounds, "
                  f"{info['examples_per_second']:,.0f} examples/s, {info['updates']:,} updates{extra}{mem_text}, "
                  f"{info['elapsed']:.2f} s", file=sys.stderr, flush=True)
        if self.callback is not None and self.callback(info) is False:
            return False
        return True

    def _epochs(self, indptr, indices, labels, n_iter: int, shuffle: bool, step: Callable, info: Callable) -> None:
        n = len(indptr) - 1
        often = self.verbose >= 2 or self.callback is not None
        every = _PROGRESS_EVERY if often else max(n, 1)
        start_time = time.perf_counter()
        for _ in range(n_iter):
            order = self._rng.permutation(n).astype(np.int64) if shuffle else np.arange(n, dtype=np.int64)
            epoch_start, done, stop = time.perf_counter(), 0, False
            for lo in range(0, max(n, 1), every):
                chunk = order[lo:lo + every]
                step(indptr, indices, labels, chunk)
                done += chunk.size
                now = time.perf_counter()
                report = dict(epoch=self._epochs_done + 1, epoch_done=lo + every >= n, examples=done,
                              elapsed=now - start_time, examples_per_second=done / max(now - epoch_start, 1e-12), **info())
                if not self._report(report):
                    stop = True
                    break
            self._epochs_done += 1
            if stop:
                return

    # -- lifecycle (the subclasses provide _new_trainer, _save_trainer, _load_trainer) -----------------
    def _reset(self) -> None:
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)
        self._encoder = _Encoder()
        self._trainer = None
        self._saved_trainer = None
        self._params = None
        self._epochs_done = 0
        self._rng = np.random.default_rng(self.random_state)
        self.history_ = []

    def _start(self, classes: np.ndarray, params: dict) -> None:
        self.classes_ = classes
        self._params = params
        self._K = 1 if len(classes) == 2 else len(classes)
        self._trainer = self._new_trainer()

    def _begin(self, X, y, classes, first: bool, params: dict):
        """Columns and labels of X, y; on the first call, the classes and a new trainer."""
        if first:
            self._reset()
        M = self._encoder.columns_of(X, learn=True)
        y = _labels_of(y, M.shape[0])
        if first:
            found = np.unique(y) if classes is None else np.unique(labels_array(list(classes)))
            if found.size < 2:
                what = "training data need" if classes is None else "classes must name"
                raise DataFormatError(f"{what} at least two classes, got {found.tolist()}")
            self._start(found, params)
        elif classes is not None and not np.array_equal(np.unique(labels_array(list(classes))), self.classes_):
            raise ConjunctError(f"classes {list(classes)} differ from the classes of the first call {self.classes_.tolist()}")
        return M, y

    def _first_partial(self, classes) -> bool:
        first = not hasattr(self, "classes_")
        if first and classes is None:
            raise ConjunctError("classes must be given on the first call to partial_fit")
        return first

    def _live_trainer(self):
        if self._trainer is None:
            if self._saved_trainer is None:
                raise ConjunctError("this estimator has no training state to continue from; call fit")
            self._trainer = self._load_trainer(self._saved_trainer)
            self._saved_trainer = None
        return self._trainer

    # -- prediction -----------------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "model_"):
            raise ConjunctError(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit first")

    def predict(self, X) -> np.ndarray:
        """Predicted class of every example."""
        margins = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(np.asarray(margins) > 0).astype(np.int64)]
        return self.classes_[np.argmax(margins, axis=1)]

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of ``predict(X)`` against ``y`` (weighted if ``sample_weight``)."""
        pred = self.predict(X)
        y = np.asarray(y)
        correct = (pred == y).astype(np.float64)
        if sample_weight is None:
            return float(correct.mean()) if correct.size else 0.0
        w = np.asarray(sample_weight, dtype=np.float64)
        return float((correct * w).sum() / w.sum())

    # -- pickling: the C++ trainer is rebuilt from saved arrays when training resumes -----------------
    def __getstate__(self):
        state = super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__.copy()
        state = dict(state)
        trainer = state.pop("_trainer", None)
        if trainer is not None:
            state["_saved_trainer"] = self._save_trainer(trainer)
        return state

    def __setstate__(self, state):
        state = dict(state)
        saved = state.pop("_saved_trainer", None)
        if hasattr(super(), "__setstate__"):
            super().__setstate__(state)
        else:
            self.__dict__.update(state)
        self._trainer = None
        self._saved_trainer = saved


# =============================================================================================
class PAClassifier(_OnlineEstimator):
    """Online passive-aggressive learning with conjunctive features (the polynomial kernel).

    Trains ``m(x) = b + sum_i alpha_i (gamma |s_i ∩ x| + coef0) ** degree`` one
    example at a time (seed 001, Algorithm 1). Every margin mode computes the
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
        Slicing: reuse partial margins of earlier rounds (False is seed 001's
        SL*). None: for d >= 3, where it pays (seed 001, §3.2.1; at d <= 2 the
        weight trie is cheaper than its bookkeeping).
    terminate : bool or None, default None
        Slicing: stop a margin computation once its bounds prove no update.
        None: for d >= 3, as ``reuse``. With both off, slicing is kernel
        splitting (seed 001's SP).
    fit_intercept : bool, default False
        Learn a bias per output as the weight of a constant coordinate. By
        default (as opal) the kernel's constant term ``coef0 ** d * sum(alpha)``
        plays that role.
    gamma, coef0 : float, default 1.0
        Kernel ``(gamma |s ∩ x| + coef0) ** degree``; gamma > 0.
    shuffle : bool, default True
        Shuffle the examples before each epoch.
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
    """

    def __init__(self, degree: int = 2, *, C: float = 1.0, learner: str = "pa1", margin: str = "slicing",
                 n_iter: int = 10, average: bool = True, common_features: Optional[int] = None,
                 memory_budget: Optional[float] = None, reuse: Optional[bool] = None, terminate: Optional[bool] = None,
                 fit_intercept: bool = False, gamma: float = 1.0, coef0: float = 1.0, shuffle: bool = True,
                 random_state=None, verbose: int = 0, callback: Optional[Callable[[dict], object]] = None,
                 trace: bool = False):
        self.degree = degree
        self.C = C
        self.learner = learner
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

    # -- parameters --------------------------------------------------------------------------------------
    def _validated(self) -> dict:
        degree = _check_int("degree", self.degree, 1)
        if self.learner not in LEARNERS:
            raise ConjunctError(f"unknown learner {self.learner!r}; expected one of {', '.join(LEARNERS)}")
        if self.margin not in MARGINS:
            raise ConjunctError(f"unknown margin mode {self.margin!r}; expected one of {', '.join(MARGINS)}")
        N = _check_int("common_features", self.common_features, 0, allow_none=True)
        if N is not None and self.margin in ("kernel", "expanded"):
            raise ConjunctError(f"common_features applies to the split and slicing modes, not {self.margin!r}")
        budget = 0
        if self.memory_budget is not None:
            if self.margin not in ("split", "slicing"):
                raise ConjunctError(f"memory_budget applies to the split and slicing modes, not {self.margin!r}")
            budget = max(1, int(_check_positive("memory_budget", self.memory_budget) * 1e6))
        if N is None:
            # -2: the trainer's automatic N (dense tables); -1: all features (a budget then halves it).
            N = -1 if budget or self.margin not in ("split", "slicing") else -2
        coef0 = float(self.coef0)
        if not math.isfinite(coef0):
            raise ConjunctError(f"coef0 must be finite, got {self.coef0!r}")
        reuse = degree >= 3 if self.reuse is None else bool(self.reuse)
        terminate = degree >= 3 if self.terminate is None else bool(self.terminate)
        return dict(degree=degree, gamma=_check_positive("gamma", self.gamma), coef0=coef0,
                    C=_check_positive("C", self.C), N=N, budget=budget, reuse=reuse, terminate=terminate,
                    n_iter=_check_int("n_iter", self.n_iter, 1))

    # -- training -----------------------------------------------------------------------------------------
    def fit(self, X, y) -> "PAClassifier":
        """Train on X, y from scratch for ``n_iter`` epochs.

        Parameters
        ----------
        X : sparse matrix, 0/1 array, or list of feature lists (strings or ids)
        y : array-like of labels (two or more classes)
        """
        params = self._validated()
        M, y = self._begin(X, y, None, True, params)
        self._train(M, y, params["n_iter"], bool(self.shuffle))
        return self

    def partial_fit(self, X, y, classes: Optional[Sequence] = None) -> "PAClassifier":
        """One pass over X, y, continuing from the current model.

        ``classes`` (every class that will ever occur) is required on the first
        call. Features first seen in a later call rank after the known ones.
        """
        params = self._validated()
        M, y = self._begin(X, y, classes, self._first_partial(classes), params)
        self._train(M, y, 1, bool(self.shuffle))
        return self

    def _new_trainer(self):
        p = self._params
        return _core.PaTrainer(gamma=p["gamma"], coef0=p["coef0"], degree=p["degree"], n_outputs=self._K,
                               learner=self.learner, C=p["C"], margin=self.margin, common_features=p["N"],
                               reuse=p["reuse"], terminate=p["terminate"], fit_intercept=bool(self.fit_intercept),
                               weight_budget=p["budget"], trace=bool(self.trace))

    def _train(self, M: sp.csr_matrix, y: np.ndarray, n_iter: int, shuffle: bool) -> None:
        trainer = self._live_trainer()
        self._encoder.learn(M)
        trainer.ensure_features(self._encoder.n_internal)
        indptr, indices = self._encoder.internal(M)
        labels = _encode_labels(y, self.classes_)
        traces: List[dict] = []

        def step(ip, ix, lab, order):
            trainer.run(indptr=ip, indices=ix, labels=lab, order=order)
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

    def _append_trace(self, traces: List[dict]) -> None:
        old = [self.trace_] if hasattr(self, "trace_") else []
        parts = old + traces
        self.trace_ = {k: np.concatenate([t[k] for t in parts]) for k in parts[0]} if parts else {}

    def _publish(self) -> None:
        """model_ from the trainer's current state."""
        trainer = self._trainer
        sv_indptr, sv_internal, alpha, bias = trainer.export(average=bool(self.average))
        enc = self._encoder
        S = sp.csr_matrix((np.ones(sv_internal.size), enc.columns[sv_internal], sv_indptr),
                          shape=(len(sv_indptr) - 1, enc.n_columns()))
        p = self._params
        self.feature_index_ = enc.index
        self.model_ = KernelModel(
            S, alpha, bias, degree=p["degree"], gamma=p["gamma"], coef0=p["coef0"], classes=self.classes_,
            decision="sign" if self._K == 1 else "argmax", features=enc.index,
            source=f"conjunct PAClassifier({self.learner}, margin={self.margin}, average={bool(self.average)})",
        )
        if not enc.named:
            self.n_features_in_ = enc.n_columns()

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
        self._check_fitted()
        return self.model_.decision_function(X)

    def to_linear(self) -> ConjunctiveLinearModel:
        """The explicit weights of ``model_`` (kernel expansion; see :func:`expand`)."""
        self._check_fitted()
        return expand(self.model_)

    @property
    def n_support_(self) -> int:
        self._check_fitted()
        return self.model_.n_support_vectors


# =============================================================================================
class L1LogLinearClassifier(_OnlineEstimator):
    """The l1-regularised log-linear model over explicit conjunctions (seed 000's l1-LLM).

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
    shuffle, random_state, verbose, callback
        As for :class:`PAClassifier`.

    Attributes
    ----------
    model_ : ConjunctiveLinearModel
        Non-zero conjunction weights, intercept, classes, feature index.
    classes_, feature_index_, history_, n_iter_
        As for :class:`PAClassifier`.
    stats_ : dict
        ``conjunctions`` (registered), ``nonzero`` (in the model), ``memory_bytes``.
    """

    def __init__(self, degree: int = 2, *, C: float = 1.0, n_iter: int = 10, eta0: float = 1.0, decay: float = 0.85,
                 shuffle: bool = True, random_state=None, verbose: int = 0,
                 callback: Optional[Callable[[dict], object]] = None):
        self.degree = degree
        self.C = C
        self.n_iter = n_iter
        self.eta0 = eta0
        self.decay = decay
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _validated(self) -> dict:
        C = float(self.C)
        if not (math.isfinite(C) and C >= 0):
            raise ConjunctError(f"C must be a non-negative number, got {self.C!r}")
        decay = _check_positive("decay", self.decay)
        if decay > 1:
            raise ConjunctError(f"decay must be in (0, 1], got {self.decay!r}")
        return dict(degree=_check_int("degree", self.degree, 1), C=C, eta0=_check_positive("eta0", self.eta0),
                    decay=decay, n_iter=_check_int("n_iter", self.n_iter, 1))

    def fit(self, X, y) -> "L1LogLinearClassifier":
        """Train on X, y from scratch for ``n_iter`` epochs (N = the number of examples)."""
        params = self._validated()
        M, y = self._begin(X, y, None, True, params)
        self._train(M, y, params["n_iter"], M.shape[0])
        return self

    def partial_fit(self, X, y, classes: Optional[Sequence] = None, n_examples: Optional[int] = None) -> "L1LogLinearClassifier":
        """One pass over X, y. ``n_examples`` is N of the schedule and penalty
        (default: the size of this batch)."""
        params = self._validated()
        M, y = self._begin(X, y, classes, self._first_partial(classes), params)
        N = _check_int("n_examples", n_examples, 1) if n_examples is not None else max(M.shape[0], 1)
        self._train(M, y, 1, N)
        return self

    def _new_trainer(self):
        p = self._params
        return _core.L1Trainer(degree=p["degree"], n_outputs=self._K, C=p["C"], eta0=p["eta0"], decay=p["decay"])

    def _train(self, M: sp.csr_matrix, y: np.ndarray, n_iter: int, n_examples: int) -> None:
        trainer = self._live_trainer()
        self._encoder.learn(M)
        indptr, indices = self._encoder.internal(M)
        labels = _encode_labels(y, self.classes_)
        V, K = self._encoder.n_internal, self._K

        def step(ip, ix, lab, order):
            trainer.run(indptr=ip, indices=ix, labels=lab, order=order, n_examples=n_examples, n_features=V, n_outputs=K)

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
        if not enc.named:
            self.n_features_in_ = enc.n_columns()

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
        self._check_fitted()
        trainer = self._live_trainer()
        M = self._encoder.columns_of(X, learn=False)
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


# =============================================================================================
def expand(model: KernelModel) -> ConjunctiveLinearModel:
    """The explicit weights of a kernel model (kernel expansion, seed 001 Eq. 1).

    Every conjunction t (1 <= |t| <= d) of features of a support vector gets
    ``c_d(|t|) * sum of the alpha rows of the support vectors containing t``;
    the intercept is ``b + c_d(0) * sum(alpha)`` (the constant term counted
    once). The result computes the same margins as ``model`` on every input.
    Its size grows like the number of support vectors times ``|s| ** d``.
    """
    S = model.support_vectors
    K = model.n_outputs
    if S.shape[0] == 0:
        C = sp.csr_matrix((0, S.shape[1]))
        return ConjunctiveLinearModel(C, np.zeros((0, K)), model.intercept, classes=model.classes,
                                      decision=model.rule.kind, features=model.features, source=model.source)
    indptr, indices, weights = _core.expand_kernel_model(
        gamma=model.gamma, coef0=model.coef0, degree=model.degree, sv_indptr=S.indptr.astype(np.int64),
        sv_indices=S.indices.astype(np.int32), alpha=np.ascontiguousarray(model.dual_coef))
    c0 = model.kernel.subset_weights()[0]
    intercept = model.intercept + c0 * model.dual_coef.sum(axis=0)
    C = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(len(indptr) - 1, S.shape[1]))
    return ConjunctiveLinearModel(C, weights, intercept, classes=model.classes, decision=model.rule.kind,
                                  features=model.features, source=f"expanded {model.source or 'kernel model'}")
