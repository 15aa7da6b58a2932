"""What the commands share: one vocabulary of options, the pipeline commands'
train / run / eval actions, and turning files into models and classifiers.

Every command takes its options from :data:`OPTIONS` through :func:`option`,
so a flag means the same everywhere: ``-o/--output`` the file written,
``-d/--degree``, ``-i/--iterations``, ``-q/--quiet``, ``-v/--verbose``,
``-j/--jobs``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import re
import sys
import time
from typing import Callable, Iterable, Iterator, Optional, Sequence

from .. import _core
from .._errors import ConjunctError, DataFormatError
from ..progress import batches, status

METHODS = list(_core.METHODS)

def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``low`` (the error names the bound)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def jobs_count(text: str) -> int:
    """An argparse type for ``-j``: threads >= 1, or -1 for every core (-2 all but one, ...), never 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be >= 1 (threads) or negative (-1: every core, -2: all but one), not 0")
    return value


def seconds(text: str) -> float:
    """An argparse type: a number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def memory_size(text: str) -> int:
    """An argparse type for ``--memory-budget``: a size with a unit (8G, 512M) or a share (75%)."""
    from ..budget import parse_size

    if text.strip().replace(".", "", 1).isdigit():
        raise argparse.ArgumentTypeError(f"give a unit: {text}G, {text}M or a share such as 50%")
    try:
        return parse_size(text)
    except ConjunctError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# name -> (flags, argparse keywords)
OPTIONS = {
    "output": (("-o", "--output"), dict(metavar="FILE")),
    "degree": (("-d", "--degree"), dict(type=at_least(1), metavar="D")),
    "iterations": (("-i", "--iterations"), dict(type=at_least(1), default=10, metavar="N", help="training epochs (default 10)")),
    "quiet": (("-q", "--quiet"), dict(action="store_true", help="no progress or summary on standard error")),
    "verbose": (("-v", "--verbose"), dict(action="count", default=0,
                                         help="more progress on standard error (-vv: even more)")),
    "jobs": (("-j", "--jobs"), dict(type=jobs_count, default=1, metavar="N",
                                   help="threads (default 1; -1: every core)")),
    "C": (("-C", "--C"), dict(dest="C", type=float, default=1.0, help="PA-I aggressiveness (default 1)")),
    "method": (("--method",), dict(choices=METHODS, default=None)),
    "seed": (("--seed",), dict(type=at_least(0), default=0, help="shuffling seed (default 0)")),
    "binarize": (("--binarize",), dict(action="store_true", help="treat non-zero feature values as 1 instead of failing")),
    "scheduler": (("--scheduler",), dict(default=None, metavar="ADDRESS",
                                         help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local:N "
                                              "for N local worker processes (needs the dask extra)")),
    "on_model_change": (("--on-model-change",), dict(choices=["fail", "finish"], default="fail",
                                                     help="with --scheduler, when the model file is replaced during "
                                                          "the run: fail (default) or finish every piece on the "
                                                          "version the run started with (a copy)")),
    "worker_timeout": (("--worker-timeout",), dict(type=seconds, default=60.0, metavar="SECONDS",
                                                   help="with --scheduler, fail when no worker has been connected "
                                                        "for SECONDS (default 60; 0: wait for ever)")),
    "batch_size": (("--batch-size",), dict(type=at_least(1), default=1000, metavar="N",
                                           help="sentences read, processed and written at a time (default 1000): "
                                                "output starts at once and memory stays bounded")),
    "memory_budget": (("--memory-budget",), dict(type=memory_size, default=None, metavar="SIZE",
                                                 help="refuse allocations past SIZE (8G, 512M, 50%%; default: half "
                                                      "the memory, or $CONJUNCT_MEMORY_BUDGET)")),
}


def option(parser, name: str, **overrides) -> None:
    """Add the shared option ``name`` of :data:`OPTIONS` (``overrides`` change
    its default, help, ...)."""
    flags, kwargs = OPTIONS[name]
    parser.add_argument(*flags, **{**kwargs, **overrides})


def scheduler_options(parser) -> None:
    """``--scheduler`` of a run action and what a cluster run needs:
    ``--on-model-change``, ``--worker-timeout``."""
    for name in ("scheduler", "on_model_change", "worker_timeout"):
        option(parser, name)


def output_option(parser, *, help: str, required: bool = True, default: Optional[str] = None) -> None:
    """``-o/--output FILE``."""
    option(parser, "output", help=help, default=default, required=required)


# The options that name files a command reads, and those it writes (``tag train --model`` is a kind of
# tagger, not a file).
INPUT_FILES = ("model", "data", "events", "chunk_data", "test", "report", "results")
OUTPUT_FILES = ("output", "explicit")


def refuse_output_over_input(args) -> None:
    """Refuse an output file that is one of the command's inputs (the same
    path, a symlink or a hard link to it): writing it would destroy the input.
    Checked before anything is opened."""
    from ..io._atomic import same_file

    names = [k for k in INPUT_FILES if not (k == "model" and getattr(args, "tag_command", None) == "train")]
    inputs = [(k, v) for k in names for v in [getattr(args, k, None)] if isinstance(v, str) and v != "-"]
    for key in OUTPUT_FILES:
        out = getattr(args, key, None)
        if not isinstance(out, str) or out == "-":
            continue
        for name, path in inputs:
            if os.path.isfile(path) and same_file(out, path):
                flag = "-o" if key == "output" else f"--{key}"
                what = "the input" if name == "data" else f"the {name.replace('_', '-')} file"
                same = "" if os.path.abspath(out) == os.path.abspath(path) else " (the same file)"
                raise ConjunctError(f"{flag} {out} is {what} {path}{same}; writing it would destroy {what}: "
                                    f"write to another file")


def verbosity(args, default: int = 1) -> int:
    """The verbose level of ``-q`` / ``-v``: 0 when quiet, else ``default`` plus one per ``-v``."""
    return 0 if args.quiet else default + args.verbose


def open_output(path: str):
    """A text file to write: ``'-'`` is standard output (streamed, left open);
    a file is written beside its target and renamed over it only when the
    ``with`` block ends normally, so an error, Ctrl-C or a full disk leaves
    the previous file (or none) and no temporary. Devices and FIFOs
    (``/dev/null``) are written in place. Write errors name the file."""
    if path == "-":
        return _Stdout()
    from ..io._atomic import atomic_file

    return atomic_file(path, text=True, special=True)


def batched(items: Iterable, size: int, *, desc: str, unit: str = " sentences") -> Iterator[list]:
    """Lists of up to ``size`` consecutive items, each yielded as soon as it
    is read (streaming: the caller writes one before the next is read); a
    progress bar counts the items done."""
    return batches(items, size, desc=desc, unit=unit)


_SENTENCE = re.compile(r"sentence (\d+)(?:, token (\d+))?")


@contextlib.contextmanager
def sentences_of(source: str, first: int, layout: Optional[str] = None, lines: Optional[Sequence] = None):
    """Errors about "sentence k" of a batch that starts at sentence ``first``
    (1-based) of ``source`` become errors about sentence ``first + k - 1`` of
    that file, at its line: taken from ``lines`` (per sentence of the batch,
    its line or the line of each token), else found again in the file for a
    ``layout`` of ``"conllu"`` (the k-th block with words), ``"blocks"``
    (blank-line-separated token lines) or ``"text"`` (the k-th non-blank
    line). Errors that already name a file are left as they are."""
    try:
        yield
    except DataFormatError as e:
        m = _SENTENCE.match(e.problem)
        if e.source not in (None, "<input>") or m is None:
            raise
        k, token = int(m.group(1)), m.group(2) and int(m.group(2))
        number = first + k - 1
        line = None
        if lines is not None and 0 < k <= len(lines):
            at = lines[k - 1]
            line = at if isinstance(at, int) else at[min(token or 1, len(at)) - 1] if len(at) else None
        elif layout is not None and source != "-":
            line = _line_of_sentence(source, number, token, layout() if callable(layout) else layout)
        problem = f"sentence {number}" + (f", token {token}" if token else "") + e.problem[m.end():]
        raise DataFormatError(problem, "<stdin>" if source == "-" else source, line) from None


def _line_of_sentence(path: str, n: int, token: Optional[int], layout: str) -> Optional[int]:
    """The line of sentence ``n`` (its ``token``-th token when given) of a
    file, read again (only on the way to an error); None if it cannot be found."""
    from ..io._textin import numbered, open_text, sentence_blocks

    try:
        with open_text(path) as (f, name):
            if layout == "text":
                return next(itertools.islice((k for k, line in numbered(f, name) if line.strip()), n - 1, None), None)
            count = 0
            for block in sentence_blocks(f, name):
                if layout == "conllu":
                    from ..io.corpora import conllu_sentence

                    numbers = conllu_sentence(block, name).line_numbers
                else:
                    numbers = [k for k, line in block if not line.startswith("#")]
                if not numbers:
                    continue
                count += 1
                if count == n:
                    return numbers[min(token or 1, len(numbers)) - 1]
    except (OSError, ConjunctError, UnicodeError):
        return None
    return None


class Counted:
    """An iterator over ``items`` that counts how many it has given."""

    def __init__(self, items: Iterable):
        self.it, self.n = iter(items), 0

    def __iter__(self):
        return self

    def __next__(self):
        item = next(self.it)
        self.n += 1
        return item


def in_file_terms(blocks: Iterable, counted: Counted, batch_size: int, source: str, layout=None) -> Iterator:
    """``blocks``, the output of a stream that reads ``counted`` in batches of
    ``batch_size`` and fails on a sentence of its current batch: such an error
    is told in the terms of the file (see :func:`sentences_of`; ``layout`` may
    be a function, called only then)."""
    it = iter(blocks)
    while True:
        try:
            block = next(it)
        except StopIteration:
            return
        except DataFormatError as e:
            start = getattr(e, "batch_start", None)  # where the failing batch starts, when the stream says so
            # else every batch but the last is full
            first = start + 1 if start is not None else (max(counted.n, 1) - 1) // batch_size * batch_size + 1
            with sentences_of(source, first, layout):
                raise e from None
        yield block


def needs_input_events(pipeline, method: Optional[str], events: Optional[str]) -> bool:
    """Whether recompiling ``pipeline`` with ``method`` builds an fstrie on the
    input itself (no ``--events``): then the whole input is read first."""
    return bool(method == "fstrie" and not events and method != pipeline.classifiers_[pipeline.COMPONENTS[0]].method)


class _Stdout:
    def __enter__(self):
        from ..io._atomic import _Writes

        return _Writes(sys.stdout, "standard output", None)

    def __exit__(self, *exc):
        return None


# -- commands with actions (tag, parse, chunk, segment) ----------------------------------------------
def add_command_group(sub, name: str, help: str):
    """A command whose actions (train, run, eval, ...) are subcommands of its own."""
    group = sub.add_parser(name, help=help).add_subparsers(dest=f"{name}_command", metavar="ACTION")
    group.required = True
    return group


def add_pipeline_train(sub, *, help: str, data_help: str, degree_help: str, extra: Optional[Callable] = None,
                       degree: Optional[int] = 2):
    """The ``train`` action of a pipeline command: data, ``-o``, ``-d``, ``-C``,
    ``-i``, the task's own options (``extra(parser)``), ``--method``,
    ``--max-sentences``, ``--seed``, ``-q``, ``-v``."""
    tr = sub.add_parser("train", help=help)
    tr.add_argument("data", help=data_help)
    output_option(tr, help="model file to write")
    option(tr, "degree", default=degree, help=degree_help)
    option(tr, "C")
    option(tr, "iterations")
    if extra is not None:
        extra(tr)
    option(tr, "method", default="fstrie", help="classification method of the saved model (default fstrie, "
                                                 "built on the training data)")
    tr.add_argument("--max-sentences", type=at_least(1), default=None, help="train on the first N sentences only")
    tr.add_argument("--keep-models", action="store_true",
                    help="store the kernel models beside the compiled classifiers (run --method with another "
                         "method needs them; several times the file size)")
    option(tr, "seed")
    option(tr, "quiet")
    option(tr, "verbose", help="training progress on standard error (-vv: every 20,000 rounds)")
    return tr


def pipeline_params(args) -> dict:
    """The TaskPipeline parameters of a ``train`` action's options."""
    params = dict(C=args.C, n_iter=args.iterations, method=args.method, random_state=args.seed,
                  verbose=0 if args.quiet else args.verbose)
    if args.degree is not None:
        params["degree"] = args.degree
    return params


