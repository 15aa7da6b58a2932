"""The file layer: which class builds each kind of object a model file holds,
and load / save / pickling for all of them.

Saveable classes derive from :class:`Saveable` and name their ``kind``; the
class registers itself here when its module is imported. A file can be read
before that module is imported: :data:`KINDS` knows which module defines each
kind and imports it then, so loading a kernel model imports the model code
only, never the pipelines or the taggers. This module imports no saveable
class itself, so every other module may import it.
"""

from __future__ import annotations

import contextvars
import importlib
import os
from typing import Any, Dict, Iterator, Mapping, Tuple, Union

import numpy as np

from . import model_io
from .._errors import ModelFormatError
from .validation import Meta, Where, validate

__all__ = ["Saveable", "Registry", "KINDS", "load", "save", "build", "from_bytes", "pack", "unpack"]

Arrays = Dict[str, np.ndarray]
Container = Tuple[str, Dict[str, Any], Arrays]


class Registry:
    """Names -> classes, filled by the classes themselves when their module is
    imported; ``modules`` says where each known name is defined, so a lookup
    imports that module on first use."""

    def __init__(self, what: str, modules: Dict[str, str]) -> None:
        self.what = what
        self.modules = dict(modules)
        self._classes: Dict[str, type] = {}

    def register(self, name: str, cls: type) -> None:
        old = self._classes.get(name)
        if old is not None and old is not cls and old.__qualname__ != cls.__qualname__:
            raise TypeError(f"{self.what} {name!r} is already registered by {old.__qualname__}")
        self._classes[name] = cls

    def get(self, name: object, source: str = "<model>") -> Any:
        """The class registered as ``name``; ModelFormatError naming ``source`` if none is."""
        if name not in self._classes and isinstance(name, str) and name in self.modules:
            importlib.import_module(self.modules[name])
        cls = self._classes.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ModelFormatError(f"unknown {self.what} {name!r} (written by a newer conjunct?)", source)
        return cls

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._classes or name in self.modules

    def __iter__(self) -> Iterator[str]:
        """The known names."""
        return iter(sorted(set(self._classes) | set(self.modules)))


# Where each kind of file object is defined (the class registers itself on import).
KINDS = Registry("model kind", {
    "feature_index": "conjunct.features.index",
    "kernel_model": "conjunct.models.kernel",
    "conjunctive_linear_model": "conjunct.models.linear",
    "classifier": "conjunct.models.classifiers",
    "task_pipeline": "conjunct.tasks.base",
    "perceptron_tagger": "conjunct.tagging.taggers",
    "hmm_tagger": "conjunct.tagging.hmm",
    "text_pipeline": "conjunct.analysis.stages",
})


# Set while an object is written for a copy (pickle, copy.copy, a Dask worker's)
# rather than for a file: a copy is the same object, so nothing is left out.
_COPYING: "contextvars.ContextVar[bool]" = contextvars.ContextVar("conjunct_copying", default=False)


def copying() -> bool:
    """Whether ``to_container`` is writing a copy (pickle) rather than a file."""
    return _COPYING.get()


