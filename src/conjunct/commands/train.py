"""conjunct train: train a polynomial-kernel model (PA family, kernel slicing) or the l1 log-linear baseline."""

from __future__ import annotations

import sys
import time

from ._common import fit, option, output_option, verbosity


def register(sub) -> None:
    t = sub.add_parser(
        "train", help="train a model with conjunctive features (passive-aggressive + kernel slicing, or l1 log-linear)",
        description="Train on svmlight data ('label id:1 id:1 ...') or opal/TinySVM strings ('label feat feat ...') "
                    "and write a conjunct model file (a kernel model for --algorithm pa, a conjunctive linear model for l1).")
    t.add_argument("data", help="training data (svmlight or string format); '-' reads standard input")
    output_option(t, help="the conjunct model file to write")
    t.add_argument("--algorithm", choices=["pa", "l1"], default="pa",
                   help="pa: online passive-aggressive learning with the polynomial kernel (default); "
                        "l1: l1-regularised log-linear model over explicit conjunctions")
    option(t, "degree", default=2, help="kernel degree / largest conjunction (default 2)")
    option(t, "C", help="PA-I/PA-II aggressiveness, or l1 strength (default 1)")
    option(t, "iterations")
    t.add_argument("--learner", choices=["pa1", "pa2", "pa", "perceptron"], default="pa1", help="PA step size (default pa1)")
    t.add_argument("--step", choices=["kernel", "opal"], default="kernel",
                   help="q of the step: kernel = k(x, x) (default), opal = |x|, opal's rule (trains opal's model)")
    t.add_argument("--margin", choices=["slicing", "split", "expanded", "kernel"], default="slicing",
                   help="margin computation (all train the same model; default slicing)")
    t.add_argument("--common-features", type=int, default=None,
                   help="N: explicit weights for conjunctions of the N most frequent features (split, slicing)")
    t.add_argument("--weight-budget", type=float, default=None, metavar="MB",
                   help="megabytes for explicit weights; N is halved when exceeded (split, slicing)")
    t.add_argument("--no-average", dest="average", action="store_false", help="keep the last model instead of the averaged one")
    for name, what in (("reuse", "reuse of partial margins (off: SL*)"), ("terminate", "early termination")):
        g = t.add_mutually_exclusive_group()
        g.add_argument(f"--{name}", dest=name, action="store_const", const=True, default=None,
                       help=f"slicing with {what} (default: for d >= 3)")
        g.add_argument(f"--no-{name}", dest=name, action="store_const", const=False, help=f"slicing without {what}")
    t.add_argument("--fit-intercept", action="store_true", help="learn a bias (default: the kernel's constant term)")
    t.add_argument("--gamma", type=float, default=1.0, help="kernel gamma (default 1)")
    t.add_argument("--coef0", type=float, default=1.0, help="kernel coef0 (default 1)")
    t.add_argument("--eta0", type=float, default=1.0, help="l1: initial learning rate (default 1)")
    t.add_argument("--decay", type=float, default=0.85, help="l1: learning-rate decay per epoch (default 0.85)")
    t.add_argument("--no-shuffle", dest="shuffle", action="store_false", help="keep the data's order in every epoch")
    option(t, "seed")
    t.add_argument("--format", choices=["auto", "svmlight", "strings"], default="auto", help="data format (default: detect)")
    option(t, "binarize")
    t.add_argument("--test", default=None, help="report accuracy on this data file after training")
    t.add_argument("--explicit", default=None, metavar="FILE",
                   help="pa: also write the model's explicit conjunction weights (a conjunctive linear model)")
    option(t, "verbose", help="more progress output (-v: every 20,000 rounds)")
    option(t, "quiet")
    option(t, "scheduler", help="pa: train by iterative parameter mixing on a Dask cluster (an address, or local:N "
                                 "for N local workers; one shard per worker)")
    t.set_defaults(func=run)


def _read(path: str, fmt: str, binarize: bool):
    from ..io.data import read_strings, read_svmlight, sniff_format

    if fmt == "auto":
        fmt = "svmlight" if path == "-" else sniff_format(path)
    if fmt == "svmlight":
        return read_svmlight(path, binarize=binarize)
    return read_strings(path, binarize=binarize)


def run(args) -> int:
    from .._errors import ConjunctError
    from ..training import L1LogLinearClassifier, PAClassifier

    X, y = _read(args.data, args.format, args.binarize)
    verbose = verbosity(args)
    if args.algorithm == "pa":
        est = PAClassifier(args.degree, C=args.C, learner=args.learner, step=args.step, margin=args.margin,
                           n_iter=args.iterations,
                           average=args.average, common_features=args.common_features,
                           memory_budget=args.weight_budget, reuse=args.reuse, terminate=args.terminate,
                           fit_intercept=args.fit_intercept, gamma=args.gamma, coef0=args.coef0, shuffle=args.shuffle,
                           random_state=args.seed, verbose=verbose)
    else:
        if args.explicit:
            raise ConjunctError("--explicit applies to --algorithm pa (an l1 model is explicit already)")
        est = L1LogLinearClassifier(args.degree, C=args.C, n_iter=args.iterations, eta0=args.eta0, decay=args.decay,
                                    shuffle=args.shuffle, random_state=args.seed, verbose=verbose)
    start = time.perf_counter()
    if args.scheduler and args.algorithm != "pa":
        raise ConjunctError("--scheduler trains --algorithm pa (by iterative parameter mixing)")
    fit(args, est, X, y)
    seconds = time.perf_counter() - start
    est.model_.save(args.output)
    if not args.quiet:
        if args.algorithm == "pa":
            what = f"{est.model_.n_support_vectors:,} support vectors, {est.stats_['updates']:,} updates"
        else:
            what = f"{est.model_.n_conjunctions:,} non-zero conjunctions"
        print(f"wrote {args.output}: {len(y):,} examples, {len(est.classes_)} classes, {what}, "
              f"trained in {seconds:.2f} s", file=sys.stderr)
    if args.explicit:
        est.to_linear().save(args.explicit)
        if not args.quiet:
            print(f"wrote {args.explicit}: the explicit weights", file=sys.stderr)
    if args.test:
        from ..io.data import read_data

        X_test, y_test = read_data(args.test, format=args.format, features=est.model_.features, binarize=args.binarize)
        pred = est.model_.rule.predict(est.decision_function(X_test))
        correct = int((pred.astype(str) == y_test.astype(str)).sum())
        print(f"accuracy {correct / len(y_test):.6f} ({correct}/{len(y_test)}) on {args.test}")
    return 0

