"""The estimators under scikit-learn's conventions: check_estimator with the
declared expected failures (each of which must really fail), sample weights,
Platt-scaled probabilities, binarize, fitted attributes and input checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")
from sklearn.feature_extraction import FeatureHasher  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

from conjunct.datasets import make_zipf_data  # noqa: E402
from conjunct.training import L1LogLinearClassifier, NotFittedError, PAClassifier  # noqa: E402
from conjunct.training.conformance import expected_failed_checks  # noqa: E402


@pytest.mark.parametrize("estimator", [
    PAClassifier(n_iter=2, random_state=0),
    PAClassifier(n_iter=2, random_state=0, binarize=True, probability=True),
    L1LogLinearClassifier(n_iter=2, random_state=0),
    L1LogLinearClassifier(n_iter=2, random_state=0, binarize=True),
], ids=repr)
def test_check_estimator(estimator):
    expected = expected_failed_checks(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    failed = {r["check_name"]: r["exception"] for r in results if r["status"] == "failed"}
    assert not failed, failed
    # Every declared failure does fail: the list cannot hide checks that would pass.
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    assert not passed & set(expected), passed & set(expected)
    assert sum(r["status"] == "passed" for r in results) >= (55 if estimator.binarize else 20)


@pytest.fixture(scope="module")
def zipf():
    feats, y = make_zipf_data(1600, n_classes=2, seed=5)
    return feats[:1000], y[:1000], feats[1000:], y[1000:]


def test_sample_weight_ones_is_unweighted_and_zero_never_updates(zipf):
    X, y, _, _ = zipf
    for cls in (PAClassifier, L1LogLinearClassifier):
        a = cls(n_iter=2, random_state=1).fit(X, y)
        b = cls(n_iter=2, random_state=1).fit(X, y, sample_weight=np.ones(len(y)))
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    # Weight 0 on every negative example: the perceptron only ever moves towards the positive class.
    w = (y == y.max()).astype(float)
    w[np.flatnonzero(y != y.max())[0]] = 1.0  # keep two classes with positive weight
    t = PAClassifier(learner="perceptron", n_iter=1, random_state=0, trace=True, margin="kernel").fit(X, y, sample_weight=w)
    assert not t.trace_["updated"][w[t.trace_["example"]] == 0].any()


def test_sample_weight_scales_the_step_in_every_mode(zipf):
    X, y, Xt, _ = zipf
    w = np.random.default_rng(0).choice([0.0, 0.5, 2.0], size=len(y))
    margins = {}
    for margin in ("kernel", "expanded", "split", "slicing"):
        est = PAClassifier(degree=3, margin=margin, n_iter=2, random_state=3, trace=True).fit(X, y, sample_weight=w)
        margins[margin] = est.decision_function(Xt)
        up = est.trace_["updated"].astype(bool)
        assert np.all(est.trace_["tau"][up] <= est.C * w[est.trace_["example"][up]] + 1e-12)  # PA-I: C scaled
    unweighted = PAClassifier(degree=3, n_iter=2, random_state=3).fit(X, y).decision_function(Xt)
    scale = np.abs(margins["kernel"]).max()
    for m in margins.values():
        np.testing.assert_allclose(m, margins["kernel"], rtol=0, atol=1e-9 * scale)
    assert np.abs(unweighted - margins["kernel"]).max() > 1e-3 * scale  # weights do change the model


def test_predict_proba_is_calibrated(zipf):
    X, y, Xt, yt = zipf
    est = PAClassifier(probability=True, n_iter=5, random_state=0).fit(X, y)
    p = est.predict_proba(Xt)[:, 1]
    pos = yt == est.classes_[1]
    eps = 1e-12
    logloss = -np.mean(np.where(pos, np.log(p + eps), np.log(1 - p + eps)))
    raw = 1.0 / (1.0 + np.exp(-est.decision_function(Xt)))  # an uncalibrated sigmoid of the margin
    raw_logloss = -np.mean(np.where(pos, np.log(raw + eps), np.log(1 - raw + eps)))
    assert logloss < raw_logloss
    # Reliability: in each populated probability bin the observed rate is near the mean prediction.
    bins = np.minimum((p * 5).astype(int), 4)
    for b in range(5):
        inside = bins == b
        if inside.sum() >= 40:
            assert abs(pos[inside].mean() - p[inside].mean()) < 0.12, (b, pos[inside].mean(), p[inside].mean())
    assert np.array_equal(est.predict_proba(Xt).argmax(axis=1) == 1, est.decision_function(Xt) > -est.calibration_[0, 1] / est.calibration_[0, 0])


def test_predict_proba_multiclass_and_availability():
    X, y = make_zipf_data(600, n_classes=3, seed=2)
    est = PAClassifier(probability=True, n_iter=3, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    assert P.shape == (600, 3) and np.allclose(P.sum(axis=1), 1.0)
    assert not hasattr(PAClassifier(), "predict_proba")  # only with probability=True
    with pytest.raises(NotFittedError):
        PAClassifier(probability=True).predict_proba([["a"]])


def test_feature_hasher_output_with_binarize():
    rows = [{"w=bank": 1, "t=NN": 1}, {"w=river": 1, "t=NN": 1}, {"w=bank": 1, "t=VB": 1}] * 20
    y = np.array([0, 1, 0] * 20)
    H = FeatureHasher(n_features=64, input_type="dict").transform(rows)  # values -1 and 1
    with pytest.raises(ValueError, match="binarize=True"):
        PAClassifier().fit(H * 2, y)
    est = PAClassifier(binarize=True, random_state=0).fit(H * 2, y)
    assert est.n_features_in_ == 64 and est.score(H, y) == 1.0


def test_fitted_attributes_and_input_checks():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    A = (rng.random((50, 4)) < 0.5).astype(float)
    y = (A[:, 0] + A[:, 1] > 0).astype(int)
    with pytest.raises(NotFittedError):
        PAClassifier().predict(A)
    df = pd.DataFrame(A, columns=["a", "b", "c", "d"])
    est = PAClassifier(random_state=0).fit(df, y)
    assert est.n_features_in_ == 4 and list(est.feature_names_in_) == ["a", "b", "c", "d"]
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.predict(df), est.predict(A.tolist()))  # a list of float rows is a matrix
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(df.rename(columns={"a": "z"}))
    with pytest.raises(ValueError, match="X has 3 features, but PAClassifier is expecting 4"), \
            pytest.warns(UserWarning, match="does not have valid feature names"):
        est.predict(A[:, :3])
    wider = sp.hstack([sp.csr_matrix(A), sp.csr_matrix(A)]).tocsr()[:, :5]  # sparse: a column unseen in fit
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.predict(sp.csr_matrix(A)), est.predict(wider))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        PAClassifier().fit(A, y + 0.5)
    with pytest.raises(ValueError, match="NaN"):
        PAClassifier().fit(np.where(A > 0, np.nan, 0), y)
    # Feature lists keep their meaning: integer ids, strings.
    ids = [list(np.flatnonzero(r)) for r in A]
    assert PAClassifier(random_state=0).fit(ids, y).n_features_in_ == 4
    s = PAClassifier(random_state=0).fit([[f"f{j}" for j in r] for r in ids], y)
    assert s.n_features_in_ == len(s.feature_index_)
