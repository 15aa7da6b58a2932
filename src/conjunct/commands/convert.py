"""conjunct convert: import a foreign model into a conjunct model file."""

from __future__ import annotations

import sys

from ._common import option, output_option


def register(sub) -> None:
    c = sub.add_parser("convert", help="import a LIBSVM / SVMlight / TinySVM / opal / conjunctive linear (text) model into a conjunct model file")
    c.add_argument("model", help="the source model file")
    output_option(c, help="the conjunct model file to write")
    c.add_argument("--from", dest="source_format", default="auto",
                   choices=["auto", "libsvm", "svmlight", "tinysvm", "opal", "linear"], help="source format (default: detect)")
    option(c, "binarize")
    c.set_defaults(func=run)


def run(args) -> int:
    from ..io.importers import import_model

    model = import_model(args.model, args.source_format, binarize=args.binarize)
    model.save(args.output)
    info = model.info()
    size = f"{info['support_vectors']} support vectors" if "support_vectors" in info else f"{info.get('conjunctions')} conjunctions"
    print(f"wrote {args.output}: {info['kind']}, {size}, {info.get('outputs')} output(s), decision {info.get('decision')}",
          file=sys.stderr)
    return 0
