"""Fast classification with conjunctive features: the shape of seed 000 Tables 3-4 and Figure 3.

Workload: the classifier of a Japanese bunsetsu dependency parser (Sassano's
shift-reduce algorithm, "does bunsetsu i depend on j", the features of seed 000
Table 1) on UD Japanese GSD r2.8 made bunsetsu-level (conjunct.tasks.bunsetsu).
The polynomial-kernel model per degree is trained by conjunct itself (averaged
PA-I, kernel slicing, on every training decision) or, with ``--trainer svc``, by
scikit-learn's SVC (gamma=1, coef0=1) and imported; the same model is exported
to LIBSVM for the LIBSVM peer (and, with an SVC, timed with SVC.decision_function).

Classification inputs are the feature vectors the parser asks about while
parsing the test split with the model; the fstrie is built from the vectors the
parser produces on the training split (fstrie L: every prefix; M and S: 1/32
and 1/1024 of L's prefixes, pruned by Algorithm 1, as in the paper).

Reported per method: model memory, build time, µs per classification (one
batch call over all test vectors; medians of interleaved repeats), µs per
single decision call (with early exit), ms of classification per sentence,
and the speed-ups the paper reports; then whole-parser speed per method
(sentences/s of the C++ parsing loop including feature lookup, time in the
classifier), and seed 000's weblog check: the fstrie built from the training
split keeps its speed-up on text it was not built from (test) compared with
text it was built from. Table 4's shape: the approximate
expansion (HKE, sigma > 0) with |F^d|, decisions changed and its fstrie.
Figure 3: classification time against fstrie size, with PKE's (and split's)
time as horizontal lines, drawn by conjunct.plot from the results into
results/<name>_fstrie_size.png (redraw it with ``python benchmarks/plot_results.py
benchmarks/results/classify.json``).

    python benchmarks/bench_classify.py                 # d = 2, 3, PA-I models
    python benchmarks/bench_classify.py --trainer svc --train-examples 20000
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from _common import RESULTS, markdown_table, require_shared_data, write_figures, write_results

import conjunct
from conjunct import _core
from conjunct._timing import interleaved_medians
from conjunct.io.exporters import to_libsvm
from conjunct.io.importers import from_sklearn
from conjunct.models.classifiers import approximation_report
from conjunct.tasks.bunsetsu import BunsetsuParser, dependency_accuracy, load_gsd_bunsetsu, training_examples

CACHE = RESULTS / "tmp"


def say(msg: str) -> None:
    print(msg, flush=True)


def train_model(index, feats, X, y, degree: int, C: float, n: int, trainer: str):
    """(conjunct model, the SVC it came from or None, training seconds or None when cached)."""
    if trainer == "pa":
        from conjunct.training import PAClassifier

        start = time.perf_counter()
        est = PAClassifier(degree=degree, C=C, n_iter=10, margin="slicing", random_state=0).fit(feats[:n], list(y[:n]))
        return est.model_, None, time.perf_counter() - start
    import pickle

    from sklearn.svm import SVC

    CACHE.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha1(f"{degree}-{C}-{n}-{X.shape}-{X.nnz}-{int(X.indices.sum())}".encode()).hexdigest()[:12]
    path = CACHE / f"bunsetsu_svc_d{degree}_{key}.pkl"
    if path.exists():
        with open(path, "rb") as f:
            svc = pickle.load(f)
        seconds = None
    else:
        start = time.perf_counter()
        svc = SVC(kernel="poly", degree=degree, gamma=1.0, coef0=1.0, C=C, cache_size=1000).fit(X[:n], y[:n])
        seconds = time.perf_counter() - start
        with open(path, "wb") as f:
            pickle.dump(svc, f)
    return from_sklearn(svc, features=index), svc, seconds


def parse_all(model_or_clf, sentences, collect: bool):
    """(heads, CSR of the classified vectors or None, decisions) of the C++ parser over ``sentences``."""
    clf = model_or_clf if isinstance(model_or_clf, conjunct.Classifier) else model_or_clf.compile("pke")
    parser = BunsetsuParser(clf, early_exit=False)
    out = parser.parse_many(sentences, collect=collect)
    heads, events = out if collect else (out, None)
    return heads, events, parser.decisions


def parsing_speed(built, train, test, E_test, model, repeats):
    """Whole-parser speed per method on the test split, and the weblog check."""
    from conjunct.tasks.bunsetsu import BunsetsuParser

    runners = {name: BunsetsuParser(clf) for name, (clf, _) in built.items()}
    seen = train[:len(test)]
    in_sample = model.compile("fstrie", events=E_test)
    runners["fstrie L (pke), built from the test split"] = BunsetsuParser(in_sample)
    for r in runners.values():  # warm the feature-id caches: steady state of a running parser
        r.parse_many(test)
        r.parse_many(seen)
    fns = {name: (lambda r=r: r.parse_many(test)) for name, r in runners.items()}
    say("   timing whole-parser speed ...")
    times = interleaved_medians(fns, repeats=repeats)
    rows = []
    for name, r in runners.items():
        before = (r.decisions, r.classifier_seconds, r.loop_seconds)
        r.parse_many(test, timing=True)
        clf_s, loop_s = r.classifier_seconds - before[1], r.loop_seconds - before[2]
        rows.append({"method": name, "seconds": times[name], "sentences_per_second": len(test) / times[name],
                     "classifier_share": min(clf_s / times[name], 1.0) if times[name] else 0.0,
                     "classifier_seconds_timed": clf_s, "loop_seconds_timed": loop_s})
    # Weblog check: speed-up of the fstrie over PKE on text it was built from vs on text it was not.
    check = {}
    for label, sents in (("training text (the fstrie was built from it)", seen), ("test text (unseen)", test)):
        t = interleaved_medians({"pke": lambda s=sents: runners["PKE"].parse_many(s),
                                 "fstrie": lambda s=sents: runners["fstrie L (pke)"].parse_many(s)}, repeats=repeats)
        check[label] = {"sentences": len(sents), "pke_seconds": t["pke"], "fstrie_seconds": t["fstrie"],
                        "speedup": t["pke"] / t["fstrie"]}
    return rows, check


def coverage(clf, X) -> float:
    """Mean share of a vector's model features covered by its longest stored prefix."""
    col_map = clf.arrays["col_map"]
    p = clf.compiled.prefix_lengths(indptr=X.indptr.astype(np.int64), indices=X.indices.astype(np.int32))
    inside = X.indices < col_map.size
    known = np.zeros(X.indices.size, dtype=bool)
    known[inside] = col_map[X.indices[inside]] >= 0
    lengths = np.add.reduceat(known.astype(np.int64), X.indptr[:-1]) if X.nnz else np.zeros(X.shape[0], np.int64)
    lengths[np.diff(X.indptr) == 0] = 0
    return float(np.mean(p / np.maximum(lengths, 1)))