def train_pipeline(args, pipeline, read: Callable[[], list]) -> int:
    """Fit ``pipeline`` on the sentences ``read()`` returns (the first
    ``--max-sentences``), save it to ``-o``, and unless ``-q`` say what was trained."""
    status(f"reading {args.data}")  # a treebank takes seconds
    data = read()
    if args.max_sentences is not None:
        data = data[:args.max_sentences]
    status(f"training a {pipeline.task} pipeline on {len(data):,} sentences")  # importing the trainers takes seconds
    start = time.perf_counter()
    pipeline.fit(data)
    elapsed = time.perf_counter() - start
    status(f"writing {args.output}")  # a model of hundreds of MB takes seconds
    pipeline.keep_models = args.keep_models
    pipeline.save(args.output)
    if not args.quiet:
        skipped = getattr(pipeline, "skipped_sentences_", None)
        note = f" ({skipped:,} skipped: the oracle cannot build their trees)" if skipped else ""
        stats = "; ".join(f"{name}: {s['examples']:,} examples, {len(pipeline.classifiers_[name].classes)} classes, "
                          f"{s['support_vectors']:,} support vectors" for name, s in pipeline.training_stats_.items())
        print(f"trained a degree-{pipeline.degree} {pipeline.task} pipeline on {len(data):,} sentences{note} in "
              f"{elapsed:.2f} s ({stats}) -> {args.output}", file=sys.stderr)
    return 0


