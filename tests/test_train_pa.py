"""PAClassifier: the estimator API, inputs, partial_fit, pickling, budgets,
progress reporting, and accuracy on real data next to LIBSVM."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import conjunct
from conjunct import ConjunctError, DataFormatError
from conjunct.datasets import make_zipf_data
from conjunct.models.linear import brute_force_margins
from conjunct.training import PAClassifier, expand
from helpers import assert_margins_close, reference_margins


@pytest.fixture(scope="module")
def zipf():
    feats, y = make_zipf_data(1500, seed=3)
    return feats[:1000], y[:1000], feats[1000:], y[1000:]


@pytest.fixture(scope="module")
def zipf4():
    feats, y = make_zipf_data(1200, n_classes=4, seed=4)
    return feats[:900], y[:900], feats[900:], y[900:]


def same_model(a: conjunct.KernelModel, b: conjunct.KernelModel, tol: float = 1e-9):
    """Same support vectors (as sets of feature names / columns) and alpha rows within tol."""
    def keyed(m):
        S = m.support_vectors
        names = m.features.name if m.features is not None else str
        return {tuple(sorted(names(int(c)) for c in S.indices[S.indptr[i]:S.indptr[i + 1]])): m.dual_coef[i]
                for i in range(S.shape[0])}
    ka, kb = keyed(a), keyed(b)
    assert ka.keys() == kb.keys()
    scale = max(np.abs(a.dual_coef).max(), 1e-300)
    for k in ka:
        np.testing.assert_allclose(ka[k], kb[k], rtol=0, atol=tol * scale)
    np.testing.assert_allclose(a.intercept, b.intercept, rtol=0, atol=tol * max(scale, 1.0))


def test_fit_predict_score_binary(zipf):
    Xtr, ytr, Xte, yte = zipf
    clf = PAClassifier(3, random_state=0)
    assert clf.fit(Xtr, ytr) is clf
    np.testing.assert_array_equal(clf.classes_, [-1, 1])
    assert clf.score(Xte, yte) > 0.75
    m = clf.decision_function(Xte)
    assert m.shape == (len(Xte),)
    np.testing.assert_array_equal(clf.predict(Xte), np.where(m > 0, 1, -1))
    model = clf.model_
    assert isinstance(model, conjunct.KernelModel) and model.degree == 3 and model.rule.kind == "sign"
    assert clf.n_support_ == model.n_support_vectors == clf.stats_["support_vectors"]
    # The training counts travel with the model: the classifiers' frequency ranks.
    assert not model.features.is_numeric
    assert model.features.counts.sum() == sum(len(set(r)) for r in Xtr)
    # Every classifier accepts the model and computes the same margins.
    X = model.features.transform(Xte)
    expected, scale = reference_margins(model, X)
    for method in ("pkb", "pki"):
        assert_margins_close(model.compile(method).decision_function(X), expected, scale)


def test_fit_multiclass_string_labels(zipf4):
    Xtr, ytr, Xte, yte = zipf4
    names = np.array(["det", "noun", "verb", "adj"])
    clf = PAClassifier(2, random_state=0, n_iter=5).fit(Xtr, names[ytr])
    np.testing.assert_array_equal(clf.classes_, np.sort(names))
    assert clf.model_.rule.kind == "argmax" and clf.model_.n_outputs == 4
    assert clf.decision_function(Xte).shape == (len(Xte), 4)
    assert set(clf.predict(Xte)) <= set(names)
    assert clf.score(Xte, names[yte]) > 0.5


@pytest.mark.parametrize("K", [2, 4])
def test_margin_modes_give_the_same_model(zipf, zipf4, K):
    Xtr, ytr, _, _ = zipf if K == 2 else zipf4
    kw = dict(degree=3, random_state=1, n_iter=3)
    base = PAClassifier(margin="kernel", **kw).fit(Xtr, ytr).model_
    for margin, extra in [("expanded", {}), ("split", dict(common_features=20)), ("slicing", {}),
                          ("slicing", dict(reuse=False, common_features=5)), ("slicing", dict(terminate=False)),
                          ("slicing", dict(memory_budget=0.2)), ("split", dict(memory_budget=0.05))]:
        clf = PAClassifier(margin=margin, **extra, **kw).fit(Xtr, ytr)
        same_model(clf.model_, base)
        if "memory_budget" in extra:
            assert clf.stats_["prunes"] > 0


def test_string_csr_and_integer_inputs_train_the_same_model(zipf):
    Xtr, ytr, Xte, _ = zipf
    index = conjunct.FeatureIndex.from_data(Xtr)
    X = index.transform(Xtr)
    kw = dict(degree=2, random_state=5, n_iter=2)
    a = PAClassifier(**kw).fit(Xtr, ytr)
    b = PAClassifier(**kw).fit(X, ytr)
    c = PAClassifier(**kw).fit(sp.csr_matrix(X, dtype=np.int8).astype(np.float32), ytr)
    d = PAClassifier(**kw).fit([list(X.indices[X.indptr[i]:X.indptr[i + 1]]) for i in range(X.shape[0])], ytr)
    e = PAClassifier(**kw).fit(X.toarray(), ytr)
    assert b.model_.features.is_numeric and b.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(b.model_.features.counts, index.counts)
    for other in (b, c, d, e):
        np.testing.assert_array_equal(other.model_.support_vectors.toarray(), index.transform(
            [[a.model_.features.name(int(j)) for j in a.model_.support_vectors[i].indices]
             for i in range(a.n_support_)]).toarray())
        np.testing.assert_allclose(other.model_.dual_coef, a.model_.dual_coef, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.decision_function(Xte), b.decision_function(index.transform(Xte)), rtol=1e-12, atol=1e-12)
    with pytest.raises(DataFormatError):
        b.partial_fit(Xtr[:10], ytr[:10])  # strings into a model trained on columns
    # A model trained on strings takes matrices whose columns are its feature ids.
    np.testing.assert_array_equal(a.decision_function(index.transform(Xte)), a.decision_function(Xte))


def test_partial_fit_is_one_pass(zipf):
    Xtr, ytr, _, _ = zipf
    one = PAClassifier(2, n_iter=1, shuffle=False).fit(Xtr, ytr)
    inc = PAClassifier(2, shuffle=False).partial_fit(Xtr, ytr, classes=[-1, 1])
    same_model(inc.model_, one.model_, tol=0)
    # In two batches: features first seen in the second batch rank after the
    # known ones, which changes only the order of summation.
    two = PAClassifier(2, shuffle=False)
    two.partial_fit(Xtr[:500], ytr[:500], classes=[1, -1])
    two.partial_fit(Xtr[500:], ytr[500:])
    same_model(two.model_, one.model_)
    assert two.stats_["rounds"] == len(Xtr)
    with pytest.raises(ConjunctError, match="classes"):
        PAClassifier().partial_fit(Xtr, ytr)
    with pytest.raises(ConjunctError, match="differ"):
        two.partial_fit(Xtr[:5], ytr[:5], classes=[0, 1])
    with pytest.raises(DataFormatError, match="not one of the classes"):
        two.partial_fit(Xtr[:5], np.full(5, 7))


def test_pickle_and_resume(zipf):
    Xtr, ytr, Xte, _ = zipf
    clf = PAClassifier(3, random_state=2, n_iter=2).fit(Xtr[:600], ytr[:600])
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.decision_function(Xte), clf.decision_function(Xte))
    assert copy.get_params() == clf.get_params()
    # Training resumes from the saved state exactly where the original does.
    clf.partial_fit(Xtr[600:], ytr[600:])
    copy.partial_fit(Xtr[600:], ytr[600:])
    same_model(copy.model_, clf.model_)


def test_params_clone_and_validation(zipf):
    sklearn_base = pytest.importorskip("sklearn.base")
    Xtr, ytr, _, _ = zipf
    clf = PAClassifier(3, C=0.5, margin="split", common_features=100)
    params = clf.get_params()
    assert params["degree"] == 3 and params["C"] == 0.5 and params["common_features"] == 100
    twin = sklearn_base.clone(clf)
    assert twin.get_params() == params and not hasattr(twin, "model_")
    assert sklearn_base.is_classifier(clf)
    clf.set_params(C=2.0, learner="pa2")
    assert clf.C == 2.0 and "pa2" in repr(clf)
    bad = [dict(learner="pa3"), dict(margin="fast"), dict(degree=0), dict(C=0.0), dict(C=float("nan")),
           dict(gamma=-1.0), dict(margin="kernel", common_features=10), dict(margin="expanded", memory_budget=10),
           dict(n_iter=0), dict(common_features=-3)]
    for kw in bad:
        with pytest.raises(ConjunctError):
            PAClassifier(**kw).fit(Xtr[:50], ytr[:50])
    with pytest.raises(DataFormatError, match="two classes"):
        PAClassifier().fit(Xtr[:50], np.ones(50))
    with pytest.raises(DataFormatError, match="labels"):
        PAClassifier().fit(Xtr[:50], ytr[:49])
    with pytest.raises(ConjunctError, match="not fitted"):
        PAClassifier().predict(Xtr[:5])


def test_progress_verbose_and_callback(zipf, capsys):
    Xtr, ytr, _, _ = zipf
    PAClassifier(2, n_iter=2, verbose=1).fit(Xtr, ytr)
    err = capsys.readouterr().err
    assert err.count("epoch") == 2 and "examples/s" in err and "SVs" in err and "MB" in err
    seen = []

    def stop_after_first(info):
        seen.append(info)
        return False if info["epoch_done"] else None

    clf = PAClassifier(2, n_iter=5, callback=stop_after_first).fit(Xtr, ytr)
    assert clf.n_iter_ == 1 and clf.stats_["rounds"] == len(Xtr)
    assert seen[-1]["support_vectors"] > 0 and seen[-1]["memory_bytes"] > 0 and seen[-1]["examples_per_second"] > 0


def test_trace_and_intercept(zipf4):
    Xtr, ytr, _, _ = zipf4
    clf = PAClassifier(2, n_iter=2, trace=True, fit_intercept=True, average=False, random_state=0).fit(Xtr, ytr)
    tr = clf.trace_
    assert tr["margin"].shape == (2 * len(Xtr), 4) and tr["updated"].sum() == clf.stats_["updates"]
    # With the intercept, each update moves the bias of the true class up and the rival's down by tau.
    assert np.abs(clf.model_.intercept).max() > 0
    np.testing.assert_allclose(clf.model_.intercept.sum(), 0.0, atol=1e-12)


def test_expand_equals_the_kernel_model(zipf4):
    Xtr, ytr, Xte, _ = zipf4
    clf = PAClassifier(3, n_iter=1, random_state=0).fit(Xtr[:150], ytr[:150])
    linear = clf.to_linear()
    assert isinstance(linear, conjunct.ConjunctiveLinearModel) and linear.degree == 3
    X = clf.model_.features.transform(Xte[:40])
    expected, scale = reference_margins(clf.model_, X)
    assert_margins_close(brute_force_margins(linear, X), expected, scale)
    empty = expand(conjunct.KernelModel(sp.csr_matrix((0, 3)), np.zeros((0, 1)), 0.5))
    assert empty.n_conjunctions == 0 and empty.intercept[0] == 0.5


def test_learners_and_averaging_differ_sensibly(zipf):
    Xtr, ytr, Xte, yte = zipf
    scores = {}
    for learner in ("perceptron", "pa", "pa1", "pa2"):
        clf = PAClassifier(2, learner=learner, random_state=0, n_iter=3).fit(Xtr, ytr)
        scores[learner] = clf.score(Xte, yte)
        if learner == "perceptron":
            # Steps of 1 on a dyadic kernel: raw alphas are integers.
            raw = PAClassifier(2, learner=learner, random_state=0, n_iter=3, average=False).fit(Xtr, ytr)
            np.testing.assert_array_equal(raw.model_.dual_coef, np.round(raw.model_.dual_coef))
    assert min(scores.values()) > 0.7


def test_empty_examples_and_saving(tmp_path, zipf):
    Xtr, ytr, Xte, _ = zipf
    X = list(Xtr[:200]) + [[]] * 5
    y = np.concatenate([ytr[:200], [1, -1, 1, -1, 1]])
    clf = PAClassifier(2, coef0=0.0, n_iter=2).fit(X, y)  # k(x, x) = 0 for an empty x: no update
    path = tmp_path / "pa.cjt"
    clf.model_.save(path)
    loaded = conjunct.load(path)
    np.testing.assert_array_equal(loaded.decision_function(Xte), clf.decision_function(Xte))


@pytest.mark.realdata
@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_accuracy_on_par_with_svm(shared_data, task):
    """On CoNLL-2000 chunking, averaged PA-I with the degree-2 kernel is as
    accurate as a batch SVM (scikit-learn's SVC, i.e. LIBSVM) with the same kernel."""
    SVC = pytest.importorskip("sklearn.svm").SVC
    from conjunct.io.corpora import read_conll2000, window_features

    train = read_conll2000(shared_data / "conll2000" / "train.txt")[:150]
    test = read_conll2000(shared_data / "conll2000" / "test.txt")[:80]

    def examples(sents):
        return ([window_features(s, i) for s in sents for i in range(len(s))],
                np.array([s[i][2] for s in sents for i in range(len(s))]))

    f_train, y_train = examples(train)
    f_test, y_test = examples(test)
    if task == "binary":
        y_train, y_test = np.where(y_train == "B-NP", 1, -1), np.where(y_test == "B-NP", 1, -1)
    index = conjunct.FeatureIndex.from_data(f_train)
    X_train, X_test = index.transform(f_train), index.transform(f_test)
    svm_acc = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1.0).fit(X_train, y_train).score(X_test, y_test)
    pa_acc = PAClassifier(2, random_state=0).fit(f_train, y_train).score(f_test, y_test)
    assert pa_acc >= svm_acc - 0.01, (pa_acc, svm_acc)


