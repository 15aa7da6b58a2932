"""What the online estimators share: scikit-learn's conventions (without
requiring scikit-learn), epochs with progress reports and a callback, the
fit / partial_fit lifecycle, prediction and pickling of the C++ trainer."""

from __future__ import annotations

import time
import warnings
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp

from .._errors import ConjunctError, DataFormatError
from .._params import Params
from ..models.labels import labels_array
from ..progress import Slices, bar, say
from .encoding import FeatureEncoder
from .inputs import check_labels, check_sample_weight, matrix_or_rows

__all__ = ["OnlineEstimator", "NotFittedError", "not_fitted_error"]

# Rounds between progress reports when verbose >= 2 or a callback is given.
_PROGRESS_EVERY = 20000

_NOT_FITTED: Optional[type] = None


def not_fitted_error() -> type:
    """conjunct's ``NotFittedError``: a ``ConjunctError``, a ``ValueError`` and an
    ``AttributeError``, and scikit-learn's ``NotFittedError`` when it is installed.
    Built on first use: importing scikit-learn costs about a second and 100 MB,
    which training (a bunsetsu parser in a few seconds) should not pay unasked."""
    global _NOT_FITTED
    if _NOT_FITTED is None:
        try:
            from sklearn.exceptions import NotFittedError as base
        except ImportError:  # pragma: no cover - scikit-learn is optional
            base = type("NotFittedError", (ValueError, AttributeError), {})
        _NOT_FITTED = type("NotFittedError", (ConjunctError, base), {
            "__module__": "conjunct.training",
            "__doc__": "A prediction method was called before ``fit`` (a ``ValueError`` and an ``AttributeError``, "
                       "and scikit-learn's ``NotFittedError`` when it is installed)."})
    return _NOT_FITTED


def __getattr__(name: str):
    if name == "NotFittedError":
        return not_fitted_error()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _two_classes(y: np.ndarray, sample_weight) -> None:
    """Training needs two classes (with positive weight, when weighted)."""
    found = np.unique(y)
    if found.size < 2:
        raise DataFormatError(f"training data need at least two classes, got one class: {found.tolist()}")
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        if w.shape == y.shape and np.unique(y[w > 0]).size == 1:
            raise DataFormatError(f"sample_weight leaves one class with positive weight ({y[w > 0][0]!r}); "
                                  "training needs at least two classes")


