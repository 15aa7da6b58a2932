"""What the text pipelines share: named stages (each a saveable tagger or task
pipeline), swapping a stage, and one model file whose sections are the stages'
sections under ``stage.<name>.`` prefixes.

A language's pipeline subclasses :class:`TextPipeline`, names its ``lang`` and
``STAGES`` (which may be absent: ``OPTIONAL``), and implements ``fit`` and
``analyze``. The per-sentence work stays in the stages' own C++ loops
(staggered decoding, the parsers' and the chunker's runners); a text pipeline
only hands one stage's output to the next.
"""

from __future__ import annotations

import copy
from typing import Dict, Optional, Tuple

from .._errors import ConjunctError, ModelFormatError
from .._params import Params
from ..budget import check_memory
from ..io.persistence import Registry, Saveable, pack, unpack
from ..io.validation import Arrays, Meta, Where

__all__ = ["TextPipeline", "LANGUAGES", "clone_stage"]

# Where each language's pipeline is defined (the class registers itself on import).
LANGUAGES = Registry("text pipeline language", {
    "en": "conjunct.analysis.english",
    "ja": "conjunct.analysis.japanese",
})


def clone_stage(stage):
    """An unfitted copy of ``stage`` with the same parameters (scikit-learn's ``clone``)."""
    return type(stage)(**stage.get_params())


class TextPipeline(Saveable, Params):
    """Base of the text-to-analysis pipelines: a chain of stages saved as one file.

    Subclasses name ``lang`` and ``STAGES``; their ``__init__`` takes each stage
    object (``None``: the stage's default) plus ``folds`` (the k of the
    jackknifed training tags), ``random_state`` and ``verbose``.
    """

    kind = "text_pipeline"
    compact_sections = True
    languages = LANGUAGES  # for loading and validation
    lang: str = ""
    STAGES: Tuple[str, ...] = ()
    OPTIONAL: Tuple[str, ...] = ()
    #: Per stage, the task of its task pipeline (None: a tagger), as files hold them.
    STAGE_TASKS: Dict[str, Optional[str]] = {}
    #: Peak bytes the analysis holds per token (per character of raw text), an upper
    #: estimate of what the small models of the test suite take (2-3.5 KiB).
    BYTES_PER_TOKEN = 4096

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("lang"):
            LANGUAGES.register(cls.lang, cls)

    # -- stages -------------------------------------------------------------------------------
    def stages(self) -> Dict[str, object]:
        """The stage objects by name (``None`` for an absent optional stage)."""
        return {name: getattr(self, name) for name in self.STAGES}

    def replace(self, **stages) -> "TextPipeline":
        """A copy of this pipeline with the named stages swapped for the given
        objects (fitted ones are used as they are; the others keep theirs)."""
        unknown = sorted(set(stages) - set(self.STAGES))
        if unknown:
            raise ConjunctError(f"{type(self).__name__} has no stage {unknown[0]!r} (stages: {', '.join(self.STAGES)})")
        out = copy.copy(self)
        for name, stage in stages.items():
            setattr(out, name, stage)
        return out

    def _check_fitted(self) -> None:
        for name in self.STAGES:
            stage = getattr(self, name)
            if stage is None:
                if name in self.OPTIONAL:
                    continue
                raise ConjunctError(f"this {type(self).__name__} is not trained (it has no {name} stage); call fit() or load a model")
            if not _is_fitted(stage):
                raise ConjunctError(f"the {name} stage of this {type(self).__name__} is not trained; call fit() or load a model")

    def _check_memory(self, sentences, unit: str = "tokens") -> None:
        """Refuse past the memory budget before any stage allocates (lengths are tokens or characters)."""
        n = sum(map(len, sentences))
        check_memory(n * self.BYTES_PER_TOKEN, f"analysing {len(sentences):,} sentence{'s' * (len(sentences) != 1)} ({n:,} {unit})",
                     "analyse fewer or shorter sentences at a time (conjunct analyze: --batch-size, "
                     "--max-sentence-length)")

    # -- persistence ------------------------------------------------------------------------------
    def to_container(self):
        self._check_fitted()
        params = {k: v for k, v in self.get_params().items() if k not in self.STAGES}
        meta: dict = {"lang": self.lang, "params": params, "stages": {}}
        arrays = {}
        for name, stage in self.stages().items():
            if stage is None:
                meta["stages"][name] = None
                continue
            entry, stage_arrays = pack(stage, f"stage.{name}")
            meta["stages"][name] = entry
            arrays.update(stage_arrays)
        return self.kind, meta, arrays

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Arrays, where: Where) -> None:
        _text_pipeline(meta, arrays, where, LANGUAGES)

    @classmethod
    def from_container(cls, meta: dict, arrays, name: str = "<model>") -> "TextPipeline":
        lang_cls = LANGUAGES.get(meta.get("lang"), name)
        try:
            stages = {s: (None if e is None else unpack(e, arrays, f"stage.{s}", name)) for s, e in meta["stages"].items()}
            return lang_cls(**stages, **meta["params"])
        except (KeyError, TypeError) as e:
            raise ModelFormatError(f"corrupt text pipeline ({e})", name) from None

    def info(self) -> dict:
        """A summary of the pipeline (what ``conjunct info`` prints)."""
        self._check_fitted()
        out = {"kind": f"text pipeline ({self.lang})", "folds": self.folds}
        for name, stage in self.stages().items():
            out[name] = "none" if stage is None else _describe(stage)
        return out


