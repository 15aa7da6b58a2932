"""Training the whole text pipelines: time, memory per stage and dev accuracy.

For each language, runs the command users run,

    conjunct analyze train --lang en ../shared/data/ud_english_ewt/en_ewt-ud-train.conllu -o en.cjt
    conjunct analyze train --lang ja ../shared/data/ud_japanese_gsd -o ja.cjt

(with ``--stage-report``, ``-j --jobs`` and, for a small check, ``--max-sentences``)
in a child process, and records its wall seconds, CPU seconds (user + system,
every thread) and peak RSS (the kernel's figures for the child, as
``/usr/bin/time`` reports them), and each stage's wall and CPU seconds and
peak RSS from the command's own report. Then it scores the model on the dev
split in another process: English UPOS / XPOS accuracy, UAS and LAS with
gold tokenization; Japanese word, POS, bunsetsu and bunsetsu-dependency F1
from raw text. ``--reference LANG=MODEL`` scores a model trained before
(another version) with the same code, for the "accuracy not lower" check.

    python benchmarks/bench_pipeline_train.py                       # both, full size: run alone
    python benchmarks/bench_pipeline_train.py --max-sentences 300 --dev-sentences 100 --name pipeline_train_quick

Results: results/<name>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

ROOT = Path(__file__).resolve().parent.parent


def train_command(lang: str, data: Path, out: Path, report: Path, args) -> list:
    source = data / "ud_english_ewt" / "en_ewt-ud-train.conllu" if lang == "en" else data / "ud_japanese_gsd"
    cmd = [sys.executable, "-m", "conjunct", "analyze", "train", "--lang", lang, str(source), "-o", str(out),
           "--stage-report", str(report), "-j", str(args.jobs), "-q"]
    if args.max_sentences:
        cmd += ["--max-sentences", str(args.max_sentences)]
    if args.iterations:
        cmd += ["-i", str(args.iterations)]
    return cmd


def run_measured(cmd: list) -> dict:
    """Wall seconds, CPU seconds and peak RSS of a child process (wait4's figures)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {proc.returncode}")
    return {"wall_seconds": wall, "cpu_seconds": usage.ru_utime + usage.ru_stime, "user_seconds": usage.ru_utime,
            "peak_rss_mb": usage.ru_maxrss / 1024}


def score(lang: str, model: Path, data: Path, dev_sentences: int) -> dict:
    """Dev scores of a saved pipeline, in a child process (its memory is not the training's)."""
    code = f"""
import json, sys
from conjunct import load
from conjunct.analysis.metrics import english_scores, japanese_scores
nlp = load({str(model)!r})
n = {dev_sentences} or None
if {lang!r} == "en":
    from conjunct.tasks.english import read_ud_english
    gold = read_ud_english({str(data / 'ud_english_ewt' / 'en_ewt-ud-dev.conllu')!r})[:n]
    out = english_scores(gold, nlp.analyze([s.forms for s in gold]))
else:
    from conjunct.tasks.bunsetsu import load_gsd_bunsetsu
    gold = load_gsd_bunsetsu({str(data / 'ud_japanese_gsd')!r}, "dev")[:n]
    out = japanese_scores(gold, nlp.analyze(["".join(t.form for b in s.bunsetsu for t in b.tokens) for s in gold]))
out["sentences"] = len(gold)
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if done.returncode != 0:
        raise SystemExit(f"scoring {model} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(res: dict) -> str:
    lines = ["One run per language; CPU = user + system seconds of every thread; peak RSS = the process's maximum "
             "resident set. " + ("Small settings: a check of the script, not a result.\n" if res["small"] else "\n")]
    rows = []
    for lang, r in res["languages"].items():
        acc = r["dev"]
        shown = (f"UPOS {acc['upos_accuracy']:.4f}, LAS {acc['las']:.4f}" if lang == "en" else
                 f"word F1 {acc['word_f1']:.4f}, dependency F1 {acc['dependency_f1']:.4f}")
        rows.append([lang, r["sentences"], f"{r['wall_seconds']:.1f}", f"{r['cpu_seconds']:.1f}", f"{r['peak_rss_mb']:,.0f}",
                     f"{r['model_mb']:.1f}", shown])
    lines.append(markdown_table(["lang", "train sentences", "wall s", "CPU s", "peak RSS MB", "model MB", "dev"], rows))
    for lang, r in res["languages"].items():
        lines.append(f"\n## {lang}: stages (`-j {res['jobs']}`; jobs indented: their own thread's CPU seconds, the "
                     "process's peak RSS while they ran)\n")
        stage_rows = [[("  " if s.get("job") else "") + s["stage"], f"{s['wall_seconds']:.1f}", f"{s['cpu_seconds']:.1f}",
                       f"{s['peak_rss_mb']:,.0f}"] for s in r["stages"]]
        lines.append(markdown_table(["stage", "wall s", "CPU s", "peak RSS MB"], stage_rows))
        if "reference_dev" in r:
            lines.append(f"\nReference model (given with --reference), same dev scorer: `{json.dumps(r['reference_dev'])}`")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", choices=["en", "ja", "both"], default="both")
    ap.add_argument("--max-sentences", type=int, default=0, help="train on the first N sentences (a small check)")
    ap.add_argument("--dev-sentences", type=int, default=0, help="score the first N dev sentences (default all)")
    ap.add_argument("-i", "--iterations", type=int, default=0, help="epochs of every stage (default: the command's)")
    ap.add_argument("-j", "--jobs", type=int, default=-1, help="the command's -j (default -1: every core)")
    ap.add_argument("--reference", action="append", default=[], metavar="LANG=MODEL",
                    help="also score a model trained before with the same code")
    ap.add_argument("--name", default="pipeline_train")
    ap.add_argument("--keep-models", type=Path, default=None, metavar="DIR",
                    help="copy the trained pipelines to DIR/{en,ja}.cjt (for bench_text_peers)")
    args = ap.parse_args()
    data = require_shared_data()
    refs = dict(r.split("=", 1) for r in args.reference)
    langs = ["en", "ja"] if args.lang == "both" else [args.lang]
    res = {"jobs": args.jobs,
           "small": bool(args.max_sentences or args.dev_sentences or args.iterations), "languages": {}}
    with tempfile.TemporaryDirectory(prefix="bench_pipeline_train") as tmp:
        for lang in langs:
            model, stages = Path(tmp) / f"{lang}.cjt", Path(tmp) / f"{lang}.json"
            cmd = train_command(lang, data, model, stages, args)
            print(f"training {lang}: {' '.join(cmd)}", flush=True)
            r = run_measured(cmd)
            info = json.loads(stages.read_text())
            r.update(sentences=info["sentences"], stages=info["stages"], model_mb=model.stat().st_size / 2**20)
            r["dev"] = score(lang, model, data, args.dev_sentences)
            if lang in refs:
                r["reference_dev"] = score(lang, Path(refs[lang]), data, args.dev_sentences)
            print(f"{lang}: {r['wall_seconds']:.1f} s wall, {r['cpu_seconds']:.1f} s CPU, {r['peak_rss_mb']:,.0f} MB peak, "
                  f"dev {r['dev']}", flush=True)
            res["languages"][lang] = r
            if args.keep_models:
                args.keep_models.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(model, args.keep_models / f"{lang}.cjt")
    write_results(args.name, res, report(res))


if __name__ == "__main__":
    main()
