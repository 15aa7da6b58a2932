"""conjunct analyze: text in, CoNLL-U out, through a whole text pipeline
(English: tagger -> parser and chunker; Japanese: segmenter -> tagger ->
bunsetsu -> bunsetsu parser), or train one.

    conjunct analyze MODEL INPUT [-o OUT]          (same as: conjunct analyze run ...)
    conjunct analyze train --lang en TREEBANK [--chunk-data CONLL2000] -o MODEL
    conjunct analyze train --lang ja GSD_DIR -o MODEL

Input: CoNLL-U (its FORMs; comments kept) or plain text (``--format``; by
default CoNLL-U when the first non-blank line starts with ``#`` or has 10
tab-separated columns). Plain text is, for English with a tokenizer, raw text
in paragraphs (blank lines between them; --tokenized: one sentence per line of
whitespace-separated tokens, what a model without a tokenizer reads); for
Japanese, raw text one sentence per line. A sentence longer than
``--max-sentence-length`` (10,000 tokens by default) is refused, naming its
line. Output: one
CoNLL-U block per sentence (see :meth:`conjunct.analysis.Analysis.to_conllu`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .._errors import ConjunctError
from ..progress import say, status
from ._common import (Counted, at_least, in_file_terms, load_object, on_cluster, open_output, option, output_option,
                      scheduler_options)


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
    output_option(rn, help="output file ('-' = standard output, the default)", required=False, default="-")
    rn.add_argument("--batch-size", type=int, default=1000, help="sentences per call of each stage (default 1000)")
    rn.add_argument("--output-format", choices=["conllu", "html"], default="conllu",
                    help="conllu (default), or html: one self-contained page drawing every sentence's analysis as SVG")
    rn.add_argument("--lang", choices=["en", "ja"], default=None, help="check that the model is for this language")
    rn.add_argument("--tokenized", action="store_true",
                    help="en: plain text is one sentence per line of whitespace-separated tokens, not raw text "
                         "through the model's tokenizer")
    rn.add_argument("--format", choices=["auto", "text", "conllu"], default="auto",
                    help="input format (default auto: CoNLL-U when the first non-blank line starts with '#' or has 10 "
                         "tab-separated columns, else one sentence per line)")
    rn.add_argument("--max-sentence-length", type=at_least(1), default=None, metavar="N",
                    help="refuse a sentence of more than N tokens (raw Japanese text: characters); default 10000")
    scheduler_options(rn)
    rn.set_defaults(func=run_analyze)

    tr = actions.add_parser("train", prog="conjunct analyze train", help="train a text pipeline on a treebank")
    tr.add_argument("data", help="en: a UD English CoNLL-U treebank; ja: the UD Japanese GSD directory (its train split)")
    output_option(tr, help="model file to write")
    tr.add_argument("--lang", choices=["en", "ja"], required=True, help="language of the pipeline")
    tr.add_argument("--chunk-data", default=None, help="en: CoNLL-2000 chunk training data (no chunker without it)")
    tr.add_argument("-k", "--folds", type=int, default=5, help="folds of the jackknifed training tags (default 5)")
    option(tr, "degree", default=None, help="the parser's polynomial kernel degree (default 2)")
    tr.add_argument("--features", choices=["malt", "rich", "zn", "richu", "richu-order2", "richu-order2-valency"], default=None,
                    help="en: the parser's configuration features (default malt; rich: +1.56 dev LAS, ~4x the parse time; "
                         "richu: rich plus coarse tags of seven more tokens; richu-order2 / richu-order2-valency: richu "
                         "without the second-order templates / and the valencies, the same dev LAS for 0.64x / 0.54x its "
                         "parse instructions)")
    tr.add_argument("--explore", action="store_true",
                    help="en: train the parser with exploration (dynamic oracle): about three times its training")
    option(tr, "iterations", help="training epochs of every stage (default 10)")
    tr.add_argument("--max-sentences", type=int, default=None, help="train on the first N sentences only")
    tr.add_argument("--keep-models", action="store_true",
                    help="store the kernel models beside the compiled classifiers (needed only to recompile "
                         "with another method; several times the file size)")
    option(tr, "jobs", default=-1, help="stages trained at once, in threads (default -1: every core); the model is "
                                        "the same for any value")
    tr.add_argument("--stage-report", default=None, metavar="FILE",
                    help="write each stage's wall and CPU seconds and peak RSS to FILE as JSON (what -v prints)")
    option(tr, "seed")
    option(tr, "quiet")
    option(tr, "verbose", help="training progress on standard error, and each stage's seconds and peak memory")
    tr.set_defaults(func=run_train)


def load_text_pipeline(path: str, lang=None, model=None):
    """The text pipeline saved in ``path`` (or ``model``, already loaded from
    it), with a clear error for any other model or for one of another
    language than ``lang``."""
    from ..analysis import TextPipeline
    from ..io.persistence import load

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


def _unit(path: str, fmt: str = "auto") -> str:
    """Where a piece of ``path`` may end on a cluster: CoNLL-U sentences end at
    blank lines, plain text has one sentence per line."""
    from ..analysis.textio import _is_conllu
    from ..io._textin import open_text

    if fmt != "auto":
        return "block" if fmt == "conllu" else "line"
    with open_text(path) as (f, _):
        first = next((line for line in f if line.strip()), "")
    return "block" if _is_conllu(first) else "line"


def _layout(args) -> str:
    """How the input's sentences lie in the file, to find an error's line again."""
    declared = getattr(args, "format", None)
    return declared if declared in ("conllu", "text") else {"block": "conllu", "line": "text"}[_unit(args.data)]


def run_analyze(args) -> int:
    from ..analysis import analyze_stream, read_text
    from ..analysis.rawtext import analyze_file

    if args.batch_size < 1:
        raise ConjunctError("--batch-size must be at least 1")
    if getattr(args, "scheduler", None):
        if getattr(args, "output_format", "conllu") == "html":
            raise ConjunctError("--output-format html writes one page: run it without --scheduler")
        if args.data == "-":
            raise ConjunctError("--scheduler reads an input file, not standard input")
        unit = _unit(args.data, args.format)
        args.format = "conllu" if unit == "block" else "text"  # guessed once for the file, not per piece
        if unit == "line" and not args.tokenized:
            from ..io.persistence import load

            model = load_text_pipeline(args.model, args.lang, load(args.model, mmap=True))
            if model.lang == "en" and model.tokenizer is not None:
                # Pieces of a file would restart the offsets and could cut a paragraph.
                raise ConjunctError("--scheduler takes CoNLL-U or --tokenized input for English; raw text is "
                                    "analysed on one machine (without --scheduler)")
        return on_cluster(args, unit=unit)
    preloaded = getattr(args, "preloaded", None)
    model = load_text_pipeline(args.model, args.lang, None if preloaded is None else load_object(args))
    from ..analysis.rawtext import input_kind
    from ..analysis.textio import MAX_SENTENCE_LENGTH

    max_length = args.max_sentence_length or MAX_SENTENCE_LENGTH
    plain = args.format == "text" or (args.format == "auto" and (args.data == "-" or _unit(args.data) == "line"))
    if plain and input_kind(model, "", tokenized=args.tokenized) == "raw":
        # Plain English through the model's tokenizer (auto on standard input may still turn out CoNLL-U).
        if getattr(args, "output_format", "conllu") == "html":
            raise ConjunctError("--output-format html takes CoNLL-U or --tokenized input; raw English text is "
                                "written as CoNLL-U (render it with conjunct.render from Python)")
        with open_output(args.output) as out:
            for block in analyze_file(model, args.data, batch_size=args.batch_size, tokenized=args.tokenized,
                                      format=args.format, max_length=max_length):
                out.write(block)
        return 0
    sentences = read_text(args.data, raw=model.lang == "ja", format=args.format, max_length=max_length)
    counted = Counted(sentences)  # errors name the sentence of the file, not of the batch
    if getattr(args, "output_format", "conllu") == "html":
        from ..io.rendering import render_stream

        title = "standard input" if args.data == "-" else os.path.basename(args.data)
        blocks = render_stream(model, counted, batch_size=args.batch_size, title=title)
    else:
        blocks = analyze_stream(model, counted, batch_size=args.batch_size)
    with open_output(args.output) as out:
        for block in in_file_terms(blocks, counted, args.batch_size, args.data, lambda: _layout(args)):
            out.write(block)
    return 0


def _first_sentences(paragraphs, n: int):
    """The paragraphs that hold the first ``n`` sentences (the last one cut there)."""
    from ..tasks.tokenize import TokenizedText

    out, left = [], n
    for p in paragraphs:
        if left <= 0:
            break
        if len(p.sentence_lengths) > left:
            k = sum(p.sentence_lengths[:left])
            end = p.spans[k - 1][1]
            p = TokenizedText(p.text[:end], p.spans[:k], p.words[:k], p.sentence_lengths[:left])
        out.append(p)
        left -= len(p.sentence_lengths)
    return out


#: common_features for "every feature": a split classifier whose store is PKE's.
EVERY_FEATURE = 2**31 - 1


def run_train(args) -> int:
    from ..analysis.schedule import StageMeter, stage_report
    from ..tagging import JAPANESE_TEMPLATES, PerceptronTagger
    from ..tasks.base import shipped_layout
    from ..tasks.chunk import Chunker

    verbose = 0 if args.quiet else args.verbose
    templates = {"templates": JAPANESE_TEMPLATES} if args.lang == "ja" else {}
    tagger = PerceptronTagger(n_iter=args.iterations, random_state=args.seed, **templates)
    params = dict(n_iter=args.iterations, random_state=args.seed, verbose=max(0, verbose - 1))
    degree = {} if args.degree is None else {"degree": args.degree}
    if args.features is not None and args.lang != "en":
        raise ConjunctError("--features is for the English parser (--lang en)")
    features = {} if args.features is None else {"features": args.features}
    if args.explore:
        if args.lang != "en":
            raise ConjunctError("--explore is for the English parser (--lang en)")
        features["explore"] = True
    start = time.perf_counter()
    meter = StageMeter()
    status(f"reading {args.data}")  # seconds on a treebank before the first bar
    if args.lang == "en":
        from ..analysis import EnglishTextPipeline
        from ..io.corpora import read_conll2000
        from ..tasks.english import EnglishDependencyParser, read_ud_english
        from ..tasks.tokenize import EnglishTokenizer, read_tokenized_conllu

        with meter.stage("reading"):
            data = read_ud_english(args.data)[:args.max_sentences]
            chunks = read_conll2000(args.chunk_data) if args.chunk_data else None
            raw = _first_sentences(read_tokenized_conllu(args.data), len(data))
        if not any(a[1] == b[0] for p in raw for a, b in zip(p.spans, p.spans[1:])):
            # Nothing to learn where tokens meet without a space: the model reads tokenized text.
            status(f"{args.data} never writes two tokens together (no SpaceAfter=No): training no tokenizer")
            raw = None
        # The shipped layout (kernel splitting) for the parser and tokenizer: about as fast as PKE in under half its bytes.
        nlp = EnglishTextPipeline(tagger, EnglishDependencyParser(**shipped_layout(), **params, **degree, **features), Chunker(**params),
                                  EnglishTokenizer(**shipped_layout(), **params), folds=args.folds, random_state=args.seed,
                                  verbose=0)
        nlp.fit(data, chunk_data=chunks, raw_text=raw, n_jobs=args.jobs)
    else:
        from ..analysis import JapaneseTextPipeline
        from ..tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
        from ..tasks.segment import WordSegmenter

        if not os.path.isdir(args.data):
            raise ConjunctError(f"{args.data}: --lang ja trains on the UD Japanese GSD directory (ud_japanese_gsd)")
        with meter.stage("reading"):
            data = load_gsd_bunsetsu(args.data, "train")[:args.max_sentences]
        # At degree 2 the bunsetsu chunker and parser split with every feature common: PKE's store bit for bit,
        # whose file keeps the support vectors instead of its trie and weights (recomputed at load): a full-size
        # pipeline's file 32 MB instead of 86 MB with fstries over PKE, the same analyses, as fast.
        exact = {"method": "split", "method_params": {"common_features": EVERY_FEATURE}}
        parser_degree = degree.get("degree", 2)
        nlp = JapaneseTextPipeline(WordSegmenter(**shipped_layout(), **params), tagger, Chunker(**params, **exact),
                                   BunsetsuDependencyParser(**params, degree=parser_degree,
                                                            **(exact if parser_degree == 2 else {})),
                                   folds=args.folds, random_state=args.seed, verbose=0)
        nlp.fit(data, n_jobs=args.jobs)
    nlp.verbose = verbose  # saved with the model as before; the report below replaces the pipeline's own
    for stage in nlp.stages().values():
        if hasattr(stage, "keep_models"):
            stage.keep_models = args.keep_models
    status(f"writing {args.output}")  # every stage's models: seconds
    with meter.stage("writing"):
        nlp.save(args.output)
    rows = meter.rows[:1] + nlp.stats_["stages"] + meter.rows[1:]
    if verbose:
        say(stage_report(rows))
    if args.stage_report:
        import json

        from pathlib import Path

        from ..io._atomic import atomic_file

        with atomic_file(Path(args.stage_report), text=True) as f:
            json.dump({"lang": args.lang, "sentences": len(data), "jobs": args.jobs, "stages": rows}, f, indent=1)
    if not args.quiet:
        print(f"trained a {args.lang} text pipeline ({', '.join(n for n, s in nlp.stages().items() if s is not None)}) "
              f"on {len(data):,} sentences in {time.perf_counter() - start:.1f} s, tags jackknifed in {args.folds} folds "
              f"(accuracy {nlp.stats_['jackknife_accuracy']:.4f}) -> {args.output}", file=sys.stderr)
    return 0
