"""conjunct tag: train a sequence tagger, tag text, or evaluate a tagger."""

from __future__ import annotations

import sys
import time

from .._errors import ConjunctError
from ..progress import bar, bars_enabled, status
from ._common import (add_command_group, at_least, fit, load_object, on_cluster, open_output, option, output_option,
                      scheduler_options, sentences_of)


def register(sub) -> None:
    from ..tagging import DECODERS
    from ..tagging.io import FORMATS

    tsub = add_command_group(sub, "tag", help="sequence labeling: train a tagger, tag text, evaluate (staggered decoding)")

    def corpus_args(p, tags: bool = True):
        p.add_argument("--format", choices=FORMATS if not tags else [f for f in FORMATS if f != "text"], default="auto",
                       help="corpus format (default: detect; .conllu files are CoNLL-U" +
                            ("; text: one sentence per line, words separated by spaces)" if not tags else ")"))
        if tags:
            p.add_argument("--tag-field", default="",
                           help="tags to learn: a CoNLL-U column (xpos [default], upos, upos|feats, ...) or, for "
                                "CoNLL-2000, pos, chunk or joint [default]; eval: the model's by default")

    def decoder_args(p, default=None):
        p.add_argument("--decoder", choices=DECODERS, default=default,
                       help="decoder (default: the model's, staggered-column for a new one)")
        p.add_argument("--beam-width", type=at_least(1), default=None, help="beam width for --decoder beam")
        option(p, "jobs", help="threads for decoding (default 1)")

    tr = tsub.add_parser("train", help="train a tagger on a tagged corpus")
    tr.add_argument("data", help="training corpus")
    output_option(tr, help="model file to write")
    tr.add_argument("--model", choices=["perceptron", "hmm"], default="perceptron", help="tagger (default perceptron)")
    option(tr, "iterations", help="perceptron epochs (default 10)")
    tr.add_argument("--templates", choices=["default", "japanese"], default="default",
                    help="perceptron feature templates: the defaults, or with the words' character types for "
                         "Japanese (default: default)")
    option(tr, "quiet")
    option(tr, "scheduler", help="train by iterative parameter mixing on a Dask cluster (an address, or local:N "
                                 "for N local workers; one shard per worker)")
    corpus_args(tr)
    tr.add_argument("--decoder", choices=DECODERS, default="staggered-column", help="decoder for training and tagging")
    tr.add_argument("--beam-width", type=at_least(1), default=4, help="beam width for --decoder beam")
    tr.set_defaults(func=run_train)

    tg = tsub.add_parser("run", help="tag a corpus: word<TAB>tag per line, a blank line between sentences")
    tg.add_argument("model", help="tagger model file")
    tg.add_argument("data", help="input: CoNLL-U, CoNLL-2000 or one token (first column) per line; '-' reads stdin")
    output_option(tg, help="output file ('-' = standard output, the default)", required=False, default="-")
    corpus_args(tg, tags=False)
    decoder_args(tg)
    tg.add_argument("--max-sentence-length", type=at_least(1), default=10000, metavar="N",
                    help="refuse a sentence of more than N words (default 10000; memory grows with it)")
    tg.add_argument("--batch-size", type=int, default=10000,
                    help="sentences read, tagged and written at a time (default 10000; memory stays bounded)")
    option(tg, "quiet")
    scheduler_options(tg)
    tg.set_defaults(func=run_tag)

    ev = tsub.add_parser("eval", help="accuracy, speed and search steps of a tagger on a tagged corpus")
    ev.add_argument("model", help="tagger model file")
    ev.add_argument("data", help="tagged corpus")
    corpus_args(ev)
    decoder_args(ev)
    ev.set_defaults(func=run_eval)


def _load_tagger(args):
    from ..tagging.base import _ChainTagger

    tagger = load_object(args)
    if not isinstance(tagger, _ChainTagger):
        raise ConjunctError(f"{args.model}: holds a {type(tagger).__name__}, not a tagger")
    return tagger


def _tag_field(path: str, fmt: str, field: str) -> str:
    """The tag field a corpus gives with ``--tag-field field`` ('' for plain columns)."""
    from ..tagging.io import _sniff

    fmt = _sniff(path) if fmt == "auto" else fmt
    if fmt == "conllu":
        return (field or "xpos").lower()
    if fmt == "conll2000":
        return field or "joint"
    return ""