def add_pipeline_use(sub, action: str, *, help: str, data_help: str, output: bool = False):
    """A ``run`` or ``eval`` action: the model, the data, ``-o`` (for run),
    ``--method`` (recompile first), ``--scheduler`` (for run)."""
    p = sub.add_parser(action, help=help)
    p.add_argument("model", help="model file")
    p.add_argument("data", help=data_help)
    if output:
        output_option(p, help="output file ('-' = standard output, the default)", required=False, default="-")
    option(p, "method", help="recompile the classifiers with this method first (fstrie without --events reads the "
                             "whole input first: its events)")
    if action == "run":
        option(p, "batch_size")
        option(p, "quiet", help="no progress bar")
        scheduler_options(p)
    return p


def load_object(args):
    """What ``args.model`` holds: the object a Dask worker loaded once for every
    task (``args.preloaded``, shared, never modified), or the file read now."""
    preloaded = getattr(args, "preloaded", None)
    if preloaded is not None:
        return preloaded
    from ..io.persistence import load

    return load(args.model)


def load_pipeline(args, tasks, events=None):
    """The pipeline saved in ``args.model``, checked to be one of ``tasks``
    (task names), and recompiled with ``args.method`` (see :func:`recompile`)."""
    from ..tasks.base import TaskPipeline

    tasks = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    pipeline = load_object(args)
    if not isinstance(pipeline, TaskPipeline) or pipeline.task not in tasks:
        what = f"a {pipeline.task} pipeline" if isinstance(pipeline, TaskPipeline) else f"a {type(pipeline).__name__}"
        raise ConjunctError(f"{args.model}: holds {what}, not a {' or '.join(tasks)} pipeline")
    if getattr(args, "preloaded", None) is not None and args.method \
            and args.method != pipeline.classifiers_[pipeline.COMPONENTS[0]].method:
        raise ConjunctError(f"--method {args.method} with --scheduler: the workers share the saved pipeline; "
                            f"save one compiled with {args.method} and run that")
    return recompile(pipeline, args.method, events)