def _is_fitted(stage) -> bool:
    return bool(getattr(stage, "classifiers_", None)) or hasattr(stage, "model_") and not hasattr(stage, "models_")


def _describe(stage) -> str:
    task = getattr(stage, "task", None)
    return f"{type(stage).__name__}" + (f" ({task}, degree {stage.degree})" if task else "")


def check_stage(stage, name: str, types: tuple, task: Optional[str] = None) -> None:
    """``stage`` is one of ``types`` (and, for a task pipeline, of ``task``)."""
    if not isinstance(stage, types):
        raise ConjunctError(f"the {name} stage must be a {' or '.join(t.__name__ for t in types)}, "
                            f"not a {type(stage).__name__}")
    if task is not None and getattr(stage, "task", None) != task:
        raise ConjunctError(f"the {name} stage must be a {task} pipeline, not {getattr(stage, 'task', None)!r}")


_TAGGER_KINDS = ("perceptron_tagger", "hmm_tagger")
_TEXT_PARAMS = ("folds", "random_state", "verbose")


def _text_pipeline(meta: Meta, arrays: Arrays, where: Where, languages: Registry) -> None:
    lang = meta.str("lang", sorted(languages))
    lang_cls = languages.get(lang, where.name)
    params = meta.obj("params")
    params.only(_TEXT_PARAMS)
    params.int("folds", 2, 1 << 20)
    params.int("random_state", -(1 << 63), (1 << 63) - 1, optional=True, none=True)
    params.raw("verbose", optional=True)
    stages = meta.obj("stages")
    # Per stage: its kinds, its task (for a task pipeline) and whether it may be absent.
    spec = {name: (_TAGGER_KINDS if task is None else ("task_pipeline",), task, name in lang_cls.OPTIONAL)
            for name, task in lang_cls.STAGE_TASKS.items()}
    # A file written before the tokenizer existed has no entry for it.
    required = sorted(n for n in spec if not (n == "tokenizer" and n not in stages.d))
    if sorted(stages.d) != required:
        where.meta_fail("stages", f"has {sorted(stages.d)}, a {lang} text pipeline needs {sorted(spec)}")
    for name, (kinds, task, optional) in spec.items():
        if optional and (name not in stages.d or stages.raw(name) is None):
            continue
        entry = stages.obj(name)
        entry.str("kind", kinds)
        inner = entry.obj("meta")
        if task is not None:
            inner.str("task", (task,))
        else:
            labels = inner.list("labels")
            if not all(isinstance(y, str) and "|" in y for y in labels):
                where.meta_fail(f"{inner.path}.labels", "a text pipeline's tagger has joint UPOS|XPOS labels")
        prefix = f"stage.{name}."
        if not any(k.startswith(prefix) for k in arrays):
            where.meta_fail(f"stages.{name}", f"no sections under {prefix!r}")
