"""conjunct predict: classify data with a model (labels, margins or accuracy)."""

from __future__ import annotations

import io
from typing import Iterator, List, Tuple

import numpy as np

from .._errors import ConjunctError, DataFormatError
from ..io.data import sniff_format
from ..progress import bar
from ._common import as_classifier, load_model, open_output, option, output_option

PRINTS = ("labels", "margins", "accuracy")


def register(sub) -> None:
    r = sub.add_parser("predict", help="classify data with a model: labels, margins or accuracy")
    r.add_argument("model", help="a conjunct model or classifier file, or any importable model file")
    r.add_argument("data", help="data file (svmlight or string format); '-' reads standard input")
    output_option(r, help="output file ('-' = standard output, the default)", required=False, default="-")
    r.add_argument("--print", dest="print_", choices=PRINTS, default="labels",
                   help="labels (one per line), margins (label TAB margins), or accuracy against the data's labels")
    r.add_argument("--format", choices=["auto", "svmlight", "strings"], default="auto", help="data format (default: detect)")
    option(r, "method", help="classification method when the file holds a model (default: the model's, pki for kernel models)")
    option(r, "binarize")
    r.add_argument("--mmap", action="store_true", help="memory-map a conjunct model file instead of reading it")
    option(r, "jobs", help="threads to classify with (default 1)")
    option(r, "batch_size", default=10000, help="lines read, classified and written at a time (default 10000): output "
                                                "starts at once and memory stays bounded")
    option(r, "quiet", help="no progress bar")
    r.set_defaults(func=run)


def run(args) -> int:
    if args.output in PRINTS:
        # Earlier releases chose what to print with --output; it now names the file.
        raise ConjunctError(f"-o/--output names the output file; to print {args.output} use --print {args.output} "
                            f"(for a file of that name, write ./{args.output})")
    clf = as_classifier(load_model(args.model, binarize=args.binarize, mmap=args.mmap), args.method)
    fmt = args.format
    if fmt == "auto":
        named = clf.features is not None and not clf.features.is_numeric
        fmt = ("strings" if named else "svmlight") if args.data == "-" else sniff_format(args.data)
    correct = total = 0
    with open_output(args.output) as out:
        # Batches of lines: output starts at once and memory stays bounded on long input.
        for X, y in _batches(args.data, args.batch_size, fmt, clf.features, args.binarize):
            margins = clf.decision_function(X, n_jobs=args.jobs)
            labels = clf.rule.predict(margins)
            if args.print_ == "accuracy":
                correct += int(np.sum(labels.astype(str) == y.astype(str)))
                total += len(y)
            elif args.print_ == "labels":
                out.writelines(f"{v}\n" for v in labels)
            else:
                M = margins.reshape(len(labels), -1)
                out.writelines(f"{labels[i]}\t" + " ".join(f"{v:.17g}" for v in M[i]) + "\n" for i in range(len(labels)))
            out.flush()
        if args.print_ == "accuracy":
            out.write(f"accuracy {correct / total:.6f} ({correct}/{total})\n")
    return 0


def _batches(path: str, size: int, fmt: str, features, binarize: bool) -> Iterator[Tuple[object, np.ndarray]]:
    """(X, y) of every ``size`` lines of a data file, read as they come; errors name the file's own line."""
    from ..io._textin import numbered, open_text
    from ..io.data import read_data

    def parse(text: str, first: int):
        stream = io.StringIO(text)
        stream.name = name  # errors name the file
        try:
            return read_data(stream, format=fmt, features=features, binarize=binarize)
        except DataFormatError as e:
            if e.line is None:
                raise
            raise DataFormatError(e.problem, name, e.line + first - 1) from None

    examples = 0
    with open_text(path) as (f, name), bar(desc="classifying", unit=" lines") as shown:
        lines: List[str] = []
        first = 1
        for lineno, line in numbered(f, name):
            lines.append(line)
            if len(lines) == size:
                text, lines = "".join(lines), []
                if _has_examples(text):
                    X, y = parse(text, first)
                    examples += len(y)
                    yield X, y
                shown.update(size)
                first = lineno + 1
        if lines and _has_examples("".join(lines)):
            X, y = parse("".join(lines), first)
            examples += len(y)
            yield X, y
    if not examples:
        raise DataFormatError("no examples (the file is empty or only has comments)", name)


def _has_examples(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())
