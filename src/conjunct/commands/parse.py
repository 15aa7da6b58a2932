"""conjunct parse: train a dependency parser, parse a corpus, or evaluate a parser.

Tasks: ``ud-english`` (labeled arc-eager parsing of CoNLL-U, gold POS as input)
and ``bunsetsu`` (Japanese bunsetsu dependencies, Sassano's algorithm). A
bunsetsu corpus is either the UD Japanese GSD data directory (``--split``
chooses train/dev/test) or a CoNLL-U file whose MISC column marks bunsetsu with
``BunsetuBILabel`` (``parse run`` also reads one from standard input, ``-``).

Output of ``parse run``: for ud-english the input CoNLL-U with HEAD and DEPREL
filled in and DEPS cleared to ``_`` (comments, multiword tokens and empty nodes kept); for bunsetsu one
line per bunsetsu, ``INDEX<TAB>HEAD<TAB>SURFACE`` (0-based indices, HEAD -1 for
the root), a blank line after each sentence. Both stream: ``--batch-size``
sentences are read, parsed and written at a time (a GSD split is read whole
first; ``--method fstrie`` without ``--events`` reads the whole input first,
its events).
"""

from __future__ import annotations

import json
import os

from .._errors import ConjunctError
from ._common import (add_command_group, add_pipeline_train, add_pipeline_use, batched, load_pipeline, needs_input_events,
                      on_cluster, open_output, output_option, pipeline_params, print_speed, recompile, sentences_of,
                      train_pipeline)

TASK_NAMES = ("ud-english", "bunsetsu")


def register(sub) -> None:
    psub = add_command_group(sub, "parse", help="dependency parsing: train a parser, parse a corpus, evaluate (ud-english, bunsetsu)")

    def task_args(q, train: bool = False):
        if train:
            q.add_argument("--task", choices=TASK_NAMES, default="ud-english", help="parsing task (default ud-english)")
        else:
            q.add_argument("--task", choices=TASK_NAMES, default=None, help="check that the model is for this task")
        q.add_argument("--split", default=None,
                       help="bunsetsu: the GSD split (train/dev/test) when the data argument is the GSD directory")

    tr = add_pipeline_train(
        psub, help="train a parser on a treebank", degree=None,
        data_help="training data: CoNLL-U (ud-english), GSD directory or CoNLL-U with BunsetuBILabel (bunsetsu)",
        degree_help="polynomial kernel degree (default: the task's, 2 for ud-english, 3 for bunsetsu)")
    task_args(tr, train=True)
    tr.add_argument("--features", choices=["malt", "rich", "zn", "richu", "richu-order2", "richu-order2-valency"], default=None,
                    help="ud-english: configuration features (default malt; rich: +1.56 dev LAS, ~4x the parse time; richu: rich "
                         "plus coarse tags of seven more tokens; richu-order2 / richu-order2-valency: richu without the "
                         "second-order templates / and the valencies, the same dev LAS for 0.64x / 0.54x its parse "
                         "instructions)")
    tr.add_argument("--explore", action="store_true",
                    help="ud-english: train with exploration (dynamic oracle, Goldberg & Nivre 2012): about three "
                         "times the training, same parse cost per decision")
    tr.set_defaults(func=run_train)

    rn = add_pipeline_use(psub, "run", help="parse a corpus", data_help="input ('-' reads CoNLL-U from stdin)")
    output_option(rn, help="output file ('-' = standard output, the default)", required=False)
    events_arg(rn)
    task_args(rn)
    rn.set_defaults(func=run_parse)

    ev = add_pipeline_use(psub, "eval", help="accuracy and speed of a parser on a treebank", data_help="gold data (as for train)")
    ev.add_argument("--json", action="store_true", help="print the figures as JSON")
    events_arg(ev)
    task_args(ev)
    ev.set_defaults(func=run_eval)


def events_arg(q):
    q.add_argument("--events", default=None,
                   help="data to build an fstrie from with --method fstrie (default: the input itself)")


# -- data ----------------------------------------------------------------------------------------------
def _bunsetsu_input(path: str, split):
    """Bunsetsu sentences of a GSD split (a list: the split is read whole) or of
    a CoNLL-U file or standard input with BunsetuBILabel (read as consumed)."""
    from ..tasks.bunsetsu import iter_bunsetsu_conllu, load_gsd_bunsetsu

    if path != "-" and os.path.isdir(path):
        if not split:
            raise ConjunctError(f"{path} is a directory: name the GSD split with --split (train, dev or test)")
        return load_gsd_bunsetsu(path, split)
    return iter_bunsetsu_conllu(path)


