"""PKB vs PKI vs scikit-learn SVC.decision_function vs LIBSVM prediction.

One run, one model per setting, the same data for every method. The model is a
polynomial-kernel SVM of CoNLL-2000 chunk tags (YamCha-style window features:
words and POS tags at -2..+2), trained by LIBSVM (one-vs-one over the chunk
tags, or B-NP vs rest for the binary setting) and imported into conjunct;
scikit-learn's SVC is trained with identical parameters (it wraps LIBSVM) and
its decisions are checked against LIBSVM's.

Timings are medians of --repeats runs after one warm-up, per example, for one
call over the whole test set (conjunct's batch call, scikit-learn's
decision_function, LIBSVM's svm_predict on a scipy CSR matrix), plus
conjunct's one-call-per-decision latency. Model loading is excluded.

    python benchmarks/bench_baseline.py
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from _common import markdown_table, require_shared_data, write_results

import conjunct
from conjunct._timing import median_seconds
from conjunct.io.corpora import read_conll2000, window_features
from conjunct.io.importers import from_libsvm


def load_examples(data: Path, n_train: int, n_test: int):
    def tokens(path, limit):
        feats, tags = [], []
        for sent in read_conll2000(path):
            for i in range(len(sent)):
                feats.append(window_features(sent, i))
                tags.append(sent[i][2])
            if len(feats) >= limit:
                break
        return feats[:limit], np.array(tags[:limit])

    f_train, y_train = tokens(data / "conll2000" / "train.txt", n_train)
    f_test, y_test = tokens(data / "conll2000" / "test.txt", n_test)
    index = conjunct.FeatureIndex.from_data(f_train)
    return index.transform(f_train), y_train, index.transform(f_test), y_test


def one_based(X):
    """LIBSVM's Python interface numbers a CSR matrix's column j as feature j + 1;
    conjunct keeps ids as written, so it sees the same features one column later."""
    return sp.hstack([sp.csr_matrix((X.shape[0], 1)), X]).tocsr()


def run_setting(X_train, y_train, X_test, y_test, degree: int, task: str, repeats: int):
    from libsvm import svmutil
    from sklearn.svm import SVC

    if task == "binary":
        y_train = np.where(y_train == "B-NP", 1, -1)
        y_test = np.where(y_test == "B-NP", 1, -1)
    labels = sorted(set(y_train))
    code = {lab: i for i, lab in enumerate(labels)}
    yc_train = np.array([code[v] for v in y_train])
    yc_test = np.array([code.get(v, -1) for v in y_test])
    params = f"-t 1 -d {degree} -g 1 -r 1 -c 1 -q"
    t0 = time.perf_counter()
    libsvm_model = svmutil.svm_train(yc_train.tolist(), X_train, params)
    train_libsvm = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.libsvm")
        svmutil.svm_save_model(path, libsvm_model)
        model = from_libsvm(path)
    t0 = time.perf_counter()
    svc = SVC(kernel="poly", degree=degree, gamma=1.0, coef0=1.0, C=1.0, decision_function_shape="ovo").fit(X_train, yc_train)
    train_sklearn = time.perf_counter() - t0

    pkb, pki = model.compile("pkb"), model.compile("pki")
    X_test_c = one_based(X_test)
    lib_pred = np.asarray(svmutil.svm_predict(yc_test.tolist(), X_test, libsvm_model, "-q")[0]).astype(int)
    m_pkb = pkb.decision_function(X_test_c)
    m_pki = pki.decision_function(X_test_c)
    exact = float(np.abs(m_pki - m_pkb).max() / np.abs(m_pkb).max())
    same_libsvm = float(np.mean(pki.predict(X_test_c) == lib_pred))
    same_sklearn = float(np.mean(svc.predict(X_test) == lib_pred))
    accuracy = float(np.mean(pki.predict(X_test_c) == yc_test))

    n = X_test.shape[0]
    times = {
        "LIBSVM svm_predict": median_seconds(lambda: svmutil.svm_predict(yc_test.tolist(), X_test, libsvm_model, "-q"), repeats=repeats),
        "scikit-learn SVC.decision_function": median_seconds(lambda: svc.decision_function(X_test), repeats=repeats),
        "conjunct PKB": median_seconds(lambda: pkb.decision_function(X_test_c), repeats=repeats),
        "conjunct PKI": median_seconds(lambda: pki.decision_function(X_test_c), repeats=repeats),
    }
    us = {k: v / n * 1e6 for k, v in times.items()}
    rows_single = [X_test_c[i].indices for i in range(min(n, 2000))]

    def singles():
        for r in rows_single:
            pki.predict_one(r)

    us["conjunct PKI, one call per decision"] = median_seconds(singles, repeats=repeats) / len(rows_single) * 1e6
    return {
        "degree": degree,
        "task": task,
        "classes": len(labels),
        "outputs": model.n_outputs,
        "support_vectors": model.n_support_vectors,
        "train_examples": X_train.shape[0],
        "test_examples": n,
        "train_seconds": {"libsvm": train_libsvm, "sklearn": train_sklearn},
        "accuracy": accuracy,
        "pki_vs_pkb_max_relative_error": exact,
        "agreement_with_libsvm": same_libsvm,
        "sklearn_agreement_with_libsvm": same_sklearn,
        "us_per_example": us,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train-tokens", type=int, default=15000)
    ap.add_argument("--test-tokens", type=int, default=5000)
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--tasks", nargs="+", default=["multiclass", "binary"], choices=["multiclass", "binary"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--name", default="baseline")
    args = ap.parse_args()
    data = require_shared_data()
    X_train, y_train, X_test, y_test = load_examples(data, args.train_tokens, args.test_tokens)
    results = []
    for task in args.tasks:
        for d in args.degrees:
            print(f"== {task}, d = {d}", flush=True)
            results.append(run_setting(X_train, y_train, X_test, y_test, d, task, args.repeats))
    methods = list(results[0]["us_per_example"])
    header = ["task", "d", "classes (K)", "SVs", "accuracy", "PKI=PKB rel. err", "= LIBSVM"] + [f"{m} µs" for m in methods] + ["PKI speed-up vs LIBSVM", "vs sklearn"]
    rows = []
    for r in results:
        us = r["us_per_example"]
        rows.append([r["task"], r["degree"], f"{r['classes']} ({r['outputs']})", r["support_vectors"], r["accuracy"],
                     f"{r['pki_vs_pkb_max_relative_error']:.1e}", f"{r['agreement_with_libsvm']:.4f}"]
                    + [us[m] for m in methods]
                    + [f"{us['LIBSVM svm_predict'] / us['conjunct PKI']:.1f}x",
                       f"{us['scikit-learn SVC.decision_function'] / us['conjunct PKI']:.1f}x"])
    md = (
        "CoNLL-2000 chunk tags, window features (w, POS at -2..+2), LIBSVM-trained polynomial kernel "
        f"(gamma=1, coef0=1, C=1), {results[0]['train_examples']} training / {results[0]['test_examples']} test tokens. "
        "µs per example, median of repeated whole-test-set calls.\n\n" + markdown_table(header, rows)
    )
    write_results(args.name, {"settings": vars(args), "results": results}, md)


if __name__ == "__main__":
    main()