def run_train(args) -> int:
    from ..tagging import HMMTagger, PerceptronTagger
    from ..tagging.io import read_tagged

    status(f"reading {args.data}")  # seconds on a treebank, like the features before the first epoch
    words, tags = read_tagged(args.data, format=args.format, tag_field=args.tag_field)
    status(f"training a {args.model} tagger on {len(words):,} sentences")
    field = _tag_field(args.data, args.format, args.tag_field)
    if args.model == "hmm":
        tagger = HMMTagger(decoder=args.decoder, beam_width=args.beam_width)
    else:
        from ..tagging import DEFAULT_TEMPLATES, JAPANESE_TEMPLATES

        templates = JAPANESE_TEMPLATES if args.templates == "japanese" else DEFAULT_TEMPLATES
        tagger = PerceptronTagger(decoder=args.decoder, beam_width=args.beam_width, n_iter=args.iterations,
                                  verbose=not args.quiet, templates=templates)
    t0 = time.perf_counter()
    if args.scheduler and args.model != "perceptron":
        raise ConjunctError("--scheduler trains perceptron taggers (an HMM is counted in one pass)")
    fit(args, tagger, words, tags)
    elapsed = time.perf_counter() - t0
    if field:
        tagger.tag_field_ = field
    status(f"writing {args.output}")
    tagger.save(args.output)
    if not args.quiet:
        print(f"trained a {args.model} tagger on {len(words)} sentences, {len(tagger.labels_)} labels, "
              f"{len(tagger.feature_names_)} features in {elapsed:.2f} s -> {args.output}", file=sys.stderr)
    return 0


def run_tag(args) -> int:
    from ..tagging.io import iter_words, write_tagged

    if args.batch_size < 1:
        raise ConjunctError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.scheduler:
        if args.format == "auto" and args.data != "-":
            from ..tagging.io import _sniff

            args.format = _sniff(args.data)  # once for the file, not per piece
        return on_cluster(args)
    tagger = _load_tagger(args)
    layout = _layout(args)
    # Batches keep memory bounded on large inputs; each is tagged and written
    # before the next is read.
    batch, done, t0 = [], 0, time.perf_counter()
    with open_output(args.output) as out, bar(desc="tagging", unit=" sentences") as shown:

        def flush() -> None:
            nonlocal done
            with sentences_of(args.data, done + 1, layout):  # errors name the sentence of the file
                tags = tagger.predict(batch, decoder=args.decoder, beam_width=args.beam_width, n_jobs=args.jobs)
            write_tagged(out, batch, tags)
            out.flush()
            done += len(batch)
            shown.update(len(batch))
            batch.clear()
            if not args.quiet and not bars_enabled():
                print(f"tagged {done:,} sentences ({done / (time.perf_counter() - t0):,.0f}/s)", file=sys.stderr)

        for words in iter_words(args.data, format=args.format, max_length=args.max_sentence_length):
            batch.append(words)
            if len(batch) == args.batch_size:
                flush()
        if batch:
            flush()
    return 0


def _layout(args):
    """How sentences lie in the input, to find an error's line again (see ``sentences_of``)."""
    if args.data == "-":
        return None
    from ..tagging.io import _sniff

    fmt = _sniff(args.data) if args.format == "auto" else args.format
    return fmt if fmt in ("conllu", "text") else "blocks"


def run_eval(args) -> int:
    from ..tagging.io import read_tagged

    tagger = _load_tagger(args)
    trained_on = getattr(tagger, "tag_field_", None)
    field = args.tag_field or trained_on or ""
    if trained_on and args.tag_field and _tag_field(args.data, args.format, args.tag_field) != trained_on:
        raise ConjunctError(f"{args.model} was trained on {trained_on!r} tags, not {args.tag_field!r}; "
                            f"omit --tag-field to evaluate on {trained_on!r}")
    words, gold = read_tagged(args.data, format=args.format, tag_field=field)
    t0 = time.perf_counter()
    result = tagger.decode(words, decoder=args.decoder, beam_width=args.beam_width, n_jobs=args.jobs)
    elapsed = time.perf_counter() - t0
    total = sum(len(g) for g in gold)
    correct = sum(p == g for ps, gs in zip(result.tags, gold) for p, g in zip(ps, gs))
    decoder = args.decoder or tagger.decoder
    print(f"accuracy {correct / total:.6f} ({correct}/{total})")
    print(f"decoder {decoder}: {len(words) / elapsed:,.0f} sentences/s (features included), "
          f"{result.iterations.mean():.2f} search steps/sentence")
    return 0
