"""What every task pipeline shares: training a polynomial-kernel classifier per
component on the decisions the task's algorithm asks (or adopting imported
models), compiling them with any method (by default an fstrie built from the
vectors the pipeline produces on real text), running the task through its
runner, timing it in ``evaluate``, parameters and one model file.

A task subclasses :class:`TaskPipeline` and supplies, each from its own
modules: ``training_examples`` (its oracle over its features), ``_make_runner``
(its decision loop, a :class:`~conjunct.tasks.runner.Runner`) and ``_scores``
(its metrics).
"""

from __future__ import annotations

import time
from typing import Dict, Optional, Sequence, Tuple

from .._lazy import sparse as sp

from .._errors import ConjunctError, ModelFormatError
from .._params import Params
from ..io.persistence import Registry, Saveable, copying, pack, unpack
from ..progress import bar, batches, each, status
from .checks import check_pipeline

__all__ = ["TaskPipeline", "TASKS", "register_task", "oracle_sentences", "shipped_layout"]

# Where each task's pipeline is defined (the class registers itself on import).
TASKS = Registry("task", {
    "bunsetsu": "conjunct.tasks.bunsetsu",
    "ud-english": "conjunct.tasks.english",
    "conll2000-chunk": "conjunct.tasks.chunk",
    "ja-segment": "conjunct.tasks.segment",
    "en-tokenize": "conjunct.tasks.tokenize",
})


#: The layout the text pipelines ship their degree-2 components in (measured
#: with ``benchmarks/bench_model_size.py`` and callgrind, docs/benchmarks.md):
#: kernel splitting (Goldberg & Elhadad 2008) expands the conjunctions of the
#: features that occur in at least this many support vectors (with PKE's dense
#: table for the most frequent) and reaches the rarer ones through their
#: support vectors, so a rare feature costs at most this many kernel updates
#: per decision whatever the model's size. Exact like every method; on the
#: English parser trained on all of EWT its transition classifier executes 5%
#: more instructions per decision than PKE's full expansion, in 44% of its bytes.
SHIPPED_MIN_SUPPORT = 20


def shipped_layout() -> dict:
    """``method`` / ``method_params`` of :data:`SHIPPED_MIN_SUPPORT`'s layout, for a pipeline's constructor."""
    return {"method": "split", "method_params": {"min_support": SHIPPED_MIN_SUPPORT}}


def oracle_sentences(sentences, batch: Optional[int] = None):
    """The gold sentences an oracle reads, one at a time (or in lists of
    ``batch``, for a vectorised oracle) behind the bar "collecting training
    examples" (drawn only inside ``progress_bars``). Ctrl-C acts between them."""
    if batch is None:
        return each(sentences, desc="collecting training examples")
    return batches(sentences, batch, desc="collecting training examples")


def register_task(cls):
    """Make a pipeline class loadable by its ``task`` name (subclasses of
    :class:`TaskPipeline` that name a ``task`` are registered already)."""
    TASKS.register(cls.task, cls)
    return cls