def events_scaling(model, event_sets, Xt, repeats):
    """fstrie L speed against the number of events it is built from (seed 000 Figure 4's naive reduction)."""
    fns, rows = {"PKE": (lambda c=model.compile("pke"): c.decision_function(Xt))}, []
    for label, E in event_sets:
        clf = model.compile("fstrie", events=E)
        fns[label] = lambda c=clf: c.decision_function(Xt)
        rows.append({"events": label, "n_events": E.shape[0], "nodes": clf.meta["nodes"], "prefix_coverage": coverage(clf, Xt),
                     "trie_mb": sum(v.nbytes for k, v in clf.arrays.items() if k.startswith("trie.")) / 1e6})
    times = interleaved_medians(fns, repeats=repeats)
    for r in rows:
        r["us_per_classification"] = times[r["events"]] / Xt.shape[0] * 1e6
        r["speedup_over_pke"] = times["PKE"] / times[r["events"]]
    return {"pke_us": times["PKE"] / Xt.shape[0] * 1e6, "rows": rows}


def generated_events_scaling(repeats, sizes, seed=7):
    """The same on generated Zipfian data, where events are unlimited: a degree-3 SVC on
    6,000 examples, 5,000 test vectors, fstries from up to max(sizes) events."""
    from sklearn.svm import SVC

    from conjunct.datasets import make_zipf_data

    say("   generated data: training a degree-3 SVC and drawing events ...")
    feats, y = make_zipf_data(6000 + 5000, context=3, seed=seed)
    index = conjunct.FeatureIndex.from_data(feats[:6000])
    X = index.transform(feats)
    svc = SVC(kernel="poly", degree=3, gamma=1.0, coef0=1.0, C=0.01).fit(X[:6000], y[:6000])
    model = from_sklearn(svc, features=index)
    Xt = X[6000:]
    events, _ = make_zipf_data(max(sizes), context=3, seed=seed + 1)
    E = index.transform(events)
    out = events_scaling(model, [(f"{n:,}", E[:n]) for n in sizes], Xt, repeats)
    out["support_vectors"] = model.n_support_vectors
    out["mean_active_features"] = float(Xt.getnnz(axis=1).mean())
    return out


