"""conjunct's bunsetsu parser against J.DepP, on the same data in one run.

Both systems train on the same 6,992 sentences (65,789 decisions of
Sassano's oracle; averaged PA-I, C = 1, 10 epochs, kernel slicing) and parse
the same 543 test sentences (gold bunsetsu). J.DepP's input files come from
the peer kit's ``convert.py`` (``--jdepp-data``); its binaries from the kit's
``build.sh`` (``--jdepp-build``); J.DepP is retrained here, into ``--work``.

Per degree it reports dependency and sentence accuracy (both systems scored by
conjunct's ``dependency_accuracy``), training CPU seconds, and for every exact
classification method of each system the sentences per second of a parse of
the test set, **cold** (the first pass of a fresh process) and **warm** (the
median of the later passes), and the peak memory of that process. Each
(system, method) runs in a fresh process per round; rounds are interleaved
and their order rotates. Model loading is excluded on both sides; every pass
parses never-used sentence objects (J.DepP re-reads its in-memory text).

What one pass covers. J.DepP: ``jdepp_bench bench`` reads each sentence's
tokens from the in-memory J.DepP text (dictionary lookups), sets up its
chunks and parses (features and classification). conjunct, two inputs, each
timed: "conjunct" is one ``BunsetsuParser.parse_many`` call on never-used
``BunsetsuSentence`` objects (unpickled outside the timer): C++ reads every
token's form, lemma and XPOS from the objects, looks each token's attributes
up in the model's vocabularies, builds the feature keys and ids, parses and
classifies, and the heads come back as Python lists. "conjunct text" is one
``BunsetsuParser.parse_text`` call on the same in-memory J.DepP text J.DepP
reads (``test.JDP``, read into memory outside the timer): C++ reads its lines
and does the rest as above.

    python benchmarks/bench_jdepp.py [--degrees 2 3] [--rounds 5] [--passes 20] [--quick]
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (PEER_BUILD, PEER_WORK, markdown_table, peer_work_shown, require_shared_data, shown_path,
                     write_results)

PECCO = {"PKI": ["-t", "0"], "PKE": ["-t", "1"], "FST": ["-t", "2"]}
EXACT = ["-m", "1", "-s", "0", "-r", "0", "-i", "0"]  # pecco's exact settings (no pruning, no approximation)
METHODS = ["pkb", "pki", "pke", "split", "fstrie"]
SLOW = {"PKI", "pkb", "pki"}  # O(|SV|) per decision: fewer passes
# What one timed pass of each system covers (written into the results).
PASS_COVERS = {
    "J.DepP": "jdepp_bench bench: per sentence, its tokens read from the in-memory J.DepP text (dictionary "
              "lookups), chunk setup, features and classification",
    "conjunct": "one BunsetsuParser.parse_many call on never-used BunsetsuSentence objects: C++ reads every token's "
                "form, lemma and XPOS from the objects, looks its attributes up in the model's vocabularies, builds "
                "feature keys and ids, parses and classifies; heads returned as Python lists",
    "conjunct text": "one BunsetsuParser.parse_text call on the in-memory J.DepP text (test.JDP bytes, read outside the "
                     "timer): C++ reads its bunsetsu and token lines, then as above",
}
SYSTEMS = ("J.DepP", "conjunct", "conjunct text")


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args, *, log=None):
    """Run a command under /usr/bin/time; (stdout, {cpu_s, wall_s, max_rss_mb})."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "MAXRSS_KB %M", *args], stdout=out, stderr=err)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0), err.seek(0)
        so, se = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    if log:
        Path(log).write_text(so + "\n" + se)
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{se[-3000:]}")
    rss = [int(line.split()[1]) for line in se.splitlines() if line.startswith("MAXRSS_KB ")]
    return so, {"cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": wall, "max_rss_mb": rss[-1] / 1024 if rss else None}


def passes_of(stdout: str):
    return [float(line.split("total_s=")[1].split()[0]) for line in stdout.splitlines() if line.startswith("PASS ")]


def read_heads(path):
    with open(path) as f:
        return [[int(x) for x in line.split()] for line in f]


