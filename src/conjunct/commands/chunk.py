"""conjunct chunk: train a YamCha-style CoNLL-2000 chunker, chunk text, or evaluate one."""

from __future__ import annotations

import sys
import time

from ..corpora import read_columns
from ._common import METHODS, add_pipeline_training_options, load_pipeline



def register(sub) -> None:
    c = sub.add_parser("chunk", help="text chunking (CoNLL-2000, YamCha style): train, run, eval")
    csub = c.add_subparsers(dest="chunk_command", metavar="ACTION")
    csub.required = True

    tr = csub.add_parser("train", help="train a chunker on a CoNLL-2000 file (word POS chunk)")
    tr.add_argument("data", help="training corpus; '-' reads standard input")
    tr.add_argument("-o", "--out", required=True, help="model file to write")
    add_pipeline_training_options(
        tr, lambda p: p.add_argument("--window", type=int, default=2, help="word/POS window half-width (default 2)"))
    tr.set_defaults(func=run_train)

    rn = csub.add_parser("run", help="chunk a CoNLL-2000 file: 'word POS' lines get a chunk column; with a gold "
                                     "column the output is 'word POS gold guess' (conlleval's input)")
    rn.add_argument("model", help="chunker model file")
    rn.add_argument("data", help="input ('word POS [chunk]' per line, blank line between sentences); '-' reads stdin")
    rn.add_argument("-o", "--out", default="-", help="output file ('-' = standard output)")
    rn.add_argument("--method", choices=METHODS, default=None, help="recompile with this method first")
    rn.set_defaults(func=run_run)

    ev = csub.add_parser("eval", help="conlleval chunk precision/recall/F1 and speed on a CoNLL-2000 file")
    ev.add_argument("model", help="chunker model file")
    ev.add_argument("data", help="test corpus (word POS chunk); '-' reads stdin")
    ev.add_argument("--method", choices=METHODS, default=None, help="recompile with this method first")
    ev.set_defaults(func=run_eval)


def _load(path: str, method, events):
    from ..tasks.chunk import Chunker

    return load_pipeline(path, Chunker, "chunker", method, events)


def run_train(args) -> int:
    from ..tasks.chunk import Chunker

    sentences = read_columns(args.data, widths=(3,))
    if args.max_sentences:
        sentences = sentences[:args.max_sentences]
    chunker = Chunker(degree=args.degree, C=args.C, n_iter=args.iterations, window=args.window, method=args.method,
                      random_state=args.seed)
    t0 = time.perf_counter()
    chunker.fit(sentences)
    elapsed = time.perf_counter() - t0
    chunker.save(args.out)
    if not args.quiet:
        stats = chunker.training_stats_[chunker.COMPONENT]
        print(f"trained a degree-{args.degree} chunker on {len(sentences)} sentences ({stats['examples']} tokens, "
              f"{len(chunker.classifier_.classes)} tags, {stats['support_vectors']} support vectors) in {elapsed:.2f} s "
              f"-> {args.out}", file=sys.stderr)
    return 0


def run_run(args) -> int:
    sentences = read_columns(args.data, widths=(2, 3))
    chunker = _load(args.model, args.method, sentences)
    tags = chunker.chunk(sentences)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        for s, ts in zip(sentences, tags):
            for tok, tag in zip(s, ts):
                out.write(" ".join(tok) + " " + tag + "\n")
            out.write("\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def run_eval(args) -> int:
    sentences = read_columns(args.data, widths=(3,))
    chunker = _load(args.model, args.method, sentences)
    r = chunker.evaluate(sentences)
    print(f"processed {r['tokens']} tokens with {r['gold_chunks']} phrases; found: {r['predicted_chunks']} phrases; "
          f"correct: {r['correct_chunks']}.")
    print(f"accuracy: {100 * r['accuracy']:6.2f}%; precision: {100 * r['precision']:6.2f}%; "
          f"recall: {100 * r['recall']:6.2f}%; FB1: {100 * r['f1']:6.2f}")
    print(f"method {r['method']}: {r['sentences_per_second']:,.0f} sentences/s, "
          f"{r['classifications_per_second']:,.0f} classifications/s; classifier {r['classifier_seconds']:.4f} s "
          f"of {r['seconds']:.4f} s")
    return 0
