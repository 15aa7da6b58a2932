"""Training with conjunctive features: seed 001's Table 2 / 3 and Figures 1-4, in one run.

Workloads (real data from ../shared/data):

  dep    Japanese bunsetsu-pair dependency examples (binary), seed 001's DEP
         task: UD Japanese v1.4 (bunsetsu units); for every dependent whose head
         lies to its right, one example per candidate head from the next
         bunsetsu up to the true head (+1 for the head, -1 before it), as a
         Sassano-style parser asks. Features of the dependent and the candidate
         (surface, content-word stem, head UPOS, POS sequence and its first / last
         part, last one or two characters), distance, punctuation / topic
         particle / verbs in between, neighbours. Train: ja-ud-train; accuracy on
         ja-ud-test examples. (Table 2, Figures 1 and 3.)
  chunk  CoNLL-2000 chunk tags (multi-class, 22 classes) with YamCha-style window
         features (words and POS at -2..+2). (Table 3, Figures 2 and 4.)
  bnp    CoNLL-2000, B-NP vs the rest (binary), same features.

For each workload:

  Table    training time, peak memory and accuracy at d = 1, 2, 3 of conjunct's
           PA-I with every margin mode (KERNEL = PKI over the support set, KE =
           expanded, SP = split, SL* = slicing without reuse, SL = slicing), the
           l1-regularised log-linear model (SGD, cumulative penalty), Vowpal
           Wabbit (-q ff; -q ff --cubic fff at d = 3; hinge loss, or --oaa for
           many classes), and the SVM peers LIBSVM and scikit-learn
           SVC(kernel="poly", gamma=1, coef0=1) on a subset (they are quadratic
           or worse; conjunct's SL runs on the same subset beside them).
  Fig. 1/2 training time of SP, SL*, SL (and SL without termination) against N,
           the number of common features, at d = 3.
  Fig. 3/4 training time of KERNEL, SP and SL against the number of training
           examples at d = 3.

Every training runs in its own forked process, single-threaded (OMP_NUM_THREADS=1
also for LIBSVM, which is built with OpenMP): time is the fit call (wall
clock; conjunct's conversion to internal ids included, featurisation excluded
for every method), memory is the process's peak RSS growth during the fit
(plus, for conjunct, the bytes its trainer reports for its structures).
Runs shorter than --repeat-below seconds are repeated --repeats times and the
median reported. All PA-I modes are checked to train the same model (support
vectors and accuracy) as SL. Results: results/<name>.{json,md}; the figures
(Fig. 3/4, one panel per workload, the degree read from the results, and
Fig. 1/2) are drawn by conjunct.plot from the JSON into
results/<name>_examples.png and results/<name>_N.png; redraw them with
``python benchmarks/plot_results.py benchmarks/results/train.json [--figure N]``.

    python benchmarks/bench_train.py                 # the full run (see --help)
    python benchmarks/bench_train.py --quick         # a small end-to-end check
"""

from __future__ import annotations

import os

# Every method runs on one thread: conjunct's trainers are sequential, and
# libsvm-official is built with OpenMP, whose threads would compete with
# each other on a shared machine (and do not survive fork).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import multiprocessing as mp
import resource
import statistics
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np
import scipy.sparse as sp

from _common import RESULTS, markdown_table, require_shared_data, write_figures, write_results

import conjunct
from conjunct.io.corpora import read_conll2000, window_features
from conjunct.training import L1LogLinearClassifier, PAClassifier, default_common_features


# -- workloads ---------------------------------------------------------------------------------------
def read_conllu(path: Path):
    sents, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur:
                    sents.append(cur)
                    cur = []
                continue
            if line.startswith("#"):
                continue
            c = line.split("\t")
            if "-" in c[0] or "." in c[0]:
                continue
            cur.append((c[1], c[3], c[4], int(c[6])))
    if cur:
        sents.append(cur)
    return sents


def _is_function_char(ch: str) -> bool:
    return "\u3040" <= ch <= "\u309f" or ch in "、。「」『』（）"


