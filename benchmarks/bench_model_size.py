"""What a text pipeline's file holds and what each classifier layout costs.

For every text pipeline file given (saved with its kernel models,
``conjunct analyze train --keep-models``, or with pkb / pki classifiers, whose
models are recovered exactly), this script

1. tabulates the file's bytes by stage, part (kernel model, compiled
   classifier, feature names) and section kind;
2. per task component (English tokenizer and parser, Japanese segmenter,
   bunsetsu chunker and parser), recompiles the component with each candidate
   layout and reports its bytes by section, the time a fresh process takes from
   ``conjunct.load`` of a file holding just that classifier to its first
   decision, the time per decision over the vectors the component classifies
   on dev text (collected once, with the component's current classifier; an
   fstrie is built on the first half of them, and every layout is timed on the
   second half), and whether every layout's decisions equal the brute-force
   pkb classifier's on those vectors;
3. times the whole file from ``conjunct.load`` to its first analysed sentence
   in a fresh process, as saved and re-saved without the kernel models.

    python benchmarks/bench_model_size.py --model en=EN.cjt --model ja=JA.cjt [--sentences 300] [--rounds 3]

Sizes do not depend on the machine's load; times do (compare the ratios within
one run).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import SHARED_DATA, markdown_table, require_shared_data, write_results

# (name, method, compile options): candidate layouts of one component.
LAYOUTS = [
    ("pke", "pke", {}),
    ("pke, dense 256 KB", "pke", {"dense_bytes": 1 << 18}),
    ("split, 2,000 common", "split", {"common_features": 2000}),
    ("split, 2,000 common, dense 256 KB", "split", {"common_features": 2000, "dense_bytes": 1 << 18}),
    ("split, 500 common", "split", {"common_features": 500}),
    ("split, 100 common", "split", {"common_features": 100}),
    ("split, min_support 0.5% (the method's default)", "split", {}),
    ("split, support >= 50", "split", {"min_support": 50}),
    ("split, support >= 20 (shipped)", "split", {"min_support": 20}),
    ("fstrie 4 MB on split, 2,000 common", "fstrie", {"base": "split", "common_features": 2000, "max_bytes": 4 << 20}),
    ("fstrie 4 MB on split, 100 common", "fstrie", {"base": "split", "common_features": 100, "max_bytes": 4 << 20}),
    ("pki", "pki", {}),
]

# A fresh process: load a file, then classify (or analyse) one input; prints seconds.
_FIRST_DECISION = """
import sys, time, pickle
t0 = time.perf_counter()
import conjunct
t1 = time.perf_counter()
obj = conjunct.load(sys.argv[1])
first = pickle.load(open(sys.argv[2], "rb"))
if hasattr(obj, "decision_function"):
    obj.decision_function(first)
elif isinstance(first, list) and getattr(obj, "tokenizer", None) is not None:
    obj.analyze_text([" ".join(first)])
else:
    obj.analyze([first])
print(time.perf_counter() - t1, t1 - t0)
"""


def fresh_seconds(path: Path, first, rounds: int) -> float:
    """Median seconds from ``conjunct.load(path)`` to the first result, fresh processes."""
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
        import pickle

        pickle.dump(first, f)
    times = []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", _FIRST_DECISION, str(path), f.name], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"loading {path} in a fresh process failed:\n{done.stderr}")
        times.append(float(done.stdout.split()[0]))
    Path(f.name).unlink()
    return statistics.median(times)


def section_kind(name: str) -> str:
    """A section's name without its stage and component prefixes (``m.store.weight``)."""
    parts = name.split(".")
    for k, p in enumerate(parts):
        if p in ("m", "features", "sv_indices", "sv_indptr", "dual_coef", "intercept") or p.startswith("names"):
            return ".".join(parts[k:])
    return ".".join(parts[2:])


def file_table(path: Path):
    """Rows (stage, part, section kind, bytes) of a pipeline file, largest first."""
    from conjunct.io.model_io import read_header

    rows = {}
    for s in read_header(path)["sections"]:
        parts = s["name"].split(".")
        stage = parts[1] if parts[0] == "stage" else "-"
        part = parts[2] if parts[0] == "stage" and len(parts) > 3 else "-"
        if part not in ("model", "classifier"):
            part = "tagger" if part == "-" or stage == "tagger" else part
        key = (stage, part, section_kind(".".join(parts[2:])))
        rows[key] = rows.get(key, 0) + s["nbytes"]
    return sorted(([*k, v] for k, v in rows.items()), key=lambda r: -r[3])


