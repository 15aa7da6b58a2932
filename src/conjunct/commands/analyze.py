"""conjunct analyze: text in, CoNLL-U out, through a whole text pipeline
(English: tagger -> parser and chunker; Japanese: segmenter -> tagger ->
bunsetsu -> bunsetsu parser), or train one.

    conjunct analyze MODEL INPUT [-o OUT]          (same as: conjunct analyze run ...)
    conjunct analyze train --lang en TREEBANK [--chunk-data CONLL2000] -o MODEL
    conjunct analyze train --lang ja GSD_DIR -o MODEL

Input: CoNLL-U (its FORMs; comments kept) or one sentence per line --
whitespace-separated tokens for English, raw text for Japanese. Output: one
CoNLL-U block per sentence (see :meth:`conjunct.analysis.Analysis.to_conllu`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .._errors import ConjunctError
from ..progress import status
from ._common import load_object, on_cluster, open_output, option, output_option, scheduler_options


class _RunByDefault(argparse._SubParsersAction):
    """Actions as subcommands, with ``run`` taken when the first word names none
    (``conjunct analyze MODEL INPUT``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values and values[0] not in self.choices:
            values = ["run", *values]
        super().__call__(parser, namespace, values, option_string)


def register(sub) -> None:
    p = sub.add_parser("analyze", help="text to CoNLL-U through a whole pipeline (tags, trees, chunks, bunsetsu); train one",
                       description=__doc__.split("\n\n")[0], usage="conjunct analyze [run] MODEL INPUT [-o OUT] | "
                                                                   "conjunct analyze train ...")
    p.register("action", "parsers_run_default", _RunByDefault)
    actions = p.add_subparsers(dest="analyze_command", metavar="ACTION", action="parsers_run_default")
    actions.required = True
    # An input that names no action is run's MODEL: let it past the choices check (_RunByDefault adds "run").
    check = p._check_value
    p._check_value = lambda action, value: None if action is actions else check(action, value)

    rn = actions.add_parser("run", prog="conjunct analyze [run]", help="analyse a text file (the default action)")
    rn.add_argument("model", help="text pipeline model file (conjunct analyze train)")
    rn.add_argument("data", help="input: CoNLL-U or one sentence per line ('-' reads stdin)")
    output_option(rn, help="CoNLL-U output file ('-' = standard output, the default)", required=False, default="-")
    rn.add_argument("--batch-size", type=int, default=1000, help="sentences per call of each stage (default 1000)")
    rn.add_argument("--lang", choices=["en", "ja"], default=None, help="check that the model is for this language")
    scheduler_options(rn)
    rn.set_defaults(func=run_analyze)

    tr = actions.add_parser("train", prog="conjunct analyze train", help="train a text pipeline on a treebank")
    tr.add_argument("data", help="en: a UD English CoNLL-U treebank; ja: the UD Japanese GSD directory (its train split)")
    output_option(tr, help="model file to write")
    tr.add_argument("--lang", choices=["en", "ja"], required=True, help="language of the pipeline")
    tr.add_argument("--chunk-data", default=None, help="en: CoNLL-2000 chunk training data (no chunker without it)")
    tr.add_argument("-k", "--folds", type=int, default=5, help="folds of the jackknifed training tags (default 5)")
    option(tr, "degree", default=None, help="the parser's polynomial kernel degree (default: 2 en, 3 ja)")
    option(tr, "iterations", help="training epochs of every stage (default 10)")
    tr.add_argument("--max-sentences", type=int, default=None, help="train on the first N sentences only")
    option(tr, "seed")
    option(tr, "quiet")
    option(tr, "verbose", help="training progress on standard error")
    tr.set_defaults(func=run_train)


def load_text_pipeline(path: str, lang=None, model=None):
    """The text pipeline saved in ``path`` (or ``model``, already loaded from
    it), with a clear error for any other model or for one of another
    language than ``lang``."""
    from ..analysis import TextPipeline
    from ..persistence import load

    if model is None:
        if os.path.isdir(path):
            raise ConjunctError(f"{path}: is a directory, not a model file")
        model = load(path)
    if not isinstance(model, TextPipeline):
        what = f"a {model.task} task pipeline" if hasattr(model, "task") else f"a {type(model).__name__}"
        raise ConjunctError(f"{path}: holds {what}, not a text pipeline (train one with: conjunct analyze train)")
    if lang is not None and model.lang != lang:
        raise ConjunctError(f"{path}: holds a text pipeline for language {model.lang!r}, not {lang!r}")
    return model


def _unit(path: str) -> str:
    """Where a piece of ``path`` may end on a cluster: CoNLL-U sentences end at
    blank lines, plain text has one sentence per line."""
    from ..analysis.textio import _is_conllu
    from ..data import _open_text

    with _open_text(path) as (f, _):
        first = next((line for line in f if line.strip()), "")
    return "block" if _is_conllu(first) else "line"


def run_analyze(args) -> int:
    from ..analysis import analyze_stream, read_text

    if args.batch_size < 1:
        raise ConjunctError("--batch-size must be at least 1")
    if getattr(args, "scheduler", None):
        if args.data == "-":
            raise ConjunctError("--scheduler reads an input file, not standard input")
        return on_cluster(args, unit=_unit(args.data))
    preloaded = getattr(args, "preloaded", None)
    model = load_text_pipeline(args.model, args.lang, None if preloaded is None else load_object(args))
    sentences = read_text(args.data, raw=model.lang == "ja")
    with open_output(args.output) as out:
        for block in analyze_stream(model, sentences, batch_size=args.batch_size):
            out.write(block)
    return 0


def run_train(args) -> int:
    from ..tagging import PerceptronTagger
    from ..tasks.chunk import Chunker

    verbose = 0 if args.quiet else args.verbose
    tagger = PerceptronTagger(n_iter=args.iterations, random_state=args.seed)
    params = dict(n_iter=args.iterations, random_state=args.seed, verbose=max(0, verbose - 1))
    degree = {} if args.degree is None else {"degree": args.degree}
    start = time.perf_counter()
    status(f"reading {args.data}")  # seconds on a treebank before the first bar
    if args.lang == "en":
        from ..analysis import EnglishTextPipeline
        from ..corpora import read_conll2000
        from ..tasks.english import EnglishDependencyParser, read_ud_english

        data = read_ud_english(args.data)[:args.max_sentences]
        chunks = read_conll2000(args.chunk_data) if args.chunk_data else None
        nlp = EnglishTextPipeline(tagger, EnglishDependencyParser(**params, **degree), Chunker(**params),
                                  folds=args.folds, random_state=args.seed, verbose=verbose)
        nlp.fit(data, chunk_data=chunks)
    else:
        from ..analysis import JapaneseTextPipeline
        from ..tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
        from ..tasks.segment import WordSegmenter

        if not os.path.isdir(args.data):
            raise ConjunctError(f"{args.data}: --lang ja trains on the UD Japanese GSD directory (ud_japanese_gsd)")
        data = load_gsd_bunsetsu(args.data, "train")[:args.max_sentences]
        nlp = JapaneseTextPipeline(WordSegmenter(**params), tagger, Chunker(**params),
                                   BunsetsuDependencyParser(**params, **{"degree": 3, **degree}),
                                   folds=args.folds, random_state=args.seed, verbose=verbose)
        nlp.fit(data)
    status(f"writing {args.output}")  # every stage's models: seconds
    nlp.save(args.output)
    if not args.quiet:
        print(f"trained a {args.lang} text pipeline ({', '.join(n for n, s in nlp.stages().items() if s is not None)}) "
              f"on {len(data):,} sentences in {time.perf_counter() - start:.1f} s, tags jackknifed in {args.folds} folds "
              f"(accuracy {nlp.stats_['jackknife_accuracy']:.4f}) -> {args.output}", file=sys.stderr)
    return 0
