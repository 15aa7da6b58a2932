"""conjunct info: what a model file holds."""

from __future__ import annotations

import argparse
import json

from ._common import load_model


def register(sub) -> None:
    i = sub.add_parser("info", help="show what a model file holds")
    i.add_argument("model")
    i.add_argument("--json", action="store_true", help="print JSON")
    i.add_argument("--binarize", action="store_true", help=argparse.SUPPRESS)
    i.set_defaults(func=run)


def run(args) -> int:
    info = load_model(args.model, binarize=args.binarize).info()
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        width = max(len(k) for k in info)
        for k, v in info.items():
            if isinstance(v, list) and len(v) > 12:
                v = f"{v[:12]} ... ({len(v)} in all)"
            print(f"{k.replace('_', ' '):<{width}}  {v}")
    return 0
