"""One copy of each model per worker process: loaded by path, memory-mapped.

Tasks name a model by its path; the first task on a worker loads it with
``mmap=True`` (the arrays are views of the file's pages, which the operating
system shares between every process that maps the file) and the next ones
reuse it. The key includes the file's identity, size and modification and
change times, so a model saved again under the same name is loaded again.
Loaded models are never modified: tasks run on them concurrently (threads of
one worker).

A run pins its model by the content digest the file format carries (bytes
32-64 of the file, checked against the content by every load): the driver
reads it once (:func:`model_digest`) and every task checks the file still
holds it before and after it runs, so a file replaced mid-run fails the run
(:class:`ModelChangedError`) instead of mixing two models' outputs.
"""

from __future__ import annotations

import os
import threading
from typing import Dict, Optional, Tuple

from .._errors import ConjunctError, ModelFormatError

_LOCK = threading.Lock()
_MODELS: Dict[str, Tuple[Tuple, bytes, object]] = {}  # path -> (file identity, digest, object)
#: Loads that went to the file (not the cache) in this process, by path; tests read it.
LOADS: Dict[str, int] = {}


class ModelChangedError(ConjunctError):
    """The model file a run started with was replaced or rewritten during the run."""


def _identity(path: str) -> Tuple[Tuple, Optional[bytes]]:
    """The file's identity (device, inode, size, mtime, ctime: a rename or an
    in-place write changes it) and the digest its preamble holds (None when it
    is too short or not a conjunct model file), both from one open file."""
    from ..io.model_io import _PREAMBLE, MAGIC, open_model_file

    with open_model_file(path, "no such file (on this worker: workers need the model at the same path)") as f:
        st = os.fstat(f.fileno())
        pre = f.read(_PREAMBLE.size)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if len(pre) < _PREAMBLE.size or pre[:len(MAGIC)] != MAGIC:
        return key, None
    return key, _PREAMBLE.unpack(pre)[5]


def model_digest(path) -> bytes:
    """The content digest a model file's preamble holds (what every load checks
    the content against): the model's fingerprint, read without reading the model.

    Parameters
    ----------
    path : str or os.PathLike
        A conjunct model file.

    Returns
    -------
    bytes
        The 32-byte BLAKE2b digest.
    """
    path = os.fspath(path)
    digest = _identity(path)[1]
    if digest is None:
        from ..io.model_io import read_container

        read_container(path, mmap=True)  # raises the load's own error for this file
        raise ModelFormatError("not a conjunct model file", path)  # pragma: no cover - read_container raised
    return digest


def _changed(path: str, expected: bytes, now: Optional[bytes]) -> ModelChangedError:
    what = f"now {now.hex()[:12]}" if now is not None else "now not a complete model file"
    return ModelChangedError(
        f"{path}: the model file changed during the run (content digest {expected.hex()[:12]} at the start, {what}); "
        f"a run uses one model: replace a model between runs, or give --on-model-change finish (the Python API: "
        f"on_model_change='finish') to finish on the version the run started with")


def check_model(path, digest: bytes) -> None:
    """Raise :class:`ModelChangedError` unless the file ``path`` still holds
    the model whose digest is ``digest``.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    digest : bytes
        The digest the run started with (:func:`model_digest`).
    """
    path = os.path.abspath(os.fspath(path))
    try:
        now = _identity(path)[1]
    except ModelFormatError:
        now = None  # removed: a replacement is on its way, or the file is gone; either way not this run's model
    if now != digest:
        raise _changed(path, digest, now)


def shared_model(path, digest: Optional[bytes] = None) -> object:
    """The object the model file ``path`` holds, loaded once in this process
    (memory-mapped, validated like any load).

    Parameters
    ----------
    path : str or os.PathLike
        The model file (the same path on every worker).
    digest : bytes, optional
        The content digest the file must hold (:func:`model_digest`);
        :class:`ModelChangedError` when it holds another model.

    Returns
    -------
    object
        A tagger, pipeline, classifier or model; shared, do not modify it.
    """
    from ..io.persistence import load

    path = os.path.abspath(os.fspath(path))
    for _ in range(3):
        key, now = _identity(path)
        if digest is not None and now != digest:
            raise _changed(path, digest, now)
        with _LOCK:  # one load per file even when several threads ask at once
            entry = _MODELS.get(path)
            if entry is not None and entry[0] == key:
                return entry[2]
            _MODELS.pop(path, None)  # an older version of the file
            for gone in [p for p in _MODELS if not os.path.exists(p)]:
                del _MODELS[gone]  # a run's private copy, removed with its run
            try:
                obj = load(path, mmap=True)
            except ConjunctError:
                # a file rewritten in place (cp) while it loads reads as corrupt: that is a changed
                # model, not a bad one; the next round reports it (or loads the finished file)
                if _identity(path)[0] != key:
                    continue
                raise
            # the load opened the path itself: it read this version only if the file is unchanged since
            if _identity(path)[0] == key:
                _MODELS[path] = (key, now, obj)
                LOADS[path] = LOADS.get(path, 0) + 1
                return obj
    raise ConjunctError(f"{path}: the model file keeps changing while it is loaded; load it when it is finished")
