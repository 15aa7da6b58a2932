"""Real pipelines: CoNLL-2000 chunking (YamCha style) and Japanese word
segmentation (character-boundary classification, UD Japanese GSD r2.8).

For each task and each kernel degree (--degrees, default 1 2 3), one process:

1. trains the pipeline with PA-I (kernel slicing) on the train split (or its
   first --train-sentences) and compiles an fstrie from the vectors the
   pipeline classifies on the training text;
2. scores the test split: chunk F1 exactly as conlleval counts it, word F1
   with words as character spans (every method gives the same decisions --
   checked here on the test set -- so one score per degree);
3. times the pipeline end to end with fstrie, pke, pki and pkb (split too
   with --split), interleaved rounds over the same test set, median of
   --repeats rounds after a warm-up (``conjunct._timing.interleaved_medians``):
   sentences/s include feature look-up (Python) and the C++ loop; a separate
   timed run splits the time into classifier seconds vs the rest.

Chunking calls the classifier once per token from a C++ left-to-right loop
(the two previous decisions are features); segmentation computes the feature
ids of a batch and classifies every boundary in one C++ call. Both build
their features through the feature engine from the tokens' or the text's
strings.

    python benchmarks/bench_chunk_segment.py            # full train splits
    python benchmarks/bench_chunk_segment.py --quick    # 1,500 training sentences, 400 test sentences
"""

from __future__ import annotations

import argparse
import time

from _common import markdown_table, require_shared_data, write_results

from conjunct._timing import interleaved_medians
from conjunct.io.corpora import read_conll2000
from conjunct.tasks.chunk import Chunker, YamchaChunker
from conjunct.tasks.segment import BoundaryClassifier, WordSegmenter, read_segmented_conllu


def load(task: str, data, n_train, n_test):
    if task == "chunk":
        train = read_conll2000(data / "conll2000" / "train.txt")
        test = read_conll2000(data / "conll2000" / "test.txt")
    else:
        base = data / "ud_japanese_gsd" / "r2.8"
        train = read_segmented_conllu(base / "ja_gsd-ud-train.conllu")
        test = read_segmented_conllu(base / "ja_gsd-ud-test.conllu")
    return train[:n_train] if n_train else train, test[:n_test] if n_test else test


def runners(task: str, pipeline, methods):
    """Per method, the pipeline's runner (C++ chunking loop or batched boundary
    classifier) around that method's compiled classifier (fstrie: the pipeline's own)."""
    model = pipeline.models_[pipeline.COMPONENT]
    out = {}
    for m in methods:
        clf = pipeline.classifier_ if m == "fstrie" else model.compile(m)
        if task == "chunk":
            out[m] = YamchaChunker(clf, window=pipeline.window)
        else:
            out[m] = BoundaryClassifier(clf, ngram=pipeline.ngram)
    return out