def run_degree(degree, C, n_train, index, feats, X, y, train, test, repeats, sweep, trainer, dev=None):
    say(f"== d = {degree}: training {'averaged PA-I (kernel slicing, 10 epochs)' if trainer == 'pa' else 'SVC(poly)'} "
        f"on {n_train} decisions (C = {C})")
    model, svc, train_seconds = train_model(index, feats, X, y, degree, C, n_train, trainer)
    say(f"   {model.n_support_vectors} support vectors" + (f", trained in {train_seconds:.1f} s" if train_seconds else " (cached)"))
    heads, Xt, n_dec = parse_all(model, test, collect=True)
    dep_acc, sent_acc = dependency_accuracy(test, heads)
    # Events: the vectors the parser produces on the other text there is (train and dev).
    _, E_train, _ = parse_all(model, train, collect=True)
    E = sp.vstack([E_train] + ([parse_all(model, dev, collect=True)[1]] if dev else [])).tocsr()
    n = Xt.shape[0]
    per_sentence = n / len(test)
    say(f"   test: {n} classifications ({per_sentence:.1f} per sentence), dependency accuracy {dep_acc:.4f}; "
        f"{E.shape[0]} events from parsing the training split")

    built = {}

    def build(name, method, **kw):
        start = time.perf_counter()
        clf = model.compile(method, **kw)
        built[name] = (clf, time.perf_counter() - start)
        return clf

    build("PKB", "pkb")
    build("PKI", "pki")
    build("PKE", "pke")
    build("split", "split")
    L = build("fstrie L (pke)", "fstrie", events=E)
    n_L = L.meta["nodes"]
    build("fstrie M (pke)", "fstrie", events=E, max_nodes=max(n_L // 32, 1))
    build("fstrie S (pke)", "fstrie", events=E, max_nodes=max(n_L // 1024, 1))
    build("fstrie L (split)", "fstrie", events=E, base="split")
    build("fstrie M (split)", "fstrie", events=E, base="split", max_nodes=max(n_L // 32, 1))
    build("fstrie S (split)", "fstrie", events=E, base="split", max_nodes=max(n_L // 1024, 1))

    reference = built["PKB"][0].decision_function(Xt)
    scale = np.abs(reference).max()
    for name, (clf, _) in built.items():
        err = np.abs(clf.decision_function(Xt) - reference).max() / scale
        if err > 1e-9:
            raise SystemExit(f"{name} is not exact: relative error {err:.2e}")

    # Peers on the very same model: the SVC itself, and LIBSVM given the exported model.
    from libsvm import svmutil

    with tempfile.TemporaryDirectory() as tmp:
        to_libsvm(model, Path(tmp) / "m.libsvm", id_offset=1)
        libsvm_model = svmutil.svm_load_model(str(Path(tmp) / "m.libsvm"))
    lib_pred = np.asarray(svmutil.svm_predict([0] * n, Xt, libsvm_model, "-q")[0]).astype(int)
    agree = float(np.mean(lib_pred == built["PKI"][0].predict(Xt)))
    sk_err = float(np.abs(svc.decision_function(Xt) - reference).max() / scale) if svc is not None else None

    fns = {name: (lambda c=clf: c.decision_function(Xt)) for name, (clf, _) in built.items()}
    if svc is not None:
        fns["scikit-learn SVC.decision_function"] = lambda: svc.decision_function(Xt)
    fns["LIBSVM svm_predict"] = lambda: svmutil.svm_predict([0] * n, Xt, libsvm_model, "-q")
    say("   timing batch classification ...")
    batch = interleaved_medians(fns, repeats=repeats)
    rows_single = [Xt.indices[Xt.indptr[i]:Xt.indptr[i + 1]].copy() for i in range(n)]
    single = {}
    for name in ("PKI", "PKE", "split", "fstrie L (pke)", "fstrie L (split)"):
        clf = built[name][0]

        def loop(c=clf):
            for r in rows_single:
                c.predict_one(r)

        single[name] = loop
    say("   timing one call per decision ...")
    one = interleaved_medians(single, repeats=max(3, repeats // 2))
    _core.early_exit_counters(True)
    built["fstrie L (split)"][0].predict(Xt)
    stops, _ = _core.early_exit_counters(True)

    methods = []
    for name, (clf, seconds) in built.items():
        us = batch[name] / n * 1e6
        methods.append({
            "method": name, "memory_mb": clf.nbytes / 1e6, "build_seconds": seconds, "us_per_classification": us,
            "ms_per_sentence": us * per_sentence / 1000, "us_per_decision_call": one.get(name, float("nan")) / n * 1e6 if name in one else None,
            "conjunctions": clf.meta.get("n_conjunctions"), "fstrie_nodes": clf.meta.get("nodes"),
        })
    for name in ("scikit-learn SVC.decision_function", "LIBSVM svm_predict"):
        if name not in batch:
            continue
        us = batch[name] / n * 1e6
        methods.append({"method": name, "memory_mb": None, "build_seconds": None, "us_per_classification": us,
                        "ms_per_sentence": us * per_sentence / 1000, "us_per_decision_call": None, "conjunctions": None, "fstrie_nodes": None})

    result = {
        "degree": degree, "C": C, "train_decisions": n_train, "support_vectors": model.n_support_vectors,
        "trainer": trainer, "train_seconds": train_seconds, "test_classifications": n, "classifications_per_sentence": per_sentence,
        "dependency_accuracy": dep_acc, "sentence_accuracy": sent_acc, "fstrie_events": E.shape[0],
        "libsvm_agreement": agree, "sklearn_max_relative_error": sk_err,
        "early_exit_share_fstrie_split": stops / n, "methods": methods,
    }
    result["prefix_coverage_fstrie_L"] = coverage(L, Xt)
    result["parsing"], result["weblog_check"] = parsing_speed(built, train, test, Xt, model, repeats)
    result["events_scaling"] = events_scaling(
        model, [(f"1/{k} of the events", E[: max(E.shape[0] // k, 1)]) for k in (64, 16, 4)] + [("all events", E)], Xt, repeats)
    if sweep:
        result["fstrie_size_sweep"] = size_sweep(model, E, Xt, n_L, repeats)
    if degree == 3:
        result["hke"] = hke_table(model, E, Xt, built["PKI"][0], repeats, reference)
    return result


def size_sweep(model, E, Xt, n_L, repeats):
    sizes = sorted({max(n_L >> k, 0) for k in range(0, 12)} | {0})
    fns, info = {}, {}
    for size in sizes:
        clf = model.compile("fstrie", events=E, max_nodes=size)
        fns[size] = lambda c=clf: c.decision_function(Xt)
        info[size] = sum(v.nbytes for k, v in clf.arrays.items() if k.startswith("trie."))
    times = interleaved_medians(fns, repeats=repeats)
    return [{"max_nodes": s, "trie_mb": info[s] / 1e6, "us_per_classification": times[s] / Xt.shape[0] * 1e6} for s in sizes]


def hke_table(model, E, Xt, exact, repeats, reference):
    rows = []
    fns = {}
    for sigma in (0.0, 0.001, 0.002, 0.003, 0.005, 0.01):
        pke = model.compile("pke", sigma=sigma)
        trie = model.compile("fstrie", events=E, sigma=sigma)
        rep = approximation_report(pke, exact, Xt)
        rows.append({"sigma": sigma, "conjunctions": pke.meta["n_conjunctions"], "memory_mb": pke.nbytes / 1e6,
                     "changed_decisions": rep["changed_decisions"], "max_margin_error": rep["max_margin_error"]})
        fns[(sigma, "pke")] = lambda c=pke: c.decision_function(Xt)
        fns[(sigma, "fstrie")] = lambda c=trie: c.decision_function(Xt)
    times = interleaved_medians(fns, repeats=repeats)
    for r in rows:
        r["pke_us"] = times[(r["sigma"], "pke")] / Xt.shape[0] * 1e6
        r["fstrie_L_us"] = times[(r["sigma"], "fstrie")] / Xt.shape[0] * 1e6
    return rows


def accuracy_table(train, dev, test, degrees, n_iter=10):
    """Dependency / sentence accuracy of the PA-I-trained pipeline per degree (seed 000 Table 2's shape)."""
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser

    rows = []
    for d in degrees:
        start = time.perf_counter()
        p = BunsetsuDependencyParser(degree=d, n_iter=n_iter, method="pke").fit(train)
        seconds = time.perf_counter() - start
        ev = {split: p.evaluate(sents) for split, sents in (("dev", dev), ("test", test))}
        rows.append({"degree": d, "train_seconds": seconds, "support_vectors": p.model_.n_support_vectors,
                     "conjunctions": p.classifier_.meta.get("n_conjunctions"),
                     **{f"{k}_{split}": ev[split][k] for split in ev for k in ("dependency_accuracy", "sentence_accuracy")}})
        say(f"   d = {d}: dev {rows[-1]['dependency_accuracy_dev']:.4f}, test {rows[-1]['dependency_accuracy_test']:.4f}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--train-examples", type=int, default=None, help="training decisions (default: all)")
    ap.add_argument("--trainer", choices=["pa", "svc"], default="pa", help="conjunct's PA-I (default) or scikit-learn's SVC")
    ap.add_argument("--C", type=float, nargs="+", default=None,
                    help="C per degree (default: 1 for PA-I; for SVC 0.05 at d=2, 0.01 above)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--accuracy-degrees", type=int, nargs="*", default=[1, 2, 3],
                    help="degrees of the accuracy table (PA-I on every training decision, 10 epochs)")
    ap.add_argument("--no-sweep", action="store_true", help="skip the fstrie size sweep (Figure 3)")
    ap.add_argument("--no-generated", action="store_true", help="skip the events-scaling experiment on generated data")
    ap.add_argument("--generated-events", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    ap.add_argument("--name", default="classify")
    args = ap.parse_args()
    data = require_shared_data() / "ud_japanese_gsd"
    say("loading UD Japanese GSD r2.8 as bunsetsu sentences ...")
    train = load_gsd_bunsetsu(data, "train")
    dev = load_gsd_bunsetsu(data, "dev")
    test = load_gsd_bunsetsu(data, "test")
    feats, labels, skipped = training_examples(train)
    index = conjunct.FeatureIndex.from_data(feats)
    X = index.transform(feats)
    y = np.asarray(labels)
    n_train = min(args.train_examples or len(y), len(y))
    say(f"   {len(train)} training sentences ({skipped} not head-final/projective, skipped), {len(y)} decisions, "
        f"{len(index)} features, {X.getnnz(axis=1).mean():.1f} active per decision")
    say("accuracy of the PA-I-trained parser per degree ...")
    accuracy = accuracy_table(train, dev, test, args.accuracy_degrees)
    results = []
    for k, d in enumerate(args.degrees):
        C = args.C[k] if args.C else (1.0 if args.trainer == "pa" else 0.05 if d == 2 else 0.01)
        results.append(run_degree(d, C, n_train, index, feats, X, y, train, test, args.repeats, not args.no_sweep, args.trainer, dev))
    generated = None if args.no_generated else generated_events_scaling(args.repeats, args.generated_events)

    md = [f"Workload: bunsetsu dependency parsing decisions on UD Japanese GSD r2.8 (bunsetsu-level), "
          f"{len(train)} training / {len(dev)} dev / {len(test)} test sentences. µs per classification = one batch call over "
          f"the test decisions, median of {args.repeats} interleaved repeats; single call = predict_one per decision (early exit)."]
    if accuracy:
        md.append("\nAccuracy of the parser trained with averaged PA-I (kernel slicing, C = 1, 10 epochs) on all "
                  f"{len(y)} training decisions (seed 000 Table 2's shape):\n")
        md.append(markdown_table(["d", "training s", "SVs", "|F^d|", "dev dep. acc.", "dev sent. acc.", "test dep. acc.",
                                  "test sent. acc."],
                                 [[a["degree"], f"{a['train_seconds']:.1f}", a["support_vectors"], a["conjunctions"],
                                   f"{a['dependency_accuracy_dev']:.2%}", f"{a['sentence_accuracy_dev']:.2%}",
                                   f"{a['dependency_accuracy_test']:.2%}", f"{a['sentence_accuracy_test']:.2%}"] for a in accuracy]))
    for r in results:
        rows = []
        base = {m["method"]: m for m in r["methods"]}
        pke_us, pkb_us = base["PKE"]["us_per_classification"], base["PKB"]["us_per_classification"]
        for m in r["methods"]:
            rows.append([m["method"], "" if m["memory_mb"] is None else f"{m['memory_mb']:.1f}",
                         "" if m["build_seconds"] is None else f"{m['build_seconds']:.2f}",
                         m["us_per_classification"], m["ms_per_sentence"],
                         "" if m["us_per_decision_call"] is None else f"{m['us_per_decision_call']:.2f}",
                         f"{pkb_us / m['us_per_classification']:.1f}x", f"{pke_us / m['us_per_classification']:.2f}x",
                         m["conjunctions"] or "", m["fstrie_nodes"] if m["fstrie_nodes"] is not None else ""])
        md.append(f"\n### d = {r['degree']}: {r['trainer']} model, {r['support_vectors']} SVs (C = {r['C']}), dependency accuracy "
                  f"{r['dependency_accuracy']:.4f}, sentence accuracy {r['sentence_accuracy']:.4f}, "
                  f"{r['classifications_per_sentence']:.1f} classifications per sentence, fstrie from {r['fstrie_events']} events; "
                  f"LIBSVM agrees on {r['libsvm_agreement']:.4f} of decisions; early exit settles "
                  f"{r['early_exit_share_fstrie_split']:.2%} of fstrie (split) decisions\n")
        md.append(markdown_table(["method", "memory MB", "build s", "µs / classification", "ms / sentence",
                                  "µs / single call", "vs PKB", "vs PKE", "|F^d|", "fstrie nodes"], rows))
        if "hke" in r:
            md.append("\nApproximate expansion (SVM-HKE), d = 3:\n")
            md.append(markdown_table(["sigma", "|F^d|", "memory MB", "decisions changed", "max margin error", "PKE µs",
                                      "fstrie L µs", "fstrie speed-up"],
                                     [[h["sigma"], h["conjunctions"], f"{h['memory_mb']:.1f}", h["changed_decisions"],
                                       f"{h['max_margin_error']:.3g}", h["pke_us"], h["fstrie_L_us"],
                                       f"{h['pke_us'] / h['fstrie_L_us']:.2f}x"] for h in r["hke"]]))
        pk = {p["method"]: p for p in r["parsing"]}
        md.append(f"\nWhole parser on the {len(test)} test sentences (C++ parsing loop and feature-id lookup included; "
                  f"median of {args.repeats} interleaved runs), d = {r['degree']}:\n")
        md.append(markdown_table(["method", "sentences / s", "ms / sentence", "time in the classifier", "vs PKB", "vs PKE"],
                                 [[p["method"], f"{p['sentences_per_second']:,.0f}", p["seconds"] / len(test) * 1000,
                                   f"{p['classifier_share']:.0%}", f"{pk['PKB']['seconds'] / p['seconds']:.1f}x",
                                   f"{pk['PKE']['seconds'] / p['seconds']:.2f}x"] for p in r["parsing"]]))
        md.append(f"\nWeblog check (seed 000 §4), d = {r['degree']}: fstrie L built from the training and dev splits' events:\n")
        md.append(markdown_table(["parsed text", "sentences", "PKE s", "fstrie s", "fstrie speed-up"],
                                 [[k, v["sentences"], v["pke_seconds"], v["fstrie_seconds"], f"{v['speedup']:.2f}x"]
                                  for k, v in r["weblog_check"].items()]))
    for r in results:
        es = r["events_scaling"]
        md.append(f"\nfstrie L against the events it is built from (d = {r['degree']}; PKE {es['pke_us']:.2f} µs):\n")
        md.append(markdown_table(["events", "vectors", "prefixes", "prefix coverage", "µs / classification", "vs PKE"],
                                 [[e["events"], e["n_events"], e["nodes"], f"{e['prefix_coverage']:.1%}", e["us_per_classification"],
                                   f"{e['speedup_over_pke']:.2f}x"] for e in es["rows"]]))
    if generated:
        md.append(f"\nGenerated Zipfian data (make_zipf_data(context=3), {generated['mean_active_features']:.1f} active features, "
                  f"degree-3 SVC with {generated['support_vectors']} SVs; PKE {generated['pke_us']:.2f} µs):\n")
        md.append(markdown_table(["events", "prefixes", "prefix coverage", "µs / classification", "vs PKE"],
                                 [[e["events"], e["nodes"], f"{e['prefix_coverage']:.1%}", e["us_per_classification"],
                                   f"{e['speedup_over_pke']:.2f}x"] for e in generated["rows"]]))
    figure = RESULTS / f"{args.name}_fstrie_size.png"
    swept = any("fstrie_size_sweep" in r for r in results)
    if swept:
        md.append(f"\n![classification time against fstrie size]({figure.name})\n")
    write_results(args.name, {"settings": vars(args), "accuracy": accuracy, "results": results,
                              "generated_events_scaling": generated}, "\n".join(md))
    if swept:
        write_figures(args.name, {None: figure})


if __name__ == "__main__":
    main()
