"""``conjunct demo``: the main job end to end on generated Zipfian data."""

from __future__ import annotations

import sys
import time

import numpy as np

from ._timing import median_seconds
from .datasets import make_zipf_data
from .features import FeatureIndex


def _say(msg: str) -> None:
    print(msg, flush=True)


def run_demo(n_train: int = 4000, n_test: int = 2000, degree: int = 3, n_classes: int = 2, seed: int = 0) -> int:
    """Train a polynomial-kernel model, compile it, check exactness, time it."""
    try:
        from sklearn.svm import SVC
    except ImportError:
        print("conjunct demo trains with scikit-learn: pip install 'conjunct[sklearn]'", file=sys.stderr)
        return 1
    from .importers import from_sklearn

    _say(f"1. generating {n_train} + {n_test} Zipfian examples ({n_classes} classes, seed {seed})")
    feats, y = make_zipf_data(n_train + n_test, n_classes=n_classes, seed=seed)
    index = FeatureIndex.from_data(feats[:n_train])
    X = index.transform(feats)
    X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    _say(f"   {len(index)} features, {X.getnnz(axis=1).mean():.1f} active per example")

    _say(f"2. training a degree-{degree} polynomial-kernel SVM (scikit-learn SVC, gamma=1, coef0=1)")
    t0 = time.perf_counter()
    svc = SVC(kernel="poly", degree=degree, gamma=1.0, coef0=1.0, C=1.0, decision_function_shape="ovo").fit(X_train, y_train)
    _say(f"   {len(svc.support_):,} support vectors in {time.perf_counter() - t0:.1f} s")

    _say("3. importing it into conjunct and compiling PKB (brute force) and PKI (inverted index)")
    model = from_sklearn(svc, features=index)
    pkb, pki = model.compile("pkb"), model.compile("pki")
    m_sk = svc.decision_function(X_test)
    m_pkb, m_pki = pkb.decision_function(X_test), pki.decision_function(X_test)
    scale = np.abs(m_pkb).max() + 1e-300
    err_pki = float(np.abs(m_pki - m_pkb).max() / scale)
    err_sk = float(np.abs(m_sk.reshape(m_pkb.shape) - m_pkb).max() / scale)
    same = bool(np.array_equal(pki.predict(X_test), svc.predict(X_test)) and np.array_equal(pkb.predict(X_test), svc.predict(X_test)))
    _say(f"   max |PKI - PKB| / max|margin| = {err_pki:.1e};  max |sklearn - PKB| / max|margin| = {err_sk:.1e}")
    _say(f"   decisions identical to scikit-learn's predict: {same}")
    accuracy = float(np.mean(pki.predict(X_test) == y_test))
    _say(f"   test accuracy {accuracy:.4f}")

    _say("4. timing (median of 5 runs, whole test set per call)")
    n = X_test.shape[0]
    rows = [
        ("scikit-learn SVC.decision_function", median_seconds(lambda: svc.decision_function(X_test))),
        ("conjunct PKB", median_seconds(lambda: pkb.decision_function(X_test))),
        ("conjunct PKI", median_seconds(lambda: pki.decision_function(X_test))),
    ]
    base = rows[0][1]
    for name, sec in rows:
        _say(f"   {name:<36} {sec / n * 1e6:9.2f} µs/example   {base / sec:7.1f}x")
    one = [index.name(i) for i in X_test[0].indices]
    single = median_seconds(lambda: pki.predict_one(one), min_seconds=0.05)
    _say(f"   conjunct PKI, one call per decision (strings in, label out): {single * 1e6:.2f} µs/call")
    ok = err_pki <= 1e-9 and same
    _say("demo " + ("passed: PKI is exact and matches scikit-learn" if ok else "FAILED: results differ"))
    return 0 if ok else 1
