"""Validation of the estimators' parameters: clear errors naming the parameter."""

from __future__ import annotations

import math

import numpy as np

from .._errors import ConjunctError

__all__ = ["check_int", "check_positive"]


def check_int(name: str, value, low: int, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConjunctError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not (math.isfinite(value) and value > 0):
        raise ConjunctError(f"{name} must be a positive number, got {value!r}")
    return float(value)
