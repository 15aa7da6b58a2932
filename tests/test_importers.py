import numpy as np
import pytest
import scipy.sparse as sp

import conjunct
from conjunct.io.importers import from_libsvm, from_opal, from_sklearn, from_svmlight, from_tinysvm, import_model, sniff_model_format
from helpers import random_binary_csr

svmutil = pytest.importorskip("libsvm.svmutil")
SVC = pytest.importorskip("sklearn.svm").SVC


def libsvm_rows(X):
    return [{int(j) + 1: 1 for j in X[i].indices} for i in range(X.shape[0])]


def shift(X):
    """Column j -> j + 1: LIBSVM ids are 1-based and conjunct keeps ids as written."""
    return sp.hstack([sp.csr_matrix((X.shape[0], 1)), X]).tocsr()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = random_binary_csr(rng, 240, 60, 0.12)
    y = rng.integers(0, 4, 240)
    return X, y


@pytest.mark.parametrize("n_class", [2, 4])
@pytest.mark.parametrize("params", ["-t 1 -d 2 -g 1 -r 1", "-t 1 -d 3 -g 0.5 -r 2", "-t 0"])
def test_libsvm_decisions_equal(tmp_path, data, n_class, params):
    X, y = data
    y = (y % n_class) * 3 - 1  # labels like -1, 2, 5, 8
    m = svmutil.svm_train(list(y), libsvm_rows(X), params + " -c 1 -q")
    path = str(tmp_path / "model.libsvm")
    svmutil.svm_save_model(path, m)
    pred, _, dec = svmutil.svm_predict(list(y), libsvm_rows(X), m, "-q")
    model = from_libsvm(path)
    Xs = shift(X)
    for method in ("pkb", "pki"):
        clf = model.compile(method)
        np.testing.assert_allclose(clf.decision_function(Xs).reshape(len(y), -1), np.asarray(dec), rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(clf.predict(Xs), np.asarray(pred).astype(int))
    assert sniff_model_format(path) == "libsvm"


@pytest.mark.parametrize("n_class", [2, 3, 5])
@pytest.mark.parametrize("dense", [False, True])
def test_sklearn_decisions_equal(data, n_class, dense):
    X, y = data
    y = np.array(["cat", "dog", "emu", "fox", "gnu"])[y % n_class] if n_class != 3 else y % n_class
    Xfit = X.toarray() if dense else X
    svc = SVC(kernel="poly", degree=3, gamma="scale", coef0=1.5, C=2.0, decision_function_shape="ovo").fit(Xfit, y)
    model = from_sklearn(svc)
    for method in ("pkb", "pki"):
        clf = model.compile(method)
        np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(Xfit), rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(clf.predict(X), svc.predict(Xfit))


def test_sklearn_rejects_rbf_and_unfitted(data):
    X, y = data
    with pytest.raises(conjunct.ModelFormatError, match="rbf"):
        from_sklearn(SVC(kernel="rbf").fit(X, y % 2))
    with pytest.raises(conjunct.ModelFormatError, match="not a fitted"):
        from_sklearn(SVC(kernel="poly"))


SVMLIGHT = """SVM-light Version V6.02
1 # kernel type
2 # kernel parameter -d 
1 # kernel parameter -g 
0.5 # kernel parameter -s 
2 # kernel parameter -r 
empty# kernel parameter -u 
6 # highest feature index 
100 # number of training documents 
4 # number of support vectors plus 1 
-0.21 # threshold b, each following line is a SV (starting with alpha*y)
0.5 1:1 4:1 #
-0.25 2:1 6:1 #doc17
-0.75 1:1 3:1 #
"""

TINYSVM = """TinySVM Version 0.09
1 # kernel type
3 # kernel parameter -d
1 # kernel parameter -g
1 # kernel parameter -s
1 # kernel parameter -r
empty # kernel parameter -u
4 1 100 12.5 # number of SVs/BSVs/number of training data/L1 loss 
0.3 # threshold b
0.5 1:1 4:1\r
-0.25 2:1 6:1\r
-0.75 1:1 3:1\r
"""

SVS = [[1, 4], [2, 6], [1, 3]]


def manual(x, alphas, b, s, r, d):
    return sum(a * (s * len(set(x) & set(sv)) + r) ** d for a, sv in zip(alphas, SVS)) - b


@pytest.mark.parametrize("text, reader, s, r, d, b", [(SVMLIGHT, from_svmlight, 0.5, 2, 2, -0.21), (TINYSVM, from_tinysvm, 1, 1, 3, 0.3)])
def test_svmlight_and_tinysvm(tmp_path, text, reader, s, r, d, b):
    path = tmp_path / "model"
    path.write_bytes(text.encode())
    model = reader(path)
    assert import_model(path).n_support_vectors == 3
    xs = [[1], [1, 4], [2, 3, 6], [], [1, 3, 4, 9]]
    got = model.decision_function(xs)
    want = [manual(x, [0.5, -0.25, -0.75], b, s, r, d) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(xs), np.where(np.asarray(want) > 0, 1, -1))


OPAL_BINARY = """opal # $Id: pa.h 1934 2022-01-23 02:45:17Z ynaga $
1 # kernel type
2 # kernel parameter -d
1 # kernel parameter -s
1 # kernel parameter -r
-1 # sigmoid -A
0 # sigmoid -B
0 # threshold b
0.5 1:1 4:1
-0.25 2:1 6:1
-0.75 1:1 3:1
"""

OPAL_MULTI = """opal # $Id: pa.h 1934 2022-01-23 02:45:17Z ynaga $
3 # labels: NN VB JJ
1 # kernel type
3 # kernel parameter -d
1 # kernel parameter -s
1 # kernel parameter -r
0 0 0 # threshold b
0.5 -0.5 0 w=a:1 t=NN:1
0 0.25 -0.25 t=VB:1
"""


def test_opal_binary_and_multiclass_strings(tmp_path):
    p = tmp_path / "bin"
    p.write_text(OPAL_BINARY)
    model = from_opal(p)
    np.testing.assert_allclose(model.decision_function([[1, 4]]), [manual([1, 4], [0.5, -0.25, -0.75], 0, 1, 1, 2)])
    p = tmp_path / "multi"
    p.write_text(OPAL_MULTI)
    model = from_opal(p)
    assert model.rule.kind == "argmax" and model.classes.tolist() == ["NN", "VB", "JJ"]
    assert not model.features.is_numeric
    margins = model.compile("pki").decision_function_one(["w=a", "t=VB"])
    k1, k2 = 2 ** 3, 2 ** 3  # each SV shares one feature: (1 + 1)^3
    np.testing.assert_allclose(margins, [0.5 * k1, -0.5 * k1 + 0.25 * k2, -0.25 * k2])
    assert model.compile("pki").predict_one(["t=VB"]) == "VB"


@pytest.mark.parametrize(
    "text, message",
    [
        ("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\nSV\n", "rbf"),
        ("svm_type epsilon_svr\nkernel_type polynomial\n", "svm_type"),
        ("svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1\n", "found 1 support vectors"),
        ("svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\nnr_sv 1 0\nSV\n1 1:0.5\n", "binary"),
        ("svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1\n\n-1 2:1\n", "blank line"),
        ("svm_type c_svc\nkernel_type polynomial\n", "unexpected end of file"),
        ("svm_type c_svc\nkernel_type polynomial\ndegree two\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\nSV\n", "not a number"),
    ],
)
def test_libsvm_bad_files(tmp_path, text, message):
    p = tmp_path / "bad.model"
    p.write_text(text)
    with pytest.raises(conjunct.ModelFormatError, match=message) as e:
        from_libsvm(p)
    assert "bad.model" in str(e.value)


def test_unknown_and_empty_model_files(tmp_path):
    p = tmp_path / "what"
    p.write_text("hello world\n")
    with pytest.raises(conjunct.ModelFormatError, match="unknown model format"):
        import_model(p)
    (tmp_path / "empty").write_text("")
    with pytest.raises(conjunct.ModelFormatError, match="empty"):
        import_model(tmp_path / "empty")
    bad = tmp_path / "badsvmlight"
    bad.write_text(SVMLIGHT.replace("1 # kernel type", "2 # kernel type"))
    with pytest.raises(conjunct.ModelFormatError, match="kernel type 2"):
        import_model(bad)


def test_binarize_option(tmp_path):
    p = tmp_path / "m"
    p.write_text(TINYSVM.replace("0.5 1:1 4:1", "0.5 1:0.7 4:1"))
    with pytest.raises(conjunct.ModelFormatError, match="binarize"):
        from_tinysvm(p)
    assert from_tinysvm(p, binarize=True).n_support_vectors == 3


@pytest.mark.parametrize("n_class", [2, 4])
def test_export_to_libsvm_roundtrip(tmp_path, data, n_class):
    """An exported model predicts like the original in LIBSVM itself and imports back unchanged."""
    from conjunct.io.exporters import to_libsvm

    X, y = data
    svc = SVC(kernel="poly", degree=2, gamma=0.5, coef0=1.0, decision_function_shape="ovo").fit(X, y % n_class)
    model = from_sklearn(svc)
    path = tmp_path / "exported.libsvm"
    to_libsvm(model, path, id_offset=1)
    m = svmutil.svm_load_model(str(path))
    pred, _, _ = svmutil.svm_predict([0] * X.shape[0], X, m, "-q")  # CSR column j is LIBSVM id j + 1
    np.testing.assert_array_equal(np.asarray(pred).astype(int), svc.predict(X))
    to_libsvm(model, path)
    again = from_libsvm(path)
    np.testing.assert_allclose(again.decision_function(X), model.decision_function(X), rtol=1e-12, atol=1e-12)
