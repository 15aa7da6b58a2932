"""Helpers shared by the commands."""

from __future__ import annotations

from typing import Optional

from .._errors import ConjunctError


def load_any(path: str, *, binarize: bool = False, mmap: bool = False):
    """A conjunct file's object, or a foreign model file imported on the fly."""
    from ..importers import import_model, sniff_model_format

    if sniff_model_format(path) == "conjunct":
        from ..persistence import load

        return load(path, mmap=mmap)
    return import_model(path, binarize=binarize)


def as_classifier(obj, method: Optional[str]):
    """A compiled classifier from a model (compiled with ``method``) or a classifier."""
    from ..classifiers import Classifier

    if isinstance(obj, Classifier):
        if method and method != obj.method:
            raise ConjunctError(f"the file holds a compiled {obj.method} classifier; it cannot be run as {method}")
        return obj
    if not hasattr(obj, "compile"):
        raise ConjunctError(f"the file holds a {type(obj).__name__}, not a model or classifier")
    return obj.compile(method) if method else obj.compile()
