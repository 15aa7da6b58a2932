"""The self-adaptive classifier on text it never saw, processed once in order.

Streams: the decisions the bunsetsu parser (UD Japanese GSD, trained on train)
asks on dev + test, and the decisions the English arc-eager parser (UD English
EWT, trained on train; two components, transitions and labels) asks on dev +
test, collected with exact classifiers (so every method sees the same stream).

In one process, per stream, interleaved rounds (medians; every adaptive
classifier is a fresh object each round, its cache empty: the cold price):

1. first pass, one batch call: PKE against ``adaptive`` (default settings), and
   the bound of any exact prefix cache: PKE's own time on the prefixes an
   unbounded cache (every prefix cached on first sight) would have found, less
   its time on empty vectors (the fixed cost of a call), is the most such a
   cache can save; the bound is PKE's time over PKE's time without it;
2. first pass, one Python call per decision (``decision_function_one``), both;
   and, for comparison, a second pass over the same stream (the cache filled by
   the first): what repeated text gains;
3. the stream in chunks of --chunk decisions on one classifier: µs per decision
   and hit rate against stream position (PKE per chunk alongside);
4. cache sizes --rows (lru, lfu, and without the doorkeeper): first-pass speed and
   hit rate;
5. two threads sharing one classifier (``n_jobs=2``): a cache per thread
   against shared caches (1 and 8 shards), and PKE;
6. the whole parser with method="adaptive" against method="pke" (C++ loop, one
   call per decision), first pass over dev + test.

Every adaptive margin is checked against PKE's (relative error <= 1e-9) and
every parse against PKE's; ``exact`` says so.

The figure (hit rate and speed-up over PKE against cache rows, 4, and along the
stream, 3) is drawn by ``conjunct.plot.adaptive_cache`` from the results into
results/<name>.png; redraw it with ``python benchmarks/plot_results.py benchmarks/results/adaptive.json``.

    python benchmarks/bench_adaptive.py                       # bunsetsu d = 2, 3 and English d = 2, full train
    python benchmarks/bench_adaptive.py --quick               # smaller training sets, fewer rounds
    python benchmarks/bench_adaptive.py --models /tmp/models  # keep trained parsers between runs
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import scipy.sparse as sp

from _common import RESULTS, markdown_table, require_shared_data, write_figures, write_results

from conjunct import load
from conjunct.models.classifiers import Classifier
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english


def fresh(clf: Classifier, **params) -> Classifier:
    """A new classifier over the same arrays (new C++ objects, empty caches),
    optionally with other cache parameters: no second copy of the base."""
    return Classifier(clf.method, dict(clf.meta, **params), clf.arrays, clf.rule, clf.features, clf.n_columns)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def close(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    scale = np.maximum(np.abs(b), 1.0)
    return bool(np.all(np.abs(a - b) <= 1e-9 * scale))


def prefix_bound_rows(clf: Classifier, X: sp.csr_matrix) -> sp.csr_matrix:
    """Per row, the longest prefix (frequent -> rare) met before in the stream:
    what an unbounded cache that stores every prefix on first sight would find."""
    col_map = clf.arrays["col_map"]
    inv = np.full(int(col_map.max()) + 1 if col_map.size else 0, -1, dtype=np.int64)
    inv[col_map[col_map >= 0]] = np.flatnonzero(col_map >= 0)
    seen, rows = set(), []
    for i in range(X.shape[0]):
        cols = X.indices[X.indptr[i]:X.indptr[i + 1]]
        ids = col_map[cols[cols < col_map.size]]
        ids = np.unique(ids[ids >= 0])
        key = tuple(ids.tolist())
        h = 0
        while h < len(key) and key[:h + 1] in seen:
            h += 1
        seen.update(key[:j + 1] for j in range(h, len(key)))
        rows.append(inv[ids[:h]])
    ptr = np.cumsum([0] + [len(r) for r in rows])
    idx = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    return sp.csr_matrix((np.ones(idx.size), idx, ptr), shape=X.shape)


def median_rounds(fns: dict, rounds: int) -> dict:
    """Median seconds of each fn (returning (seconds, payload)) over interleaved rounds; also the last payload."""
    times, last = {k: [] for k in fns}, {}
    for r in range(rounds):
        names = list(fns)
        names = names[r % len(names):] + names[:r % len(names)]  # rotate the order each round
        for k in names:
            dt, last[k] = fns[k]()
            times[k].append(dt)
    return {k: statistics.median(v) for k, v in times.items()}, last


def bench_stream(label: str, model, X: sp.csr_matrix, args) -> dict:
    n = X.shape[0]
    base = "split" if model.degree >= 3 and model.n_outputs > 1 else "pke"
    pke = model.compile(base)
    adaptive = model.compile("adaptive", base=base)
    ref = pke.decision_function(X)
    exact = True
    out = {"stream": label, "decisions": n, "outputs": int(model.n_outputs), "degree": int(model.degree), "base": base,
           "features_per_decision": float(np.diff(X.indptr).mean())}

    # 1-2. First pass: batch and one call per decision; the bound of any exact prefix cache.
    P = prefix_bound_rows(pke, X)
    E = sp.csr_matrix(X.shape)  # no features: PKE's fixed cost per call, which no cache saves
    n_one = min(n, args.one_call_decisions)
    rows = [X.indices[X.indptr[i]:X.indptr[i + 1]].astype(np.int32) for i in range(n_one)]

    def adaptive_batch():
        c = fresh(adaptive)
        dt, m = timed(lambda: c.decision_function(X))
        return dt, (m, c.cache_stats())

    def one_by_one(clf):
        def run():
            c = fresh(clf)
            f = c.decision_function_one
            start = time.perf_counter()
            for r in rows:
                f(r)
            return time.perf_counter() - start, None
        return run

    def adaptive_second_pass():
        c = fresh(adaptive)
        c.decision_function(X)  # the first pass fills the cache
        dt, m = timed(lambda: c.decision_function(X))
        return dt, (m, c.cache_stats())

    fns = {"pke": lambda: timed(lambda: pke.decision_function(X)),
           "adaptive": adaptive_batch,
           "adaptive_second_pass": adaptive_second_pass,
           "pke_prefix_work": lambda: timed(lambda: pke.decision_function(P)),
           "pke_empty_rows": lambda: timed(lambda: pke.decision_function(E)),
           "pke_one_call": one_by_one(pke),
           "adaptive_one_call": one_by_one(adaptive)}
    med, last = median_rounds(fns, args.rounds)
    exact &= close(last["adaptive"][0], ref) and close(last["adaptive_second_pass"][0], ref)
    stats = last["adaptive"][1]
    us = {k: v / (n_one if "one_call" in k else n) * 1e6 for k, v in med.items()}
    saved = max(med["pke_prefix_work"] - med["pke_empty_rows"], 0.0)  # PKE's work on the cacheable prefixes
    bound = med["pke"] / max(med["pke"] - saved, 1e-12)
    out["first_pass"] = {
        "us_per_decision": us, "speedup_batch": med["pke"] / med["adaptive"],
        "speedup_one_call": med["pke_one_call"] / med["adaptive_one_call"], "one_call_decisions": n_one,
        "speedup_second_pass": med["pke"] / med["adaptive_second_pass"],
        "second_pass_hit_rate": last["adaptive_second_pass"][1]["hit_rate"],
        "bound_of_any_prefix_cache": bound, "hit_rate": stats["hit_rate"], "full_hits": stats["full_hits"],
        "stats": stats,
    }

    # 3. Against stream position: chunks on one classifier (and PKE per chunk).
    chunk = min(args.chunk, max(n // 10, 500))  # at least ten points on short streams
    chunks = list(range(0, n, chunk))
    curve = {"end": [], "pke_us": [], "adaptive_us": [], "hit_rate": []}
    per_round = []
    for r in range(args.rounds):
        c = fresh(adaptive)
        rows_r = []
        prev = c.cache_stats()
        for lo in chunks:
            Y = X[lo:lo + chunk]
            t_a, m = timed(lambda: c.decision_function(Y))
            exact &= close(m, ref[lo:lo + chunk])
            t_p, _ = timed(lambda: pke.decision_function(Y))
            now = c.cache_stats()
            hit = (now["static_positions"] + now["cached_positions"] - prev["static_positions"] - prev["cached_positions"])
            rows_r.append((t_p / Y.shape[0] * 1e6, t_a / Y.shape[0] * 1e6, hit / max(now["positions"] - prev["positions"], 1)))
            prev = now
        per_round.append(rows_r)
    for k, lo in enumerate(chunks):
        curve["end"].append(min(n, lo + chunk))
        curve["pke_us"].append(statistics.median(r[k][0] for r in per_round))
        curve["adaptive_us"].append(statistics.median(r[k][1] for r in per_round))
        curve["hit_rate"].append(statistics.median(r[k][2] for r in per_round))
    tail = [k for k, e in enumerate(curve["end"]) if e > args.late]
    out["curve"] = curve
    if tail:
        out["after_late"] = {"from_decision": args.late,
                             "pke_us": float(np.mean([curve["pke_us"][k] for k in tail])),
                             "adaptive_us": float(np.mean([curve["adaptive_us"][k] for k in tail]))}
        out["after_late"]["speedup"] = out["after_late"]["pke_us"] / out["after_late"]["adaptive_us"]

    # 4. Cache sizes and policies, first pass.
    configs = {}
    for rows_n in args.rows:
        policies = [("lru", {})]
        if rows_n == args.rows[len(args.rows) // 2]:
            policies += [("lfu", {"eviction": "lfu"}), ("lru, no doorkeeper", {"doorkeeper": False})]
        for name, kw in policies:
            configs[(rows_n, name)] = dict(cache_rows=rows_n, **kw)

    def run_config(params):
        def run():
            c = fresh(adaptive, **params)
            dt, m = timed(lambda: c.decision_function(X))
            return dt, (m, c.cache_stats())
        return run

    fns = {k: run_config(v) for k, v in configs.items()}
    fns["pke"] = lambda: timed(lambda: pke.decision_function(X))
    med, last = median_rounds(fns, args.rounds)
    sweep = []
    for key, sec in med.items():
        if key == "pke":
            continue
        rows_n, name = key
        m, s = last[key]
        exact &= close(m, ref)
        sweep.append({"cache_rows": rows_n, "policy": name, "us_per_decision": sec / n * 1e6,
                      "hit_rate": s["hit_rate"], "speedup": med["pke"] / sec})
    out["cache_sizes"] = sweep

    # 5. Two threads sharing one classifier.
    threaded = {"pke": None, "adaptive, cache per thread": {}, "adaptive, 1 shared cache": {"sharing": "shared"},
                "adaptive, 8 shared shards": {"sharing": "shared", "shards": 8}}

    def run_threads(params, jobs):
        def run():
            c = pke if params is None else fresh(adaptive, **params)
            dt, m = timed(lambda: c.decision_function(X, n_jobs=jobs))
            return dt, m
        return run

    fns = {(name, jobs): run_threads(p, jobs) for name, p in threaded.items() for jobs in (1, 2)}
    med, last = median_rounds(fns, args.rounds)
    for k, m in last.items():
        exact &= close(m, ref)
    out["threads"] = [{"classifier": name, "threads": jobs, "us_per_decision": sec / n * 1e6} for (name, jobs), sec in med.items()]
    out["exact"] = exact
    return out


def bench_parser(name: str, parser, sentences, args) -> dict:
    parser.compile("pke" if not (name.startswith("english") and parser.degree >= 3) else "split")
    reference = parser.parse(sentences)
    pke_clfs = dict(parser.classifiers_)
    parser.compile("adaptive", base="split" if name.startswith("english") and parser.degree >= 3 else "pke")
    adaptive_clfs = dict(parser.classifiers_)

    def run(clfs, is_adaptive):
        def go():
            # the pipeline's runner rebuilds itself for classifiers it does not use yet
            parser.classifiers_ = {k: fresh(c) if is_adaptive else c for k, c in clfs.items()}
            return timed(lambda: parser.parse(sentences))
        return go

    med, last = median_rounds({"pke": run(pke_clfs, False), "adaptive": run(adaptive_clfs, True)}, args.rounds)
    return {"parser": name, "sentences": len(sentences), "seconds": med, "speedup": med["pke"] / med["adaptive"],
            "same_parses": last["adaptive"] == reference and last["pke"] == reference}


def trained(kind: str, degree: int, args, data):
    path = os.path.join(args.models, f"{kind}_d{degree}.cjt") if args.models else None
    if path and os.path.exists(path):
        return load(path)
    if kind == "bunsetsu":
        train = load_gsd_bunsetsu(data / "ud_japanese_gsd", "train")
        p = BunsetsuDependencyParser(degree=degree, n_iter=args.n_iter, method="pkb")
    else:
        train = read_ud_english(data / "ud_english_ewt" / "en_ewt-ud-train.conllu")
        p = EnglishDependencyParser(degree=degree, n_iter=args.n_iter, method="pkb")
    if args.train_sentences:
        train = train[:args.train_sentences]
    p.fit(train)
    if path:
        os.makedirs(args.models, exist_ok=True)
        p.save(path)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2,000 training sentences, 3 epochs, 3 rounds")
    ap.add_argument("--bunsetsu-degrees", type=int, nargs="*", default=[2, 3])
    ap.add_argument("--english-degrees", type=int, nargs="*", default=[2])
    ap.add_argument("--train-sentences", type=int, default=None)
    ap.add_argument("--n-iter", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--rows", type=int, nargs="+", default=[1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18],
                    help="cache sizes (lru); the middle one also with lfu and without the doorkeeper")
    ap.add_argument("--chunk", type=int, default=10000,
                    help="decisions per point of the stream-position curve (at most a tenth of a stream)")
    ap.add_argument("--late", type=int, default=50000, help="report the speed-up of the chunks past this position")
    ap.add_argument("--one-call-decisions", type=int, default=5000, help="decisions timed with one Python call each")
    ap.add_argument("--models", default=None, help="folder to keep trained parsers in between runs")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    if args.quick:
        args.train_sentences = args.train_sentences or 2000
        args.n_iter = args.n_iter or 3
        args.rounds = args.rounds or 3
    args.n_iter = args.n_iter or 10
    args.rounds = args.rounds or 3
    name = args.name or ("adaptive_quick" if args.quick else "adaptive")
    data = require_shared_data()

    streams, parsers = [], []
    jobs = [("bunsetsu", d) for d in args.bunsetsu_degrees] + [("english", d) for d in args.english_degrees]
    for kind, d in jobs:
        t0 = time.perf_counter()
        parser = trained(kind, d, args, data)
        if kind == "bunsetsu":
            text = load_gsd_bunsetsu(data / "ud_japanese_gsd", "dev") + load_gsd_bunsetsu(data / "ud_japanese_gsd", "test")
        else:
            text = (read_ud_english(data / "ud_english_ewt" / "en_ewt-ud-dev.conllu")
                    + read_ud_english(data / "ud_english_ewt" / "en_ewt-ud-test.conllu"))
        parser.compile("pke" if not (kind == "english" and d >= 3) else "split")
        events = parser.collect_events(text)
        print(f"[{kind} d={d}] trained/loaded in {time.perf_counter() - t0:.0f} s; streams "
              + ", ".join(f"{k}: {v.shape[0]:,}" for k, v in events.items()), flush=True)
        for comp, X in events.items():
            r = bench_stream(f"{kind} d={d} {comp}", parser.models_[comp], X, args)
            print(f"  {r['stream']}: first pass {r['first_pass']['speedup_batch']:.2f}x PKE "
                  f"(bound {r['first_pass']['bound_of_any_prefix_cache']:.2f}x), hit rate {r['first_pass']['hit_rate']:.2f}, "
                  f"exact {r['exact']}", flush=True)
            streams.append(r)
        parsers.append(bench_parser(f"{kind} d={d}", parser, text, args))
        print(f"  parser: {parsers[-1]['speedup']:.2f}x, same parses {parsers[-1]['same_parses']}", flush=True)

    png = RESULTS / f"{name}.png"
    md = ["Text never seen, processed once (dev + test decisions in order); µs per decision, medians of "
          f"{args.rounds} interleaved rounds, every adaptive classifier fresh (empty cache) each round.", "",
          "## First pass", "",
          markdown_table(["stream", "decisions", "K", "PKE", "adaptive", "speed-up", "bound of any prefix cache",
                          "hit rate", "PKE, one call each", "adaptive, one call each", "speed-up",
                          "second pass: speed-up (hit rate)", "exact"],
                         [[s["stream"], s["decisions"], s["outputs"], s["first_pass"]["us_per_decision"]["pke"],
                           s["first_pass"]["us_per_decision"]["adaptive"], f"{s['first_pass']['speedup_batch']:.2f}x",
                           f"{s['first_pass']['bound_of_any_prefix_cache']:.2f}x", f"{s['first_pass']['hit_rate']:.2f}",
                           s["first_pass"]["us_per_decision"]["pke_one_call"],
                           s["first_pass"]["us_per_decision"]["adaptive_one_call"],
                           f"{s['first_pass']['speedup_one_call']:.2f}x",
                           f"{s['first_pass']['speedup_second_pass']:.2f}x ({s['first_pass']['second_pass_hit_rate']:.2f})",
                           s["exact"]] for s in streams]),
          "", f"## Past {args.late:,} decisions", "",
          markdown_table(["stream", "PKE", "adaptive", "speed-up"],
                         [[s["stream"], s["after_late"]["pke_us"], s["after_late"]["adaptive_us"],
                           f"{s['after_late']['speedup']:.2f}x"] for s in streams if "after_late" in s]),
          "", "## Cache size and policy (first pass)", "",
          markdown_table(["stream", "rows", "policy", "µs / decision", "speed-up over PKE", "hit rate"],
                         [[s["stream"], r["cache_rows"], r["policy"], r["us_per_decision"], f"{r['speedup']:.2f}x",
                           f"{r['hit_rate']:.2f}"] for s in streams for r in s["cache_sizes"]]),
          "", "## Threads sharing one classifier (first pass, `n_jobs`)", "",
          markdown_table(["stream", "classifier", "threads", "µs / decision"],
                         [[s["stream"], t["classifier"], t["threads"], t["us_per_decision"]] for s in streams for t in s["threads"]]),
          "", "## Whole parser, method=\"adaptive\" against \"pke\" (first pass over dev + test)", "",
          markdown_table(["parser", "sentences", "pke s", "adaptive s", "speed-up", "same parses"],
                         [[p["parser"], p["sentences"], p["seconds"]["pke"], p["seconds"]["adaptive"], f"{p['speedup']:.2f}x",
                           p["same_parses"]] for p in parsers]),
          "", f"![hit rate and speed against cache size and stream position]({png.name})"]
    write_results(name, {"args": {k: v for k, v in vars(args).items()}, "streams": streams, "parsers": parsers}, "\n".join(md))
    write_figures(name, {None: png})


if __name__ == "__main__":
    main()
