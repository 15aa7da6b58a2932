"""One parameter protocol for every configurable object: scikit-learn's
``get_params`` / ``set_params``.

The parameters of a class are the keyword arguments of its ``__init__``; an
``__init__`` that passes ``**params`` on to its base class adds the base's
(the task pipelines do). Each parameter is stored verbatim as an attribute of
the same name, so ``type(obj)(**obj.get_params())`` is an unfitted copy
(what ``sklearn.base.clone`` does).
"""

from __future__ import annotations

import inspect
from typing import List

__all__ = ["Params"]


class Params:
    """``get_params`` / ``set_params`` / ``__repr__`` from the ``__init__`` signatures."""

    @classmethod
    def _get_param_names(cls) -> List[str]:
        names = set()
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None or klass is object:
                continue
            params = inspect.signature(init).parameters.values()
            names.update(p.name for p in params if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
            if not any(p.kind == p.VAR_KEYWORD for p in params):
                break  # this __init__ takes no more from its bases
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters and their values (``deep`` is accepted
        for scikit-learn; no parameter here is itself an estimator)."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set parameters by name; returns ``self``."""
        valid = self._get_param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}; valid parameters: {', '.join(valid)}")
            setattr(self, key, value)
        return self

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6 asks every estimator for its tags (what
        ``cross_val_score`` / ``GridSearchCV`` / ``clone`` read): these objects
        take sentences or files, not matrices, and validate their own input."""
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    input_tags=InputTags(two_d_array=False, string=True), no_validation=True)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
