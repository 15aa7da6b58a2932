"""Labeled arc-eager dependency parsing of UD English EWT (gold POS input):
accuracy for d = 1, 2, 3 and parsing speed of every classification method.

In one process, for each degree:

1. trains the ``ud-english`` pipeline (two PA-I components, kernel slicing) on
   the first --train-sentences sentences of train (non-projective ones skipped
   and counted) and compiles an fstrie from the vectors the parser classifies
   on that training text;
2. evaluates UAS / LAS (every word, punctuation included; LAS on the full
   relation with subtypes) on dev and test;
3. recompiles the same models with pkb, pki, pke, split and fstrie, checks that
   every method gives the same parses, and times parsing the first
   --speed-sentences test sentences with each method, interleaved (median of
   --repeats rounds after a warm-up round; feature-id caches warm; pkb and pki,
   a kernel evaluation per support vector, parse only the first
   --slow-sentences of them), then splits the fastest of three timed runs
   of each into classifier time, the rest of the C++ loop, and Python
   (feature-id look-up of the tokens, output lists).

At d >= 3 the pipeline's fstrie is built on kernel splitting (base "split"),
and pke is timed only with --quick or --pke-d3: its table of every conjunction
with 50 weights each takes gigabytes.

    python benchmarks/bench_english_parser.py                 # full train, d = 1, 2, 3
    python benchmarks/bench_english_parser.py --quick         # 2,000 sentences, 3 epochs, a few minutes
    python benchmarks/bench_english_parser.py --degrees 2 --train-sentences 6000
    python benchmarks/bench_english_parser.py --degrees 2 --features malt   # MaltParser's feature model
    python benchmarks/bench_english_parser.py --degrees 2 --explore         # with the dynamic oracle
    python benchmarks/bench_english_parser.py --degrees 2 --dev-only --train-sentences 2000 --name x  # choosing
"""

from __future__ import annotations

import argparse
import pickle
import time

from _common import markdown_table, require_shared_data, write_results

from conjunct._timing import interleaved_medians
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english

