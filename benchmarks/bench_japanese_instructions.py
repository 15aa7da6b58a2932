"""Where a pass of the Japanese text pipeline spends its instructions, per
stage, as callgrind counts (they do not depend on the machine's load, so a
change can be judged on a shared machine).

A child process loads the pipeline, analyses one sentence, then analyses the
raw texts of a GSD split once; callgrind instruments it from just before that
pass and counts only inside it (the pass runs under ``operator.call``, which
nothing else calls). The stages are read from the inclusive counts of their
C++ functions, so the core must keep its symbols: build it with
``-DCONJUNCT_KEEP_SYMBOLS=ON``.

    python benchmarks/bench_japanese_instructions.py MODEL [--split dev] [--sentences N]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA

GSD = SHARED_DATA / "ud_japanese_gsd" / "r2.8"

# (row, function whose inclusive count it is); "rest" is the pass minus the rows.
STAGES = (
    ("segmenter: boundary features", "conjunct::BoundaryFeaturizer::text("),
    ("segmenter: boundary features and decisions", "segment_range("),
    ("tagger: word attributes", "conjunct::TokenFeatures::prepare("),
    ("tagger: feature ids", "conjunct::TokenFeatures::extract_range("),
    ("tagger: decoding", "conjunct::decode_batch("),
    ("bunsetsu chunker: features", "conjunct::ChunkFeaturizer::sentence("),
    ("bunsetsu chunker: decisions", "conjunct::yamcha_chunk("),
    ("bunsetsu parser (features and decisions)", "conjunct::sassano_parse("),
)

CHILD = """
import operator, os, sys, time
from pathlib import Path
import conjunct
texts = [l.split("=", 1)[1].strip() for l in Path(sys.argv[2]).read_text(encoding="utf-8").splitlines()
         if l.startswith("# text =")][:int(sys.argv[3])]
nlp = conjunct.load(sys.argv[1])
nlp.analyze(["日本語の文です。"])
Path(sys.argv[4]).write_text(str(os.getpid()))
while not Path(sys.argv[5]).exists():
    time.sleep(0.05)
out = operator.call(lambda: [(a.forms, a.upos, a.xpos) for a in nlp.analyze(texts)])
print(len(out), sum(len(o[0]) for o in out), sum(map(len, texts)))
"""


def parse_annotate(text: str) -> tuple:
    """(total, [(inclusive count, function)]) of callgrind_annotate --inclusive=yes output."""
    total = int(re.search(r"^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
    rows = []
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$", line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    return total, rows


def stage_counts(total: int, rows) -> dict:
    """Instructions per stage (the largest inclusive count of each stage's
    function), the segmenter's decisions as its loop minus its features, and
    the rest of the pass."""
    found = {}
    for name, fn in STAGES:
        counts = [c for c, f in rows if fn in f]
        if not counts:
            raise SystemExit(f"no function {fn!r} in the profile: build the core with -DCONJUNCT_KEEP_SYMBOLS=ON")
        found[name] = max(counts)
    features = found.pop("segmenter: boundary features")
    decisions = found.pop("segmenter: boundary features and decisions") - features
    out = {"segmenter: boundary features": features, "segmenter: decisions": decisions, **found}
    out["the rest (stages' buffers, Python strings and objects)"] = total - sum(out.values())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path)
    ap.add_argument("--split", default="dev", choices=["dev", "test"])
    ap.add_argument("--sentences", type=int, default=10**9)
    args = ap.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise SystemExit("valgrind (callgrind) is needed")
    conllu = GSD / f"ja_gsd-ud-{args.split}.conllu"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ready, go, out = tmp / "ready", tmp / "go", tmp / "callgrind.out"
        # The interpreter itself, not a wrapper script (callgrind would follow the wrapper only).
        child = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
             "--toggle-collect=_operator_call", f"--callgrind-out-file={out}", os.path.realpath(sys.executable),
             "-c", CHILD, str(args.model), str(conllu), str(args.sentences), str(ready), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while not ready.exists():
            if child.poll() is not None:
                raise SystemExit(f"the child process failed:\n{child.stderr.read()}")
            time.sleep(0.2)
        subprocess.run(["callgrind_control", "-i", "on", ready.read_text()], check=True, capture_output=True)
        go.write_text("")
        stdout, stderr = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"the child process failed:\n{stderr}")
        n_sent, n_words, n_chars = map(int, stdout.split())
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                                   capture_output=True, text=True, check=True).stdout
    total, rows = parse_annotate(annotated)
    found = stage_counts(total, rows)
    print(f"GSD {args.split}: {n_sent} sentences, {n_chars:,} characters, {n_words:,} words; "
          f"callgrind instructions counted inside one analyze pass\n")
    print("| | instructions (M) | per character |\n|---|---:|---:|")
    for name, c in found.items():
        print(f"| {name} | {c / 1e6:,.1f} | {c / n_chars:,.0f} |")
    print(f"| **whole pass** | **{total / 1e6:,.1f}** | **{total / n_chars:,.0f}** |")


if __name__ == "__main__":
    main()
