"""What the learner decides for itself, and opal's example order.

- ``terminate=None``: early termination where the learner measures it cheaper
  (counted work of blocks of margins, not time): the same model as with
  termination always on or always off, and the same on every run.
- ``shuffle="once"``: one shuffled order for every epoch of a fit (opal's ``-s``).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from conjunct import ConjunctError
from conjunct.training import PAClassifier
from conjunct.training.encoding import FeatureEncoder


def zipf_problem(n=400, V=60, length=8, seed=5):
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    rows = [sorted(rng.choice(V, size=length, replace=False, p=p).tolist()) for _ in range(n)]
    w = rng.normal(size=V)
    y = [1 if w[r].sum() + rng.normal(0, 0.5) > 0 else 0 for r in rows]
    return rows, y


@pytest.mark.parametrize("degree", [2, 3])
def test_adaptive_termination_trains_the_same_model(degree):
    rows, y = zipf_problem()
    fits = {t: PAClassifier(degree, n_iter=4, random_state=1, terminate=t, common_features=10).fit(rows, y)
            for t in (None, True, False)}
    auto = fits[None]
    # 1,600 margins: blocks of 512 timed both ways.
    assert auto.stats_["adaptive_blocks"] >= 3
    assert 0 < auto.stats_["plain_blocks"] < auto.stats_["adaptive_blocks"]
    assert fits[True].stats_["adaptive_blocks"] == 0 and fits[False].stats_["terminated"] == 0
    for t in (True, False):
        other = fits[t]
        assert other.model_.n_support_vectors == auto.model_.n_support_vectors
        np.testing.assert_allclose(other.model_.dual_coef, auto.model_.dual_coef, rtol=0,
                                   atol=1e-9 * np.abs(auto.model_.dual_coef).max())
    # Counted, not timed: the same run twice gives the same bits.
    again = PAClassifier(degree, n_iter=4, random_state=1, common_features=10).fit(rows, y)
    assert again.stats_["plain_blocks"] == auto.stats_["plain_blocks"]
    assert again.stats_["terminated"] == auto.stats_["terminated"]
    np.testing.assert_array_equal(again.model_.dual_coef, auto.model_.dual_coef)


def test_shuffle_once_keeps_one_order():
    rows, y = zipf_problem(n=50)
    clf = PAClassifier(2, n_iter=3, shuffle="once", random_state=0, trace=True).fit(rows, y)
    order = clf.trace_["example"].reshape(3, 50)
    assert np.array_equal(order[0], order[1]) and np.array_equal(order[1], order[2])
    assert not np.array_equal(order[0], np.arange(50))
    every = PAClassifier(2, n_iter=3, shuffle=True, random_state=0, trace=True).fit(rows, y)
    assert not np.array_equal(every.trace_["example"][:50], every.trace_["example"][50:100])
    # The order once shuffled is the model of shuffle=False on the permuted data.
    perm = order[0]
    same = PAClassifier(2, n_iter=3, shuffle=False).fit([rows[i] for i in perm], [y[i] for i in perm])
    np.testing.assert_array_equal(np.sort(same.model_.dual_coef.ravel()), np.sort(clf.model_.dual_coef.ravel()))


def test_shuffle_is_validated():
    with pytest.raises(ConjunctError, match="shuffle"):
        PAClassifier(2, shuffle="twice").fit([["a"], ["b"]], [0, 1])


def test_canonical_matrix_is_not_copied_again():
    """Training input already canonical (int32 indices, sorted, all ones) is used as it is."""
    X = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 0]], dtype=np.float64))
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int64)
    assert FeatureEncoder().columns_of(X, learn=True) is X
    Y = X.copy()
    Y.data[0] = 2.0  # not binary: as_binary_csr refuses it
    with pytest.raises(ConjunctError):
        FeatureEncoder().columns_of(Y, learn=True)
