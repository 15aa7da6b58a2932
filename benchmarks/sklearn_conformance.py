"""scikit-learn's check_estimator on the estimators: how many checks pass, and
every expected failure with its reason (conjunct.training.conformance).

    python benchmarks/sklearn_conformance.py

Writes benchmarks/results/sklearn_conformance.{json,md} (the README's table).
"""

from __future__ import annotations

import warnings
from collections import Counter

import sklearn
from sklearn.utils.estimator_checks import check_estimator

from _common import markdown_table, write_results
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


def main() -> None:
    runs = [run(e) for e in ESTIMATORS]
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
    write_results("sklearn_conformance", {"runs": runs}, md)
    print(md)


if __name__ == "__main__":
    main()
