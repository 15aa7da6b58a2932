"""conjunct predict: classify data with a model (labels, margins or accuracy)."""

from __future__ import annotations

import sys

import numpy as np

from ._common import as_classifier, load_any


def register(sub) -> None:
    r = sub.add_parser("predict", help="classify data with a model: labels, margins or accuracy")
    r.add_argument("model", help="a conjunct model or classifier file, or any importable model file")
    r.add_argument("data", help="data file (svmlight or string format); '-' reads standard input")
    r.add_argument("-o", "--out", default="-", help="output file ('-' = standard output, the default)")
    r.add_argument("--output", choices=["labels", "margins", "accuracy"], default="labels",
                   help="labels (one per line), margins (label TAB margins), or accuracy against the data's labels")
    r.add_argument("--format", choices=["auto", "svmlight", "strings"], default="auto", help="data format (default: detect)")
    r.add_argument("--method", default=None, help="classification method when the file holds a model (default: pki)")
    r.add_argument("--binarize", action="store_true", help="treat non-zero feature values as 1 instead of failing")
    r.add_argument("--mmap", action="store_true", help="memory-map a conjunct model file instead of reading it")
    r.add_argument("--n-jobs", type=int, default=1, help="threads to classify with")
    r.set_defaults(func=run)


def run(args) -> int:
    from ..data import read_data

    clf = as_classifier(load_any(args.model, binarize=args.binarize, mmap=args.mmap), args.method)
    X, y = read_data(args.data, format=args.format, features=clf.features, binarize=args.binarize)
    margins = clf.decision_function(X, n_jobs=args.n_jobs)
    labels = clf.rule.predict(margins)
    if args.output == "accuracy":
        correct = int(np.sum(labels.astype(str) == y.astype(str)))
        print(f"accuracy {correct / len(y):.6f} ({correct}/{len(y)})")
        return 0
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        if args.output == "labels":
            out.writelines(f"{v}\n" for v in labels)
        else:
            M = margins.reshape(len(labels), -1)
            out.writelines(f"{labels[i]}\t" + " ".join(f"{v:.17g}" for v in M[i]) + "\n" for i in range(len(labels)))
    finally:
        if out is not sys.stdout:
            out.close()
    return 0