def _bunsetsu(sent, k: int, side: str) -> List[str]:
    form, upos, xpos, _ = sent[k]
    parts = xpos.split("-")
    stem = form
    while stem and _is_function_char(stem[-1]):
        stem = stem[:-1]
    return [f"{side}.w={form}", f"{side}.u={upos}", f"{side}.x={xpos}", f"{side}.x0={parts[0]}",
            f"{side}.x-1={parts[-1]}", f"{side}.s={stem}", f"{side}.c1={form[-1]}", f"{side}.c2={form[-2:]}"]


def pair_features(sent, i: int, j: int) -> List[str]:
    feats = _bunsetsu(sent, i, "d") + _bunsetsu(sent, j, "h")
    dist = j - i
    feats.append("dist=" + ("1" if dist == 1 else "2" if dist == 2 else "3-5" if dist <= 5 else "6+"))
    between = sent[i + 1:j]
    feats.append(f"b.comma={int(any(b[0].endswith('、') for b in between))}")
    feats.append(f"b.wa={int(any(b[0].endswith('は') for b in between))}")
    feats.append(f"b.verbs={min(sum(b[1] == 'VERB' for b in between), 2)}")
    feats.append(f"h.last={int(j == len(sent) - 1)}")
    feats.append("d-1.u=" + (sent[i - 1][1] if i > 0 else "BOS"))
    feats.append("h+1.u=" + (sent[j + 1][1] if j + 1 < len(sent) else "EOS"))
    feats.append("h+1.x=" + (sent[j + 1][2] if j + 1 < len(sent) else "EOS"))
    return feats


def dep_examples(path: Path):
    X, y = [], []
    for sent in read_conllu(path):
        for i, (_, _, _, head) in enumerate(sent):
            h = head - 1
            if h <= i:
                continue
            for j in range(i + 1, h + 1):
                X.append(pair_features(sent, i, j))
                y.append(1 if j == h else -1)
    return X, np.array(y)


def load_workload(name: str, data: Path, limit: int = 0):
    if name == "dep":
        root = data / "ud_japanese_v1.4_bunsetsu"
        f_train, y_train = dep_examples(root / "ja-ud-train.conllu")
        f_test, y_test = dep_examples(root / "ja-ud-test.conllu")
        desc = "Japanese bunsetsu-pair dependency examples (UD Japanese v1.4), binary"
    else:
        def tokens(path):
            sents = read_conll2000(path)
            return ([window_features(s, i) for s in sents for i in range(len(s))],
                    np.array([s[i][2] for s in sents for i in range(len(s))]))

        f_train, y_train = tokens(data / "conll2000" / "train.txt")
        if limit:
            f_train, y_train = f_train[:limit], y_train[:limit]
        f_test, y_test = tokens(data / "conll2000" / "test.txt")
        if name == "bnp":
            y_train, y_test = np.where(y_train == "B-NP", 1, -1), np.where(y_test == "B-NP", 1, -1)
            desc = "CoNLL-2000 B-NP vs rest, window features, binary"
        else:
            desc = f"CoNLL-2000 chunk tags ({len(set(y_train))} classes), window features"
    index = conjunct.FeatureIndex.from_data(f_train)
    X_train, X_test = index.transform(f_train), index.transform(f_test)
    return dict(name=name, description=desc, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test,
                n_features=len(index), mean_active=float(np.diff(X_train.indptr).mean()),
                classes=sorted(set(y_train.tolist())))


