import math

import pytest
from hypothesis import given, strategies as st

from conjunct import PolyKernel


def brute_subset_weight_sum(gamma, coef0, degree, m):
    k = PolyKernel(gamma, coef0, degree)
    c = k.subset_weights()
    return sum(c[r] * math.comb(m, r) for r in range(degree + 1))


def test_known_subset_weights():
    assert PolyKernel(1, 1, 2).subset_weights() == [1, 3, 2]
    assert PolyKernel(1, 1, 3).subset_weights() == [1, 7, 12, 6]
    assert PolyKernel(1, 1, 4).subset_weights() == [1, 15, 50, 60, 24]
    # (x.y)^d has no constant term and no subsets below... c_d(0) = coef0^d = 0.
    assert PolyKernel(1, 0, 2).subset_weights() == [0, 1, 2]


@given(
    gamma=st.sampled_from([1.0, 0.5, 2.0, 0.25, 3.0]),
    coef0=st.sampled_from([1.0, 0.0, 0.5, 2.0, -1.0]),
    degree=st.integers(1, 7),
    m=st.integers(0, 30),
)
def test_expansion_equals_kernel(gamma, coef0, degree, m):
    """(gamma*m + c)^d == sum_r c_d(r) * C(m, r): the lemma every expansion rests on."""
    direct = (gamma * m + coef0) ** degree
    expanded = brute_subset_weight_sum(gamma, coef0, degree, m)
    assert expanded == pytest.approx(direct, rel=1e-12, abs=1e-12)
    assert PolyKernel(gamma, coef0, degree).value(m) == pytest.approx(direct, rel=1e-15, abs=0)


@given(degree=st.integers(1, 6), m=st.integers(0, 50), gamma=st.sampled_from([1.0, 0.5]), coef0=st.sampled_from([1.0, 0.0]))
def test_increment_and_norm(degree, m, gamma, coef0):
    k = PolyKernel(gamma, coef0, degree)
    assert k.increment(m) == pytest.approx(k.value(m + 1) - k.value(m), rel=1e-15, abs=1e-15)
    assert k.norm(m) == k.value(m)
    # Increments telescope: sum of increments = k(m) - k(0).
    assert sum(k.increment(j) for j in range(m)) == pytest.approx(k.value(m) - k.value(0), rel=1e-12)


def test_bad_degree():
    with pytest.raises(ValueError):
        PolyKernel(1, 1, 0)
