"""Cold against warm for every task pipeline: how fast each runs over text it
has never seen (the first pass of a fresh process) and once its per-process
caches are warm (the later passes).

For the bunsetsu parser, the English arc-eager parser, the chunker and the
word segmenter, one model each (d = 2, PA-I, the first --train-sentences
training sentences, --n-iter epochs, the pipeline's default method, fstrie)
is trained and saved, and for the tagger an averaged perceptron (UPOS of
EWT, default templates, --n-iter epochs); then each round runs every pipeline in a fresh process
(rounds interleaved, order rotating) that loads its model (not timed) and
makes --passes passes over never-used copies of the test sentences. Cold is
the median over rounds of pass 0, warm the median of the later passes.

    python benchmarks/bench_cold_warm.py [--rounds 5] [--passes 10] [--quick]
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA, markdown_table, require_shared_data, write_results

PIPELINES = ("bunsetsu", "english", "chunk", "segment", "tagger")


def load_data(name: str, n_train, n_test):
    """(pipeline class, training data, test inputs, what the inputs are) of one task."""
    if name == "bunsetsu":
        from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu

        base = SHARED_DATA / "ud_japanese_gsd"
        train, test = load_gsd_bunsetsu(base, "train"), load_gsd_bunsetsu(base, "test")
        cls = BunsetsuDependencyParser
    elif name == "english":
        from conjunct.tasks.english import EnglishDependencyParser, read_ud_english

        base = SHARED_DATA / "ud_english_ewt"
        train, test = read_ud_english(base / "en_ewt-ud-train.conllu"), read_ud_english(base / "en_ewt-ud-test.conllu")
        cls = EnglishDependencyParser
    elif name == "chunk":
        from conjunct.io.corpora import read_conll2000
        from conjunct.tasks.chunk import Chunker

        train = read_conll2000(SHARED_DATA / "conll2000" / "train.txt")
        test = read_conll2000(SHARED_DATA / "conll2000" / "test.txt")
        cls = Chunker
    elif name == "tagger":
        from conjunct.tagging import PerceptronTagger
        from conjunct.tagging.io import read_tagged

        base = SHARED_DATA / "ud_english_ewt"
        train = list(zip(*read_tagged(base / "en_ewt-ud-train.conllu", tag_field="upos")))
        test = read_tagged(base / "en_ewt-ud-test.conllu", tag_field="upos")[0]
        cls = PerceptronTagger
    else:
        from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu

        base = SHARED_DATA / "ud_japanese_gsd" / "r2.8"
        train = read_segmented_conllu(base / "ja_gsd-ud-train.conllu")
        test = read_segmented_conllu(base / "ja_gsd-ud-test.conllu")
        cls = WordSegmenter
    train = train[:n_train] if n_train else train
    test = test[:n_test] if n_test else test
    if name == "segment":
        test = ["".join(words) for words in test]  # the segmenter reads raw text
    return cls, train, test


def worker(name: str, model: str, passes: int, n_test) -> None:
    """One round of one pipeline in this fresh process: a PASS line per pass."""
    import conjunct

    pipeline = conjunct.load(model)
    process = getattr(pipeline, {"segment": "segment", "chunk": "chunk", "tagger": "predict"}.get(name, "parse"))
    _, _, test = load_data(name, 1, n_test)
    blob = pickle.dumps(test, protocol=pickle.HIGHEST_PROTOCOL)
    for k in range(passes):
        inputs = pickle.loads(blob)  # never-used objects, made outside the timer
        t0 = time.perf_counter()
        process(inputs)
        print(f"PASS {k} total_s={time.perf_counter() - t0:.6f} sentences={len(inputs)}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        n_test = int(sys.argv[5]) if sys.argv[5] != "all" else None
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), n_test)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pipelines", nargs="+", default=list(PIPELINES), choices=PIPELINES)
    ap.add_argument("--train-sentences", type=int, default=3000)
    ap.add_argument("--test-sentences", type=int, default=None, help="default: the whole test split")
    ap.add_argument("--n-iter", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="1,000 training sentences, 2 rounds, 4 passes")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences, args.rounds, args.passes = 1000, 2, 4
    require_shared_data()
    work = Path(tempfile.mkdtemp(prefix="conjunct-cold-warm-"))
    models, sizes = {}, {}
    for name in args.pipelines:
        cls, train, test = load_data(name, args.train_sentences, args.test_sentences)
        print(f"training {name} on {len(train)} sentences", file=sys.stderr, flush=True)
        if name == "tagger":  # (words, tags) pairs
            pipeline = cls(n_iter=args.n_iter).fit([w for w, _ in train], [t for _, t in train])
        else:
            pipeline = cls(degree=2, n_iter=args.n_iter).fit(train)
        models[name] = str(work / f"{name}.cjt")
        pipeline.save(models[name])
        sizes[name] = len(test)
    n_test = str(args.test_sentences) if args.test_sentences else "all"
    times = {name: [] for name in args.pipelines}
    for rnd in range(args.rounds):
        order = args.pipelines[rnd % len(args.pipelines):] + args.pipelines[:rnd % len(args.pipelines)]
        for name in order:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, models[name], str(args.passes),
                                  n_test], capture_output=True, text=True, check=True).stdout
            times[name].append([float(line.split("total_s=")[1].split()[0]) for line in out.splitlines() if line.startswith("PASS")])
    rows, results = [], []
    for name in args.pipelines:
        n = sizes[name]
        cold = statistics.median(n / r[0] for r in times[name])
        warm = statistics.median(n / t for r in times[name] for t in r[1:])
        results.append({"pipeline": name, "sentences": n, "cold_sentences_per_s": cold, "warm_sentences_per_s": warm,
                        "cold_over_warm": cold / warm, "passes": times[name]})
        rows.append([name, f"{n:,}", f"{cold:,.0f}", f"{warm:,.0f}", f"{cold / warm:.2f}"])
    md = markdown_table(["pipeline", "test sentences", "cold sent/s", "warm sent/s", "cold / warm"], rows)
    write_results("cold_warm" + ("_quick" if args.quick else ""), {"results": results, "args": vars(args)}, md)
    print(md)


if __name__ == "__main__":
    main()