def stage_inputs(lang: str, stage: str, n: int):
    """Dev inputs of one stage, in the form its ``collect_events`` reads."""
    if lang == "en":
        dev = SHARED_DATA / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
        if stage == "parser":
            from conjunct.tasks.english import read_ud_english

            return read_ud_english(dev)[:n]
        if stage == "tokenizer":
            from conjunct.tasks.tokenize import read_tokenized_conllu

            return read_tokenized_conllu(dev)[:max(1, n // 10)]
        return None
    from conjunct.tasks.bunsetsu import load_gsd_bunsetsu

    dev = load_gsd_bunsetsu(SHARED_DATA / "ud_japanese_gsd", "dev")[:n]
    if stage == "parser":
        return dev
    if stage == "segmenter":
        return [[t.form for b in s.bunsetsu for t in b.tokens] for s in dev]
    if stage == "bunsetsu":
        return [[(t.form, t.xpos, "B" if k == 0 else "I") for b in s.bunsetsu for k, t in enumerate(b.tokens)] for s in dev]
    return None


def first_sentence(lang: str):
    """One dev sentence: raw text for a pipeline with a tokenizer or for Japanese, else tokens."""
    if lang == "ja":
        from conjunct.tasks.bunsetsu import load_gsd_bunsetsu

        s = load_gsd_bunsetsu(SHARED_DATA / "ud_japanese_gsd", "dev")[0]
        return "".join(t.form for b in s.bunsetsu for t in b.tokens)
    from conjunct.tasks.english import read_ud_english

    return read_ud_english(SHARED_DATA / "ud_english_ewt" / "en_ewt-ud-dev.conllu")[0].forms


def per_decision_us(clf, X, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        clf.decision_function(X)
        best = min(best, time.perf_counter() - t0)
    return best / max(X.shape[0], 1) * 1e6


def component_rows(lang, stage_name, stage, args, work: Path):
    inputs = stage_inputs(lang, stage_name, args.sentences)
    if inputs is None or not getattr(stage, "models_", None):
        return []
    events = stage.collect_events(inputs)
    rows = []
    for comp, model in stage.models_.items():
        half = events[comp].shape[0] // 2
        build, X = events[comp][:half], events[comp][half:]
        first = X[:1]
        want = model.compile("pkb").predict(X)
        for name, method, params in LAYOUTS:
            if (method in ("split", "pki") or params.get("base") == "split") and not hasattr(model, "support_vectors"):
                continue
            clf = model.compile(method, **({"events": build, **params} if method == "fstrie" else params))
            path = work / f"{lang}-{stage_name}-{comp}-{method}.cjt"
            clf.save(path)
            by_kind = {}
            for k, v in clf.arrays.items():
                by_kind[k] = by_kind.get(k, 0) + v.nbytes
            top = sorted(by_kind.items(), key=lambda kv: -kv[1])[:4]
            rows.append({
                "pipeline": lang, "stage": stage_name, "component": comp, "layout": name,
                "file_bytes": path.stat().st_size, "classifier_bytes": clf.nbytes,
                "largest_sections": {k: int(v) for k, v in top},
                "load_to_first_decision_s": fresh_seconds(path, first, args.rounds),
                "us_per_decision": per_decision_us(clf, X, args.repeat),
                "decisions": int(X.shape[0]),
                "same_as_pkb": bool(np.array_equal(clf.predict(X), want)),
            })
            path.unlink()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, metavar="LANG=FILE",
                    help="a text pipeline file (en or ja) saved with its kernel models; repeatable")
    ap.add_argument("--sentences", type=int, default=300, help="dev sentences whose decisions are timed")
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per load time (median)")
    ap.add_argument("--repeat", type=int, default=3, help="passes over the decisions (best)")
    ap.add_argument("--skip-layouts", action="store_true", help="only the file tables and load times")
    args = ap.parse_args()
    require_shared_data()
    import conjunct

    results = {"files": [], "components": []}
    md = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for spec in args.model:
            lang, _, file = spec.partition("=")
            path = Path(file)
            nlp = conjunct.load(path)
            first = first_sentence(lang)
            bare = work / f"{lang}-bare.cjt"
            for stage in nlp.stages().values():
                if hasattr(stage, "keep_models"):
                    stage.keep_models = False
            nlp.save(bare)
            entry = {"pipeline": lang, "file": path.name, "file_bytes": path.stat().st_size,
                     "sections": file_table(path), "bare_file_bytes": bare.stat().st_size,
                     "bare_sections": file_table(bare),
                     "load_to_first_sentence_s": fresh_seconds(path, first, args.rounds),
                     "bare_load_to_first_sentence_s": fresh_seconds(bare, first, args.rounds)}
            results["files"].append(entry)
            md.append(f"## {lang}: {path.name}\n\n{entry['file_bytes']:,} bytes as given, load to first sentence "
                      f"{entry['load_to_first_sentence_s']:.3f} s; without kernel models {entry['bare_file_bytes']:,} bytes, "
                      f"{entry['bare_load_to_first_sentence_s']:.3f} s.\n")
            md.append(markdown_table(["stage", "part", "section", "MB as given"],
                                     [[*r[:3], f"{r[3] / 1e6:.2f}"] for r in entry["sections"][:25]]))
            if args.skip_layouts:
                continue
            for name, stage in nlp.stages().items():
                results["components"] += component_rows(lang, name, stage, args, work)
    if results["components"]:
        md.append("## Layouts per component\n")
        md.append(markdown_table(
            ["pipeline", "stage", "component", "layout", "file MB", "load to first decision s", "µs/decision", "same as pkb"],
            [[r["pipeline"], r["stage"], r["component"], r["layout"], f"{r['file_bytes'] / 1e6:.2f}",
              f"{r['load_to_first_decision_s']:.3f}", f"{r['us_per_decision']:.2f}", r["same_as_pkb"]]
             for r in results["components"]]))
    write_results("model_size", results, "\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