def run_task(task: str, data, args) -> dict:
    train, test = load(task, data, args.train_sentences, args.test_sentences)
    texts = ["".join(s) for s in test] if task == "segment" else None
    methods = ["fstrie", "pke", "pki", "pkb"] + (["split"] if args.split else [])
    rows = []
    for d in args.degrees:
        t0 = time.perf_counter()
        pipeline = (Chunker(degree=d, n_iter=args.epochs) if task == "chunk" else WordSegmenter(degree=d, n_iter=args.epochs)).fit(train)
        fit_seconds = time.perf_counter() - t0
        scores = pipeline.evaluate(test)
        stats = pipeline.training_stats_[pipeline.COMPONENT]
        rs = runners(task, pipeline, methods)
        outputs, timed = {}, {}
        for m, r in rs.items():
            if task == "chunk":
                d0, c0 = r.decisions, r.classifier_seconds
                t = time.perf_counter()
                outputs[m] = r.chunk_many(test, timing=True)
                total = time.perf_counter() - t
            else:
                d0, c0 = r.decisions, r.classifier_seconds
                t = time.perf_counter()
                outputs[m] = [b.tolist() for b in r.boundaries(texts)]
                total = time.perf_counter() - t
            timed[m] = (r.decisions - d0, r.classifier_seconds - c0, total)
        same = all(outputs[m] == outputs["fstrie"] for m in methods)
        if task == "chunk":
            fns = {m: (lambda r=r: r.chunk_many(test)) for m, r in rs.items()}
        else:
            fns = {m: (lambda r=r: r.boundaries(texts)) for m, r in rs.items()}
        medians = interleaved_medians(fns, repeats=args.repeats, warmup=1)
        speed = {}
        for m in methods:
            decisions, clf_s, total = timed[m]
            speed[m] = {"sentences_per_second": len(test) / medians[m], "median_seconds": medians[m],
                        "classifications_per_second": decisions / clf_s if clf_s else None,
                        "classifier_seconds": clf_s, "timed_run_seconds": total,
                        "classifier_share": clf_s / total if total else None,
                        "bytes": rs[m].classifier.nbytes}
        rows.append({"degree": d, "train_sentences": len(train), "test_sentences": len(test),
                     "examples": stats["examples"], "support_vectors": stats["support_vectors"],
                     "training_seconds": stats["seconds"], "fit_seconds": fit_seconds,
                     "precision": scores["precision"], "recall": scores["recall"], "f1": scores["f1"],
                     "accuracy": scores["accuracy"], "decisions": scores["decisions"], "methods_agree": same,
                     "speed": speed})
        print(f"{task} d={d}: F1 {100 * scores['f1']:.2f}, trained in {stats['seconds']:.1f} s, "
              + ", ".join(f"{m} {speed[m]['sentences_per_second']:,.0f} sent/s" for m in methods) + f", agree={same}",
              flush=True)
    return {"rows": rows, "methods": methods}


def markdown(results: dict) -> str:
    out = []
    names = {"chunk": "CoNLL-2000 chunking (YamCha style, conlleval chunk F1)",
             "segment": "Japanese word segmentation (UD Japanese GSD r2.8, word F1)"}
    for task, res in results["tasks"].items():
        out.append(f"## {names[task]}\n")
        out.append(markdown_table(
            ["degree", "train sent.", "examples", "SVs", "train s", "P %", "R %", "F1", "acc %", "methods agree"],
            [[r["degree"], r["train_sentences"], r["examples"], r["support_vectors"], r["training_seconds"],
              100 * r["precision"], 100 * r["recall"], 100 * r["f1"], 100 * r["accuracy"], r["methods_agree"]]
             for r in res["rows"]]))
        out.append("")
        rows = []
        for r in res["rows"]:
            for m in res["methods"]:
                s = r["speed"][m]
                rows.append([r["degree"], m, s["sentences_per_second"], s["classifications_per_second"],
                             100 * s["classifier_share"], s["bytes"] / 1e6])
        out.append(markdown_table(["degree", "method", "sentences/s", "classifications/s", "classifier % of time", "MB"], rows))
        out.append("")
    out.append("sentences/s: whole pipeline on the test set (median of interleaved rounds); classifications/s: "
               "decisions / classifier seconds (timed inside the loop); classifier %: classifier seconds / run "
               "seconds of a separate timed run (the rest: feature look-up, the loop, output).")
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small slices: 1,500 training and 400 test sentences, 3 rounds")
    p.add_argument("--tasks", nargs="+", choices=["chunk", "segment"], default=["chunk", "segment"])
    p.add_argument("--degrees", nargs="+", type=int, default=[1, 2, 3])
    p.add_argument("--epochs", type=int, default=10, help="PA-I epochs (default 10)")
    p.add_argument("--train-sentences", type=int, default=None, help="first N training sentences (default all)")
    p.add_argument("--test-sentences", type=int, default=None, help="first N test sentences (default all)")
    p.add_argument("--repeats", type=int, default=5, help="interleaved timing rounds (default 5)")
    p.add_argument("--split", action="store_true", help="time the split method too")
    args = p.parse_args()
    if args.quick:
        args.train_sentences = args.train_sentences or 1500
        args.test_sentences = args.test_sentences or 400
        args.repeats = min(args.repeats, 3)
        args.epochs = min(args.epochs, 5)
    data = require_shared_data()
    results = {"settings": {k: v for k, v in vars(args).items()}, "tasks": {}}
    for task in args.tasks:
        results["tasks"][task] = run_task(task, data, args)
    write_results("chunk_segment" + ("_quick" if args.quick else ""), results, markdown(results))


if __name__ == "__main__":
    main()
