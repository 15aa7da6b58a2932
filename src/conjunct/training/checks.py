"""Validation of the estimators' parameters: clear errors naming the parameter."""

from __future__ import annotations

import math

import numpy as np

from .._errors import ConjunctError

__all__ = ["check_int", "check_positive", "check_kernel_range", "KERNEL_RANGE"]


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


#: Kernel values (gamma * m + coef0) ** degree must stay within [1/KERNEL_RANGE,
#: KERNEL_RANGE]: margins add many of them, PA steps divide by them and the
#: slicing bounds multiply them, so the training arithmetic keeps headroom
#: below the float limit (about 1e308) and above underflow.
KERNEL_RANGE = 1e100


def check_kernel_range(degree: int, gamma: float, coef0: float, max_length: int) -> None:
    """Refuse kernel parameters whose values overflow or vanish in training.

    The largest kernel value is ``(gamma * L + coef0) ** degree`` for the
    longest example (L features); the smallest non-zero one is at an overlap of
    one feature (or coef0 ** degree). Both must lie in ``[1/KERNEL_RANGE,
    KERNEL_RANGE]``; the error names the parameter to change.
    """
    def log10_k(m: int) -> float:
        base = gamma * m + coef0
        return degree * math.log10(base) if base > 0 else -math.inf

    limit = math.log10(KERNEL_RANGE)
    params = f"degree={degree}, gamma={gamma:g}, coef0={coef0:g}"
    top = log10_k(max(int(max_length), 1))
    if top > limit:
        # Blame degree when the base is moderate, else the larger of gamma * L and coef0.
        base = gamma * max(int(max_length), 1) + coef0
        culprit = "degree" if base <= 1e3 else ("gamma" if gamma * max(int(max_length), 1) >= coef0 else "coef0")
        raise ConjunctError(
            f"{culprit} is too large: with {params} the largest kernel value (gamma * {max_length} + coef0) ** degree "
            f"is about 1e{top:.0f}, past the {KERNEL_RANGE:g} training keeps finite (the longest example has "
            f"{max_length} features); lower {culprit}")
    low = log10_k(1) if coef0 == 0 else min(log10_k(1), degree * math.log10(coef0))
    if low < -limit:
        culprit = "degree" if gamma + coef0 >= 1e-3 else "gamma"
        raise ConjunctError(
            f"{culprit} makes kernel values vanish: with {params} a one-feature overlap gives "
            f"(gamma + coef0) ** degree = about 1e{low:.0f}, under the {1 / KERNEL_RANGE:g} training can resolve; "
            f"raise gamma or coef0, or lower degree")
