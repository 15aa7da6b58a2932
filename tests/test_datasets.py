import numpy as np
import pytest

import conjunct
from conjunct.datasets import make_zipf_data


def test_deterministic_and_prefix_stable():
    a, ya = make_zipf_data(300, seed=3)
    b, yb = make_zipf_data(300, seed=3)
    assert a == b and np.array_equal(ya, yb)
    c, _ = make_zipf_data(300, seed=4)
    assert a != c


def test_shapes_labels_and_zipf():
    feats, y = make_zipf_data(3000, n_classes=4, seed=1)
    assert len(feats) == 3000 and set(np.unique(y)) <= {0, 1, 2, 3}
    index = conjunct.FeatureIndex.from_data(feats)
    counts = np.sort(index.counts)[::-1]
    # Zipfian: a few very frequent features and a long tail of rare ones.
    assert counts[0] > 0.3 * len(feats) and np.mean(counts == 1) > 0.2
    _, yb = make_zipf_data(500, seed=1)
    assert set(np.unique(yb)) == {-1, 1}
    with pytest.raises(ValueError):
        make_zipf_data(10, n_classes=1)


def test_conjunctions_matter():
    """Degree 2 beats degree 1 and degree 3 beats degree 2 on the default settings."""
    SVC = pytest.importorskip("sklearn.svm").SVC
    feats, y = make_zipf_data(5000, seed=0)
    index = conjunct.FeatureIndex.from_data(feats[:3500])
    X = index.transform(feats)
    acc = {}
    for d in (1, 2, 3):
        svc = SVC(kernel="poly", degree=d, gamma=1.0, coef0=1.0).fit(X[:3500], y[:3500])
        acc[d] = svc.score(X[3500:], y[3500:])
    assert acc[2] > acc[1] + 0.05 and acc[3] > acc[2] + 0.02, acc
