"""The l1-regularised log-linear baseline: the C++ trainer equals a literal
reference of Tsuruoka et al.'s SGD with cumulative penalty, and the estimator's
model computes the margins it was trained with."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

from conjunct import ConjunctError, ConjunctiveLinearModel, _core
from conjunct.datasets import make_zipf_data
from conjunct.models.linear import brute_force_margins
from conjunct.training import L1LogLinearClassifier
from train_reference import reference_l1


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 25))
    V = draw(st.integers(1, 12))
    K = draw(st.sampled_from([1, 3]))
    rows = [sorted(rng.choice(V, size=int(rng.integers(0, min(V, 6) + 1)), replace=False).tolist()) for _ in range(n)]
    labels = (rng.choice([-1, 1], size=n) if K == 1 else rng.integers(0, K, size=n)).tolist()
    order = np.concatenate([rng.permutation(n) for _ in range(draw(st.integers(1, 3)))]).tolist()
    kw = dict(K=K, degree=draw(st.integers(1, 3)), C=draw(st.sampled_from([0.0, 0.1, 1.0, 5.0])),
              eta0=draw(st.sampled_from([1.0, 0.3])), decay=draw(st.sampled_from([0.85, 1.0])), n_examples=n)
    return rows, labels, order, V, kw


@given(problems())
def test_trainer_equals_reference(problem):
    rows, labels, order, V, kw = problem
    w_ref, b_ref = reference_l1(rows, labels, order, **kw)
    t = _core.L1Trainer(degree=kw["degree"], n_outputs=kw["K"], C=kw["C"], eta0=kw["eta0"], decay=kw["decay"])
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    indices = np.array([f for r in rows for f in r], dtype=np.int32)
    t.run(indptr=indptr, indices=indices, labels=np.asarray(labels, dtype=np.int32), order=np.asarray(order, dtype=np.int64),
          n_examples=kw["n_examples"], n_features=V, n_outputs=kw["K"])
    c_ptr, c_idx, w, _ = t.export(True, kw["K"])
    got = {tuple(c_idx[c_ptr[i]:c_ptr[i + 1]].tolist()): w[i] for i in range(len(c_ptr) - 1)}
    assert got.keys() == w_ref.keys()
    for key, value in w_ref.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.bias, b_ref, rtol=1e-9, atol=1e-12)
    # Margins of the live trainer: bias + every stored conjunction of the row.
    m = t.margins(indptr, indices, kw["K"])
    for i, r in enumerate(rows):
        from itertools import combinations
        expected = b_ref + sum((w_ref[c] for k in range(1, kw["degree"] + 1) for c in combinations(r, k)), np.zeros(kw["K"]))
        np.testing.assert_allclose(m[i], expected, rtol=1e-9, atol=1e-12)


@pytest.fixture(scope="module")
def zipf():
    feats, y = make_zipf_data(1500, seed=8)
    return feats[:1000], y[:1000], feats[1000:], y[1000:]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_estimator_model_is_exact_and_sparse(n_classes):
    feats, y = make_zipf_data(900, n_classes=n_classes, seed=n_classes)
    Xtr, ytr, Xte, yte = feats[:600], y[:600], feats[600:], y[600:]
    clf = L1LogLinearClassifier(2, C=0.5, n_iter=5, random_state=0).fit(Xtr, ytr)
    model = clf.model_
    assert isinstance(model, ConjunctiveLinearModel) and model.degree <= 2
    assert np.all(np.any(model.weights != 0, axis=1))  # zero conjunctions are left out
    assert clf.stats_["nonzero"] < clf.stats_["conjunctions"]
    X = model.features.transform(Xte)
    m = clf.decision_function(Xte)
    np.testing.assert_allclose(brute_force_margins(model, X).reshape(m.shape), m, rtol=1e-12, atol=1e-12)
    assert clf.score(Xte, yte) > (0.6 if n_classes == 2 else 0.45)
    p = clf.predict_proba(Xte)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[p.argmax(axis=1)], clf.predict(Xte))


def test_stronger_penalty_gives_sparser_models(zipf):
    Xtr, ytr, _, _ = zipf
    sizes = [L1LogLinearClassifier(2, C=C, n_iter=3, random_state=0).fit(Xtr, ytr).model_.n_conjunctions
             for C in (0.0, 1.0, 20.0)]
    assert sizes[0] > sizes[1] > sizes[2]


def test_pickle_resume_and_partial_fit(zipf):
    Xtr, ytr, Xte, _ = zipf
    clf = L1LogLinearClassifier(3, n_iter=2, random_state=1).fit(Xtr, ytr)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.decision_function(Xte), clf.decision_function(Xte))
    clf.partial_fit(Xtr[:300], ytr[:300], n_examples=len(Xtr))
    copy.partial_fit(Xtr[:300], ytr[:300], n_examples=len(Xtr))
    np.testing.assert_allclose(copy.decision_function(Xte), clf.decision_function(Xte), rtol=1e-12, atol=1e-12)
    one = L1LogLinearClassifier(2, n_iter=1, shuffle=False).fit(Xtr, ytr)
    inc = L1LogLinearClassifier(2, shuffle=False).partial_fit(Xtr, ytr, classes=[-1, 1])
    np.testing.assert_array_equal(inc.decision_function(Xte), one.decision_function(Xte))


def test_validation(zipf):
    Xtr, ytr, _, _ = zipf
    for kw in (dict(degree=0), dict(C=-1.0), dict(eta0=0.0), dict(decay=1.5), dict(n_iter=0)):
        with pytest.raises(ConjunctError):
            L1LogLinearClassifier(**kw).fit(Xtr[:20], ytr[:20])
    with pytest.raises(ConjunctError, match="classes"):
        L1LogLinearClassifier().partial_fit(Xtr[:20], ytr[:20])
    with pytest.raises(ConjunctError, match="not fitted"):
        L1LogLinearClassifier().decision_function(Xtr[:2])