class Saveable:
    """Mixin of every object a model file holds: ``save``, pickling through the
    file's bytes, and registration of the class under its ``kind``.

    A subclass that names a ``kind`` implements ``to_container() -> (kind,
    meta, arrays)`` and the classmethod ``from_container(meta, arrays, name)``.
    """

    kind: str = ""
    #: Whether files of this kind store integer sections narrowed where exact
    #: (:mod:`conjunct.io._narrow`): the pipelines, the files people ship, do.
    compact_sections = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("kind"):
            KINDS.register(cls.kind, cls)

    def to_container(self) -> Container:
        raise NotImplementedError

    @classmethod
    def from_container(cls, meta: Dict[str, Any], arrays: Arrays, name: str = "<model>") -> Any:
        raise NotImplementedError

    @classmethod
    def check_sections(cls, meta: Meta, arrays: Arrays, where: Where) -> None:
        """Check the header entry and sections of a file object of this kind
        (with the tools of :mod:`conjunct.io.validation`) before ``from_container``
        sees them; :class:`~conjunct._errors.ModelFormatError` on a problem."""
        raise NotImplementedError(f"{cls.__qualname__} does not check its sections")

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write this object to ``path`` (atomically) in conjunct's model file format;
        :func:`conjunct.load` reads it back."""
        model_io.write_container(path, *self.to_container(), compact=self.compact_sections)

    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        token = _COPYING.set(True)
        try:
            data = model_io.dumps(*self.to_container())
        finally:
            _COPYING.reset(token)
        return (from_bytes, (data,))


def build(kind: str, meta: Dict[str, Any], arrays: Arrays, name: str = "<model>") -> Any:
    """The object a container holds: the class registered for ``kind`` builds
    it from ``meta`` and ``arrays`` (``name`` is the source, for errors)."""
    try:
        cls = KINDS.get(kind, name)
    except ModelFormatError as e:
        raise model_io.staged(ModelFormatError(f"header field 'kind': {e.problem}", name), "reading the header") from None
    restore = getattr(cls, "restore_sections", None)
    if restore is not None:  # sections the file left out because they are recomputed exactly (a kind's choice)
        try:
            arrays = restore(meta, arrays, name)
        except ModelFormatError as e:
            raise model_io.staged(e, "checking sections") from None
    try:
        validate(kind, meta, arrays, name, cls)  # every section, before any object (or C++) sees it
    except ModelFormatError as e:
        raise model_io.staged(e, "checking sections") from None
    try:
        return cls.from_container(meta, arrays, name)
    except ModelFormatError as e:
        raise model_io.staged(e, f"building the {kind.replace('_', ' ')}") from None


def load(path: Union[str, "os.PathLike[str]"], *, mmap: bool = False, verify: bool = True) -> Any:
    """Load an object (model, classifier, pipeline, tagger, feature index) from a
    conjunct model file.

    Foreign model files (LIBSVM, SVMlight, TinySVM, opal, conjunctive linear
    text) are not conjunct files: :func:`conjunct.import_model` reads those
    (and conjunct files too), and ``conjunct convert`` turns them into one.

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
    # The digest is computed on another thread while the sections are checked and the object built (every
    # check holds for any file, digest or not); any error waits for it, so a damaged file is reported as such.
    kind, meta, arrays, verified = model_io.read_container_hashing(path, mmap=mmap, verify=verify)
    try:
        obj = build(kind, meta, arrays, os.fspath(path))
    except BaseException:
        verified()
        raise
    verified()
    return obj


def save(obj: object, path: Union[str, "os.PathLike[str]"]) -> None:
    """Save a model or compiled classifier (atomically).

    Parameters
    ----------
    obj : object
        A model, compiled classifier, tagger or pipeline (anything with ``save``).
    path : str or os.PathLike
        The file to write; it is replaced only once the new file is complete.
    """
    if not isinstance(obj, Saveable):
        raise TypeError(f"a {type(obj).__name__} cannot be saved in a conjunct model file")
    obj.save(path)


def from_bytes(data: bytes) -> Any:
    """Rebuild an object from model-file bytes (the pickle path)."""
    kind, meta, arrays = model_io.loads(data)
    return build(kind, meta, arrays, "<pickle>")


def pack(obj: Saveable, prefix: str) -> Tuple[Dict[str, Any], Arrays]:
    """(meta entry, arrays) of ``obj`` for storing it inside another object's file:
    its arrays get ``prefix.`` names and the entry records its kind and meta."""
    kind, meta, arrays = obj.to_container()
    return {"kind": kind, "meta": meta}, prefixed(arrays, prefix)


def unpack(entry: Dict[str, Any], arrays: Arrays, prefix: str, name: str = "<model>") -> Any:
    """The object :func:`pack` stored under ``prefix``."""
    try:
        kind, meta = entry["kind"], entry["meta"]
    except (KeyError, TypeError):
        raise ModelFormatError(f"corrupt nested object {prefix!r}", name) from None
    return build(kind, meta, nested(arrays, prefix), name)


def nested(arrays: Mapping[str, np.ndarray], prefix: str) -> Arrays:
    """The arrays stored under ``prefix.`` with that prefix removed."""
    cut = len(prefix) + 1
    return {k[cut:]: v for k, v in arrays.items() if k.startswith(prefix + ".")}


def prefixed(arrays: Arrays, prefix: str) -> Arrays:
    """``arrays`` renamed under ``prefix.`` (the inverse of :func:`nested`)."""
    return {f"{prefix}.{k}": v for k, v in arrays.items()}