def test_partial_margin_records_across_pages():
    # Partial-margin records live in pages of 2^14 nodes: a problem with more
    # prefixes than one page trains the kernel's model with reuse and termination.
    feats, y = make_zipf_data(4000, seed=5)
    kw = dict(degree=2, random_state=0, n_iter=2)
    clf = PAClassifier(margin="slicing", reuse=True, terminate=True, **kw).fit(feats, y)
    assert clf.stats_["partial_margin_trie_nodes"] > 2 ** 14 and clf.stats_["reused"] > 0
    same_model(clf.model_, PAClassifier(margin="kernel", **kw).fit(feats, y).model_)


@pytest.mark.parametrize("degree, budget_mb", [(2, 32), (3, 16), (4, 16)])
def test_default_common_features_fill_the_dense_budget(degree, budget_mb):
    # The most features whose dense tables (C(D, 1) + ... + C(D, d) weights of 8 bytes) fit the
    # budget: 32 MB at d <= 2, 16 MB from d = 3, where the partial-margin trie needs room too.
    from math import comb

    from conjunct.training import default_common_features

    D = default_common_features(degree)
    size = lambda n: 8 * sum(comb(n, r) for r in range(1, degree + 1))
    assert size(D) <= budget_mb << 20 < size(D + 1)
    assert default_common_features(degree, 4) < D
