"""conjunct parse: train a dependency parser, parse a corpus, or evaluate a parser.

Tasks: ``ud-english`` (labeled arc-eager parsing of CoNLL-U, gold POS as input)
and ``bunsetsu`` (Japanese bunsetsu dependencies, Sassano's algorithm). A
bunsetsu corpus is either the UD Japanese GSD data directory (``--split``
chooses train/dev/test) or a CoNLL-U file whose MISC column marks bunsetsu with
``BunsetuBILabel``.

Output of ``parse run``: for ud-english the input CoNLL-U with HEAD and DEPREL
filled in and DEPS cleared to ``_`` (comments, multiword tokens and empty nodes kept); for bunsetsu one
line per bunsetsu, ``INDEX<TAB>HEAD<TAB>SURFACE`` (0-based indices, HEAD -1 for
the root), a blank line after each sentence.
"""

from __future__ import annotations

import json
import os
import sys
import time

from .._errors import ConjunctError, DataFormatError
from ._common import METHODS

TASK_NAMES = ("ud-english", "bunsetsu")


def register(sub) -> None:
    p = sub.add_parser("parse", help="dependency parsing: train a parser, parse a corpus, evaluate (ud-english, bunsetsu)")
    psub = p.add_subparsers(dest="parse_command", metavar="ACTION")
    psub.required = True

    def data_args(q):
        q.add_argument("--split", default=None,
                       help="bunsetsu: the GSD split (train/dev/test) when the data argument is the GSD directory")

    tr = psub.add_parser("train", help="train a parser on a treebank")
    tr.add_argument("data", help="training data: CoNLL-U (ud-english), GSD directory or CoNLL-U with BunsetuBILabel (bunsetsu)")
    tr.add_argument("model", help="model file to write")
    tr.add_argument("--task", choices=TASK_NAMES, default="ud-english", help="parsing task (default ud-english)")
    tr.add_argument("--degree", type=int, default=None,
                    help="polynomial kernel degree (default: the task's, 2 for ud-english, 3 for bunsetsu)")
    tr.add_argument("--C", type=float, default=1.0, help="PA-I aggressiveness (default 1.0)")
    tr.add_argument("--n-iter", type=int, default=10, help="epochs (default 10)")
    tr.add_argument("--method", default="fstrie", choices=METHODS,
                    help="classification method of the saved model (default fstrie, built on the training data)")
    tr.add_argument("--max-sentences", type=int, default=None, help="train on the first N sentences only")
    tr.add_argument("--quiet", action="store_true", help="no summary on stderr")
    data_args(tr)
    tr.set_defaults(func=run_train)

    rn = psub.add_parser("run", help="parse a corpus")
    rn.add_argument("model", help="parser model file")
    rn.add_argument("data", help="input ('-' reads CoNLL-U from stdin)")
    rn.add_argument("out", nargs="?", default="-", help="output file (default '-': standard output)")
    rn.add_argument("--task", choices=TASK_NAMES, default=None, help="check that the model is for this task")
    method_args(rn)
    data_args(rn)
    rn.set_defaults(func=run_parse)

    ev = psub.add_parser("eval", help="accuracy and speed of a parser on a treebank")
    ev.add_argument("model", help="parser model file")
    ev.add_argument("data", help="gold data (as for train)")
    ev.add_argument("--task", choices=TASK_NAMES, default=None, help="check that the model is for this task")
    ev.add_argument("--json", action="store_true", help="print the figures as JSON")
    method_args(ev)
    data_args(ev)
    ev.set_defaults(func=run_eval)


def method_args(q):
    q.add_argument("--method", default=None, choices=METHODS,
                   help="recompile the classifiers with this method first (fstrie: built on --events)")
    q.add_argument("--events", default=None,
                   help="data to build an fstrie from with --method fstrie (default: the input itself)")


# -- data ----------------------------------------------------------------------------------------------
def _read_bunsetsu(path: str, split):
    from ..tasks.bunsetsu import BunsetsuSentence, group_bunsetsu, load_gsd_bunsetsu, read_ud_tokens

    if os.path.isdir(path):
        if not split:
            raise ConjunctError(f"{path} is a directory: name the GSD split with --split (train, dev or test)")
        return load_gsd_bunsetsu(path, split)
    out = []
    for k, tokens in enumerate(read_ud_tokens(path)):
        if any(t.bi not in ("B", "I") for t in tokens):
            raise DataFormatError(f"sentence {k + 1} has words without BunsetuBILabel in MISC", path)
        out.append(BunsetsuSentence(group_bunsetsu(tokens, [t.bi for t in tokens]), sent_index=k))
    return out