METHODS = ("fstrie", "pke", "split", "pki", "pkb")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2,000 training sentences, 3 epochs, 300 speed sentences")
    ap.add_argument("--degrees", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--train-sentences", type=int, default=None, help="first N training sentences (default all)")
    ap.add_argument("--n-iter", type=int, default=None, help="epochs (default 10; 3 with --quick)")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--features", default="rich", choices=("rich", "malt"),
                    help="configuration feature set (default rich: Zhang & Nivre 2011's non-local features)")
    ap.add_argument("--speed-sentences", type=int, default=None, help="test sentences timed per method (default 1000)")
    ap.add_argument("--slow-sentences", type=int, default=50,
                    help="pkb and pki (a kernel evaluation per support vector) parse only the first N speed sentences")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--pke-d3", action="store_true",
                    help="also time pke at d >= 3 (default only with --quick: its table takes many GB on full train)")
    ap.add_argument("--explore", action="store_true",
                    help="train with exploration (Goldberg & Nivre 2012's dynamic oracle, two rounds)")
    ap.add_argument("--dev-only", action="store_true",
                    help="for choosing a configuration: UAS/LAS on dev only (no test, no timing)")
    ap.add_argument("--dev-sentences", type=int, default=None, help="first N dev sentences (default all)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--name", default=None, help="results file name (default english_parser[_quick])")
    args = ap.parse_args()
    n_train = args.train_sentences or (2000 if args.quick else None)
    n_iter = args.n_iter or (3 if args.quick else 10)
    n_speed = args.speed_sentences or (300 if args.quick else 1000)
    name = args.name or ("english_parser_quick" if args.quick else "english_parser")

    base = require_shared_data() / "ud_english_ewt"
    train = read_ud_english(base / "en_ewt-ud-train.conllu")
    dev = read_ud_english(base / "en_ewt-ud-dev.conllu")
    test = read_ud_english(base / "en_ewt-ud-test.conllu")
    if n_train:
        train = train[:n_train]
    if args.dev_sentences:
        dev = dev[:args.dev_sentences]
    speed = test[:n_speed]

    acc_rows, speed_rows, split_rows, runs = [], [], [], []
    for d in args.degrees:
        t0 = time.perf_counter()
        parser = EnglishDependencyParser(degree=d, C=args.C, n_iter=n_iter, features=args.features,
                                         explore=args.explore).fit(train)
        fit_seconds = time.perf_counter() - t0
        st = parser.training_stats_
        train_seconds = sum(s["seconds"] for s in st.values())
        run = {"degree": d, "fit_seconds": fit_seconds, "train_seconds": train_seconds, "training": st,
               "skipped_nonprojective": parser.skipped_sentences_, "eval": {}, "speed": {}}
        if args.dev_only:
            ev = run["eval"]["dev"] = parser.evaluate(dev)
            runs.append(run)
            acc_rows.append([d, args.features, args.explore, f"{ev['uas']:.2%}", f"{ev['las']:.2%}",
                             st["transition"]["support_vectors"], st["label"]["support_vectors"], train_seconds, fit_seconds])
            print(f"d={d}: dev UAS {ev['uas']:.4f} LAS {ev['las']:.4f}, train {train_seconds:.1f} s", flush=True)
            continue
        for split, data in (("dev", dev), ("test", test)):
            parser.parse(data)  # warm the feature-id caches
            run["eval"][split] = parser.evaluate(data)
        ev, et = run["eval"]["dev"], run["eval"]["test"]
        acc_rows.append([d, f"{ev['uas']:.2%}", f"{ev['las']:.2%}", f"{et['uas']:.2%}", f"{et['las']:.2%}",
                         f"{et['uas_no_punct']:.2%}", st["transition"]["support_vectors"], st["label"]["support_vectors"],
                         train_seconds, fit_seconds])
        print(f"d={d}: dev UAS {ev['uas']:.4f} LAS {ev['las']:.4f}, test UAS {et['uas']:.4f} LAS {et['las']:.4f}, "
              f"train {train_seconds:.1f} s, fit+compile {fit_seconds:.1f} s", flush=True)

        # Every method on the same models: same parses, then interleaved timing.
        expected = parser.parse(speed)
        slow = speed[:args.slow_sentences]
        subset = {m: (slow if m in ("pkb", "pki") else speed) for m in args.methods}
        parsers = {}
        for method in args.methods:
            if method == "pke" and d >= 3 and not (args.quick or args.pke_d3):
                continue
            p = parser if method == "fstrie" else pickle.loads(pickle.dumps(parser))
            t0 = time.perf_counter()
            if method != "fstrie":
                p.compile(method)
            compile_seconds = time.perf_counter() - t0
            if p.parse(subset[method]) != expected[:len(subset[method])]:
                raise SystemExit(f"d={d}: {method} parses differ from fstrie's")
            parsers[method] = p
            run["speed"][method] = {"compile_seconds": compile_seconds if method != "fstrie" else None,
                                    "bytes": sum(c.nbytes for c in p.classifiers_.values()),
                                    "base": p.classifiers_["label"].meta.get("base")}
        medians = interleaved_medians({m: (lambda p=p, m=m: p.parse(subset[m])) for m, p in parsers.items()},
                                      repeats=args.repeats)
        for method, p in parsers.items():
            data = subset[method]
            n_words = sum(len(s) for s in data)
            r = min((p.evaluate(data) for _ in range(3)), key=lambda e: e["seconds"])
            decisions = r["transition_decisions"] + r["label_decisions"]
            sec = medians[method]
            rate = {m: len(subset[m]) / medians[m] for m in medians}
            run["speed"][method].update({"sentences": len(data), "seconds": sec, "sentences_per_second": len(data) / sec,
                                         "words_per_second": n_words / sec, "timed_run": r})
            label = f"{method} (on {run['speed'][method]['base']})" if run["speed"][method]["base"] else method
            speed_rows.append([d, label, len(data), len(data) / sec, n_words / sec, decisions / r["classifier_seconds"],
                               run["speed"][method]["bytes"] / 1e6, rate[method] / rate["pkb"] if "pkb" in rate else ""])
            split_rows.append([d, label, len(data), r["seconds"] * 1e3, r["classifier_seconds"] * 1e3,
                               (r["loop_seconds"] - r["classifier_seconds"]) * 1e3, (r["seconds"] - r["loop_seconds"]) * 1e3,
                               f"{r['classifier_seconds'] / r['seconds']:.0%}"])
            print(f"  {method}: {len(data) / sec:,.0f} sentences/s, {decisions / r['classifier_seconds']:,.0f} "
                  f"classifications/s", flush=True)
        runs.append(run)

    cap = f"first {n_train:,}" if n_train else "all"
    if args.dev_only:
        md = [f"Dev only ({len(dev):,} sentences): {cap} training sentences, {n_iter} epochs, C = {args.C}.", "",
              markdown_table(["d", "features", "explore", "dev UAS", "dev LAS", "SVs (transition)", "SVs (label)",
                              "train (s)", "fit (s)"], acc_rows)]
        write_results(name, {"train_sentences": len(train), "dev_sentences": len(dev), "n_iter": n_iter, "C": args.C,
                             "features": args.features, "explore": args.explore, "runs": runs}, "\n".join(md))
        return
    md = [
        f"Training: {cap} sentences of EWT train ({len(train):,}; non-projective ones skipped: "
        f"{runs[0]['skipped_nonprojective']}), PA-I C = {args.C}, {n_iter} epochs, averaged, kernel slicing, "
        f"feature set {args.features!r}{', trained with exploration' if args.explore else ''}; "
        "two components (transition: SH/RE/LA/RA, 4 classes; label: the relations, after LA/RA). Gold UPOS/XPOS as input. "
        "UAS/LAS over every word, punctuation included (LAS: full relation with subtypes); `UAS-P`: without PUNCT words. "
        "Train (s): PA-I time of both components; fit (s): also feature extraction, oracle and fstrie compilation.",
        "",
        markdown_table(["d", "dev UAS", "dev LAS", "test UAS", "test LAS", "test UAS-P", "SVs (transition)", "SVs (label)",
                        "train (s)", "fit (s)"], acc_rows),
        "",
        f"Parsing speed on the first {len(speed):,} test sentences ({sum(len(s) for s in speed):,} words; pkb and pki: the "
        f"first {len(slow):,}), one thread, methods interleaved, median of {args.repeats} rounds (feature-id caches warm). "
        "Every method gives the same parses (checked). Classifications/s: from a timed run (classifier calls timed one by "
        "one); speed-up: sentences/s over pkb's.",
        "",
        markdown_table(["d", "method", "sentences", "sentences/s", "words/s", "classifications/s", "classifiers (MB)", "speed-up vs pkb"],
                       speed_rows),
        "",
        "Where the time goes (the fastest of 3 timed runs, ms): classifier calls, the rest of the C++ loop (feature assembly, "
        "transitions), and Python (token feature-id look-up from the caches, output lists).",
        "",
        markdown_table(["d", "method", "sentences", "total (ms)", "classifier (ms)", "C++ loop other (ms)", "Python (ms)", "classifier share"],
                       split_rows),
    ]
    write_results(name, {"train_sentences": len(train), "n_iter": n_iter, "C": args.C, "features": args.features, "explore": args.explore,
                         "speed_sentences": len(speed),
                         "slow_sentences": len(slow),
                         "runs": runs}, "\n".join(md))


if __name__ == "__main__":
    main()
