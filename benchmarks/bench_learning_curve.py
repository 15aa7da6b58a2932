"""Learning curves of averaged PA-I (kernel slicing) per epoch: held-out accuracy,
updates per example and support vectors, at d = 1, 2, 3.

Workload: CoNLL-2000 chunk tags with YamCha-style window features (words and POS
at -2..+2), the first --examples training tokens; accuracy on every test token.
Each model is trained one epoch at a time with ``partial_fit`` and scored after
each epoch; the per-epoch updates and support vectors come from the estimator's
progress reports (``history_``, the records its ``callback`` receives), turned
into per-epoch records by ``conjunct.plot.epoch_records``. The run checks that
the epoch-by-epoch model is the one ``fit`` trains in one call (same support
vectors and test accuracy). Results: results/<name>.{json,md}; draw them with
``python benchmarks/plot_results.py benchmarks/results/learning_curve.json``.

    python benchmarks/bench_learning_curve.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import markdown_table, require_shared_data, write_results

from conjunct.io.corpora import read_conll2000, window_features
from conjunct.plot import epoch_records
from conjunct.training import PAClassifier


def tokens(path, limit=0):
    sents = read_conll2000(path)
    feats = [window_features(s, i) for s in sents for i in range(len(s))]
    labels = np.array([s[i][2] for s in sents for i in range(len(s))])
    return (feats[:limit], labels[:limit]) if limit else (feats, labels)


def curve(degree, X, y, Xt, yt, epochs, C, seed):
    clf = PAClassifier(degree, C=C, n_iter=epochs, random_state=seed)
    classes = np.unique(y)
    accuracies, train_seconds = [], 0.0
    for _ in range(epochs):
        start = time.perf_counter()
        clf.partial_fit(X, y, classes=classes)
        train_seconds += time.perf_counter() - start
        accuracies.append(clf.score(Xt, yt))
    records = epoch_records(clf.history_)
    if len(records) != epochs:
        raise RuntimeError(f"d = {degree}: {len(records)} epoch reports for {epochs} epochs")
    for rec, acc in zip(records, accuracies):
        rec["test_accuracy"] = acc
    # The same learner in one call: epoch-by-epoch training must not change the model.
    once = PAClassifier(degree, C=C, n_iter=epochs, random_state=seed).fit(X, y)
    same = once.n_support_ == clf.n_support_ and once.score(Xt, yt) == accuracies[-1]
    return records, {"train_seconds": train_seconds, "support_vectors": clf.n_support_,
                     "test_accuracy": accuracies[-1], "same_as_fit": bool(same)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degrees", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--examples", type=int, default=50000, help="training tokens (0: all)")
    ap.add_argument("-C", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="learning_curve")
    args = ap.parse_args()

    data = require_shared_data() / "conll2000"
    X, y = tokens(data / "train.txt", args.examples)
    Xt, yt = tokens(data / "test.txt")
    print(f"{len(X):,} training tokens, {len(Xt):,} test tokens, {len(np.unique(y))} chunk tags", flush=True)
    curves, summary = {}, {}
    for d in args.degrees:
        records, s = curve(d, X, y, Xt, yt, args.epochs, args.C, args.seed)
        curves[f"d = {d}"], summary[f"d = {d}"] = records, s
        print(f"d = {d}: accuracy {s['test_accuracy']:.4f}, {s['support_vectors']:,} SVs, "
              f"{s['train_seconds']:.1f} s, same as fit: {s['same_as_fit']}", flush=True)
    title = (f"averaged PA-I (kernel slicing, C = {args.C:g}) on CoNLL-2000 chunk tags, "
             f"{len(X):,} training tokens")
    md = [f"Learning curves: {title}; accuracy on all {len(Xt):,} test tokens.\n"]
    epochs = range(1, args.epochs + 1)
    for key, what, fmt in (("test_accuracy", "held-out accuracy", "{:.4f}"), ("update_rate", "updates per example", "{:.4f}"),
                           ("support_vectors", "support vectors", "{:,}")):
        md.append(f"\n{what} by epoch:\n")
        md.append(markdown_table(["model"] + [str(e) for e in epochs],
                                 [[name] + [fmt.format(r[key]) if key in r else "" for r in recs] for name, recs in curves.items()]))
    md.append("\n" + markdown_table(["model", f"training s ({args.epochs} partial_fit calls)", "support vectors", "accuracy", "same model as fit"],
                                    [[n, s["train_seconds"], f"{s['support_vectors']:,}", f"{s['test_accuracy']:.4f}", s["same_as_fit"]]
                                     for n, s in summary.items()]))
    md.append("\n![learning curves](../../docs/figures/learning_curve.png)")
    write_results(args.name, {"settings": vars(args), "title": title, "curves": curves, "summary": summary}, "\n".join(md))


if __name__ == "__main__":
    main()