class OnlineEstimator(Params):
    """Shared epochs, progress, prediction and pickling of the two estimators
    (scikit-learn's estimator protocol without importing scikit-learn)."""

    _estimator_type = "classifier"  # scikit-learn < 1.6 reads it

    # -- progress ---------------------------------------------------------------------------------
    def _report(self, info: dict) -> bool:
        """Print / hand progress to the callback; False stops training."""
        self.history_.append(info)
        if self.verbose >= 2 or (self.verbose and info["epoch_done"]):
            mem = info.get("memory_bytes")
            mem_text = f", {mem / 1e6:.1f} MB" if mem is not None else ""
            extra = f", {info['support_vectors']:,} SVs" if "support_vectors" in info else ""
            say(f"[{type(self).__name__}] epoch {info['epoch']}: {info['rounds']:,} rounds, "
                f"{info['examples_per_second']:,.0f} examples/s, {info['updates']:,} updates{extra}{mem_text}, "
                f"{info['elapsed']:.2f} s")
        if self.callback is not None and self.callback(info) is False:
            return False
        return True

    def _epochs(self, indptr, indices, labels, n_iter: int, shuffle, step: Callable, info: Callable) -> None:
        """n_iter epochs over the rows; shuffle: True (a new order every epoch), False (the data's
        order) or "once" (one shuffled order for all the epochs of this call, as opal)."""
        n = len(indptr) - 1
        fixed = self._rng.permutation(n).astype(np.int64) if shuffle == "once" else None
        often = self.verbose >= 2 or self.callback is not None
        every = _PROGRESS_EVERY if often else max(n, 1)
        start_time = time.perf_counter()
        slices = self.__dict__.setdefault("_slices", Slices())  # also for estimators pickled before slices
        with bar(total=n * n_iter, desc=f"training {type(self).__name__}", unit="ex") as shown:
            for _ in range(n_iter):
                order = (fixed if fixed is not None else self._rng.permutation(n).astype(np.int64) if shuffle
                         else np.arange(n, dtype=np.int64))
                epoch_start, done, stop = time.perf_counter(), 0, False
                for lo in range(0, max(n, 1), every):
                    part = order[lo:lo + every]
                    # Slices keep Ctrl-C and the bar responsive; the model is the same.
                    slices.run(lambda p: step(indptr, indices, labels, p), part, shown)
                    done += part.size
                    now = time.perf_counter()
                    report = dict(epoch=self._epochs_done + 1, epoch_done=lo + every >= n, examples=done,
                                  elapsed=now - start_time, examples_per_second=done / max(now - epoch_start, 1e-12),
                                  **info())
                    shown.set_postfix_str(f"epoch {report['epoch']}/{n_iter}, {report['updates']:,} updates"
                                          + (f", {report['support_vectors']:,} SVs" if "support_vectors" in report else ""))
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
        self._encoder = FeatureEncoder()
        self._trainer = None
        self._saved_trainer = None
        self._params = None
        self._epochs_done = 0
        self._rng = np.random.default_rng(self.random_state)
        self.history_ = []
        self._slices = Slices()

    def _start(self, classes: np.ndarray, params: dict) -> None:
        self.classes_ = classes
        self._params = params
        self._K = 1 if len(classes) == 2 else len(classes)
        self._trainer = self._new_trainer()

    def _begin(self, X, y, classes, first: bool, params: dict, sample_weight=None):
        """Columns, labels and weights of X, y; on the first call, the classes and a new trainer."""
        if first:
            self._reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warned once below
            y_early = check_labels(y, None, type(self).__name__)  # the label type before X's values
        if first and classes is None:
            _two_classes(y_early, sample_weight)
        data, names, dense = matrix_or_rows(X, binarize=bool(self.binarize), fitting=True)
        if first:
            self._on_matrix = sp.issparse(data)
            if names is not None:
                self.feature_names_in_ = names
        else:
            self._check_columns(data, names, dense)
        M = self._encoder.columns_of(data, learn=True)
        if M.shape[0] == 0:
            raise DataFormatError("Found 0 sample(s) (an empty list of examples) while a minimum of 1 is required.")
        y = check_labels(y, M.shape[0], type(self).__name__)
        weights = check_sample_weight(sample_weight, M.shape[0])
        if first:
            found = np.unique(y) if classes is None else np.unique(labels_array(list(classes)))
            if found.size < 2:
                what = "training data need" if classes is None else "classes must name"
                raise DataFormatError(f"{what} at least two classes, got one class: {found.tolist()}")
            self._start(found, params)
        elif classes is not None and not np.array_equal(np.unique(labels_array(list(classes))), self.classes_):
            raise ConjunctError(f"classes {list(classes)} differ from the classes of the first call {self.classes_.tolist()}")
        return M, y, weights

    def _check_columns(self, data, names, dense: bool) -> None:
        """A dense matrix must have the width (and a DataFrame the column names)
        seen in fit. Columns of a sparse matrix are feature ids: it may be wider
        or narrower (an svmlight file), and columns unseen in training carry no weight."""
        fitted_names = getattr(self, "feature_names_in_", None)
        if names is not None and fitted_names is not None:
            if len(names) != len(fitted_names) or np.any(names != fitted_names):
                raise DataFormatError("The feature names should match those that were passed during fit: "
                                      f"expected {fitted_names.tolist()}, got {names.tolist()}")
        elif names is not None and self._on_matrix:
            warnings.warn(f"X has feature names, but {type(self).__name__} was fitted without feature names",
                          UserWarning, stacklevel=4)
        elif fitted_names is not None and sp.issparse(data):
            warnings.warn(f"X does not have valid feature names, but {type(self).__name__} was fitted with feature names",
                          UserWarning, stacklevel=4)
        if dense and self._on_matrix and data.shape[1] != self.n_features_in_:
            raise DataFormatError(f"X has {data.shape[1]} features, but {type(self).__name__} is expecting "
                                  f"{self.n_features_in_} features as input")

    def _columns_of(self, X) -> sp.csr_matrix:
        """Validated prediction input as a CSR matrix of the model's columns."""
        self._check_fitted()
        data, names, dense = matrix_or_rows(X, binarize=bool(self.binarize), fitting=False)
        self._check_columns(data, names, dense)
        return self._encoder.columns_of(data, learn=False)

    def _set_n_features(self) -> None:
        """n_features_in_: the matrix width, or for feature lists the columns (ids) or distinct
        features (strings) seen so far (sparse input and feature lists may add features in partial_fit)."""
        self.n_features_in_ = self._encoder.n_columns()

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
            raise not_fitted_error()(f"This {type(self).__name__} instance is not fitted yet; call fit or partial_fit first")

    def __sklearn_tags__(self):
        # scikit-learn >= 1.6 asks the estimator what input it takes.
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=True), input_tags=InputTags(sparse=True),
                    non_deterministic=False)

    def _more_tags(self) -> dict:  # scikit-learn < 1.6
        return {"X_types": ["2darray", "sparse"], "binary_only": False}

    def predict(self, X) -> np.ndarray:
        """Predicted class of every example."""
        margins = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(np.asarray(margins) > 0).astype(np.int64)]
        return self.classes_[np.argmax(margins, axis=1)]

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of ``predict(X)`` against ``y`` (weighted if ``sample_weight``)."""
        pred = self.predict(X)
        y = check_labels(y, pred.shape[0], type(self).__name__)
        correct = (pred == y).astype(np.float64)
        w = check_sample_weight(sample_weight, pred.shape[0])
        if w is None:
            return float(correct.mean()) if correct.size else 0.0
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
