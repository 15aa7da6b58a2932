"""conjunct segment: train a Japanese word segmenter (character-boundary
classification), segment raw text, or evaluate one."""

from __future__ import annotations

from .._errors import DataFormatError
from ..io.data import _numbered, _open_text
from ._common import (add_command_group, at_least, add_pipeline_train, add_pipeline_use, batched, load_pipeline, needs_input_events,
                      on_cluster, open_output, pipeline_params, print_speed, recompile, train_pipeline)


def register(sub) -> None:
    ssub = add_command_group(sub, "segment", help="Japanese word segmentation by boundary classification: train, run, eval")
    add_pipeline_train(
        ssub, help="train a segmenter on the words of a CoNLL-U file",
        data_help="training corpus (CoNLL-U; the FORMs of a sentence are its words)",
        degree_help="polynomial kernel degree (default 2)",
        extra=_train_options,
    ).set_defaults(func=run_train)
    rn = add_pipeline_use(ssub, "run", output=True, help="segment raw text: one sentence per line in, space-separated "
                                                         "words out",
                          data_help="text file, one sentence per line ('-' reads stdin); whitespace is a word boundary")
    rn.add_argument("--max-sentence-length", type=at_least(1), default=10000, metavar="N",
                    help="refuse a line of more than N characters (default 10000; memory grows with it)")
    rn.set_defaults(func=run_run)
    add_pipeline_use(ssub, "eval", help="word precision/recall/F1 and speed on a CoNLL-U file",
                     data_help="test corpus (CoNLL-U)").set_defaults(func=run_eval)


def _train_options(p) -> None:
    p.add_argument("--ngram", type=int, choices=[1, 2, 3], default=3,
                   help="longest character / type n-gram in the window (default 3)")
    p.add_argument("--no-dictionary", action="store_true",
                   help="leave out the word-dictionary features (known words of the training data)")
    p.add_argument("--user-dictionary", default=None, metavar="FILE",
                   help="more known words for the dictionary features, one per line (UTF-8)")


def run_train(args) -> int:
    from ..tasks.segment import WordSegmenter, read_segmented_conllu

    if args.no_dictionary and args.user_dictionary:
        raise DataFormatError("--user-dictionary needs the dictionary features (drop --no-dictionary)")
    seg = WordSegmenter(ngram=args.ngram, dictionary=not args.no_dictionary, user_dictionary=args.user_dictionary,
                        **pipeline_params(args))
    return train_pipeline(args, seg, lambda: read_segmented_conllu(args.data))


def _pieces(path: str, max_length: int):
    """Per input line, its whitespace-separated pieces (whitespace is a word boundary already);
    a line of more than ``max_length`` characters is refused (and one of more than 16 bytes per
    character while it is read: UTF-8 takes at most 4, the rest is room for whitespace)."""
    hint = " (long lines are refused, not split; raise the limit with --max-sentence-length)"
    with _open_text(path, max_line_bytes=16 * max_length + 64, line_hint=hint) as (f, name):
        for lineno, line in _numbered(f, name):
            pieces = line.split()
            n = sum(map(len, pieces))
            if n > max_length:
                raise DataFormatError(f"a line of {n:,} characters, over the limit of {max_length:,}{hint}", name,
                                      lineno)
            yield pieces


def run_run(args) -> int:
    if args.scheduler:
        return on_cluster(args, unit="line")  # one sentence per line
    method, args.method = args.method, None  # recompiled below, once the events are known
    segmenter = load_pipeline(args, "ja-segment")
    lines = _pieces(args.data, getattr(args, "max_sentence_length", 10000))
    if needs_input_events(segmenter, method, None):
        lines = list(lines)  # the fstrie is built on the input
        recompile(segmenter, method, [p for ps in lines for p in ps])
    else:
        recompile(segmenter, method, None)
    with open_output(args.output) as out:
        for batch in batched(lines, args.batch_size, desc="segmenting", unit=" lines"):
            words = iter(segmenter.segment([p for ps in batch for p in ps]))
            for ps in batch:
                out.write(" ".join(w for _ in ps for w in next(words)) + "\n")
            out.flush()
    return 0


def run_eval(args) -> int:
    from ..tasks.segment import read_segmented_conllu

    sentences = read_segmented_conllu(args.data)
    r = load_pipeline(args, "ja-segment", sentences).evaluate(sentences)
    print(f"{r['sentences']} sentences, {r['gold_words']} words; found {r['predicted_words']}, correct {r['correct_words']}")
    print(f"precision {100 * r['precision']:.2f}%  recall {100 * r['recall']:.2f}%  F1 {100 * r['f1']:.2f}  "
          f"boundary accuracy {100 * r['accuracy']:.2f}%")
    print_speed(r)
    return 0
