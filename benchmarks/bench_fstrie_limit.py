"""Why the fstrie's speed-up over PKE stays small on the bunsetsu parser: where
PKE's time goes, and what the fstrie covers.

Same workload as bench_classify (the classifier of the bunsetsu dependency
parser on UD Japanese GSD r2.8, PA-I with kernel slicing on every training
decision; events = the vectors the parser classifies on the training and dev
text). The script splits each test vector into its frequent features (those
in PKE's dense table, the most frequent internal ids) and its rare ones, and
times, per classification (one batch call over the test vectors, medians of
interleaved repeats):

- PKE on the whole vectors and on their frequent features alone: the share of
  PKE's time that conjunctions with a rare feature cost;
- fstrie L (every prefix of every event) on both: what it saves where its
  prefixes reach;
- an fstrie built from the test vectors themselves (every vector is a stored
  prefix: the speed-up with full coverage, what seed 000 approaches with
  3.2M sentences of events);
- the other ways to make the rare features cheaper, on the whole vectors: PKE
  with other dense table sizes (the default grows it at d >= 3; the fixed
  4 MiB table it starts from; a larger one), and kernel splitting at several
  split points (rare features through the kernel).

Features are sorted frequent to rare, so a vector's rare features sit at the
end of it, after its longest stored prefix, and the fstrie never skips their
conjunctions.

    python benchmarks/bench_fstrie_limit.py              # d = 3
    python benchmarks/bench_fstrie_limit.py --degree 2
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp

from _common import markdown_table, require_shared_data, write_results
from bench_classify import coverage, parse_all, say, train_model

import conjunct
from conjunct._timing import interleaved_medians
from conjunct.models.classifiers import DEFAULT_DENSE_BYTES
from conjunct.tasks.bunsetsu import load_gsd_bunsetsu, training_examples


def keep_columns(X: sp.csr_matrix, keep: np.ndarray) -> sp.csr_matrix:
    """X with only the entries whose column is marked in ``keep``."""
    X = X.tocsr()
    mask = np.zeros(X.nnz, dtype=bool)
    inside = X.indices < keep.size
    mask[inside] = keep[X.indices[inside]]
    out = X.copy()
    out.data = np.where(mask, out.data, 0).astype(out.dtype)
    out.eliminate_zeros()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degree", type=int, default=3)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--name", default=None, help="result file name (default: fstrie_limit_d<degree>)")
    ap.add_argument("--dense-features", type=int, nargs="*", default=[600],
                    help="dense table sizes to try besides PKE's default and the fixed 4 MiB table")
    ap.add_argument("--split-points", type=int, nargs="*", default=[500, 1000, 2000, 4000],
                    help="common-feature counts to try kernel splitting at")
    args = ap.parse_args()
    data = require_shared_data() / "ud_japanese_gsd"
    say("loading UD Japanese GSD r2.8 as bunsetsu sentences ...")
    train, dev, test = (load_gsd_bunsetsu(data, s) for s in ("train", "dev", "test"))
    feats, labels, _ = training_examples(train)
    index = conjunct.FeatureIndex.from_data(feats)
    X = index.transform(feats)
    y = np.asarray(labels)
    say(f"training d = {args.degree} (averaged PA-I, kernel slicing) on {len(y)} decisions ...")
    model, _, seconds = train_model(index, feats, X, y, args.degree, args.C, len(y), "pa")
    _, Xt, _ = parse_all(model, test, collect=True)
    E = sp.vstack([parse_all(model, train, collect=True)[1], parse_all(model, dev, collect=True)[1]]).tocsr()

    pke = model.compile("pke")
    n_dense = int(pke.meta["n_dense"])
    col_map = pke.arrays["col_map"]
    frequent = (col_map >= 0) & (col_map < n_dense)
    Xf = keep_columns(Xt, frequent)
    known = keep_columns(Xt, col_map >= 0)
    say(f"compiling fstries from {E.shape[0]} events and from the {Xt.shape[0]} test vectors ...")
    fstrie = model.compile("fstrie", events=E)
    in_sample = model.compile("fstrie", events=Xt)

    runs = {
        ("PKE", "whole vectors"): (pke, Xt), ("PKE", "frequent features only"): (pke, Xf),
        ("fstrie L", "whole vectors"): (fstrie, Xt), ("fstrie L", "frequent features only"): (fstrie, Xf),
        ("fstrie of the test vectors", "whole vectors"): (in_sample, Xt),
    }
    say("timing ...")
    times = interleaved_medians({k: (lambda c=c, M=M: c.decision_function(M)) for k, (c, M) in runs.items()},
                                repeats=args.repeats)
    n = Xt.shape[0]
    us = {k: t / n * 1e6 for k, t in times.items()}
    # Exactness on the way: every classifier gives PKE's margins on the same input.
    for (name, inputs), (clf, M) in runs.items():
        ref = pke.decision_function(M)
        assert np.allclose(clf.decision_function(M), ref, rtol=1e-9, atol=1e-9), (name, inputs)

    per_vector = np.diff(known.indptr).mean()
    frequent_share = Xf.nnz / max(known.nnz, 1)
    cov_whole = coverage(fstrie, Xt)
    cov_frequent = coverage(fstrie, Xf)
    rare_share = 1.0 - us[("PKE", "frequent features only")] / us[("PKE", "whole vectors")]
    rows = []
    for (name, inputs), value in us.items():
        base = us[("PKE", inputs)]
        cov = {("fstrie L", "whole vectors"): cov_whole, ("fstrie L", "frequent features only"): cov_frequent,
               ("fstrie of the test vectors", "whole vectors"): coverage(in_sample, Xt)}.get((name, inputs))
        rows.append({"method": name, "inputs": inputs, "us_per_classification": value, "speedup_over_pke": base / value,
                     "prefix_coverage": cov})
    result = {"degree": args.degree, "train_seconds": seconds, "support_vectors": model.n_support_vectors,
              "n_dense": n_dense, "test_vectors": n, "events": E.shape[0], "features_per_vector": per_vector,
              "frequent_feature_share": frequent_share, "pke_time_share_of_rare_features": rare_share,
              "fstrie_nodes": fstrie.meta["nodes"], "rows": rows}

    md = [f"d = {args.degree}: {model.n_support_vectors} support vectors; {n} test vectors with {per_vector:.1f} known "
          f"features each, {frequent_share:.1%} of them among the {n_dense} most frequent (PKE's dense table); "
          f"fstrie L has {fstrie.meta['nodes']:,} prefixes from {E.shape[0]:,} events.\n",
          markdown_table(["classifier", "inputs", "µs / classification", "vs PKE on the same inputs", "prefix coverage"],
                         [[r["method"], r["inputs"], r["us_per_classification"], f"{r['speedup_over_pke']:.2f}x",
                           "" if r["prefix_coverage"] is None else f"{r['prefix_coverage']:.1%}"] for r in rows]),
          f"\nThe rare features ({1 - frequent_share:.1%} of a vector's features) cost {rare_share:.0%} of PKE's time. "
          "Sorted frequent to rare, they come after a vector's longest stored prefix, so the fstrie computes their "
          "conjunctions as PKE does; its speed-up is bounded by the frequent features' share of PKE's time, however "
          "many events it is built from, unless the events contain the test vectors' rare features too (the fstrie "
          "of the test vectors)."]
    alternatives = try_alternatives(model, pke, Xt, args)
    result["alternatives"] = alternatives
    md += ["\nOther ways to make the rare features cheaper, on the whole test vectors (one run, interleaved):\n",
           markdown_table(["classifier", "memory MB", "µs / classification", "vs PKE"],
                          [[r["method"], r["memory_mb"], r["us_per_classification"], f"{r['speedup_over_pke']:.2f}x"]
                           for r in alternatives]),
           "\nWhat a larger dense table buys depends on d (the default grows it only at d >= 3, within 1.25x of the "
           "memory); no split point beats PKE. What is left is reading the weights of the conjunctions present (see "
           "docs/classification.md, \"Where PKE's time goes\")."]
    write_results(args.name or f"fstrie_limit_d{args.degree}", result, "\n".join(md))


def try_alternatives(model, pke, Xt, args) -> list:
    """PKE with larger dense tables and kernel splitting at several split points, timed against PKE."""
    built = {f"PKE, dense table of the {pke.meta['n_dense']} most frequent features (default)": pke}
    fixed = model.compile("pke", dense_bytes=DEFAULT_DENSE_BYTES)
    built[f"PKE, fixed 4 MiB dense table ({fixed.meta['n_dense']} features)"] = fixed
    for n in args.dense_features:
        say(f"compiling PKE with a dense table of {n} features ...")
        built[f"PKE, dense table of the {n} most frequent features"] = model.compile("pke", dense_features=n)
    for n in args.split_points:
        say(f"compiling split with {n} common features ...")
        built[f"split, {n} common features"] = model.compile("split", common_features=n)
    ref = pke.decision_function(Xt)
    for name, clf in built.items():
        assert np.allclose(clf.decision_function(Xt), ref, rtol=1e-9, atol=1e-9), name
    say("timing the alternatives ...")
    times = interleaved_medians({k: (lambda c=c: c.decision_function(Xt)) for k, c in built.items()},
                                repeats=args.repeats)
    n = Xt.shape[0]
    base = next(iter(times.values()))
    return [{"method": k, "memory_mb": built[k].nbytes / 2**20, "us_per_classification": t / n * 1e6,
             "speedup_over_pke": base / t} for k, t in times.items()]


if __name__ == "__main__":
    main()