# -- running one training in a forked child ------------------------------------------------------------
def _rss_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _child(fn, args, limit_gb, queue):
    try:
        if limit_gb:
            cap = int(limit_gb * 2**30) + _rss_kb("VmSize") * 1024
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        # A forked child inherits its parent's peak RSS; reset it (Linux >= 4.0).
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        base = _rss_kb("VmRSS")
        out = fn(*args)
        out["peak_rss_mb"] = (_rss_kb("VmHWM") - base) / 1024
        queue.put(out)
    except MemoryError:
        queue.put({"error": f"out of memory (limit {limit_gb} GB)"})
    except Exception as e:  # noqa: BLE001 - reported in the results, not hidden
        queue.put({"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})


class Runner:
    def __init__(self, args):
        self.args = args
        self.ctx = mp.get_context("fork")

    def once(self, fn: Callable, *fargs) -> dict:
        q = self.ctx.Queue()
        p = self.ctx.Process(target=_child, args=(fn, fargs, self.args.memory_limit_gb, q))
        p.start()
        out = q.get()
        p.join()
        return out

    def run(self, label: str, fn: Callable, *fargs) -> dict:
        print(f"   {label} ...", end="", flush=True)
        first = self.once(fn, *fargs)
        results = [first]
        if "error" not in first and first["seconds"] < self.args.repeat_below:
            results += [self.once(fn, *fargs) for _ in range(self.args.repeats - 1)]
        if "error" in first:
            print(f" {first['error']}", flush=True)
            return first
        out = dict(first)
        out["seconds"] = statistics.median(r["seconds"] for r in results)
        out["peak_rss_mb"] = statistics.median(r["peak_rss_mb"] for r in results)
        out["runs"] = len(results)
        print(f" {out['seconds']:.2f} s, {out['peak_rss_mb']:.0f} MB, accuracy {out['accuracy']:.4f}", flush=True)
        return out


# -- methods (run inside the child) ------------------------------------------------------------------
def fit_pa(w, n, degree, margin, N, reuse, terminate, n_iter, C):
    kw = dict(margin=margin, n_iter=n_iter, C=C, random_state=0, reuse=reuse, terminate=terminate)
    if margin in ("split", "slicing"):
        kw["common_features"] = N  # None: the estimator's automatic N
    clf = PAClassifier(degree, **kw)
    X, y = w["X_train"][:n], w["y_train"][:n]
    t0 = time.perf_counter()
    clf.fit(X, y)
    seconds = time.perf_counter() - t0
    s = clf.stats_
    S = clf.model_.support_vectors
    return dict(seconds=seconds, accuracy=clf.score(w["X_test"], w["y_test"]), support_vectors=s["support_vectors"],
                updates=s["updates"], trainer_mb=s["memory_bytes"]["total"] / 1e6,
                memory_breakdown_mb={k: v / 1e6 for k, v in s["memory_bytes"].items()},
                terminated=s["terminated"], margins=s["margins"], reused=s["reused"], skipped=s["skipped_steps"],
                kernel_steps=s["kernel_steps"], expanded_steps=s["expanded_steps"], postings=s["postings_visited"],
                trie_lookups=s["trie_lookups"], weight_trie_nodes=s["weight_trie_nodes"],
                partial_margin_trie_nodes=s["partial_margin_trie_nodes"],
                model_digest=float(np.abs(clf.model_.dual_coef).sum()), sv_nnz=int(S.nnz))


def fit_l1(w, n, degree, n_iter, C):
    clf = L1LogLinearClassifier(degree, C=C, n_iter=n_iter, random_state=0)
    X, y = w["X_train"][:n], w["y_train"][:n]
    t0 = time.perf_counter()
    clf.fit(X, y)
    seconds = time.perf_counter() - t0
    return dict(seconds=seconds, accuracy=clf.score(w["X_test"], w["y_test"]), conjunctions=clf.stats_["conjunctions"],
                nonzero=clf.stats_["nonzero"], trainer_mb=clf.stats_["memory_bytes"] / 1e6)


def fit_libsvm(w, n, degree, C):
    from libsvm import svmutil

    classes = w["classes"]
    code = {c: i for i, c in enumerate(classes)}
    y = [code[v] for v in w["y_train"][:n].tolist()]
    # LIBSVM's Python interface numbers CSR column j as feature j + 1; the kernel is unchanged.
    X = w["X_train"][:n]
    t0 = time.perf_counter()
    model = svmutil.svm_train(y, X, f"-t 1 -d {degree} -g 1 -r 1 -c {C} -q")
    seconds = time.perf_counter() - t0
    yt = [code.get(v, -1) for v in w["y_test"].tolist()]
    pred, _, _ = svmutil.svm_predict(yt, w["X_test"], model, "-q")
    acc = float(np.mean(np.array(classes)[np.asarray(pred, dtype=int)] == w["y_test"]))
    return dict(seconds=seconds, accuracy=acc, support_vectors=int(model.get_nr_sv()))


def fit_svc(w, n, degree, C):
    from sklearn.svm import SVC

    clf = SVC(kernel="poly", degree=degree, gamma=1.0, coef0=1.0, C=C)
    t0 = time.perf_counter()
    clf.fit(w["X_train"][:n], w["y_train"][:n])
    seconds = time.perf_counter() - t0
    return dict(seconds=seconds, accuracy=float(clf.score(w["X_test"], w["y_test"])), support_vectors=int(len(clf.support_)))


def write_vw(path: Path, X, y, classes):
    multi = len(classes) > 2
    code = {c: i + 1 for i, c in enumerate(classes)}
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            lab = code.get(y[i], 1) if multi else int(y[i])
            f.write(f"{lab} |f " + " ".join(f"f{c}" for c in X.indices[X.indptr[i]:X.indptr[i + 1]]) + "\n")


def fit_vw(w, n, degree, passes, bits, files):
    from vowpalwabbit import Workspace

    classes = w["classes"]
    multi = len(classes) > 2
    inter = "-q ff" + (" --cubic fff" if degree >= 3 else "") if degree >= 2 else ""
    loss = f"--oaa {len(classes)}" if multi else "--loss_function hinge"
    train_file = files[n]
    with tempfile.TemporaryDirectory() as tmp:
        model, cache, preds = Path(tmp) / "m.vw", Path(tmp) / "c.cache", Path(tmp) / "p.txt"
        t0 = time.perf_counter()
        vw = Workspace(f"-d {train_file} --cache_file {cache} --passes {passes} --holdout_off {loss} {inter} "
                       f"-b {bits} --quiet -f {model}")
        vw.run_parser()
        vw.finish()
        seconds = time.perf_counter() - t0
        vw = Workspace(f"-d {files['test']} -t -i {model} -p {preds} --quiet")
        vw.run_parser()
        vw.finish()
        p = np.loadtxt(preds, ndmin=1)
    if multi:
        pred = np.array(classes)[p.astype(int) - 1]
    else:
        pred = np.where(p > 0, 1, -1)
    return dict(seconds=seconds, accuracy=float(np.mean(pred == w["y_test"])), bits=bits, interactions=inter or "none")


def count_conjunctions(w, n, degree):
    """Distinct conjunctions (size <= d) in the training data: what VW hashes.

    One epoch of the l1 trainer with no penalty registers each of them once."""
    clf = L1LogLinearClassifier(degree, C=0.0, n_iter=1, random_state=0)
    clf.fit(w["X_train"][:n], w["y_train"][:n])
    return dict(seconds=0.0, accuracy=0.0, count=clf.stats_["conjunctions"])


def collisions(n_features: int, bits: int) -> float:
    """Expected fraction of features sharing their hash slot with another (uniform hashing into 2^bits)."""
    m = 2.0 ** bits
    return 1.0 - (1.0 - 1.0 / m) ** (n_features - 1)


# -- the experiments -----------------------------------------------------------------------------------
def variants(N: int) -> Dict[str, tuple]:
    """name -> (margin, N, reuse, terminate)"""
    return {"SP": ("split", N, False, False), "SL*": ("slicing", N, False, True),
            "SL (no termination)": ("slicing", N, True, False), "SL": ("slicing", N, True, True)}


def run_workload(w: dict, args, runner: Runner) -> dict:
    n_all = w["X_train"].shape[0] if not args.train_examples else min(args.train_examples, w["X_train"].shape[0])
    out = {"workload": {k: w[k] for k in ("name", "description", "n_features", "mean_active")},
           "train_examples": n_all, "test_examples": int(w["X_test"].shape[0]), "classes": len(w["classes"])}
    print(f"== {w['name']}: {w['description']}; {n_all:,} training / {w['X_test'].shape[0]:,} test examples, "
          f"{w['n_features']:,} features, {w['mean_active']:.1f} active per example", flush=True)
    files = {}
    tmpdir = tempfile.mkdtemp(prefix="bench_train_vw_")
    if not args.skip_peers:
        write_vw(Path(tmpdir) / "test.vw", w["X_test"], w["y_test"], w["classes"])
        files["test"] = Path(tmpdir) / "test.vw"

    def vw_file(n):
        if n not in files:
            files[n] = Path(tmpdir) / f"train{n}.vw"
            write_vw(files[n], w["X_train"][:n], w["y_train"][:n], w["classes"])
        return files

    # Figure 1 / 2: time against N at d = 3.
    sweep = {}
    d3 = 3 in args.degrees
    auto3 = default_common_features(3, 1 if len(w["classes"]) == 2 else len(w["classes"]))
    Ns = sorted({N for N in args.n_values + [auto3] if N < w["n_features"]}) + [w["n_features"]]
    if d3 and not args.skip_sweep:
        print(f"-- time against N (d = 3): N = {Ns}", flush=True)
        for N in Ns:
            for name, (margin, _, reuse, term) in variants(N).items():
                if name == "SL (no termination)" and not args.sweep_no_termination:
                    continue
                sweep.setdefault(name, {})[N] = runner.run(f"{name} N={N}", fit_pa, w, n_all, 3, margin, N, reuse, term,
                                                           args.n_iter, args.C)
    out["time_against_N"] = {name: {str(N): r for N, r in rs.items()} for name, rs in sweep.items()}

    def best_N(name: str, degree: int) -> int:
        if degree == 3 and name in sweep:
            ok = {N: r["seconds"] for N, r in sweep[name].items() if "error" not in r}
            if ok:
                return min(ok, key=ok.get)
        return default_common_features(degree, 1 if len(w["classes"]) == 2 else len(w["classes"]))

    # Table 2 / 3.
    table: Dict[str, dict] = {}
    for d in args.degrees:
        print(f"-- table, d = {d}", flush=True)
        if d == 1:
            # The defaults: at d = 1 every mode is the explicit linear model.
            table["PA-I (d=1)"] = dict(degree=1, **runner.run("PA-I d=1", fit_pa, w, n_all, 1, "slicing", None, None, None,
                                                                args.n_iter, args.C))
            if not args.skip_peers:
                table["VW (d=1)"] = dict(degree=1, **runner.run("VW d=1", fit_vw, w, n_all, 1, args.vw_passes, args.vw_bits,
                                                                 vw_file(n_all)))
            continue
        if not args.skip_l1:
            table[f"l1-LLM (d={d})"] = dict(degree=d, **runner.run(f"l1-LLM d={d}", fit_l1, w, n_all, d, args.l1_iter,
                                                                     args.l1_C))
        if not args.skip_kernel:
            table[f"PA-I KERNEL (d={d})"] = dict(degree=d, **runner.run(f"KERNEL d={d}", fit_pa, w, n_all, d, "kernel", None,
                                                                          True, True, args.n_iter, args.C))
        table[f"PA-I KE (d={d})"] = dict(degree=d, **runner.run(f"KE d={d}", fit_pa, w, n_all, d, "expanded", None, True,
                                                                  True, args.n_iter, args.C))
        for name in ("SP", "SL*", "SL"):
            N = best_N(name, d)
            margin, _, reuse, term = variants(N)[name]
            if d == 3 and name in sweep and N in sweep[name]:
                r = sweep[name][N]
            else:
                r = runner.run(f"{name} N={N} d={d}", fit_pa, w, n_all, d, margin, N, reuse, term, args.n_iter, args.C)
            table[f"PA-I {name} N={N} (d={d})"] = dict(degree=d, N=N, **r)
        if not args.skip_peers:
            table[f"VW (d={d})"] = dict(degree=d, **runner.run(f"VW d={d}", fit_vw, w, n_all, d, args.vw_passes,
                                                               args.vw_bits, vw_file(n_all)))
    out["table"] = table

    # The SVM peers on a subset, with conjunct's SL beside them.
    svm = {}
    if not args.skip_peers and args.svm_examples:
        n_svm = min(args.svm_examples, n_all)
        print(f"-- SVM peers on the first {n_svm:,} examples", flush=True)
        for d in [d for d in args.degrees if d >= 2]:
            svm[f"LIBSVM (d={d})"] = dict(degree=d, **runner.run(f"LIBSVM d={d}", fit_libsvm, w, n_svm, d, args.C))
            svm[f"scikit-learn SVC (d={d})"] = dict(degree=d, **runner.run(f"SVC d={d}", fit_svc, w, n_svm, d, args.C))
            N = best_N("SL", d)
            svm[f"PA-I SL N={N} (d={d})"] = dict(degree=d, **runner.run(f"SL d={d} subset", fit_pa, w, n_svm, d, "slicing", N,
                                                                          True, True, args.n_iter, args.C))
            svm[f"VW (d={d})"] = dict(degree=d, **runner.run(f"VW d={d} subset", fit_vw, w, n_svm, d, args.vw_passes,
                                                             args.vw_bits, vw_file(n_svm)))
        out["svm_subset_examples"] = n_svm
    out["svm_subset"] = svm

    # Figure 3 / 4: time against the number of examples at d = 3.
    growth = {}
    if d3 and not args.skip_growth:
        sizes = sorted({max(1000, int(n_all * f)) for f in args.fractions})
        print(f"-- time against the number of examples (d = 3): {sizes}", flush=True)
        names = ["SP", "SL"] + ([] if args.skip_kernel else ["KERNEL"])
        for name in names:
            for n in sizes:
                if n == n_all and f"PA-I KERNEL (d=3)" in table and name == "KERNEL":
                    growth.setdefault(name, {})[n] = table["PA-I KERNEL (d=3)"]
                    continue
                if name == "KERNEL":
                    r = runner.run(f"KERNEL n={n}", fit_pa, w, n, 3, "kernel", None, True, True, args.n_iter, args.C)
                else:
                    N = best_N(name, 3)
                    margin, _, reuse, term = variants(N)[name]
                    if n == n_all and name in sweep and N in sweep[name]:
                        r = sweep[name][N]
                    else:
                        r = runner.run(f"{name} N={N} n={n}", fit_pa, w, n, 3, margin, N, reuse, term, args.n_iter, args.C)
                growth.setdefault(name, {})[n] = r
    out["time_against_examples"] = {name: {str(n): r for n, r in rs.items()} for name, rs in growth.items()}

    # VW's hash collisions for its -b: the distinct conjunctions (the l1 trainer registers each once).
    if not args.skip_peers:
        out["vw_hashing"] = {}
        for d in args.degrees:
            l1 = table.get(f"l1-LLM (d={d})", {})
            count = l1.get("conjunctions") or runner.once(count_conjunctions, w, n_all, d).get("count")
            if count:
                out["vw_hashing"][str(d)] = dict(distinct_features=int(count), bits=args.vw_bits,
                                                 colliding_fraction=collisions(int(count), args.vw_bits))
    for f in Path(tmpdir).glob("*"):
        f.unlink()
    os.rmdir(tmpdir)
    check_same_models(out)
    return out


def check_same_models(out: dict) -> None:
    """All PA-I margin modes at the same degree and data must train the same model."""
    groups: Dict[tuple, List] = {}
    for name, r in out["table"].items():
        if name.startswith("PA-I") and "error" not in r and "support_vectors" in r and r.get("degree", 1) >= 2:
            groups.setdefault(r["degree"], []).append((name, r))
    for rs in list(out.get("time_against_N", {}).values()):
        for r in rs.values():
            if "error" not in r:
                groups.setdefault(3, []).append(("sweep", r))
    problems = []
    for d, rs in groups.items():
        ref = rs[0][1]
        for name, r in rs[1:]:
            if r["support_vectors"] != ref["support_vectors"] or r["sv_nnz"] != ref["sv_nnz"] or \
                    abs(r["model_digest"] - ref["model_digest"]) > 1e-9 * ref["model_digest"] or r["accuracy"] != ref["accuracy"]:
                problems.append(f"d={d}: {name} differs from {rs[0][0]}")
    out["same_model_check"] = problems or "all PA-I margin modes trained the same model"
    print(f"   model check: {out['same_model_check']}", flush=True)


# -- report ----------------------------------------------------------------------------------------------
def fmt_time(r: dict) -> str:
    return r["error"] if "error" in r else f"{r['seconds']:.1f}"


def report(results: Dict[str, dict], args) -> str:
    parts = []
    for wname, out in results.items():
        parts.append(f"## {out['workload']['description']}\n\n{out['train_examples']:,} training / "
                     f"{out['test_examples']:,} test examples, {out['workload']['n_features']:,} features, "
                     f"{out['workload']['mean_active']:.1f} active per example; PA-I C = {args.C}, {args.n_iter} epochs, "
                     f"averaged. Time: fit wall clock (s); memory: peak RSS growth during the fit (MB) and, for conjunct, "
                     f"the bytes of the trainer's structures.\n")
        rows = []
        kernel = {r["degree"]: r for n, r in out["table"].items() if "KERNEL" in n and "error" not in r}
        ke = {r["degree"]: r for n, r in out["table"].items() if " KE " in n and "error" not in r}
        for name, r in out["table"].items():
            if "error" in r:
                rows.append([name, r.get("degree", ""), "", r["error"], "", "", "", ""])
                continue
            k = kernel.get(r["degree"])
            e = ke.get(r["degree"])
            rows.append([name, r["degree"], f"{100 * r['accuracy']:.2f}%", f"{r['seconds']:.1f}", f"{r['peak_rss_mb']:.0f}",
                         f"{r['trainer_mb']:.0f}" if "trainer_mb" in r else "",
                         f"{k['seconds'] / r['seconds']:.1f}x" if k else "",
                         f"{r['peak_rss_mb'] / e['peak_rss_mb']:.2f}" if e and e["peak_rss_mb"] > 0 and "PA-I" in name else ""])
        parts.append(markdown_table(["method", "d", "accuracy", "time (s)", "peak RSS growth (MB)", "trainer (MB)",
                                     "speed-up vs KERNEL", "memory / KE"], rows))
        if out.get("svm_subset"):
            parts.append(f"\nSVM peers on the first {out['svm_subset_examples']:,} training examples "
                         f"(LIBSVM `-t 1 -d d -g 1 -r 1 -c {args.C}`, SVC(kernel='poly', gamma=1, coef0=1, C={args.C})):\n")
            rows = [[n, r.get("degree", ""), "" if "error" in r else f"{100 * r['accuracy']:.2f}%", fmt_time(r),
                     "" if "error" in r else f"{r['peak_rss_mb']:.0f}", r.get("support_vectors", "")]
                    for n, r in out["svm_subset"].items()]
            parts.append(markdown_table(["method", "d", "accuracy", "time (s)", "peak RSS growth (MB)", "support vectors"], rows))
        if out.get("time_against_N"):
            Ns = sorted({int(N) for rs in out["time_against_N"].values() for N in rs})
            parts.append("\nTraining time (s) against N, the number of common features (d = 3):\n")
            rows = [[name] + [fmt_time(rs[str(N)]) if str(N) in rs else "" for N in Ns] for name, rs in out["time_against_N"].items()]
            parts.append(markdown_table(["method"] + [f"N={N}" for N in Ns], rows))
            rows = [[name] + [f"{rs[str(N)]['trainer_mb']:.0f}" if str(N) in rs and "error" not in rs[str(N)] else "" for N in Ns]
                    for name, rs in out["time_against_N"].items()]
            parts.append("\nTrainer memory (MB) against N:\n")
            parts.append(markdown_table(["method"] + [f"N={N}" for N in Ns], rows))
        if out.get("time_against_examples"):
            sizes = sorted({int(n) for rs in out["time_against_examples"].values() for n in rs})
            parts.append("\nTraining time (s) against the number of training examples (d = 3):\n")
            rows = [[name] + [fmt_time(rs[str(n)]) if str(n) in rs else "" for n in sizes]
                    for name, rs in out["time_against_examples"].items()]
            parts.append(markdown_table(["method"] + [f"{n:,}" for n in sizes], rows))
            expo = growth_exponents(out["time_against_examples"])
            if expo:
                parts.append("\nGrowth exponent (slope of log time against log examples, first to last size): " +
                             ", ".join(f"{k} {v:.2f}" for k, v in expo.items()))
        if out.get("vw_hashing"):
            parts.append("\nVowpal Wabbit hashing: " + "; ".join(
                f"d={d}: {h['distinct_features']:,} distinct conjunctions into 2^{h['bits']} slots, "
                f"{100 * h['colliding_fraction']:.1f}% of them collide" for d, h in out["vw_hashing"].items()))
        parts.append(f"\nModel check: {out['same_model_check']}\n")
    return "\n".join(parts)


def growth_exponents(growth: dict) -> Dict[str, float]:
    out = {}
    for name, rs in growth.items():
        ok = sorted((int(n), r["seconds"]) for n, r in rs.items() if "error" not in r)
        if len(ok) >= 2 and ok[0][1] > 0:
            out[name] = math.log(ok[-1][1] / ok[0][1]) / math.log(ok[-1][0] / ok[0][0])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", nargs="+", default=["dep", "chunk"], choices=["dep", "chunk", "bnp"])
    ap.add_argument("--degrees", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--n-iter", type=int, default=10, help="PA-I epochs (seed 001: 20)")
    ap.add_argument("--C", type=float, default=1.0, help="PA-I and SVM C")
    ap.add_argument("--train-examples", type=int, default=0, help="use only the first n training examples (0: all)")
    ap.add_argument("--n-values", type=int, nargs="+", default=[125, 500, 2000, 8000],
                    help="N of the sweep (the automatic N and all features are added)")
    ap.add_argument("--chunk-examples", type=int, default=50000,
                    help="CoNLL-2000 training tokens for chunk / bnp (0: all 211,727; the kernel learner is quadratic)")
    ap.add_argument("--sweep-no-termination", action="store_true", help="also sweep SL without early termination")
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.125, 0.25, 0.5, 1.0])
    ap.add_argument("--l1-iter", type=int, default=10)
    ap.add_argument("--l1-C", type=float, default=1.0)
    ap.add_argument("--svm-examples", type=int, default=10000, help="training examples for LIBSVM / SVC (0: skip)")
    ap.add_argument("--vw-passes", type=int, default=10)
    ap.add_argument("--vw-bits", type=int, default=24)
    ap.add_argument("--memory-limit-gb", type=float, default=8.0, help="address-space limit of each training process")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--repeat-below", type=float, default=10.0, help="repeat runs shorter than this many seconds")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--skip-kernel", action="store_true")
    ap.add_argument("--skip-l1", action="store_true")
    ap.add_argument("--skip-sweep", action="store_true")
    ap.add_argument("--skip-growth", action="store_true")
    ap.add_argument("--quick", action="store_true", help="a small end-to-end check: 8,000 examples, 3 epochs, few N")
    ap.add_argument("--name", default="train")
    args = ap.parse_args()
    if args.quick:
        args.train_examples = args.train_examples or 8000
        args.n_iter, args.l1_iter, args.vw_passes = 3, 3, 3
        args.n_values, args.svm_examples, args.repeats = [125, 1000], min(args.svm_examples, 3000), 1
        args.fractions = [0.25, 1.0]
    data = require_shared_data()
    # The commit measured (write_results records the one at the end of a long run).
    import subprocess

    args.measured_commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                          capture_output=True, text=True).stdout.strip()
    # Which installed copy was measured, relative to the repository (no machine paths in results).
    args.conjunct_module = os.path.relpath(conjunct.__file__, Path(__file__).resolve().parent.parent)
    runner = Runner(args)
    results = {}
    for name in args.workloads:
        w = load_workload(name, data, args.chunk_examples if name in ("chunk", "bnp") else 0)
        results[name] = run_workload(w, args, runner)
    md = report(results, args)
    # plot_results.py's figures of this file: --figure examples (the default) and N, when the run swept them
    figures = {figure: RESULTS / f"{args.name}_{figure}.png" for figure, key in
               (("examples", "time_against_examples"), ("N", "time_against_N")) if any(out.get(key) for out in results.values())}
    if figures:
        md += "\nFigures: " + ", ".join(f"[{p.name}]({p.name})" for p in figures.values()) + "\n"
    write_results(args.name, {"settings": vars(args), "results": results}, md)
    write_figures(args.name, figures)


if __name__ == "__main__":
    main()
