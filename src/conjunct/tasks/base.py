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
    # An fstrie's default size per component: its nodes hold K margins each, so
    # without a budget a many-class component's trie takes gigabytes, and
    # Algorithm 1 keeps the prefixes that save the most anyway (seed 000 Fig. 3).
    FSTRIE_MAX_BYTES = 64 << 20

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
    def training_examples(self, data) -> Dict[str, tuple]:
        """Per component name, (feature lists, labels) of the decisions the
        task asks on gold ``data``."""
        raise NotImplementedError

    def collect_events(self, data) -> Dict[str, object]:
        """Per component, the feature vectors (CSR over its model's features)
        the pipeline classifies when it runs on ``data``."""
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

    @property
    def model_(self):
        """The model of a single-component pipeline."""
        (model,) = self.models_.values()
        return model

    @property
    def classifier_(self):
        """The compiled classifier of a single-component pipeline."""
        (clf,) = self.classifiers_.values()
        return clf

    def fit(self, data, *, models: Optional[dict] = None, events=None) -> "TaskPipeline":
        """Train each component with PA-I on gold ``data`` -- or adopt imported
        ``models`` (name -> model over the task's feature strings) -- then
        compile with ``self.method``; an fstrie is built from the vectors the
        pipeline produces on ``events`` (task data; default ``data``)."""
        start = time.perf_counter()
        self.training_stats_ = {}
        if models is None:
            from ..training import PAClassifier

            models = {}
            for name, (feats, labels) in self.training_examples(data).items():
                t0 = time.perf_counter()
                est = PAClassifier(degree=self.degree, C=self.C, n_iter=self.n_iter, margin=self.margin,
                                   common_features=self.common_features, random_state=self.random_state, verbose=self.verbose)
                est.fit(feats, labels)
                models[name] = est.model_
                self.training_stats_[name] = {"examples": len(labels), "seconds": time.perf_counter() - t0,
                                              "support_vectors": est.model_.n_support_vectors}
        for name, model in models.items():
            if model.features is None or model.features.is_numeric:
                raise ConjunctError(f"component {name!r}: a task pipeline needs a model over the task's feature strings")
        self.models_ = dict(models)
        self.training_seconds_ = time.perf_counter() - start
        self.compile(self.method, events=data if events is None else events, **(self.method_params or {}))
        return self

    def compile(self, method: str, *, events=None, **params) -> "TaskPipeline":
        """Recompile every component with ``method``. For "fstrie", ``events``
        is task data, run through the pipeline with each component's base
        (``base``, default "pke") to collect the vectors it classifies; the
        trie is then built on that same base, so each kernel is expanded once.
        Its size is ``FSTRIE_MAX_BYTES`` (64 MB) per component unless
        ``max_nodes`` or ``max_bytes`` is given."""
        self._check_models()
        if method != "fstrie":
            self.classifiers_ = {name: model.compile(method, **params) for name, model in self.models_.items()}
            self._on_compiled()
            return self
        if events is None:
            raise ConjunctError("an fstrie needs events: task data to run the pipeline on")
        trie = {k: params.pop(k) for k in ("max_nodes", "max_bytes") if k in params}
        if not trie:
            trie["max_bytes"] = self.FSTRIE_MAX_BYTES
        base = params.pop("base", "pke")
        if base not in ("pke", "split"):
            raise ConjunctError(f"the fstrie's base must be 'pke' or 'split', got {base!r}")
        bases = {name: model.compile(base, **params) for name, model in self.models_.items()}
        saved = getattr(self, "classifiers_", None)
        self.classifiers_ = bases
        try:
            vectors = self.collect_events(events)
        finally:
            if saved is not None:
                self.classifiers_ = saved
        self.classifiers_ = {name: model.compile("fstrie", events=vectors[name], base=bases[name], **trie)
                             for name, model in self.models_.items()}
        self._on_compiled()
        return self

    def _on_compiled(self) -> None:
        """Hook: refresh anything that holds the classifiers."""

    def _check_models(self):
        if not getattr(self, "models_", None):
            raise ConjunctError(f"this {type(self).__name__} is not trained; call fit() or load a model")

    def _check_fitted(self):
        if not getattr(self, "classifiers_", None):
            raise ConjunctError(f"this {type(self).__name__} is not trained; call fit() or load a model")

    # -- persistence -----------------------------------------------------------------------------------
    def to_container(self):
        from ..persistence import pack

        self._check_fitted()
        meta = {"task": self.task, "params": {k: v for k, v in self.params().items() if k != "method_params"},
                "method_params": _jsonable(self.method_params), "config": self._config(), "components": {}}
        arrays = {}
        for name in self.models_:
            model_entry, model_arrays = pack(self.models_[name], f"model.{name}")
            clf_entry, clf_arrays = pack(self.classifiers_[name], f"classifier.{name}")
            meta["components"][name] = {"model": model_entry, "classifier": clf_entry}
            arrays.update(model_arrays)
            arrays.update(clf_arrays)
        return self.kind, meta, arrays

    @classmethod
    def from_container(cls, meta: dict, arrays, name: str = "<model>") -> "TaskPipeline":
        from ..persistence import unpack

        try:
            task_cls = TASKS[meta["task"]]
        except KeyError:
            raise ModelFormatError(f"unknown task {meta.get('task')!r} (written by a newer conjunct?)", name) from None
        try:
            pipeline = task_cls(**meta["params"], method_params=meta.get("method_params"))
            components = meta["components"]
        except (KeyError, TypeError) as e:
            raise ModelFormatError(f"corrupt task pipeline ({e})", name) from None
        pipeline.models_ = {c: unpack(e["model"], arrays, f"model.{c}", name) for c, e in components.items()}
        pipeline.classifiers_ = {c: unpack(e["classifier"], arrays, f"classifier.{c}", name) for c, e in components.items()}
        pipeline._restore(meta.get("config", {}))
        pipeline._on_compiled()
        return pipeline

    def save(self, path) -> None:
        """Write the trained pipeline (models, compiled classifiers, settings) to one file."""
        model_io.write_container(path, *self.to_container())

    def __reduce__(self):
        from .. import persistence

        return (persistence.from_bytes, (model_io.dumps(*self.to_container()),))

    def info(self) -> dict:
        self._check_fitted()
        return {"kind": f"task pipeline ({self.task})", **{k: v for k, v in self.params().items() if k != "verbose"},
                **{f"{n}: model": repr(m) for n, m in self.models_.items()},
                **{f"{n}: classifier": repr(c) for n, c in self.classifiers_.items()}}


def _is_vectors(events) -> bool:
    import scipy.sparse as sp

    return sp.issparse(events) or isinstance(events, np.ndarray)


def _jsonable(params: Optional[dict]) -> Optional[dict]:
    if not params:
        return None
    return {k: v for k, v in params.items() if isinstance(v, (int, float, str, bool)) or v is None}