def _read_bunsetsu(path: str, split):
    return list(_bunsetsu_input(path, split))


def _read(task: str, path: str, split):
    if task == "bunsetsu":
        return _read_bunsetsu(path, split)
    from ..tasks.english import read_ud_english

    if os.path.isdir(path):
        raise ConjunctError(f"{path} is a directory; ud-english reads a CoNLL-U file")
    return read_ud_english(path)


def _words(blocks):
    """The words of CoNLL-U sentence blocks as sentences to parse."""
    from ..tasks.english import DepSentence

    return [DepSentence(b.column("form"), b.column("upos"), b.column("xpos")) for b in blocks]


def _load(args):
    """The parser, not recompiled yet: ``_recompile`` does that once its events are known."""
    method, args.method = args.method, None
    try:
        return load_pipeline(args, args.task or TASK_NAMES)
    finally:
        args.method = method


def _recompile(parser, args, data):
    events = _read(parser.task, args.events, args.split) if args.method == "fstrie" and args.events else data
    recompile(parser, args.method, events)


# -- actions --------------------------------------------------------------------------------------------
def run_train(args) -> int:
    from ..tasks.base import TASKS

    params = pipeline_params(args)
    if args.features is not None:
        if args.task != "ud-english":
            raise ConjunctError(f"--features is for ud-english parsers, not {args.task}")
        params["features"] = args.features
    if args.explore:
        if args.task != "ud-english":
            raise ConjunctError(f"--explore is for ud-english parsers, not {args.task}")
        params["explore"] = True
    parser = TASKS[args.task](**params)
    return train_pipeline(args, parser, lambda: _read(args.task, args.data, args.split))


def run_parse(args) -> int:
    if args.scheduler:
        return on_cluster(args)
    parser = _load(args)
    if parser.task == "bunsetsu":
        sentences = _bunsetsu_input(args.data, args.split)
        if needs_input_events(parser, args.method, args.events):
            sentences = list(sentences)
            _recompile(parser, args, sentences)
        else:
            _recompile(parser, args, None)
        with open_output(args.output or "-") as out:
            first = 1
            for batch in batched(sentences, args.batch_size, desc="parsing"):
                with sentences_of(args.data, first):  # errors name the sentence of the file
                    parsed = parser.parse(batch)
                first += len(batch)
                for s, heads in zip(batch, parsed):
                    out.write("".join(f"{k}\t{h}\t{b.surface}\n" for k, (b, h) in enumerate(zip(s.bunsetsu, heads))) + "\n")
                out.flush()
        return 0
    from ..io.corpora import iter_conllu

    blocks = iter_conllu(args.data)
    if needs_input_events(parser, args.method, args.events):
        blocks = list(blocks)
        _recompile(parser, args, _words(blocks))
    else:
        _recompile(parser, args, None)
    with open_output(args.output or "-") as out:
        # Batches: output starts at once and memory stays bounded on long input.
        first = 1
        for batch in batched(blocks, args.batch_size, desc="parsing"):
            with sentences_of(args.data, first, lines=[b.line_numbers for b in batch]):
                parsed = parser.parse(_words(batch))
            first += len(batch)
            for block, (heads, labels) in zip(batch, parsed):
                lines = list(block.lines)
                for at, cols, h, lab in zip(block.at, block.words, heads, labels):
                    lines[at] = "\t".join(cols[:6] + [str(h), lab, "_"] + cols[9:])
                out.write("\n".join(lines) + "\n\n")
            out.flush()
    return 0


def run_eval(args) -> int:
    parser = _load(args)
    data = _read(parser.task, args.data, args.split)
    _recompile(parser, args, data)
    result = parser.evaluate(data)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if parser.task == "bunsetsu":
        print(f"dependency accuracy {result['dependency_accuracy']:.4f}, sentence accuracy {result['sentence_accuracy']:.4f}")
    else:
        print(f"UAS {result['uas']:.4f}, LAS {result['las']:.4f} ({result['words']:,} words, punctuation included); "
              f"UAS without punctuation {result['uas_no_punct']:.4f}")
    print_speed(result)
    return 0
