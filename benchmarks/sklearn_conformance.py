"""scikit-learn's check_estimator on the estimators: how many checks pass, and
every expected failure with its reason (conjunct.training.conformance); and
how well PAClassifier(probability=True) is calibrated on held-out data
against an uncalibrated sigmoid of the margin and the l1-LLM's own
probabilities, with what the cross-fitting costs in training time.

    python benchmarks/sklearn_conformance.py

Writes benchmarks/results/sklearn_conformance.{json,md} (the README's table).
"""

from __future__ import annotations

import time
import warnings
from collections import Counter

import numpy as np

import sklearn
from sklearn.utils.estimator_checks import check_estimator

from _common import markdown_table, write_results
from conjunct.datasets import make_zipf_data
from conjunct.training import L1LogLinearClassifier, PAClassifier
from conjunct.training.conformance import expected_failed_checks

ESTIMATORS = [
    PAClassifier(n_iter=2, random_state=0),
    PAClassifier(n_iter=2, random_state=0, binarize=True, probability=True),
    L1LogLinearClassifier(n_iter=2, random_state=0),
    L1LogLinearClassifier(n_iter=2, random_state=0, binarize=True),
]


def run(estimator) -> dict:
    expected = expected_failed_checks(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    status = Counter(r["status"] for r in results)
    unexpected = sorted({r["check_name"] for r in results if r["status"] == "failed"})
    return {"estimator": repr(estimator), "checks": len(results), "status": dict(status),
            "unexpected_failures": unexpected, "expected_failures": expected}


def _calibration_figures(p: np.ndarray, positive: np.ndarray, bins: int = 10) -> dict:
    eps = 1e-12
    logloss = float(-np.mean(np.where(positive, np.log(p + eps), np.log(1 - p + eps))))
    brier = float(np.mean((p - positive) ** 2))
    which = np.minimum((p * bins).astype(int), bins - 1)
    ece = float(sum(abs(positive[which == b].mean() - p[which == b].mean()) * (which == b).mean()
                    for b in range(bins) if (which == b).any()))
    return {"log_loss": logloss, "brier": brier, "ece": ece}


def calibration(n_train: int = 8000, n_test: int = 4000) -> dict:
    """Held-out calibration of Platt-scaled PA margins (zipf data, d = 2)."""
    feats, y = make_zipf_data(n_train + n_test, n_classes=2, seed=11)
    X, yt, Xt, ytt = feats[:n_train], y[:n_train], feats[n_train:], y[n_train:]
    t0 = time.perf_counter()
    plain = PAClassifier(degree=2, n_iter=5, random_state=0).fit(X, yt)
    t_plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    calibrated = PAClassifier(degree=2, n_iter=5, random_state=0, probability=True).fit(X, yt)
    t_cal = time.perf_counter() - t0
    llm = L1LogLinearClassifier(degree=2, C=0.5, n_iter=5, random_state=0).fit(X, yt)
    positive = ytt == calibrated.classes_[1]
    margins = calibrated.decision_function(Xt)
    rows = {
        "PAClassifier, sigmoid of the margin (uncalibrated)": _calibration_figures(1 / (1 + np.exp(-margins)), positive),
        "PAClassifier(probability=True), Platt on 3-fold held-out margins": _calibration_figures(
            calibrated.predict_proba(Xt)[:, 1], positive),
        "L1LogLinearClassifier.predict_proba (log-linear model)": _calibration_figures(llm.predict_proba(Xt)[:, 1], positive),
    }
    accuracy = {"PAClassifier": float(calibrated.score(Xt, ytt)), "L1LogLinearClassifier": float(llm.score(Xt, ytt))}
    return {"n_train": n_train, "n_test": n_test, "rows": rows, "accuracy": accuracy,
            "fit_seconds": {"probability=False": t_plain, "probability=True": t_cal}}


def main() -> None:
    runs = [run(e) for e in ESTIMATORS]
    cal = calibration()
    rows = [[r["estimator"], r["checks"], r["status"].get("passed", 0), r["status"].get("xfail", 0),
             len(r["unexpected_failures"]), r["status"].get("skipped", 0)] for r in runs]
    table = markdown_table(["estimator", "checks run", "passed", "expected failures", "unexpected failures", "skipped"], rows)
    reasons = {}
    for r in runs:
        for check, why in r["expected_failures"].items():
            reasons.setdefault(why, {}).setdefault(check, []).append(r["estimator"].split("(")[0] + ("" if "binarize=True" not in r["estimator"] else " (binarize=True)"))
    lines = []
    for why, checks in reasons.items():
        names = ", ".join(f"`{c}`" for c in sorted(checks))
        who = sorted({w for ws in checks.values() for w in ws})
        lines.append(f"- **{'; '.join(who)}** — {names}: {why}.")
    md = f"scikit-learn {sklearn.__version__}.\n\n{table}\n\nExpected failures and why:\n\n" + "\n".join(lines)
    cal_rows = [[name, f["log_loss"], f["brier"], f["ece"]] for name, f in cal["rows"].items()]
    fs = cal["fit_seconds"]
    md += (f"\n\n## Probabilities on held-out data\n\nmake_zipf_data (binary, seed 11): {cal['n_train']:,} training, "
           f"{cal['n_test']:,} held-out examples, d = 2, 5 epochs. Accuracy: PA {cal['accuracy']['PAClassifier']:.4f}, "
           f"l1-LLM {cal['accuracy']['L1LogLinearClassifier']:.4f}. Fit time: {fs['probability=False']:.2f} s without, "
           f"{fs['probability=True']:.2f} s with probability=True "
           f"({fs['probability=True'] / fs['probability=False']:.1f}x).\n\n"
           + markdown_table(["probabilities", "log-loss", "Brier", "ECE (10 bins)"], cal_rows))
    write_results("sklearn_conformance", {"runs": runs, "calibration": cal}, md)
    print(md)


if __name__ == "__main__":
    main()