# -- the conjunct side's fresh process ------------------------------------------------------------
def worker(model: str, passes: int, heads_out: str, text_path: str = None) -> None:
    import conjunct
    from conjunct.tasks.bunsetsu import load_gsd_bunsetsu

    from _common import SHARED_DATA

    parser = conjunct.load(model)
    runner = parser.runner()
    if text_path:  # J.DepP's input text, held in memory as J.DepP holds it
        with open(text_path, "rb") as f:
            text = f.read()
    else:
        blob = pickle.dumps(load_gsd_bunsetsu(SHARED_DATA / "ud_japanese_gsd", "test"), protocol=pickle.HIGHEST_PROTOCOL)
    for k in range(passes):
        if not text_path:
            sentences = pickle.loads(blob)  # never-used objects, made outside the timer
        t0 = time.perf_counter()
        heads = runner.parse_text(text) if text_path else runner.parse_many(sentences)
        print(f"PASS {k} total_s={time.perf_counter() - t0:.6f}", flush=True)
        if k == 0:
            with open(heads_out, "w") as f:
                f.writelines(" ".join(map(str, h)) + "\n" for h in heads)


# -- training ---------------------------------------------------------------------------------------
def train_jdepp(build: Path, data: Path, model_dir: Path, degree: int, cache: Path = None) -> dict:
    """Train J.DepP (timed). pecco compiles PKE and FST on first use and keeps
    them beside the model; when ``cache`` holds a byte-identical model
    (training is deterministic) its compiled files are copied instead of
    compiling again (minutes and GBs at d = 3)."""
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    jdepp = str(build / "jdepp_notimer")
    learner = ["-t", "1", "-d", str(degree), "-c", "1", "-i", "10", "-a", "-s", "-k", "-p"]
    _, train = run([jdepp, "-t", "0", "-I", "2", "-c", str(data / "train.JDP"), "-m", str(model_dir), "-v", "1", "--", *learner],
                   log=model_dir / "train.log")
    log = (model_dir / "train.log").read_text(errors="replace").replace("\r", "\n")
    sv = [line.strip() for line in log.splitlines() if "#SV=" in line]
    out = {"train": train, "last_iteration": sv[-1] if sv else None, "compiled_files_from": None}
    cached = cache / f"jdepp_d{degree}" if cache else None
    if cached and (cached / "depnd.p0").exists() and (cached / "depnd.p0").read_bytes() == (model_dir / "depnd.p0").read_bytes():
        for f in cached.iterdir():
            if f.name.startswith("depnd.p0.") and not (model_dir / f.name).exists():
                shutil.copyfile(f, model_dir / f.name)
        out["compiled_files_from"] = shown_path(cached)
    if not (model_dir / "depnd.p0.event").exists():
        # The events pecco's FST is built from: J.DepP parses its training text with PKE.
        _, out["fst_events"] = run([jdepp, "-t", "3", "-I", "2", "-c", str(data / "train.JDP"), "-m", str(model_dir), "--", "--",
                                    "--", *PECCO["PKE"], *EXACT], log=model_dir / "events.log")
    return out


def train_conjunct(train, degree: int, work: Path, methods) -> dict:
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser

    c0 = time.process_time()
    parser = BunsetsuDependencyParser(degree=degree, method="pkb").fit(train)  # the cheapest compile
    out = {"train": {"cpu_s": time.process_time() - c0}, "support_vectors": parser.model_.n_support_vectors,
           "features": len(parser.model_.features), "groups": list(parser.groups), "build": {}, "models": {}}
    for m in methods:
        c0 = time.process_time()
        parser.compile(m, events=train if m == "fstrie" else None)
        out["build"][m] = {"cpu_s": time.process_time() - c0, "nbytes": parser.classifier_.nbytes}
        path = work / f"conjunct_d{degree}.{m}.cjt"
        parser.save(path)
        out["models"][m] = str(path)
    return out


