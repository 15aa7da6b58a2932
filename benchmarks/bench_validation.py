"""What checking a model file's sections costs, against the load it is part of.

Every load validates every section (conjunct.io.validation) before any object is
built. This script builds large classifiers of a polynomial-kernel model trained
on the package's Zipfian data (PKE with the default dense table, split, the
fstrie over PKE, PKI), saves each, and times in interleaved rounds (medians):

- ``load``: ``conjunct.load(path)``: read, digest, validation, build;
- ``load mmap``: ``load(path, mmap=True)`` (digest checked: reads the file);
- ``load mmap, no verify``: ``load(path, mmap=True, verify=False)``;
- ``validation``: ``conjunct.io.validation.validate`` alone, on a memory map.

Times are warm (the file in the page cache). The share is validation's time
over each load's time.

    python benchmarks/bench_validation.py
    python benchmarks/bench_validation.py --examples 40000 --degree 3
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from _common import markdown_table, write_results

import conjunct
from conjunct._timing import interleaved_medians
from conjunct.datasets import make_zipf_data
from conjunct.io import model_io
from conjunct.io.persistence import KINDS
from conjunct.io.validation import validate
from conjunct.training import PAClassifier


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=30000, help="training examples of the kernel model")
    ap.add_argument("--degree", type=int, default=3)
    ap.add_argument("--classes", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    feats, y = make_zipf_data(args.examples, n_classes=args.classes, seed=0)
    model = PAClassifier(degree=args.degree, n_iter=3).fit(feats, y).model_
    print(f"model: {model} ({time.perf_counter() - t0:.1f} s)", flush=True)
    methods = {"pke": {}, "split": {}, "fstrie": {"events": feats[:5000]}, "pki": {}}
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for method, params in methods.items():
            clf = model.compile(method, **params)
            path = os.path.join(tmp, f"{method}.cjt")
            clf.save(path)
            size = os.path.getsize(path)
            kind, meta, arrays = model_io.read_container(path, mmap=True, verify=False)
            fns = {
                "load": lambda: conjunct.load(path),
                "load mmap": lambda: conjunct.load(path, mmap=True),
                "load mmap, no verify": lambda: conjunct.load(path, mmap=True, verify=False),
                "validation": lambda: validate(kind, meta, arrays, path, KINDS.get(kind)),
            }
            t = interleaved_medians(fns, repeats=args.repeats)
            results[method] = {"file_bytes": size, "seconds": t,
                               "validation_share": {k: t["validation"] / t[k] for k in fns if k != "validation"}}
            rows.append([method, size / 1e6, *(1e3 * t[k] for k in fns),
                         *(100 * t["validation"] / t[k] for k in ("load", "load mmap", "load mmap, no verify"))])
            print(rows[-1], flush=True)
    header = ["method", "file MB", "load ms", "load mmap ms", "mmap, no verify ms", "validation ms",
              "share of load %", "share of mmap %", "share of mmap, no verify %"]
    md = (f"Kernel model: {model} trained on {args.examples} Zipfian examples; warm page cache; medians of "
          f"{args.repeats} interleaved rounds.\n\n" + markdown_table(header, rows))
    print(md)
    write_results("validation", {"examples": args.examples, "degree": args.degree, "classes": args.classes,
                                 "model": repr(model), "methods": results}, md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