def _read(task: str, path: str, split):
    if task == "bunsetsu":
        return _read_bunsetsu(path, split)
    from ..tasks.english import read_ud_english

    if os.path.isdir(path):
        raise ConjunctError(f"{path} is a directory; ud-english reads a CoNLL-U file")
    return read_ud_english(path)


def _conllu_blocks(source):
    """The sentence blocks of CoNLL-U input, and their words as sentences to parse."""
    from ..corpora import iter_conllu
    from ..tasks.english import DepSentence

    blocks = list(iter_conllu(source))
    sentences = [DepSentence(b.column("form"), b.column("upos"), b.column("xpos")) for b in blocks]
    return blocks, sentences


def _load(path: str, task):
    from ..persistence import load
    from ..tasks.base import TaskPipeline

    parser = load(path)
    if not isinstance(parser, TaskPipeline) or parser.task not in TASK_NAMES:
        raise ConjunctError(f"{path}: holds a {type(parser).__name__}, not a ud-english or bunsetsu parser")
    if task and parser.task != task:
        raise ConjunctError(f"{path}: is a {parser.task} parser, not {task}")
    return parser


def _recompile(parser, args, data):
    if not args.method:
        return
    events = None
    if args.method == "fstrie":
        events = _read(parser.task, args.events, args.split) if args.events else data
    parser.compile(args.method, events=events)


# -- actions --------------------------------------------------------------------------------------------
def run_train(args) -> int:
    from ..tasks.base import TASKS

    data = _read(args.task, args.data, args.split)
    if args.max_sentences:
        data = data[: args.max_sentences]
    extra = {} if args.degree is None else {"degree": args.degree}
    parser = TASKS[args.task](C=args.C, n_iter=args.n_iter, method=args.method, **extra)
    t0 = time.perf_counter()
    parser.fit(data)
    elapsed = time.perf_counter() - t0
    parser.save(args.model)
    if not args.quiet:
        stats = ", ".join(f"{n}: {s['examples']:,} examples, {s['support_vectors']:,} support vectors"
                          for n, s in parser.training_stats_.items())
        skipped = getattr(parser, "skipped_sentences_", 0)
        print(f"trained a {args.task} parser (d={parser.degree}) on {len(data):,} sentences ({skipped} skipped: not "
              f"projective) in {elapsed:.1f} s; {stats} -> {args.model}", file=sys.stderr)
    return 0


def run_parse(args) -> int:
    parser = _load(args.model, args.task)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        if parser.task == "bunsetsu":
            if args.data == "-":
                raise ConjunctError("bunsetsu input is a GSD directory or a CoNLL-U file, not stdin")
            data = _read("bunsetsu", args.data, args.split)
            _recompile(parser, args, data)
            for s, heads in zip(data, parser.parse(data)):
                for k, (b, h) in enumerate(zip(s.bunsetsu, heads)):
                    out.write(f"{k}\t{h}\t{b.surface}\n")
                out.write("\n")
            return 0
        blocks, data = _conllu_blocks(args.data)
        _recompile(parser, args, data)
        for block, (heads, labels) in zip(blocks, parser.parse(data)):
            lines = list(block.lines)
            for at, cols, h, lab in zip(block.at, block.words, heads, labels):
                lines[at] = "\t".join(cols[:6] + [str(h), lab, "_"] + cols[9:])
            out.write("\n".join(lines) + "\n\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def run_eval(args) -> int:
    parser = _load(args.model, args.task)
    data = _read(parser.task, args.data, args.split)
    _recompile(parser, args, data)
    result = parser.evaluate(data)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if parser.task == "bunsetsu":
        print(f"dependency accuracy {result['dependency_accuracy']:.4f}, sentence accuracy {result['sentence_accuracy']:.4f}")
        decisions = result["decisions"]
    else:
        print(f"UAS {result['uas']:.4f}, LAS {result['las']:.4f} ({result['words']:,} words, punctuation included); "
              f"UAS without punctuation {result['uas_no_punct']:.4f}")
        decisions = result["transition_decisions"] + result["label_decisions"]
    print(f"{result['method']}: {result['sentences']:,} sentences in {result['seconds']:.3f} s "
          f"({result['sentences_per_second']:,.0f} sentences/s); {decisions:,} classifications in "
          f"{result['classifier_seconds']:.3f} s ({result['classifications_per_second']:,.0f}/s), "
          f"{result['other_seconds']:.3f} s elsewhere")
    return 0