# -- one degree ---------------------------------------------------------------------------------------
def run_degree(degree, args, train, test, work: Path) -> dict:
    from conjunct.tasks.bunsetsu import dependency_accuracy

    jdepp_dir = work / f"jdepp_d{degree}"
    say(f"d={degree}: training J.DepP")
    jd = train_jdepp(args.jdepp_build, args.jdepp_data, jdepp_dir, degree, args.jdepp_cache)
    say(f"d={degree}: training conjunct")
    cj = train_conjunct(train, degree, work, [m for m in METHODS if m in args.methods])
    units = [("J.DepP", m) for m in PECCO if m in args.methods] + [
        (system, m) for system in SYSTEMS[1:] for m in METHODS if m in args.methods]
    timings = {u: [] for u in units}
    rss = {u: [] for u in units}
    heads = {}
    for rnd in range(args.rounds):
        order = units[rnd % len(units):] + units[:rnd % len(units)]
        for system, m in order:
            if m in SLOW and rnd >= args.slow_rounds:
                continue
            passes = args.slow_passes if m in SLOW else args.passes
            hpath = work / f"heads_d{degree}_{system.replace(' ', '_')}_{m}.txt"
            if system == "J.DepP":
                so, proc = run([str(args.jdepp_build / "jdepp_bench_notimer"), "bench", str(jdepp_dir),
                                str(args.jdepp_data / "test.JDP"), str(passes), str(hpath), "--", "--", "--",
                                *PECCO[m], *([] if m == "PKI" else EXACT)])
            else:
                text = [str(args.jdepp_data / "test.JDP")] if system == "conjunct text" else []
                so, proc = run([sys.executable, os.path.abspath(__file__), "--worker", cj["models"][m], str(passes), str(hpath),
                                *text])
            timings[(system, m)].append(passes_of(so))
            rss[(system, m)].append(proc["max_rss_mb"])
            if rnd == 0:
                heads[(system, m)] = read_heads(hpath)
            say(f"d={degree} round {rnd} {system} {m}: {[round(len(test) / t) for t in passes_of(so)[:4]]} sent/s")
    rows = {}
    for (system, m), rounds in timings.items():
        cold = statistics.median(len(test) / r[0] for r in rounds)
        warm = statistics.median(len(test) / t for r in rounds for t in r[1:]) if any(len(r) > 1 for r in rounds) else None
        dep, sent = dependency_accuracy(test, heads[(system, m)])
        rows[f"{system}:{m}"] = {"system": system, "method": m, "cold_sentences_per_s": cold, "warm_sentences_per_s": warm,
                                 "dependency_accuracy": dep, "sentence_accuracy": sent, "max_rss_mb": max(rss[(system, m)]),
                                 "rounds": len(rounds)}
    for system in SYSTEMS:
        same = {tuple(map(tuple, h)) for (s, _), h in heads.items() if s == system}
        if len(same) > 1:
            raise RuntimeError(f"{system}'s exact methods disagree on the heads")
    inputs = {tuple(map(tuple, h)) for (s, _), h in heads.items() if s != "J.DepP"}
    if len(inputs) > 1:
        raise RuntimeError("conjunct's heads from the sentence objects and from the J.DepP text differ")
    return {"degree": degree, "jdepp_training": jd, "conjunct_training": {k: v for k, v in cj.items() if k != "models"},
            "methods": rows}


