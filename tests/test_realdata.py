"""Real data: a LIBSVM polynomial model of CoNLL-2000 chunk tags (window features).

PKI equals PKB, and conjunct's decisions equal libsvm's and scikit-learn's.
"""

import numpy as np
import pytest

import conjunct
from conjunct.io.corpora import read_conll2000, window_features
from conjunct.io.importers import from_libsvm, from_sklearn

svmutil = pytest.importorskip("libsvm.svmutil")
SVC = pytest.importorskip("sklearn.svm").SVC

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def chunk_data(shared_data):
    train = read_conll2000(shared_data / "conll2000" / "train.txt")[:250]
    test = read_conll2000(shared_data / "conll2000" / "test.txt")[:80]
    def examples(sents):
        return [window_features(s, i) for s in sents for i in range(len(s))], [s[i][2] for s in sents for i in range(len(s))]
    f_train, y_train = examples(train)
    f_test, y_test = examples(test)
    index = conjunct.FeatureIndex.from_data(f_train)
    # LIBSVM ids are 1-based; keep conjunct's column = LIBSVM id by numbering features from 1.
    return index, f_train, np.array(y_train), f_test, np.array(y_test)


def as_libsvm(index, feats):
    return [{index.get(f) + 1: 1 for f in row if f in index} for row in feats]


def numeric(index, feats):
    return [[index.get(f) + 1 for f in row if f in index] for row in feats]


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("task", ["multiclass", "binary"])
def test_libsvm_chunk_model(tmp_path, chunk_data, degree, task):
    index, f_train, y_train, f_test, y_test = chunk_data
    if task == "binary":
        y_train = np.where(y_train == "B-NP", 1, -1)
        y_test = np.where(y_test == "B-NP", 1, -1)
    labels = sorted(set(y_train))
    code = {lab: k for k, lab in enumerate(labels)}
    m = svmutil.svm_train([code[v] for v in y_train], as_libsvm(index, f_train), f"-t 1 -d {degree} -g 1 -r 1 -c 1 -q")
    path = str(tmp_path / "chunk.model")
    svmutil.svm_save_model(path, m)
    y_code = [code.get(v, 0) for v in y_test]
    pred, _, dec = svmutil.svm_predict(y_code, as_libsvm(index, f_test), m, "-q")
    model = from_libsvm(path)
    X = numeric(index, f_test)
    pkb, pki = model.compile("pkb"), model.compile("pki")
    m_pkb, m_pki = pkb.decision_function(X), pki.decision_function(X)
    scale = np.abs(m_pkb).max()
    assert np.abs(m_pki - m_pkb).max() <= 1e-9 * scale
    np.testing.assert_allclose(m_pkb.reshape(len(y_code), -1), np.asarray(dec), rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_array_equal(pki.predict(X), np.asarray(pred).astype(int))
    # The converted file gives the same decisions through the CLI's path (save, mmap).
    model.save(tmp_path / "chunk.cjt")
    again = conjunct.load(tmp_path / "chunk.cjt", mmap=True)
    np.testing.assert_array_equal(again.predict(X), pki.predict(X))


def test_sklearn_chunk_model(chunk_data):
    index, f_train, y_train, f_test, y_test = chunk_data
    X_train, X_test = index.transform(f_train), index.transform(f_test)
    svc = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1.0, decision_function_shape="ovo").fit(X_train, y_train)
    model = from_sklearn(svc, features=index)
    clf = model.compile("pki")
    np.testing.assert_array_equal(clf.predict(X_test), svc.predict(X_test))
    np.testing.assert_array_equal(clf.predict(f_test), svc.predict(X_test))  # string input through the FeatureIndex
    m_pkb = model.compile("pkb").decision_function(X_test)
    assert np.abs(clf.decision_function(X_test) - m_pkb).max() <= 1e-9 * np.abs(m_pkb).max()
    assert np.mean(clf.predict(X_test) == y_test) > 0.85
