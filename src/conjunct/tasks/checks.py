"""The task pipelines' sections in a model file (``check_pipeline``, what
``TaskPipeline`` checks before it is built): the checks of every pipeline,
and what each task's runner needs beyond them, as its class states it
(``RULES``, ``NEEDED_CLASS``, ``MAX_CLASSES``, ``CONFIG_RANGES``,
``CONFIG_REQUIRED``, ``check_config``)."""

from __future__ import annotations

import math

from ..io.validation import MAX_COLUMNS, MAX_DEGREE, Arrays
from ..io.validation import MISSING as _MISSING
from ..io.validation import Meta as _Meta
from ..io.validation import Where as _Where
from ..io.validation import describe as _describe
from ..io.validation import is_int as _is_int
from ..models.classifier_checks import METHOD_SPECS
from ..models.labels import labels_array

__all__ = ["check_pipeline"]


_PIPELINE_PARAMS = ("degree", "C", "n_iter", "margin", "common_features", "method", "random_state", "verbose")


def _pipeline(meta: _Meta, arrays: Arrays, where: _Where, tasks) -> None:
    task = meta.str("task", sorted(tasks))
    cls = tasks.get(task, where.name)
    params = meta.obj("params")
    params.only(_PIPELINE_PARAMS)
    params.int("degree", 1, MAX_DEGREE, optional=True)
    params.float("C", 0.0, lo_open=True, optional=True)
    params.int("n_iter", 1, 1 << 30, optional=True)
    params.str("margin", optional=True)
    params.int("common_features", 0, MAX_COLUMNS, optional=True, none=True)
    params.str("method", tuple(METHOD_SPECS), optional=True)
    params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
    params.raw("verbose", optional=True)
    method_params = meta.raw("method_params", optional=True)
    if method_params is not None and method_params is not _MISSING:
        mp = _Meta(method_params, "method_params", where)
        for k, v in mp.d.items():
            if not (v is None or isinstance(v, (str, bool)) or _is_int(v) or (isinstance(v, float) and math.isfinite(v))):
                where.meta_fail(f"method_params.{k}", f"expected a number, string or null, got {_describe(v)}")
    config = meta.obj("config", optional=True)
    if config is not None:
        for key, (lo, hi) in cls.CONFIG_RANGES.items():
            config.int(key, lo, hi, optional=True)
        config.int("skipped_sentences", 0, 1 << 62, optional=True, none=True)
        cls.check_config(config)
    elif cls.CONFIG_REQUIRED:
        where.meta_fail("config", f"missing (a {task} pipeline keeps {cls.CONFIG_REQUIRED} there)")
    components = meta.obj("components")
    expected = tuple(getattr(cls, "COMPONENTS", None) or (cls.COMPONENT,))
    if sorted(components.d) != sorted(expected):
        where.meta_fail("components", f"has {sorted(components.d)}, the {task} task needs {list(expected)}")
    for name in expected:
        entry = components.obj(name)
        for part, kinds in (("model", ("kernel_model", "conjunctive_linear_model")), ("classifier", ("classifier",))):
            if part == "model" and part not in entry.d:
                continue  # saved without its kernel model (TaskPipeline.keep_models)
            nested = entry.obj(part)
            nested.str("kind", kinds)
            inner = nested.obj("meta")
            features = inner.obj("features", optional=True)
            if features is None or features.bool("numeric"):
                where.meta_fail(f"{inner.path}.features", "a task component needs named features")
            rules = cls.RULES
            if rules is not None:
                inner.obj("rule").str("kind", rules)
            if part == "classifier":
                classes = inner.obj("rule").list("classes")
                needed = cls.NEEDED_CLASS.get(name, cls.NEEDED_CLASS.get(None))
                # As the decision rule will hold them: [-0.5, 1] becomes floats, and "1.0" is not "1".
                if needed is not None and needed not in [str(c) for c in labels_array(classes)]:
                    where.meta_fail(f"{inner.path}.rule.classes", f"the {task} task needs a class {needed!r}")
                most = cls.MAX_CLASSES.get(name)
                if most is not None and len(classes) > most:
                    where.meta_fail(f"{inner.path}.rule.classes", f"the {task} task's {name} component has at most "
                                                                  f"{most} classes, got {len(classes)}")


check_pipeline = _pipeline
