"""Helpers shared by the commands."""

from __future__ import annotations

from typing import Optional

from .._errors import ConjunctError

METHODS = ["pkb", "pki", "pke", "split", "fstrie", "adaptive"]


def add_pipeline_training_options(parser, extra) -> None:
    """The training options of the pipeline commands (chunk, segment):
    degree, C, epochs, then ``extra(parser)``'s own, then method, sentences,
    seed and quiet."""
    parser.add_argument("-d", "--degree", type=int, default=2, help="polynomial kernel degree (default 2)")
    parser.add_argument("-C", "--C", dest="C", type=float, default=1.0, help="PA-I aggressiveness (default 1)")
    parser.add_argument("-i", "--iterations", type=int, default=10, help="epochs (default 10)")
    extra(parser)
    parser.add_argument("--method", choices=METHODS, default="fstrie", help="classification method (default fstrie)")
    parser.add_argument("--max-sentences", type=int, default=None, help="train on the first N sentences only")
    parser.add_argument("--seed", type=int, default=0, help="shuffling seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no summary on standard error")


def load_pipeline(path: str, cls, what: str, method: Optional[str], events):
    """The ``cls`` pipeline (chunker, segmenter) saved in ``path``, recompiled
    with ``method`` (fstrie events from ``events``) when that differs."""
    from ..persistence import load

    pipeline = load(path)
    if not isinstance(pipeline, cls):
        raise ConjunctError(f"{path}: holds a {type(pipeline).__name__}, not a {what}")
    if method and method != pipeline.classifier_.method:
        pipeline.compile(method, events=events)
    return pipeline


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
