"""``scipy.sparse`` imported on first use.

Importing it takes about a third of the time from ``import conjunct`` to a
loaded pipeline's first sentence (it pulls in numpy.f2py and numpy.testing),
and analysing text never needs it: modules hold this stand-in as ``sp``, and
the first attribute read imports the real module.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["sparse"]


class _OnFirstUse:
    def __init__(self, name: str) -> None:
        self.__dict__["_name"] = name

    def __getattr__(self, attr: str) -> Any:  # only for names not copied yet
        module = importlib.import_module(self.__dict__["_name"])
        self.__dict__.update(vars(module))  # later reads are plain attribute reads
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<{self.__dict__['_name']}, imported on first use>"


sparse: Any = _OnFirstUse("scipy.sparse")
