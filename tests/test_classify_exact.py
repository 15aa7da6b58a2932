"""PKB equals an independent numpy reference; PKI equals PKB (relative error <= 1e-9)."""

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st

import conjunct
from helpers import assert_margins_close, kernel_models, random_binary_csr, reference_margins

METHODS = ["pkb", "pki"]


@given(kernel_models())
def test_methods_equal_reference(case):
    model, X = case
    expected, scale = reference_margins(model, X)
    for method in METHODS:
        clf = model.compile(method)
        got = clf.decision_function(X)
        assert_margins_close(got, expected, scale)
        # The single-vector call computes the same margins as the batch call.
        for i in range(X.shape[0]):
            assert_margins_close(clf.decision_function_one(X[i].indices), expected[i], scale[i])
        # The C++ decision rule agrees with the numpy one on the same margins.
        labels = clf.predict(X)
        np.testing.assert_array_equal(labels, clf.rule.predict(got))
        assert [clf.predict_one(X[i].indices) for i in range(X.shape[0])] == labels.tolist()


@given(kernel_models(max_outputs=1))
def test_pki_equals_pkb_binary_and_decisions(case):
    model, X = case
    a = model.compile("pkb").decision_function(X)
    b = model.compile("pki").decision_function(X)
    _, scale = reference_margins(model, X)
    assert_margins_close(b, a, scale)
    assert a.shape == (X.shape[0],)


def test_multithreaded_batch_and_shared_instance():
    rng = np.random.default_rng(7)
    S = random_binary_csr(rng, 300, 200, 0.05)
    model = conjunct.KernelModel(S, rng.normal(size=(300, 5)), rng.normal(size=5), degree=3)
    X = random_binary_csr(rng, 500, 250, 0.05)
    clf = model.compile("pki")
    single = clf.decision_function(X)
    np.testing.assert_array_equal(clf.decision_function(X, n_jobs=4), single)
    results = [None] * 4

    def work(t):
        results[t] = clf.decision_function(X)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results:
        np.testing.assert_array_equal(r, single)


def test_string_features_and_predict_one():
    rows = [["a", "b"], ["b", "c"], ["a", "c", "d"]]
    index = conjunct.FeatureIndex.from_data(rows)
    S = index.transform(rows)
    model = conjunct.KernelModel(S, [1.0, -2.0, 0.5], 0.1, degree=2, classes=["neg", "pos"], features=index)
    X = index.transform([["a", "b", "zzz"]])
    expected, _ = reference_margins(model, X)
    for method in METHODS:
        clf = model.compile(method)
        assert clf.decision_function_one(["a", "b", "zzz"])[0] == pytest.approx(expected[0, 0])
        assert clf.decision_function([["a", "b", "zzz"]])[0] == pytest.approx(expected[0, 0])
        assert clf.predict_one(["a", "b"]) == ("pos" if expected[0, 0] > 0 else "neg")


def test_empty_inputs_and_models():
    model = conjunct.KernelModel(sp.csr_matrix((0, 5)), np.zeros((0, 2)), [0.5, -0.5], decision="argmax")
    clf = model.compile("pki")
    np.testing.assert_array_equal(clf.decision_function(sp.csr_matrix((3, 5))), [[0.5, -0.5]] * 3)
    assert clf.decision_function(sp.csr_matrix((0, 5))).shape == (0, 2)
    assert clf.predict([[]]).tolist() == [0]


def test_unknown_method():
    model = conjunct.KernelModel(sp.csr_matrix(np.eye(2)), [1.0, -1.0])
    with pytest.raises(conjunct.ConjunctError, match="unknown classification method"):
        model.compile("magic")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(dual_coef=np.ones(3)), "support vectors"),
        (dict(intercept=[1.0, 2.0]), "outputs"),
        (dict(degree=0), "degree"),
        (dict(decision="ovo", dual_coef=np.ones((2, 2)), intercept=[0, 0], classes=[0, 1, 2]), "needs 3 outputs"),
        (dict(decision="sign", classes=[1, 2, 3]), "exactly 2 classes"),
        (dict(dual_coef=[np.nan, 1.0]), "finite"),
    ],
)
def test_model_validation(kwargs, message):
    args = dict(support_vectors=sp.csr_matrix(np.eye(2)), dual_coef=[1.0, -1.0], intercept=0.0)
    args.update(kwargs)
    with pytest.raises(conjunct.ConjunctError, match=message):
        conjunct.KernelModel(**args)


def test_non_binary_support_vectors_rejected():
    with pytest.raises(conjunct.DataFormatError, match="binary"):
        conjunct.KernelModel(np.array([[0.5, 1.0]]), [1.0])
