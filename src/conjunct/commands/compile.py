"""conjunct compile: turn a model into a fast, immutable classifier file."""

from __future__ import annotations

import sys
import time

from .._errors import ConjunctError
from ._common import load_model, option, output_option


def register(sub) -> None:
    c = sub.add_parser(
        "compile",
        help="compile a model into a fast classifier (pkb, pki, pke, split, fstrie, adaptive)",
        description="Compile a model (a conjunct file or any importable model file) into a classifier file "
        "that `conjunct predict` runs. Exact unless --sigma or --min-support ask for the approximate expansion.",
    )
    c.add_argument("model", help="model file: conjunct, LIBSVM, SVMlight, TinySVM, opal, or conjunctive linear text")
    output_option(c, help="the classifier file to write")
    option(c, "method", default="fstrie", help="classification method (default fstrie)")
    c.add_argument("--events", help="fstrie: data file of feature vectors from the task (default: the support vectors); "
                   "adaptive: warm-start the cache with a static fstrie built from them")
    c.add_argument("--max-nodes", type=int, help="fstrie (or adaptive's warm-start trie): keep at most this many prefixes")
    c.add_argument("--max-bytes", type=int, help="fstrie (or adaptive's warm-start trie): size budget instead of --max-nodes")
    c.add_argument("--base", choices=["pke", "split"], help="fstrie, adaptive: the classifier under the trie (default pke)")
    c.add_argument("--cache-rows", type=int, help="adaptive: prefixes (rows of K margins) the cache holds per thread")
    c.add_argument("--eviction", choices=["lru", "lfu"], help="adaptive: evict the least recently or least often used")
    c.add_argument("--sharing", choices=["thread", "shared"],
                   help="adaptive: a cache per thread (default) or caches shared by every thread")
    c.add_argument("--shards", type=int, help="adaptive --sharing shared: number of caches, each behind a lock")
    c.add_argument("--sigma", type=float, help="pke: drop expanded weights below this threshold (approximate)")
    c.add_argument("--min-support", type=float,
                   help="pke: drop conjunctions in fewer support vectors (approximate); split: common-feature threshold")
    c.add_argument("--common-features", type=int, help="split: the number of top-ranked features to expand")
    c.add_argument("--dense-bytes", type=int, help="pke/split: budget of the dense table of frequent features")
    c.add_argument("--dense-features", type=int,
                   help="pke/split: put this many of the most frequent features in the dense table (instead of "
                   "--dense-bytes; at d >= 3 a larger table is faster and takes more memory)")
    c.add_argument("--report", metavar="DATA", help="compare with the exact classifier on DATA (decisions changed, margin error)")
    option(c, "binarize")
    c.set_defaults(func=run)


def _params(args) -> dict:
    p = {}
    method, base = args.method, args.base or "pke"
    on_trie = method in ("fstrie", "adaptive")
    expansion = method == "pke" or (on_trie and base == "pke")
    splitting = method == "split" or (on_trie and base == "split")
    if on_trie:
        if args.base:
            p["base"] = args.base
        if args.events:
            p["events" if method == "fstrie" else "warm_start"] = args.events
        if args.max_nodes is not None:
            p["max_nodes"] = args.max_nodes
        if args.max_bytes is not None:
            p["max_bytes"] = args.max_bytes
    elif args.events or args.max_nodes is not None or args.max_bytes is not None or args.base:
        raise ConjunctError("--events, --max-nodes, --max-bytes and --base apply to --method fstrie and adaptive")
    for name in ("cache_rows", "eviction", "sharing", "shards"):
        value = getattr(args, name)
        if value is None:
            continue
        if method != "adaptive":
            raise ConjunctError(f"--{name.replace('_', '-')} applies to --method adaptive")
        p[name] = value
    if args.sigma is not None:
        if not expansion:
            raise ConjunctError("--sigma applies to pke (or fstrie / adaptive over pke)")
        p["sigma"] = args.sigma
    if args.min_support is not None:
        if not (expansion or splitting):
            raise ConjunctError("--min-support applies to pke, split, or fstrie over them")
        p["min_support"] = int(args.min_support) if expansion else args.min_support
    if args.common_features is not None:
        if not splitting:
            raise ConjunctError("--common-features applies to split (or fstrie --base split)")
        p["common_features"] = args.common_features
    for param, value in (("dense_bytes", args.dense_bytes), ("dense_features", args.dense_features)):
        if value is None:
            continue
        if method in ("pkb", "pki"):
            raise ConjunctError(f"--{param.replace('_', '-')} applies to pke, split and fstrie")
        p[param] = value
    return p


def run(args) -> int:
    from ..io.data import read_data
    from ..models.classifiers import Classifier, approximation_report

    model = load_model(args.model, binarize=args.binarize)
    if isinstance(model, Classifier):
        raise ConjunctError(f"{args.model} is already a compiled {model.method} classifier; compile the model it came from")
    params = _params(args)
    start = time.perf_counter()
    clf = model.compile(args.method, **params)
    elapsed = time.perf_counter() - start
    clf.save(args.output)
    info = clf.info()
    shown = {k: v for k, v in info.items() if k not in ("classes", "base_params")}
    print(f"wrote {args.output} in {elapsed:.2f} s", file=sys.stderr)
    for k, v in shown.items():
        print(f"  {k.replace('_', ' ')}: {v}", file=sys.stderr)
    if args.report:
        X, _ = read_data(args.report, features=model.features, binarize=args.binarize)
        exact = model.compile("pki" if hasattr(model, "support_vectors") else "pke")
        rep = approximation_report(clf, exact, X)
        print(f"  against the exact classifier on {args.report}: {rep['changed_decisions']} of {rep['examples']} decisions "
              f"changed, max margin error {rep['max_margin_error']:.3g}", file=sys.stderr)
    return 0
