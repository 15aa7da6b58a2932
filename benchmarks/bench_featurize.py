"""Tagging from tokens: a perceptron tagger on cold, new and seen text.

A UPOS tagger (averaged perceptron, default templates, --n-iter epochs, the
first --train-sentences sentences of EWT train) is trained and saved; then
each round runs in a fresh process that loads it (not timed) and tags, with
``predict`` (features and decoding from tokens):

- ``cold``: EWT dev, the process' first call;
- ``unseen``: EWT test, text the process has not met (after the cold pass);
- ``seen``: EWT dev again, text the process has tagged before.

Rounds are interleaved; figures are medians over rounds, in tokens per second
of wall time, with the ratios cold / seen and unseen / seen (1.0: the tagger
keeps nothing between calls that makes seen text faster). The UPOS accuracy
on EWT dev is reported with them. Only the public API is used, so the same
script measures an older conjunct for a before / after comparison.

Usage::

    python benchmarks/bench_featurize.py                    # 4,000 training sentences, 5 rounds
    python benchmarks/bench_featurize.py --quick            # 500 sentences, 2 rounds, 2 epochs
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA, markdown_table, require_shared_data, write_results

EWT = SHARED_DATA / "ud_english_ewt"


def _read(split: str):
    from conjunct.tagging.io import read_tagged

    return read_tagged(EWT / f"en_ewt-ud-{split}.conllu", tag_field="upos")


def worker(model: str) -> None:
    """One round in this fresh process: one JSON line of timings and dev accuracy."""
    import conjunct

    tagger = conjunct.load(model)
    dev, dev_tags = _read("dev")
    test, _ = _read("test")
    out = {}
    for name, words in (("cold", dev), ("unseen", test), ("seen", dev)):
        t0 = time.perf_counter()
        pred = tagger.predict(words)
        out[name] = time.perf_counter() - t0
        out[name + "_tokens"] = sum(map(len, words))
        if name == "cold":
            out["accuracy"] = sum(p == g for ps, gs in zip(pred, dev_tags) for p, g in zip(ps, gs)) / out["cold_tokens"]
    print(json.dumps(out), flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train-sentences", type=int, default=4000)
    ap.add_argument("--n-iter", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="500 training sentences, 2 epochs, 2 rounds")
    args = ap.parse_args()
    if args.quick:
        args.train_sentences, args.n_iter, args.rounds = 500, 2, 2
    require_shared_data()
    from conjunct.tagging import PerceptronTagger

    words, tags = _read("train")
    tagger = PerceptronTagger(n_iter=args.n_iter).fit(words[:args.train_sentences], tags[:args.train_sentences])
    model = str(Path(tempfile.mkdtemp(prefix="conjunct-featurize-")) / "tagger.cjt")
    tagger.save(model)
    rounds = []
    for _ in range(args.rounds):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", model], capture_output=True,
                             text=True, check=True).stdout
        rounds.append(json.loads(out.strip().splitlines()[-1]))
    speed = {k: statistics.median(r[k + "_tokens"] / r[k] for r in rounds) for k in ("cold", "unseen", "seen")}
    accuracy = rounds[0]["accuracy"]
    rows = [[f"{speed['cold']:,.0f}", f"{speed['unseen']:,.0f}", f"{speed['seen']:,.0f}",
             f"{speed['cold'] / speed['seen']:.2f}", f"{speed['unseen'] / speed['seen']:.2f}", f"{accuracy:.4f}"]]
    md = markdown_table(["cold tok/s", "unseen tok/s", "seen tok/s", "cold / seen", "unseen / seen",
                         "UPOS accuracy (dev)"], rows)
    write_results("featurize" + ("_quick" if args.quick else ""),
                  {"tokens_per_s": speed, "accuracy": accuracy, "rounds": rounds, "args": vars(args)}, md)
    print(md)


if __name__ == "__main__":
    main()
