"""One copy of each model per worker process: loaded by path, memory-mapped.

Tasks name a model by its path; the first task on a worker loads it with
``mmap=True`` (the arrays are views of the file's pages, which the operating
system shares between every process that maps the file) and the next ones
reuse it. The key includes the file's identity, size and modification time,
so a model saved again under the same name is loaded again. Loaded models are
never modified: tasks run on them concurrently (threads of one worker).
"""

from __future__ import annotations

import os
import threading
from typing import Dict, Tuple

from .._errors import ModelFormatError

_LOCK = threading.Lock()
_MODELS: Dict[Tuple, object] = {}
#: Loads that went to the file (not the cache) in this process, by path; tests read it.
LOADS: Dict[str, int] = {}


def _key(path: str) -> Tuple:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ModelFormatError("no such file (on this worker: workers need the model at the same path)", path) from None
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def shared_model(path) -> object:
    """The object the model file ``path`` holds, loaded once in this process
    (memory-mapped, validated like any load).

    Parameters
    ----------
    path : str or os.PathLike
        The model file (the same path on every worker).

    Returns
    -------
    object
        A tagger, pipeline, classifier or model; shared, do not modify it.
    """
    from ..persistence import load

    path = os.path.abspath(os.fspath(path))
    key = _key(path)
    with _LOCK:  # one load per file even when several threads ask at once
        obj = _MODELS.get(key)
        if obj is None:
            for old in [k for k in _MODELS if k[0] == path]:
                del _MODELS[old]  # an older version of the file
            obj = _MODELS[key] = load(path, mmap=True)
            LOADS[path] = LOADS.get(path, 0) + 1
        return obj