def fit(args, estimator, *data) -> None:
    """``estimator.fit(*data)``, or by iterative parameter mixing on the Dask
    cluster ``args.scheduler`` when one is given."""
    if not getattr(args, "scheduler", None):
        estimator.fit(*data)
        return
    from ..dask import connect, train

    with connect(args.scheduler) as client:
        train(estimator, *data, client=client)


def on_cluster(args, unit: str = "block") -> int:
    """Run the action ``args.func`` on the Dask cluster ``args.scheduler``:
    the input split into pieces of whole sentences (``unit``: ``"block"``,
    blank-line separated, or ``"line"``), each run by the same action on a
    worker that loaded the model once, the outputs joined in order."""
    from ..dask import run_action

    if getattr(args, "method", None):  # checked here: a run action recompiles only after loading
        raise ConjunctError(f"--method {args.method} with --scheduler: the workers share the saved pipeline; "
                            f"save one compiled with {args.method} and run that")
    return run_action(args, unit=unit)


def recompile(pipeline, method: Optional[str], events):
    """``pipeline`` compiled with ``method`` when that is given and differs
    from its current one (an fstrie is built on ``events``, task data)."""
    if method and method != pipeline.classifiers_[pipeline.COMPONENTS[0]].method:
        pipeline.compile(method, events=events)
    return pipeline


def print_speed(result: dict) -> None:
    """The speed line of a pipeline's ``evaluate`` figures."""
    decisions = sum(v for k, v in result.items() if k.endswith("decisions"))
    print(f"{result['method']}: {result['sentences']:,} sentences in {result['seconds']:.3f} s "
          f"({result['sentences_per_second']:,.0f} sentences/s); {decisions:,} classifications in "
          f"{result['classifier_seconds']:.3f} s ({result['classifications_per_second']:,.0f} classifications/s), "
          f"{result['other_seconds']:.3f} s elsewhere")


# -- models and classifiers ---------------------------------------------------------------------------
def load_model(path: str, *, binarize: bool = False, mmap: bool = False):
    """What a model file holds: a conjunct file's object, or a foreign model imported on the fly."""
    from ..io.importers import import_model

    return import_model(path, binarize=binarize, mmap=mmap)


def as_classifier(obj, method: Optional[str]):
    """A compiled classifier from a model (compiled with ``method``) or a classifier."""
    from ..models.classifiers import Classifier

    if isinstance(obj, Classifier):
        if method and method != obj.method:
            raise ConjunctError(f"the file holds a compiled {obj.method} classifier; it cannot be run as {method}")
        return obj
    if not hasattr(obj, "compile"):
        raise ConjunctError(f"the file holds a {type(obj).__name__}, not a model or classifier")
    return obj.compile(method) if method else obj.compile()