def best(rows, system, key):
    vals = [(r[key], r["method"]) for r in rows.values() if r["system"] == system and r[key] is not None]
    return max(vals) if vals else (None, None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], *sys.argv[5:6])
        return
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--slow-rounds", type=int, default=2)
    ap.add_argument("--slow-passes", type=int, default=2)
    ap.add_argument("--methods", default=",".join(list(PECCO) + METHODS))
    ap.add_argument("--jdepp-build", type=Path, default=PEER_BUILD)
    ap.add_argument("--jdepp-data", type=Path, default=PEER_WORK / "data",
                    help="train.JDP and test.JDP written by the peer kit's convert.py")
    ap.add_argument("--jdepp-cache", type=Path, default=PEER_WORK / "models",
                    help="a folder of jdepp_dD models whose compiled pecco files may be reused (copied) when identical")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "conjunct-bench-jdepp")
    ap.add_argument("--quick", action="store_true", help="2 rounds, 5 passes, fast methods only, d = 2")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.passes, args.degrees, args.methods = 2, 5, [2], "PKE,FST,pke,split,fstrie"
    args.methods = args.methods.split(",")
    for f in ("jdepp_notimer", "jdepp_bench_notimer"):
        if not (args.jdepp_build / f).exists():
            sys.exit(f"{args.jdepp_build / f} not found: build J.DepP with the peer kit's build/build.sh")
    from conjunct.tasks.bunsetsu import is_head_final_projective, load_gsd_bunsetsu

    data = require_shared_data() / "ud_japanese_gsd"
    train, test = load_gsd_bunsetsu(data, "train"), load_gsd_bunsetsu(data, "test")
    for name, expected in (("train", sum(map(is_head_final_projective, (s.heads for s in train)))), ("test", len(test))):
        path = args.jdepp_data / f"{name}.JDP"
        n = sum(line == "EOS\n" for line in open(path, encoding="utf-8")) if path.exists() else None
        if n != expected:
            sys.exit(f"{path}: {n} sentences, expected {expected}: write it with the peer kit's convert.py")
    args.work.mkdir(parents=True, exist_ok=True)
    results = [run_degree(d, args, train, test, args.work) for d in args.degrees]
    md = []
    for r in results:
        d, rows = r["degree"], r["methods"]
        table = [[row["system"], row["method"], f"{100 * row['dependency_accuracy']:.2f}%", f"{100 * row['sentence_accuracy']:.2f}%",
                  f"{row['cold_sentences_per_s']:,.0f}", "" if row["warm_sentences_per_s"] is None else f"{row['warm_sentences_per_s']:,.0f}",
                  f"{row['max_rss_mb']:,.0f}"] for row in rows.values()]
        md.append(f"## d = {d}\n\n" + markdown_table(["system", "method", "dep. acc.", "sent. acc.", "cold sent/s", "warm sent/s",
                                                        "peak RSS MB"], table))
        summary = {}
        for system in SYSTEMS:
            cold, cm = best(rows, system, "cold_sentences_per_s")
            warm, wm = best(rows, system, "warm_sentences_per_s")
            if cold is not None:
                summary[system] = (cold, cm, warm, wm)
        jc, jcm, jw, jwm = summary["J.DepP"]
        r["best"] = {s: {"cold": c, "cold_method": cm, "warm": w, "warm_method": wm} for s, (c, cm, w, wm) in summary.items()}
        r["best"]["ratio"] = {s: {"cold": c / jc, "warm": w / jw} for s, (c, _, w, _) in summary.items() if s != "J.DepP"}
        jt, ct = r["jdepp_training"]["train"]["cpu_s"], r["conjunct_training"]["train"]["cpu_s"]
        ours = [s for s in SYSTEMS[1:] if s in summary]
        md.append(markdown_table(["", "J.DepP"] + ours + [f"{s} / J.DepP" for s in ours], [
            ["best cold sent/s", f"{jc:,.0f} ({jcm})"] + [f"{summary[s][0]:,.0f} ({summary[s][1]})" for s in ours]
            + [f"{summary[s][0] / jc:.2f}x" for s in ours],
            ["best warm sent/s", f"{jw:,.0f} ({jwm})"] + [f"{summary[s][2]:,.0f} ({summary[s][3]})" for s in ours]
            + [f"{summary[s][2] / jw:.2f}x" for s in ours],
            ["cold / warm", ""] + [f"{summary[s][0] / summary[s][2]:.2f}" for s in ours] + [""] * len(ours),
            ["training CPU s", f"{jt:.1f}"] + [f"{ct:.1f}"] * len(ours) + [f"{ct / jt:.2f}x"] * len(ours),
        ]))
    write_results("jdepp" + ("_quick" if args.quick else ""),
                  {"results": results, "args": {k: shown_path(v) if isinstance(v, Path) else str(v)
                                                 for k, v in vars(args).items()}, "pass_covers": PASS_COVERS,
                   **peer_work_shown()},
                  "\n\n".join(md + ["What one pass covers:\n\n" + "\n".join(f"- {k}: {v}" for k, v in PASS_COVERS.items())]))
    print("\n\n".join(md))


if __name__ == "__main__":
    main()
