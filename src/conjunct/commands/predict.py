"""conjunct predict: classify data with a model (labels, margins or accuracy)."""

from __future__ import annotations

import numpy as np

from .._errors import ConjunctError
from ._common import as_classifier, load_model, open_output, option, output_option

PRINTS = ("labels", "margins", "accuracy")


def register(sub) -> None:
    r = sub.add_parser("predict", help="classify data with a model: labels, margins or accuracy")
    r.add_argument("model", help="a conjunct model or classifier file, or any importable model file")
    r.add_argument("data", help="data file (svmlight or string format); '-' reads standard input")
    output_option(r, help="output file ('-' = standard output, the default)", required=False, default="-")
    r.add_argument("--print", dest="print_", choices=PRINTS, default="labels",
                   help="labels (one per line), margins (label TAB margins), or accuracy against the data's labels")
    r.add_argument("--format", choices=["auto", "svmlight", "strings"], default="auto", help="data format (default: detect)")
    option(r, "method", help="classification method when the file holds a model (default: the model's, pki for kernel models)")
    option(r, "binarize")
    r.add_argument("--mmap", action="store_true", help="memory-map a conjunct model file instead of reading it")
    option(r, "jobs", help="threads to classify with (default 1)")
    r.set_defaults(func=run)


def run(args) -> int:
    from ..data import read_data

    if args.output in PRINTS:
        # Earlier releases chose what to print with --output; it now names the file.
        raise ConjunctError(f"-o/--output names the output file; to print {args.output} use --print {args.output} "
                            f"(for a file of that name, write ./{args.output})")
    clf = as_classifier(load_model(args.model, binarize=args.binarize, mmap=args.mmap), args.method)
    X, y = read_data(args.data, format=args.format, features=clf.features, binarize=args.binarize)
    margins = clf.decision_function(X, n_jobs=args.jobs)
    labels = clf.rule.predict(margins)
    with open_output(args.output) as out:
        if args.print_ == "accuracy":
            correct = int(np.sum(labels.astype(str) == y.astype(str)))
            out.write(f"accuracy {correct / len(y):.6f} ({correct}/{len(y)})\n")
        elif args.print_ == "labels":
            out.writelines(f"{v}\n" for v in labels)
        else:
            M = margins.reshape(len(labels), -1)
            out.writelines(f"{labels[i]}\t" + " ".join(f"{v:.17g}" for v in M[i]) + "\n" for i in range(len(labels)))
    return 0
