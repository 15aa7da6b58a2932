"""conjunct chunk: train a YamCha-style CoNLL-2000 chunker, chunk text, or evaluate one."""

from __future__ import annotations

from ..io.corpora import iter_columns, read_columns
from ._common import (add_command_group, add_pipeline_train, add_pipeline_use, at_least, batched, load_pipeline,
                      needs_input_events, on_cluster, open_output, pipeline_params, print_speed, recompile, sentences_of,
                      train_pipeline)


def register(sub) -> None:
    csub = add_command_group(sub, "chunk", help="text chunking (CoNLL-2000, YamCha style): train, run, eval")
    add_pipeline_train(
        csub, help="train a chunker on a CoNLL-2000 file (word POS chunk)",
        data_help="training corpus; '-' reads standard input", degree_help="polynomial kernel degree (default 2)",
        extra=lambda p: p.add_argument("--window", type=at_least(0), default=2, help="word/POS window half-width (default 2)"),
    ).set_defaults(func=run_train)
    add_pipeline_use(csub, "run", output=True,
                     help="chunk a CoNLL-2000 file: 'word POS' lines get a chunk column; with a gold column the output "
                          "is 'word POS gold guess' (conlleval's input)",
                     data_help="input ('word POS [chunk]' per line, blank line between sentences); '-' reads stdin",
                     ).set_defaults(func=run_run)
    add_pipeline_use(csub, "eval", help="conlleval chunk precision/recall/F1 and speed on a CoNLL-2000 file",
                     data_help="test corpus (word POS chunk); '-' reads stdin").set_defaults(func=run_eval)


def run_train(args) -> int:
    from ..tasks.chunk import Chunker

    chunker = Chunker(window=args.window, **pipeline_params(args))
    return train_pipeline(args, chunker, lambda: read_columns(args.data, widths=(3,)))


def run_run(args) -> int:
    if args.scheduler:
        return on_cluster(args)
    method, args.method = args.method, None  # recompiled below, once the events are known
    chunker = load_pipeline(args, "conll2000-chunk")
    sentences = iter_columns(args.data, widths=(2, 3))
    if needs_input_events(chunker, method, None):
        sentences = list(sentences)  # the fstrie is built on the input
    recompile(chunker, method, sentences)
    with open_output(args.output) as out:
        first = 1
        for batch in batched(sentences, args.batch_size, desc="chunking"):
            with sentences_of(args.data, first, "blocks"):  # errors name the sentence of the file
                chunked = chunker.chunk(batch)
            first += len(batch)
            for s, ts in zip(batch, chunked):
                for tok, tag in zip(s, ts):
                    out.write(" ".join(tok) + " " + tag + "\n")
                out.write("\n")
            out.flush()
    return 0


def run_eval(args) -> int:
    sentences = read_columns(args.data, widths=(3,))
    r = load_pipeline(args, "conll2000-chunk", sentences).evaluate(sentences)
    print(f"processed {r['tokens']} tokens with {r['gold_chunks']} phrases; found: {r['predicted_chunks']} phrases; "
          f"correct: {r['correct_chunks']}.")
    print(f"accuracy: {100 * r['accuracy']:6.2f}%; precision: {100 * r['precision']:6.2f}%; "
          f"recall: {100 * r['recall']:6.2f}%; FB1: {100 * r['f1']:6.2f}")
    print_speed(r)
    return 0
