"""conjunct against pecco (J.DepP's classifier) on the same model and the same vectors.

Classification alone, in both directions, at each degree:

- ``jdepp``: J.DepP's opal model (``depnd.p0`` of the peer kit's work folder),
  imported with ``conjunct.io.importers.from_opal``; the vectors are the ones
  J.DepP's parser classifies on the test set (``jdepp_bench dump``); the FST /
  fstrie events are J.DepP's ``depnd.p0.event``.
- ``conjunct``: conjunct's bunsetsu model (the kit's ``conjunct_d{d}.cjt``)
  exported to opal's format by the kit's ``export_to_pecco.py``; the vectors
  are the ones conjunct's parser classifies on the test set; the events are
  the ones it classifies on the training text.

pecco's PKI, PKE, FST and PMT (exact settings ``-m 1 -s 0 -r 0 -i 0``) are
timed by ``jdepp_bench clf`` (one C++ call per vector: ``binClassify``, its
pruned decision, and ``classify<false>``, its full margin). conjunct's methods
are timed in this process: one batch call per pass (``predict``, the early-exit
decision, and ``decision_function``, the full margin; the C++ loop classifies
row by row through the single-vector path), and per vector from Python
(``predict_one``, for information: it adds Python's call overhead). Rounds are
interleaved, their order rotates, and comparable methods (PKI and pki, PKE and
pke, FST and fstrie) run back to back, in turns; figures are medians over
passes, in µs per vector, and the best methods' speed-up is also given round by
round. PMT caches partial margins, so a later pass over the same vectors
replays its cache: PMT counts only the first pass of each process. conjunct's
``adaptive`` (the same idea, issue 14 item 2) is paired with it and has its
cache emptied before every timed call, so each of its passes is a first pass.

Build: seconds and peak RSS of a fresh process that compiles the classifier
(pecco: from the model text with no compiled files; conjunct: from the model
file), and the classifier's memory. Exactness: every method's margins against
the reference (pecco's PKE in the jdepp direction, conjunct's PKE in the other)
and every decision against the reference decisions.

Needs the peer kit built and trained (``../peer/jdepp-build`` and
``../peer/work`` beside the project, or ``$CONJUNCT_PEER``; ``--build``, ``--work``; see ``../shared/peers/jdepp/README.md``); pecco's compiled
files go to a scratch folder, never into the work folder.

    python benchmarks/bench_pecco.py                        # d = 2 and 3, both models
    python benchmarks/bench_pecco.py --quick                # d = 2, fast methods, short
    python benchmarks/bench_pecco.py --degrees 2 --models jdepp --methods PKE,pke,fstrie
    python benchmarks/bench_pecco.py --train                # and the training comparison (bench_pecco_train.py)

The report ends with the training comparison's latest results
(``results/pecco_train.md``, with its own command and commit): ``--train``
runs it again first.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import scipy.sparse as sp

from _common import PEER_BUILD, PEER_WORK, ROOT, markdown_table, require_shared_data, write_results

KIT = ROOT.parent / "shared" / "peers" / "jdepp"
PECCO = {"PKI": ["-t", "0"], "PKE": ["-t", "1"], "FST": ["-t", "2"], "PMT": ["-t", "3"]}
EXACT = ["-m", "1", "-s", "0", "-r", "0", "-i", "0"]  # pecco's defaults, spelled out: all exact
CONJUNCT = ["pkb", "pki", "pke", "split", "fstrie", "adaptive"]
SLOW = {"PKI", "pkb"}  # O(|SV|) per vector: fewer passes
MEDIUM = {"pki"}  # O(postings): a third of the passes, in every round
COLD = {"adaptive"}  # its cache is emptied before every call, so every pass is a first pass
CACHE_REPLAY = {"PMT"}  # later passes replay its partial-margin cache
PECCO_SOURCES = ("depnd.p0", "depnd.p0.train", "depnd.p0.event", "dic.utf8")


def pecco_options(method: str) -> List[str]:
    return PECCO[method] + ([] if method == "PKI" else EXACT)  # PKI rejects the PKE options


@dataclass
class Direction:
    """One model and the vectors both libraries classify."""

    name: str  # "jdepp" or "conjunct"
    degree: int
    model_dir: Path  # pecco's model folder (a scratch copy)
    vectors: Path  # jdepp_bench's vector format: si i j decision margin ids...
    offset: int  # pecco id = conjunct column + offset
    model: object  # conjunct KernelModel
    X: sp.csr_matrix = None
    events: sp.csr_matrix = None
    ref_margin: np.ndarray = None
    ref_decision: np.ndarray = None
    reference: str = ""
    info: dict = field(default_factory=dict)


# -- running the peer ----------------------------------------------------------------------------
def peak_rss_mb(pid) -> float:
    """VmHWM of a live process (its own peak: ru_maxrss would include this big parent's, which
    Linux carries across fork and exec), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_tool(args: List[str]) -> tuple:
    """(stdout, {wall_s, cpu_s, max_rss_mb}) of a child process; its peak RSS is polled while it runs."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(args, stdout=out, stderr=err)
        peak = 0.0
        while p.poll() is None:
            peak = max(peak, peak_rss_mb(p.pid))
            time.sleep(0.01)
        wall = time.perf_counter() - start
        out.seek(0), err.seek(0)
        so, se = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    if p.returncode:
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{se[-2000:]}")
    return so, {"wall_s": wall, "max_rss_mb": peak}


def key_values(line: str) -> dict:
    out = {}
    for tok in line.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            try:
                out[k] = float(v)
            except ValueError:
                pass
    return out


def pecco_passes(build: Path, d: Direction, method: str, reps: int, margins_out: Path) -> tuple:
    so, proc = run_tool([str(build / "jdepp_bench_notimer"), "clf", str(d.model_dir), str(d.vectors), str(reps),
                         str(margins_out), "--", "--", "--", *pecco_options(method)])
    passes = [key_values(line) for line in so.splitlines() if line.startswith("CLF")]
    return [{"decide_s": p["bin_s"], "margin_s": p["margin_s"], "positives": int(p["positives"])} for p in passes], proc


def pecco_build(build: Path, d: Direction, method: str, scratch: Path) -> dict:
    """Seconds and peak RSS of pecco compiling `method` from the model text (no compiled files)."""
    fresh = scratch / f"build_{d.name}_d{d.degree}_{method}"
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    for name in PECCO_SOURCES:
        shutil.copy2(d.model_dir / name, fresh / name)
    so, proc = run_tool([str(build / "jdepp_bench_notimer"), "clf", str(fresh), str(d.vectors), "1", os.devnull,
                         "--", "--", "--", *pecco_options(method)])
    load = next(key_values(line) for line in so.splitlines() if line.startswith("LOAD"))
    files = sum(f.stat().st_size for f in fresh.iterdir() if f.name not in PECCO_SOURCES)
    shutil.rmtree(fresh, ignore_errors=True)
    return {"seconds": load["classifier_s"], "max_rss_mb": proc["max_rss_mb"], "compiled_file_mb": files / 1e6}


# -- the two directions ----------------------------------------------------------------------------
def read_vectors(path: Path, offset: int, width: int):
    flags, margins, rows = [], [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            flags.append(int(t[3]))
            margins.append(float(t[4]))
            rows.append([int(x) - offset for x in t[5:]])
    return np.array(flags), np.array(margins), csr(rows, width)


def read_events(path: Path, offset: int, width: int) -> sp.csr_matrix:
    with open(path) as f:
        return csr([[int(x.split(":")[0]) - offset for x in line.split()[1:]] for line in f], width)


def csr(rows, width: int) -> sp.csr_matrix:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.fromiter((c for r in rows for c in r), dtype=np.int32, count=int(indptr[-1]))
    width = max(width, int(indices.max()) + 1 if indices.size else 0)
    X = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(len(rows), width))
    X.sort_indices()
    return X


def copy_model_dir(source: Path, target: Path) -> None:
    """pecco writes its compiled files beside the model: work on a copy (times kept, so
    compiled files stay newer than the model and are reused)."""
    if not target.is_dir():
        shutil.copytree(source, target, copy_function=shutil.copy2)


def jdepp_direction(a, degree: int) -> Direction:
    from conjunct.io.importers import from_opal

    d = Direction("jdepp", degree, a.scratch / f"jdepp_d{degree}", a.scratch / f"jdepp_d{degree}.vectors.txt", 0, None)
    copy_model_dir(a.work / "models" / f"jdepp_d{degree}", d.model_dir)
    if not d.vectors.exists():
        run_tool([str(a.build / "jdepp_bench_notimer"), "dump", str(d.model_dir), str(a.work / "data" / "test.JDP"),
                  str(d.vectors), "--", "--", "--", *pecco_options("PKE")])
    d.model = from_opal(str(d.model_dir / "depnd.p0"))
    d.reference = "pecco PKE margin, J.DepP binClassify decision"
    return d


def conjunct_direction(a, degree: int) -> Direction:
    import conjunct

    work = a.scratch / "work"  # the kit's export writes into WORK/models and WORK/results
    (work / "models" / f"jdepp_d{degree}").mkdir(parents=True, exist_ok=True)
    for src, dst in ((a.work / "models" / f"conjunct_d{degree}.cjt", work / "models" / f"conjunct_d{degree}.cjt"),
                     (a.work / "models" / f"jdepp_d{degree}" / "dic.utf8", work / "models" / f"jdepp_d{degree}" / "dic.utf8")):
        if not dst.exists():
            shutil.copy2(src, dst)
    model_dir = work / "models" / f"conjunct_d{degree}_in_pecco"
    vectors = work / "results" / f"conjunct_d{degree}.vectors.txt"
    if not (model_dir / "depnd.p0").exists() or not vectors.exists():
        sys.path.insert(0, str(KIT / "scripts"))
        from export_to_pecco import export

        export(str(a.data), str(work), degree)
    d = Direction("conjunct", degree, model_dir, vectors, 1, None)
    d.model = conjunct.load(work / "models" / f"conjunct_d{degree}.cjt").models_["depends"]
    d.reference = "conjunct PKE margin, conjunct predict decision"
    return d


def load_vectors(d: Direction) -> None:
    width = d.model.n_columns
    d.ref_decision, d.ref_margin, d.X = read_vectors(d.vectors, d.offset, width)
    d.events = read_events(d.model_dir / "depnd.p0.event", d.offset, width)
    d.info = {"vectors": d.X.shape[0], "mean_active_features": float(np.diff(d.X.indptr).mean()),
              "events": d.events.shape[0], "support_vectors": d.model.n_support_vectors, "reference": d.reference}


# -- conjunct's side ---------------------------------------------------------------------------------
def compile_params(d: Direction, method: str) -> dict:
    return {"events": d.events} if method == "fstrie" else {}


def conjunct_build(d: Direction, method: str) -> dict:
    """Seconds and peak RSS of a fresh process that loads the model and compiles `method`."""
    spec = {"model": "opal" if d.name == "jdepp" else "cjt", "degree": d.degree, "method": method,
            "path": str(d.model_dir / "depnd.p0") if d.name == "jdepp" else str(d.model_dir.parent / f"conjunct_d{d.degree}.cjt"),
            "events": str(d.model_dir / "depnd.p0.event") if method == "fstrie" else None, "offset": d.offset}
    out = subprocess.run([sys.executable, __file__, "--build-worker", json.dumps(spec)], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def build_worker(spec: dict) -> None:
    import conjunct
    from conjunct.io.importers import from_opal

    model = from_opal(spec["path"]) if spec["model"] == "opal" else conjunct.load(spec["path"]).models_["depends"]
    params = {"events": read_events(Path(spec["events"]), spec["offset"], model.n_columns)} if spec["events"] else {}
    before = peak_rss_mb(os.getpid())
    start = time.perf_counter()
    clf = model.compile(spec["method"], **params)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "max_rss_mb": peak_rss_mb(os.getpid()), "rss_before_compile_mb": before,
                      "classifier_mb": clf.nbytes / 1e6}))


def conjunct_passes(clf, X, reps: int) -> list:
    """Timed predict and decision_function passes; an adaptive classifier starts
    each from an empty cache (as PMT's first pass), outside the timing."""
    cold = clf.method in COLD
    passes = []
    for _ in range(reps):
        if cold:
            clf.clear_cache()
        t0 = time.perf_counter()
        clf.predict(X)
        t1 = time.perf_counter()
        if cold:
            clf.clear_cache()
            t1 = time.perf_counter()
        clf.decision_function(X)
        t2 = time.perf_counter()
        passes.append({"decide_s": t1 - t0, "margin_s": t2 - t1})
    return passes


def per_vector_us(clf, X, rows: Optional[int] = 2000) -> float:
    """µs per predict_one call from Python (first `rows` vectors)."""
    vectors = [X.indices[X.indptr[i]:X.indptr[i + 1]].astype(np.int32) for i in range(min(rows, X.shape[0]))]
    start = time.perf_counter()
    for v in vectors:
        clf.predict_one(v)
    return (time.perf_counter() - start) / len(vectors) * 1e6


def early_exit_stats(clf, X) -> dict:
    """Share of decisions `predict` settled early, and positions (features known
    to the model) it skipped per decision, out of those it had."""
    from conjunct import _core

    col_map = clf.arrays["col_map"]
    inside = X.indices < col_map.size
    known = np.zeros(X.nnz, dtype=bool)
    known[inside] = col_map[X.indices[inside]] >= 0
    _core.early_exit_counters(True)
    clf.predict(X)
    stops, skipped = _core.early_exit_counters(True)
    n = X.shape[0]
    return {"stopped_share": stops / n, "positions_skipped_per_decision": skipped / n,
            "positions_per_decision": float(known.sum()) / n}


def check(d: Direction, margins: np.ndarray, decisions: np.ndarray) -> dict:
    scale = float(np.max(np.abs(d.ref_margin))) or 1.0
    return {"max_rel_margin_diff": float(np.max(np.abs(margins - d.ref_margin)) / scale),
            "decisions_agree": float(np.mean((decisions == 1) == (d.ref_decision == 1)))}


# -- one comparison --------------------------------------------------------------------------------
def compare(a, d: Direction) -> dict:
    """Every method of both libraries on one direction and degree."""
    load_vectors(d)
    n = d.X.shape[0]
    methods = a.methods
    res = {"model": d.name, "degree": d.degree, **d.info, "build": {}, "memory_mb": {}, "agreement": {}, "passes": {},
           "per_vector_from_python_us": {}}
    clfs = {}
    for m in [m for m in CONJUNCT if m in methods]:
        say(f"{d.name} d={d.degree}: compiling conjunct {m}")
        clfs[m] = d.model.compile(m, **compile_params(d, m))
        res["memory_mb"][f"conjunct:{m}"] = clfs[m].nbytes / 1e6
        res["agreement"][f"conjunct:{m}"] = check(d, clfs[m].decision_function(d.X), clfs[m].predict(d.X))
        if a.builds:
            res["build"][f"conjunct:{m}"] = conjunct_build(d, m)
    for m in [m for m in PECCO if m in methods]:
        if a.builds:
            say(f"{d.name} d={d.degree}: pecco {m} build from the model text")
            res["build"][f"pecco:{m}"] = pecco_build(a.build, d, m, a.scratch)
    units = unit_order(methods)
    margins_out = {m: a.scratch / f"margins_{d.name}_d{d.degree}_{m}.txt" for m in PECCO}
    for rnd in range(a.rounds):
        k = rnd % len(units)
        for lib, m in [u for pair in units[k:] + units[:k] for u in (pair if rnd % 2 == 0 else pair[::-1])]:
            slow = m in SLOW
            if slow and rnd >= a.slow_rounds:
                continue
            reps = a.slow_reps if slow else max(1, a.reps // 3) if m in MEDIUM else a.reps
            if lib == "pecco":
                passes, proc = pecco_passes(a.build, d, m, reps, margins_out[m])
                res.setdefault("pecco_process", {}).setdefault(m, []).append(proc)
                if any(p["positives"] != int(np.sum(d.ref_decision == 1)) for p in passes):
                    res["agreement"].setdefault(f"pecco:{m}", {})["positives_differ"] = True
            else:
                passes = conjunct_passes(clfs[m], d.X, reps)
            res["passes"].setdefault(f"{lib}:{m}", []).append(passes)
        say(f"{d.name} d={d.degree}: round {rnd + 1}/{a.rounds} done")
    for m in [m for m in PECCO if m in methods]:
        margins = np.loadtxt(margins_out[m], ndmin=1)
        res["agreement"].setdefault(f"pecco:{m}", {})["max_rel_margin_diff"] = float(
            np.max(np.abs(margins - d.ref_margin)) / (np.max(np.abs(d.ref_margin)) or 1.0))
    for m, clf in clfs.items():
        res["per_vector_from_python_us"][m] = per_vector_us(clf, d.X)
        res.setdefault("early_exit", {})[m] = early_exit_stats(clf, d.X)
    res["summary"] = summarize(res["passes"], n)
    res["best"] = best_of(res["summary"])
    res["best"].update(paired_speedup(res["passes"], res["best"]))
    bad = [k for k, v in res["agreement"].items()
           if v.get("max_rel_margin_diff", 0) > 1e-9 or v.get("decisions_agree", 1) < 1 or v.get("positives_differ")]
    res["exact"], res["inexact"] = not bad, bad
    return res


# The methods that do the same work side by side: each pair runs back to back
# (in turns, first one then the other), so they meet the same machine load.
PAIRS = [("PKI", "pki"), ("PKE", "pke"), ("FST", "fstrie"), ("PMT", "adaptive"), (None, "split"), (None, "pkb")]


def unit_order(methods: List[str]) -> List[list]:
    """Rounds' units, as adjacent pairs of a pecco and a conjunct method."""
    pairs = []
    for p, c in PAIRS:
        pair = [u for u in (("pecco", p), ("conjunct", c)) if u[1] in methods]
        if pair:
            pairs.append(pair)
    return pairs


def summarize(passes: Dict[str, list], n: int) -> dict:
    out = {}
    for key, rounds in passes.items():
        cold_only = key.split(":")[1] in CACHE_REPLAY
        use = [r[0] for r in rounds] if cold_only else [p for r in rounds for p in r]
        out[key] = {"decide_us": statistics.median(p["decide_s"] for p in use) / n * 1e6,
                    "margin_us": None if cold_only else statistics.median(p["margin_s"] for p in use) / n * 1e6,
                    "passes": len(use)}
    return out


def best_of(summary: dict) -> dict:
    """Per library, the fastest exact way to a decision: min over methods of min(decide, margin)."""
    best = {}
    for lib in ("pecco", "conjunct"):
        cands = [(v[call], k.split(":")[1], call[:-3]) for k, v in summary.items() if k.startswith(lib + ":")
                 for call in ("decide_us", "margin_us") if v[call] is not None]
        if cands:
            us, method, call = min(cands)
            best[lib] = {"us_per_decision": us, "method": method, "call": call}
    if len(best) == 2:
        best["conjunct_speedup"] = best["pecco"]["us_per_decision"] / best["conjunct"]["us_per_decision"]
    return best


def paired_speedup(passes: Dict[str, list], best: dict) -> dict:
    """The best methods' ratio round by round (each round's median passes: the two ran
    close in time, under the same machine load), and its median over rounds."""
    if "conjunct_speedup" not in best:
        return {}
    rounds = []
    p_key, c_key = f"pecco:{best['pecco']['method']}", f"conjunct:{best['conjunct']['method']}"
    p_call, c_call = best["pecco"]["call"] + "_s", best["conjunct"]["call"] + "_s"
    cold_only = best["pecco"]["method"] in CACHE_REPLAY
    for p_round, c_round in zip(passes[p_key], passes[c_key]):
        p = p_round[0][p_call] if cold_only else statistics.median(q[p_call] for q in p_round)
        rounds.append(p / statistics.median(q[c_call] for q in c_round))
    return {"conjunct_speedup_by_round": rounds, "conjunct_speedup_median_of_rounds": statistics.median(rounds)}


def markdown(results: List[dict]) -> str:
    parts = []
    for r in results:
        s, b = r["summary"], r["best"]
        head = (f"### {r['model']} model, d = {r['degree']}: {r['vectors']:,} vectors, "
                f"{r['mean_active_features']:.1f} active features each, {r['support_vectors']:,} SVs\n\n"
                f"Reference: {r['reference']}. Exact: {'yes' if r['exact'] else 'NO: ' + ', '.join(r['inexact'])}.\n")
        rows = []
        for key, v in s.items():
            lib, m = key.split(":")
            build = r["build"].get(key, {})
            rows.append([lib, m, v["decide_us"], "-" if v["margin_us"] is None else v["margin_us"],
                         r["per_vector_from_python_us"].get(m, "-") if lib == "conjunct" else "-",
                         build.get("seconds", "-"), build.get("max_rss_mb", "-"),
                         r["memory_mb"].get(key, build.get("compiled_file_mb", "-")), v["passes"]])
        table = markdown_table(["library", "method", "decide µs", "margin µs", "predict_one µs (Python)", "build s",
                                "build peak RSS MB", "classifier MB", "passes"], rows)
        lines = [head, table, ""]
        ee = r.get("early_exit", {})
        stopped = [f"{m} {v['stopped_share']:.0%} ({v['positions_skipped_per_decision']:.1f} of "
                   f"{v['positions_per_decision']:.1f} positions skipped)" for m, v in ee.items() if v["stopped_share"] > 0]
        if stopped:
            lines.append("conjunct decisions settled early: " + ", ".join(stopped) + ".\n")
        if "conjunct_speedup" in b:
            lines.append(f"Best: pecco {b['pecco']['method']} {b['pecco']['call']} {b['pecco']['us_per_decision']:.3f} µs, "
                         f"conjunct {b['conjunct']['method']} {b['conjunct']['call']} "
                         f"{b['conjunct']['us_per_decision']:.3f} µs: conjunct {b['conjunct_speedup']:.2f}x pecco "
                         f"(round by round: median {b['conjunct_speedup_median_of_rounds']:.2f}x, range "
                         f"{min(b['conjunct_speedup_by_round']):.2f}–{max(b['conjunct_speedup_by_round']):.2f}x).\n")
        parts.append("\n".join(lines))
    notes = ("pecco: `jdepp_bench clf` (one C++ call per vector; decide = binClassify with its bound pruning, margin = "
             "classify<false>). conjunct: one batch call per pass (decide = predict with early exit, margin = "
             "decision_function). PMT: first pass per process only (later passes replay its cache); adaptive: "
             "its cache emptied before every call (each pass a first pass, as PMT's). classifier MB: "
             "conjunct's arrays; for pecco, its compiled files.")
    return notes + "\n\n" + "\n".join(parts)


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--models", nargs="+", choices=["jdepp", "conjunct"], default=["jdepp", "conjunct"])
    ap.add_argument("--methods", default=",".join(list(PECCO) + CONJUNCT),
                    help="comma-separated pecco (PKI,PKE,FST,PMT) and conjunct (pkb,pki,pke,split,fstrie,adaptive) methods")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10, help="passes per round (fast methods)")
    ap.add_argument("--slow-rounds", type=int, default=2)
    ap.add_argument("--slow-reps", type=int, default=1)
    ap.add_argument("--no-builds", dest="builds", action="store_false", help="skip the build time / memory runs")
    ap.add_argument("--quick", action="store_true", help="d = 2, PKE/FST/PMT against pke/split/fstrie, 3 rounds of 5")
    ap.add_argument("--work", type=Path, default=PEER_WORK, help="the peer kit's work folder (read only)")
    ap.add_argument("--build", type=Path, default=PEER_BUILD, help="the peer kit's binaries")
    ap.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "conjunct-bench-pecco",
                    help="where pecco's compiled files, dumps and exports go")
    ap.add_argument("--name", default=None, help="results name (default pecco, or pecco_quick)")
    ap.add_argument("--train", action="store_true",
                    help="also run the training comparison (bench_pecco_train.py, opal against PAClassifier)")
    ap.add_argument("--train-rounds", type=int, default=2, help="rounds of the training comparison")
    ap.add_argument("--build-worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.quick:
        a.degrees, a.rounds, a.reps = [2], 3, 5
        a.methods = "PKE,FST,PMT,pke,split,fstrie,adaptive" if a.methods == ap.get_default("methods") else a.methods
        a.builds = False
    a.methods = a.methods.split(",")
    unknown = set(a.methods) - set(PECCO) - set(CONJUNCT)
    if unknown:
        ap.error(f"unknown methods: {', '.join(sorted(unknown))}")
    a.name = a.name or ("pecco_quick" if a.quick else "pecco")
    return a


def check_peer(a) -> None:
    """Exit with a clear message when the peer kit is not built and trained."""
    for tool in ("jdepp_bench_notimer",):
        if not os.access(a.build / tool, os.X_OK):
            sys.exit(f"{a.build / tool} missing: build the peer kit ({KIT / 'build' / 'build.sh'})")
    if not (a.work / "models").is_dir():
        sys.exit(f"{a.work}/models missing: train the peer kit ({KIT / 'scripts' / 'train.py'})")


def classification(a) -> List[dict]:
    """Classification alone, both directions, every degree: one result per (degree, model)."""
    results = []
    for degree in a.degrees:
        for which in a.models:
            d = jdepp_direction(a, degree) if which == "jdepp" else conjunct_direction(a, degree)
            results.append(compare(a, d))
            r = results[-1]
            say(json.dumps({k: r[k] for k in ("model", "degree", "best", "exact")}))
    return results


# -- training (bench_pecco_train.py: opal against PAClassifier) ---------------------------------------
def training(a) -> None:
    """Runs the training comparison, which writes results/pecco_train.{json,md}."""
    cmd = [sys.executable, str(Path(__file__).with_name("bench_pecco_train.py")), "--work", str(a.work),
           "--degrees", *map(str, a.degrees), "--rounds", str(a.train_rounds)]
    say("training: " + " ".join(cmd))
    subprocess.run(cmd, check=True)


def training_section() -> str:
    """The training comparison's latest results (its own command and commit), so
    this report shows classification and training together."""
    path = ROOT / "benchmarks" / "results" / "pecco_train.md"
    if not path.exists():
        return ""
    body = path.read_text().split("\n", 1)[1].strip()
    return ("\n\n## Training: opal against PAClassifier (benchmarks/results/pecco_train.md)\n\n"
            "From `bench_pecco_train.py` (run by `--train`, or on its own):\n\n" + body + "\n")


def main(argv=None) -> None:
    a = parse_args(argv)
    if a.build_worker:
        build_worker(json.loads(a.build_worker))
        return
    a.data = require_shared_data()
    check_peer(a)
    a.scratch.mkdir(parents=True, exist_ok=True)
    results = classification(a)
    if a.train:
        training(a)
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items() if k != "build_worker"}
    write_results(a.name, {"settings": settings, "results": results}, markdown(results) + training_section())


if __name__ == "__main__":
    main()
