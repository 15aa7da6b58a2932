"""What every task pipeline shares: training a polynomial-kernel classifier on
the decisions the task's algorithm asks (or importing one), compiling it with
any method (by default an fstrie built from the vectors the pipeline produces
on real text), running and timing the task, and one model file."""

from __future__ import annotations

import time
from typing import Dict, Optional

import numpy as np

from .. import model_io
from .._errors import ConjunctError, ModelFormatError

__all__ = ["TaskPipeline", "TASKS", "register_task"]

TASKS: Dict[str, type] = {}


def register_task(cls):
    """Class decorator: make a pipeline loadable by its ``task`` name."""
    TASKS[cls.task] = cls
    return cls


class TaskPipeline:
    """Base class of the task pipelines (parsers, chunker, segmenter).

    Parameters
    ----------
    degree, C, n_iter, margin, common_features, random_state, verbose
        Passed to :class:`conjunct.training.PAClassifier` (PA-I, averaged).
    method : str
        The classification method the pipeline runs with ("pkb", "pki", "pke",
        "split", "fstrie").
    method_params : dict, optional
        Its parameters (``events`` default to the vectors the pipeline produces
        on its training text).
    """

    kind = "task_pipeline"
    task: str = ""

    def __init__(self, *, degree: int = 3, C: float = 1.0, n_iter: int = 10, margin: str = "slicing",
                 common_features: Optional[int] = None, method: str = "fstrie", method_params: Optional[dict] = None,
                 random_state: int = 0, verbose: int = 0):
        self.degree = degree
        self.C = C
        self.n_iter = n_iter
        self.margin = margin
        self.common_features = common_features
        self.method = method
        self.method_params = method_params
        self.random_state = random_state
        self.verbose = verbose

    # -- to implement ----------------------------------------------------------------------
    def training_examples(self, data):
        """(feature lists, labels) of the decisions the task asks on gold ``data``."""
        raise NotImplementedError

    def collect_events(self, data):
        """The feature vectors (CSR over the model's features) the pipeline classifies on ``data``."""
        raise NotImplementedError

    def _config(self) -> dict:
        """Pipeline-specific settings saved with the model."""
        return {}

    def _restore(self, config: dict) -> None:
        """Rebuild pipeline-specific state after loading."""

    # -- training and compiling ----------------------------------------------------------------
    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("degree", "C", "n_iter", "margin", "common_features", "method",
                                              "method_params", "random_state", "verbose")}

    def fit(self, data, *, model=None, events=None) -> "TaskPipeline":
        """Train on gold ``data`` (or adopt an imported ``model`` over the task's
        feature strings) and compile with ``self.method``."""
        start = time.perf_counter()
        if model is None:
            from ..training import PAClassifier

            feats, labels = self.training_examples(data)
            est = PAClassifier(degree=self.degree, C=self.C, n_iter=self.n_iter, margin=self.margin,
                               common_features=self.common_features, random_state=self.random_state, verbose=self.verbose)
            est.fit(feats, labels)
            model = est.model_
            self.training_stats_ = {"examples": len(labels), "seconds": time.perf_counter() - start,
                                    "support_vectors": model.n_support_vectors}
        if model.features is None or model.features.is_numeric:
            raise ConjunctError("a task pipeline needs a model over the task's feature strings (a named FeatureIndex)")
        self.model_ = model
        self.compile(self.method, events=events if events is not None else (data if self.method == "fstrie" else None),
                     **(self.method_params or {}))
        return self

    def compile(self, method: str, *, events=None, **params) -> "TaskPipeline":
        """Recompile the classifier; for "fstrie", ``events`` may be task data
        (run through the pipeline to collect its vectors) or vectors."""
        if method == "fstrie":
            vectors = params.pop("event_vectors", None)
            if vectors is None and events is not None:
                vectors = events if _is_vectors(events) else self._collect_with(self.model_.compile("pki"), events)
            params["events"] = vectors
        self.classifier_ = self.model_.compile(method, **params)
        return self

    def _collect_with(self, classifier, data):
        saved = getattr(self, "classifier_", None)
        self.classifier_ = classifier
        try:
            return self.collect_events(data)
        finally:
            if saved is not None:
                self.classifier_ = saved

    def _check_fitted(self):
        if not hasattr(self, "classifier_"):
            raise ConjunctError(f"this {type(self).__name__} is not trained; call fit() or load a model")

    # -- persistence -----------------------------------------------------------------------------------
    def to_container(self):
        from ..persistence import pack

        self._check_fitted()
        model_entry, model_arrays = pack(self.model_, "model")
        clf_entry, clf_arrays = pack(self.classifier_, "classifier")
        meta = {"task": self.task, "params": {k: v for k, v in self.params().items() if k != "method_params"},
                "method_params": _jsonable(self.method_params), "config": self._config(),
                "model": model_entry, "classifier": clf_entry}
        return self.kind, meta, {**model_arrays, **clf_arrays}

    @classmethod
    def from_container(cls, meta: dict, arrays, name: str = "<model>") -> "TaskPipeline":
        from ..persistence import unpack

        try:
            task_cls = TASKS[meta["task"]]
        except KeyError:
            raise ModelFormatError(f"unknown task {meta.get('task')!r} (written by a newer conjunct?)", name) from None
        params = dict(meta["params"])
        pipeline = task_cls(**params, method_params=meta.get("method_params"))
        pipeline.model_ = unpack(meta["model"], arrays, "model", name)
        pipeline.classifier_ = unpack(meta["classifier"], arrays, "classifier", name)
        pipeline._restore(meta.get("config", {}))
        return pipeline

    def save(self, path) -> None:
        """Write the trained pipeline (model, compiled classifier, settings) to one file."""
        model_io.write_container(path, *self.to_container())

    def __reduce__(self):
        from .. import persistence

        return (persistence.from_bytes, (model_io.dumps(*self.to_container()),))


def _is_vectors(events) -> bool:
    import scipy.sparse as sp

    return sp.issparse(events) or isinstance(events, np.ndarray)


def _jsonable(params: Optional[dict]) -> Optional[dict]:
    if not params:
        return None
    return {k: v for k, v in params.items() if isinstance(v, (int, float, str, bool)) or v is None}
