"""Building the training examples of the text pipelines' largest stages: the
feature strings of every decision at once (with the feature index training
builds from them) against rows built batch by batch
(``conjunct.tasks.rows.RowBuilder``) and, for the tokenizer and the
segmenter, rows from the C++ feature engine their runners decide with
(``conjunct.tasks.boundary_rows``; the same rows). Each case runs in its own process;
records its CPU seconds (building only) and peak RSS (with the data read).

    python benchmarks/bench_training_rows.py                        # EWT and GSD train: run alone
    python benchmarks/bench_training_rows.py --max-sentences 300 --name training_rows_quick

Results: results/<name>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

ROOT = Path(__file__).resolve().parent.parent

CASE = r"""
import json, resource, sys, time
stage, how, data, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) or None
from conjunct.features.index import FeatureIndex
if stage == "tokenizer":
    from conjunct.tasks.tokenize import EnglishTokenizer, read_tokenized_conllu
    from conjunct.tasks.tokenize import oracle as o
    from conjunct.tasks.segment.dictionary import training_dictionaries
    raw = read_tokenized_conllu(data + "/ud_english_ewt/en_ewt-ud-train.conllu")[:n]
    d = training_dictionaries(EnglishTokenizer(), [o.known_words(t) for t in raw])
    build = lambda: {"strings": o.training_examples, "rows": o.training_rows, "engine": o.engine_training_rows}[how](
        raw, 3, d, True, True)
elif stage == "parser":
    from conjunct.tasks.english import read_ud_english
    from conjunct.tasks.english import oracle as o
    sentences = read_ud_english(data + "/ud_english_ewt/en_ewt-ud-train.conllu")[:n]
    build = lambda: (o.training_examples if how == "strings" else o.training_rows)(sentences)[0]
else:
    from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu
    from conjunct.tasks.segment import oracle as o
    from conjunct.tasks.segment.dictionary import training_dictionaries
    words = read_segmented_conllu(data + "/ud_japanese_gsd/r2.8/ja_gsd-ud-train.conllu")[:n]
    d = training_dictionaries(WordSegmenter(), words)
    build = lambda: {"boundary": {"strings": o.training_examples, "rows": o.training_rows,
                                  "engine": o.engine_training_rows}[how](words, 3, d)}
t0 = time.process_time()
out = build()
if how == "strings":  # the index training builds from them (fit's first step)
    for feats, _ in out.values():
        FeatureIndex(names=[]).transform(feats, add=True, count=True)
examples = sum(len(y) for _, y in out.values())
print(json.dumps({"cpu_seconds": time.process_time() - t0, "examples": examples,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-sentences", type=int, default=0, help="the first N sentences / paragraphs (a small check)")
    ap.add_argument("--stages", nargs="+", default=["tokenizer", "parser", "segmenter"],
                    choices=["tokenizer", "parser", "segmenter"])
    ap.add_argument("--name", default="training_rows")
    args = ap.parse_args()
    data = require_shared_data()
    rows, res = [], {"small": bool(args.max_sentences), "cases": []}
    for stage in args.stages:
        got = {}
        for how in ("strings", "rows") + (("engine",) if stage != "parser" else ()):
            done = subprocess.run([sys.executable, "-c", CASE, stage, how, str(data), str(args.max_sentences)],
                                  capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            if done.returncode != 0:
                raise SystemExit(f"{stage} ({how}) failed:\n{done.stderr}")
            got[how] = json.loads(done.stdout.strip().splitlines()[-1])
            res["cases"].append({"stage": stage, "how": how, **got[how]})
            print(stage, how, got[how], flush=True)
        s, r, e = got["strings"], got["rows"], got.get("engine")
        rows.append([stage, s["examples"], f"{s['peak_rss_mb']:,.0f}", f"{r['peak_rss_mb']:,.0f}",
                     "-" if e is None else f"{e['peak_rss_mb']:,.0f}", f"{s['cpu_seconds']:.1f}", f"{r['cpu_seconds']:.1f}",
                     "-" if e is None else f"{e['cpu_seconds']:.1f}"])
    md = ("One run per case, each in its own process; peak RSS includes the data read. "
          + ("Small settings: a check of the script, not a result.\n\n" if res["small"] else "\n\n")
          + markdown_table(["stage", "examples", "strings peak MB", "rows peak MB", "engine peak MB", "strings CPU s",
                                  "rows CPU s", "engine CPU s"], rows))
    write_results(args.name, res, md + "\n")


if __name__ == "__main__":
    main()
