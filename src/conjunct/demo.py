"""``conjunct demo``: the main job end to end on generated Zipfian data."""

from __future__ import annotations

import time

import numpy as np

from ._timing import median_seconds
from .datasets import make_zipf_data
from .features.index import FeatureIndex


def _say(msg: str) -> None:
    print(msg, flush=True)


def run_demo(n_train: int = 4000, n_test: int = 2000, degree: int = 3, n_classes: int = 2, seed: int = 0) -> int:
    """Train a polynomial-kernel model, compile it, check exactness, time it."""
    from .training import PAClassifier

    _say(f"1. generating {n_train} + {n_test} Zipfian examples ({n_classes} classes, seed {seed})")
    feats, y = make_zipf_data(n_train + n_test, n_classes=n_classes, seed=seed)
    index = FeatureIndex.from_data(feats[:n_train])
    X = index.transform(feats)
    X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    _say(f"   {len(index)} features, {X.getnnz(axis=1).mean():.1f} active per example")

    _say(f"2. training a degree-{degree} polynomial-kernel model: averaged PA-I, 10 epochs, kernel slicing")
    t0 = time.perf_counter()
    clf = PAClassifier(degree, margin="slicing", random_state=seed).fit(feats[:n_train], y_train)
    t_slicing = time.perf_counter() - t0
    model = clf.model_
    _say(f"   {model.n_support_vectors:,} support vectors in {t_slicing:.2f} s "
         f"({clf.stats_['terminated']:,} of {clf.stats_['margins']:,} margins stopped early, "
         f"{clf.stats_['reused']:,} partial margins reused)")
    t0 = time.perf_counter()
    reference = PAClassifier(degree, margin="kernel", random_state=seed).fit(feats[:n_train], y_train).model_
    t_kernel = time.perf_counter() - t0
    same_sv = (reference.support_vectors != model.support_vectors).nnz == 0
    alpha_err = float(np.abs(reference.dual_coef - model.dual_coef).max() / (np.abs(reference.dual_coef).max() + 1e-300)) if same_sv else np.inf
    _say(f"   the same training with plain kernel margins (PKI over the support set): {t_kernel:.2f} s, "
         f"{t_kernel / t_slicing:.1f}x slower")
    _say(f"   same support vectors: {same_sv}; max |alpha difference| / max |alpha| = {alpha_err:.1e}")
    svc = None
    try:
        from sklearn.svm import SVC
    except ImportError:
        _say("   (scikit-learn is not installed: skipping its SVC as a peer)")
    else:
        t0 = time.perf_counter()
        svc = SVC(kernel="poly", degree=degree, gamma=1.0, coef0=1.0, C=1.0).fit(X_train, y_train)
        _say(f"   peer: scikit-learn SVC(kernel='poly', gamma=1, coef0=1) trains in {time.perf_counter() - t0:.2f} s "
             f"({len(svc.support_):,} support vectors)")

    _say("3. compiling the model: PKB (brute force), PKI (inverted index), PKE (expanded conjunction weights),"
         " fstrie (PKE + feature sequence trie built from the training vectors)")
    Xm_test = model.features.transform(feats[n_train:])  # columns of the model's own feature index
    compiled = {"PKB": model.compile("pkb"), "PKI": model.compile("pki"), "PKE": model.compile("pke"),
                "fstrie": model.compile("fstrie", events=model.features.transform(feats[:n_train]))}
    pkb = compiled["PKB"]
    m_pkb = pkb.decision_function(Xm_test)
    scale = np.abs(m_pkb).max() + 1e-300
    y_pkb = pkb.predict(Xm_test)
    exact = True
    for name, c in compiled.items():
        if name == "PKB":
            continue
        err = float(np.abs(c.decision_function(Xm_test) - m_pkb).max() / scale)
        same = bool(np.array_equal(c.predict(Xm_test), y_pkb))
        exact &= err <= 1e-9 and same
        _say(f"   max |{name} - PKB| / max|margin| = {err:.1e}; decisions identical: {same}")
    accuracy = float(np.mean(y_pkb == y_test))
    peer = f" (scikit-learn SVC: {float(np.mean(svc.predict(X_test) == y_test)):.4f})" if svc is not None else ""
    _say(f"   test accuracy {accuracy:.4f}{peer}")

    _say("4. timing (median of 5 runs, whole test set per call)")
    n = X_test.shape[0]
    rows = []
    if svc is not None:
        rows.append(("scikit-learn SVC.decision_function", median_seconds(lambda: svc.decision_function(X_test))))
    rows += [(f"conjunct {name}", median_seconds(lambda c=c: c.decision_function(Xm_test))) for name, c in compiled.items()]
    base = rows[0][1]
    for name, sec in rows:
        _say(f"   {name:<36} {sec / n * 1e6:9.2f} µs/example   {base / sec:7.1f}x")
    fastest = min(rows[-3:], key=lambda r: r[1])[0].split()[-1]
    one = feats[n_train]
    single = median_seconds(lambda: compiled[fastest].predict_one(one), min_seconds=0.05)
    _say(f"   conjunct {fastest}, one call per decision (strings in, label out): {single * 1e6:.2f} µs/call")
    ok = exact and same_sv and alpha_err <= 1e-9
    _say("demo " + ("passed: kernel slicing trains the kernel learner's model, and PKI, PKE and fstrie are exact"
                    if ok else "FAILED: results differ"))
    return 0 if ok else 1