class TaskPipeline(Saveable, Params):
    """Base class of the task pipelines (parsers, chunker, segmenter).

    Parameters
    ----------
    degree, C, n_iter, margin, common_features, random_state, verbose
        Passed to :class:`conjunct.training.PAClassifier` (PA-I, averaged).
    method : str
        The classification method the pipeline runs with (one of
        :data:`conjunct.models.classifiers.METHODS`).
    method_params : dict, optional
        Its parameters (``events`` default to the vectors the pipeline produces
        on its training text).

    Parameters follow scikit-learn's protocol (``get_params`` /
    ``set_params``); a task's own parameters (``window``, ``ngram``) join them.
    """

    kind = "task_pipeline"
    tasks = TASKS  # the registry of task names, for loading and for validation
    task: str = ""
    COMPONENTS: Tuple[str, ...] = ()
    # An fstrie's default size per component: its nodes hold K margins each, so
    # without a budget a many-class component's trie takes gigabytes, and
    # Algorithm 1 keeps the prefixes that save the most anyway
    # (Yoshinaga & Kitsuregawa 2009 Fig. 3).
    FSTRIE_MAX_BYTES = 64 << 20
    # What a file's components must be for this task's runner (checked at load, tasks/checks.py):
    RULES: Optional[Tuple[str, ...]] = None  # the decision rules it handles (None: any)
    NEEDED_CLASS: Dict[Optional[str], str] = {}  # component (None: every one) -> a class it needs
    MAX_CLASSES: Dict[str, int] = {}  # component -> the most classes its table holds
    CONFIG_RANGES: Dict[str, Tuple[int, int]] = {}  # integer fields of its config -> [lo, hi]
    CONFIG_REQUIRED: Optional[str] = None  # what a file's config must hold (None: it may have none)

    @classmethod
    def check_config(cls, config) -> None:
        """Check the task's own fields of a file's ``config`` (a ``validation.Meta``)."""
    #: Whether a saved file keeps each component's kernel model (support vectors
    #: and dual coefficients, with a second copy of the feature names) beside
    #: its compiled classifier. Off by default: the classifier alone decides,
    #: and the model, often the larger part of the file, is needed only to
    #: recompile with another method. Set it before saving to keep them; a
    #: loaded file keeps what it had.
    keep_models = False
    compact_sections = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("task"):
            TASKS.register(cls.task, cls)

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

    # -- what a task supplies ----------------------------------------------------------------
    def training_examples(self, data) -> Dict[str, tuple]:
        """Per component name, (feature lists, labels) of the decisions the
        task asks on gold ``data``."""
        raise NotImplementedError

    def _make_runner(self):
        """The task's decision loop over ``self.classifiers_``."""
        raise NotImplementedError

    def _scores(self, data, output) -> dict:
        """The task's figures of ``output`` against gold ``data``."""
        raise NotImplementedError

    def _inputs(self, data):
        """What the runner reads for gold ``data`` (the data itself by default)."""
        return data

    def _run(self, runner, inputs, *, timing: bool = False):
        """The task's output on ``inputs``."""
        return runner.run(inputs, timing=timing)

    def _config(self) -> dict:
        """Fitted, task-specific state saved with the model."""
        return {}

    def _restore(self, config: dict) -> None:
        """Rebuild task-specific state after loading: the task's own parameters
        (``window``, ``ngram``) are saved here, and what ``_config`` adds."""
        names = self._get_param_names()
        for key, value in config.items():
            if key in names:
                setattr(self, key, value)

    # -- components ------------------------------------------------------------------------------
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

    def runner(self):
        """The task's decision loop over the current classifiers (built on first
        use and again after :meth:`compile`); its counters add up decisions and
        time."""
        self._check_fitted()
        current = [self.classifiers_[c] for c in self.COMPONENTS]
        runner = getattr(self, "_runner", None)
        if runner is None or not runner.uses(current):
            runner = self._runner = self._make_runner()
        return runner

    # -- training and compiling ----------------------------------------------------------------
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
            examples = self.training_examples(data)
            while examples:
                # Each component's rows are let go once it is trained, not held while the next one trains.
                name = next(iter(examples))
                feats, labels = examples.pop(name)
                t0 = time.perf_counter()
                # Turning the strings into ids takes seconds on a treebank before the training bar starts.
                status(f"{name}: reading the features of {len(labels):,} training examples")
                est = PAClassifier(degree=self.degree, C=self.C, n_iter=self.n_iter, margin=self.margin,
                                   common_features=self.common_features, random_state=self.random_state, verbose=self.verbose)
                est.fit(feats, labels)
                models[name] = est.model_
                self.training_stats_[name] = {"examples": len(labels), "seconds": time.perf_counter() - t0,
                                              "support_vectors": est.model_.n_support_vectors}
                del feats, labels, est
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
            self._compiled()
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
        self._compiled()
        return self

    def _compiled(self) -> None:
        """Called when new classifiers are in place (a task on the feature
        engine builds its runner, so that its feature keys are saved)."""

    # Sentences per runner call while collecting events: often enough for a progress bar.
    EVENT_BATCH = 2000

    def collect_events(self, data) -> Dict[str, object]:
        """Per component, the feature vectors (CSR over its model's features)
        the pipeline classifies when it runs on ``data``."""
        inputs = list(self._inputs(data))
        runner = self.runner()
        parts = []
        with bar(total=len(inputs), desc="collecting fstrie events", unit=" sentences", delay=0.5) as shown:
            for k in range(0, max(len(inputs), 1), self.EVENT_BATCH):
                batch = inputs[k:k + self.EVENT_BATCH]
                parts.append(runner.run(batch, collect=True)[1:])
                shown.update(len(batch))
        # Sentences are independent, so the batches' rows stacked in order are one run's.
        events = [p[0] if len(p) == 1 else sp.vstack(p, format="csr") for p in zip(*parts)]
        return dict(zip(self.COMPONENTS, events))

    def _check_models(self):
        if not getattr(self, "models_", None):
            if getattr(self, "classifiers_", None):
                raise ConjunctError(f"this {type(self).__name__} was saved with its compiled classifiers only, without "
                                    "the kernel models that recompiling needs: retrain it, and set keep_models = True "
                                    "(--keep-models when training from the command line) before saving to keep them")
            raise ConjunctError(f"this {type(self).__name__} is not trained; call fit() or load a model")

    def _check_fitted(self):
        if not getattr(self, "classifiers_", None):
            raise ConjunctError(f"this {type(self).__name__} is not trained; call fit() or load a model")

    # -- evaluation ------------------------------------------------------------------------------
    def evaluate(self, data: Sequence) -> dict:
        """The task's figures on gold ``data``, and where the time goes: the
        runner's counters over this run (decisions, classifier time, ...),
        sentences and classifications per second, and the time outside the
        classifier."""
        data = self._gold(data)
        runner = self.runner()
        inputs = self._inputs(data)
        before = runner.counters()
        start = time.perf_counter()
        output = self._run(runner, inputs, timing=True)
        seconds = time.perf_counter() - start
        spent = {k: v - before[k] for k, v in runner.counters().items()}
        decisions = sum(v for k, v in spent.items() if k.endswith("decisions"))
        clf_seconds = spent["classifier_seconds"]
        return {
            **self._scores(data, output), "sentences": len(data), **spent, "seconds": seconds,
            "sentences_per_second": len(data) / seconds if seconds else float("inf"),
            "classifications_per_second": decisions / clf_seconds if clf_seconds else float("inf"),
            "other_seconds": seconds - clf_seconds, "method": self.classifiers_[self.COMPONENTS[0]].method,
        }

    #: The figure of :meth:`evaluate` that :meth:`score` returns.
    SCORE_KEY = ""

    def score(self, data: Sequence, y=None) -> float:
        """The task's headline figure on gold ``data`` (``SCORE_KEY`` of
        :meth:`evaluate`: F1, LAS, ...), what scikit-learn's ``cross_val_score``
        and ``GridSearchCV`` maximise. ``y`` is ignored (gold data carry their answers)."""
        gold = self._gold(data)
        return float(self._scores(gold, self._run(self.runner(), self._inputs(gold)))[self.SCORE_KEY])

    def _gold(self, data) -> Sequence:
        """Gold data for :meth:`evaluate`, checked (as a sequence)."""
        return data

    # -- persistence -----------------------------------------------------------------------------------
    def to_container(self):
        self._check_fitted()
        # The base's parameters under "params", the task's own (window, ngram)
        # with its fitted state under "config": the layout files have always had.
        shared = TaskPipeline._get_param_names()
        params = self.get_params()
        meta = {"task": self.task, "params": {k: v for k, v in params.items() if k in shared and k != "method_params"},
                "method_params": _jsonable(self.method_params),
                "config": {**{k: v for k, v in params.items() if k not in shared}, **self._config()}, "components": {}}
        arrays = {}
        models = getattr(self, "models_", None) or {}
        keep = self.keep_models or copying()  # a pickled copy keeps everything
        meta["keep_models"] = bool(self.keep_models)
        for name in self.classifiers_:
            clf = self.classifiers_[name]
            if not keep:
                # Without the model, the names of features no support vector has are of no use.
                clf = clf.without_unused_features()
            clf_entry, clf_arrays = pack(clf, f"classifier.{name}")
            meta["components"][name] = {"classifier": clf_entry}
            arrays.update(clf_arrays)
            if keep and name in models:
                model_entry, model_arrays = pack(models[name], f"model.{name}")
                meta["components"][name]["model"] = model_entry
                arrays.update(model_arrays)
        return self.kind, meta, arrays

    @classmethod
    def check_sections(cls, meta, arrays, where) -> None:
        check_pipeline(meta, arrays, where, TASKS)

    @classmethod
    def from_container(cls, meta: dict, arrays, name: str = "<model>") -> "TaskPipeline":
        task_cls = TASKS.get(meta.get("task"), name)
        try:
            pipeline = task_cls(**meta["params"], method_params=meta.get("method_params"))
            components = meta["components"]
        except (KeyError, TypeError) as e:
            raise ModelFormatError(f"corrupt task pipeline ({e})", name) from None
        # A file saved without its kernel models (the default) has only classifiers.
        pipeline.models_ = {c: unpack(e["model"], arrays, f"model.{c}", name) for c, e in components.items() if "model" in e}
        pipeline.classifiers_ = {c: unpack(e["classifier"], arrays, f"classifier.{c}", name) for c, e in components.items()}
        if pipeline.models_ and len(pipeline.models_) != len(pipeline.classifiers_):
            raise ModelFormatError("corrupt task pipeline (some components have a kernel model, others not)", name)
        pipeline.keep_models = meta.get("keep_models", bool(pipeline.models_)) is True
        if not pipeline.models_:
            pipeline.models_ = _recovered_models(pipeline.classifiers_)
        pipeline._restore(meta.get("config", {}))
        pipeline._loaded(name)
        return pipeline

    def _loaded(self, name: str) -> None:
        """Checks or converts what a loaded file holds (``name`` is its source, for errors)."""

    def info(self) -> dict:
        """A summary of the pipeline (what ``conjunct info`` prints)."""
        self._check_fitted()
        return {"kind": f"task pipeline ({self.task})", **{k: v for k, v in self.get_params().items() if k != "verbose"},
                **{f"{n}: model": repr(m) for n, m in (getattr(self, "models_", None) or {}).items()},
                **{f"{n}: classifier": repr(c) for n, c in self.classifiers_.items()}}


def _recovered_models(classifiers: dict) -> dict:
    """The kernel models that pkb / pki classifiers hold in full (so that a
    file saved without its models can still be recompiled), or {}."""
    from ..models.kernel import KernelModel

    models = {name: KernelModel.from_classifier(clf) for name, clf in classifiers.items()}
    return models if all(m is not None for m in models.values()) else {}


def _jsonable(params: Optional[dict]) -> Optional[dict]:
    if not params:
        return None
    return {k: v for k, v in params.items() if isinstance(v, (int, float, str, bool)) or v is None}
