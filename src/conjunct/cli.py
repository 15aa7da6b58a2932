"""The ``conjunct`` command line (also ``python -m conjunct``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

import numpy as np

from ._errors import ConjunctError

METHODS_HELP = "pkb (brute force) or pki (inverted index)"


def _load_any(path: str, *, binarize: bool = False, mmap: bool = False):
    from .importers import import_model, sniff_model_format

    if sniff_model_format(path) == "conjunct":
        from .persistence import load

        return load(path, mmap=mmap)
    return import_model(path, binarize=binarize)


def _classifier(obj, method: Optional[str]):
    from .classifiers import Classifier

    if isinstance(obj, Classifier):
        if method and method != obj.method:
            raise ConjunctError(f"the file holds a compiled {obj.method} classifier; it cannot be run as {method}")
        return obj
    return obj.compile(method or "pki")


def cmd_convert(args) -> int:
    from .importers import import_model

    model = import_model(args.model, args.source_format, binarize=args.binarize)
    model.save(args.output)
    info = model.info()
    print(f"wrote {args.output}: {info['kind']}, {info.get('support_vectors', '?')} support vectors, "
          f"{info.get('outputs')} output(s), decision {info.get('decision')}", file=sys.stderr)
    return 0


def cmd_predict(args) -> int:
    from .data import read_data

    obj = _load_any(args.model, binarize=args.binarize, mmap=args.mmap)
    clf = _classifier(obj, args.method)
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


def cmd_info(args) -> int:
    obj = _load_any(args.model, binarize=args.binarize)
    info = obj.info()
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        width = max(len(k) for k in info)
        for k, v in info.items():
            if isinstance(v, list) and len(v) > 12:
                v = f"{v[:12]} ... ({len(v)} in all)"
            print(f"{k.replace('_', ' '):<{width}}  {v}")
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(n_train=args.n_train, n_test=args.n_test, degree=args.degree, n_classes=args.classes, seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="conjunct",
        description="Fast, exact classification with conjunctive features (polynomial kernels).",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    c = sub.add_parser("convert", help="import a LIBSVM / SVMlight / TinySVM / opal model into a conjunct model file")
    c.add_argument("model", help="the source model file")
    c.add_argument("output", help="the conjunct model file to write")
    c.add_argument("--from", dest="source_format", default="auto",
                   choices=["auto", "libsvm", "svmlight", "tinysvm", "opal"], help="source format (default: detect)")
    c.add_argument("--binarize", action="store_true", help="treat non-zero feature values as 1 instead of failing")
    c.set_defaults(func=cmd_convert)

    r = sub.add_parser("predict", help="classify data with a model: labels, margins or accuracy")
    r.add_argument("model", help="a conjunct model or classifier file, or any importable model file")
    r.add_argument("data", help="data file (svmlight or string format); '-' reads standard input")
    r.add_argument("-o", "--out", default="-", help="output file ('-' = standard output, the default)")
    r.add_argument("--output", choices=["labels", "margins", "accuracy"], default="labels",
                   help="labels (one per line), margins (label TAB margins), or accuracy against the data's labels")
    r.add_argument("--format", choices=["auto", "svmlight", "strings"], default="auto", help="data format (default: detect)")
    r.add_argument("--method", default=None, help=f"classification method for a model file: {METHODS_HELP} (default pki)")
    r.add_argument("--binarize", action="store_true", help="treat non-zero feature values as 1 instead of failing")
    r.add_argument("--mmap", action="store_true", help="memory-map a conjunct model file instead of reading it")
    r.add_argument("--n-jobs", type=int, default=1, help="threads to classify with")
    r.set_defaults(func=cmd_predict)

    i = sub.add_parser("info", help="show what a model file holds")
    i.add_argument("model")
    i.add_argument("--json", action="store_true", help="print JSON")
    i.add_argument("--binarize", action="store_true", help=argparse.SUPPRESS)
    i.set_defaults(func=cmd_info)

    d = sub.add_parser("demo", help="the main job end to end on generated Zipfian data")
    d.add_argument("--n-train", type=int, default=4000)
    d.add_argument("--n-test", type=int, default=2000)
    d.add_argument("--degree", type=int, default=3)
    d.add_argument("--classes", type=int, default=2)
    d.add_argument("--seed", type=int, default=0)
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ConjunctError as e:
        print(f"conjunct: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
