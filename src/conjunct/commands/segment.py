"""conjunct segment: train a Japanese word segmenter (character-boundary
classification), segment raw text, or evaluate one."""

from __future__ import annotations

import sys
import time

from ..data import _open_text
from ._common import METHODS, add_pipeline_training_options, load_pipeline



def register(sub) -> None:
    s = sub.add_parser("segment", help="Japanese word segmentation by boundary classification: train, run, eval")
    ssub = s.add_subparsers(dest="segment_command", metavar="ACTION")
    ssub.required = True

    tr = ssub.add_parser("train", help="train a segmenter on the words of a CoNLL-U file")
    tr.add_argument("data", help="training corpus (CoNLL-U; the FORMs of a sentence are its words)")
    tr.add_argument("-o", "--out", required=True, help="model file to write")
    add_pipeline_training_options(
        tr, lambda p: p.add_argument("--ngram", type=int, choices=[1, 2, 3], default=3,
                                     help="longest character / type n-gram in the window (default 3)"))
    tr.set_defaults(func=run_train)

    rn = ssub.add_parser("run", help="segment raw text: one sentence per line in, space-separated words out")
    rn.add_argument("model", help="segmenter model file")
    rn.add_argument("data", help="text file, one sentence per line ('-' reads stdin); whitespace is a word boundary")
    rn.add_argument("-o", "--out", default="-", help="output file ('-' = standard output)")
    rn.add_argument("--method", choices=METHODS, default=None, help="recompile with this method first")
    rn.set_defaults(func=run_run)

    ev = ssub.add_parser("eval", help="word precision/recall/F1 and speed on a CoNLL-U file")
    ev.add_argument("model", help="segmenter model file")
    ev.add_argument("data", help="test corpus (CoNLL-U)")
    ev.add_argument("--method", choices=METHODS, default=None, help="recompile with this method first")
    ev.set_defaults(func=run_eval)


def _load(path: str, method, events):
    from ..tasks.segment import WordSegmenter

    return load_pipeline(path, WordSegmenter, "word segmenter", method, events)


def run_train(args) -> int:
    from ..tasks.segment import WordSegmenter, read_segmented_conllu

    sentences = read_segmented_conllu(args.data)
    if args.max_sentences:
        sentences = sentences[:args.max_sentences]
    seg = WordSegmenter(degree=args.degree, C=args.C, n_iter=args.iterations, ngram=args.ngram, method=args.method,
                        random_state=args.seed)
    t0 = time.perf_counter()
    seg.fit(sentences)
    elapsed = time.perf_counter() - t0
    seg.save(args.out)
    if not args.quiet:
        stats = seg.training_stats_[seg.COMPONENT]
        print(f"trained a degree-{args.degree} segmenter on {len(sentences)} sentences ({stats['examples']} boundaries, "
              f"{stats['support_vectors']} support vectors) in {elapsed:.2f} s -> {args.out}", file=sys.stderr)
    return 0


def _read_lines(path: str):
    with _open_text(path) as (f, _):
        return [line.rstrip("\r\n") for line in f]


def run_run(args) -> int:
    lines = _read_lines(args.data)
    pieces = [line.split() for line in lines]  # whitespace separates words already
    flat = [p for ps in pieces for p in ps]
    seg = _load(args.model, args.method, flat)
    words = iter(seg.segment(flat))
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        for ps in pieces:
            out.write(" ".join(w for _ in ps for w in next(words)) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def run_eval(args) -> int:
    from ..tasks.segment import read_segmented_conllu

    sentences = read_segmented_conllu(args.data)
    seg = _load(args.model, args.method, sentences)
    r = seg.evaluate(sentences)
    print(f"{r['sentences']} sentences, {r['gold_words']} words; found {r['predicted_words']}, correct {r['correct_words']}")
    print(f"precision {100 * r['precision']:.2f}%  recall {100 * r['recall']:.2f}%  F1 {100 * r['f1']:.2f}  "
          f"boundary accuracy {100 * r['accuracy']:.2f}%")
    print(f"method {r['method']}: {r['sentences_per_second']:,.0f} sentences/s, "
          f"{r['classifications_per_second']:,.0f} classifications/s; classifier {r['classifier_seconds']:.4f} s "
          f"of {r['seconds']:.4f} s")
    return 0
