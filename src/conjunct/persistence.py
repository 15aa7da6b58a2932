"""load / save for every kind of object a conjunct model file can hold."""

from __future__ import annotations

import os
from typing import Union

from . import model_io
from ._errors import ModelFormatError

__all__ = ["load", "save", "from_bytes", "pack", "unpack"]


def _kinds():
    from .classifiers import Classifier
    from .features import FeatureIndex
    from .linear import ConjunctiveLinearModel
    from .models import KernelModel
    from .tagging import HMMTagger, PerceptronTagger
    from .tasks.base import TaskPipeline

    return {KernelModel.kind: KernelModel, Classifier.kind: Classifier, FeatureIndex.kind: FeatureIndex,
            ConjunctiveLinearModel.kind: ConjunctiveLinearModel, TaskPipeline.kind: TaskPipeline,
            PerceptronTagger.kind: PerceptronTagger, HMMTagger.kind: HMMTagger}


def _build(kind: str, meta: dict, arrays, name: str):
    cls = _kinds().get(kind)
    if cls is None:
        raise ModelFormatError(f"unknown model kind {kind!r} (written by a newer conjunct?)", name)
    return cls.from_container(meta, arrays, name)


def load(path: Union[str, os.PathLike], *, mmap: bool = False, verify: bool = True):
    """Load a model or compiled classifier from a conjunct model file.

    Parameters
    ----------
    path : str or PathLike
        The file.
    mmap : bool
        Memory-map the file instead of reading it: arrays are views of the map,
        shared between processes that load the same file.
    verify : bool
        Check the file's content hash (reads the file once).

    Raises
    ------
    ModelFormatError
        For a missing, foreign, truncated or corrupt file.
    """
    kind, meta, arrays = model_io.read_container(path, mmap=mmap, verify=verify)
    return _build(kind, meta, arrays, os.fspath(path))


def save(obj, path: Union[str, os.PathLike]) -> None:
    """Save a model or compiled classifier (atomically).

    Parameters
    ----------
    obj : object
        A model, compiled classifier, tagger or pipeline (anything with ``save``).
    path : str or os.PathLike
        The file to write; it is replaced only once the new file is complete.
    """
    obj.save(path)


def from_bytes(data: bytes):
    """Rebuild an object from model-file bytes (the pickle path)."""
    kind, meta, arrays = model_io.loads(data)
    return _build(kind, meta, arrays, "<pickle>")


def pack(obj, prefix: str):
    """(meta entry, arrays) of ``obj`` for storing it inside another object's file:
    its arrays get ``prefix.`` names and the entry records its kind and meta."""
    kind, meta, arrays = obj.to_container()
    return {"kind": kind, "meta": meta}, {f"{prefix}.{k}": v for k, v in arrays.items()}


def unpack(entry: dict, arrays, prefix: str, name: str = "<model>"):
    """The object :func:`pack` stored under ``prefix``."""
    try:
        kind, meta = entry["kind"], entry["meta"]
    except (KeyError, TypeError):
        raise ModelFormatError(f"corrupt nested object {prefix!r}", name) from None
    own = {k[len(prefix) + 1:]: v for k, v in arrays.items() if k.startswith(prefix + ".")}
    return _build(kind, meta, own, name)
