"""Training time against opal (J.DepP's learner) on the same examples.

The examples are J.DepP's own training vectors, ``depnd.p0.train`` (svmlight
style, written when the peer kit's ``scripts/train.py`` trained J.DepP; 66,592
bunsetsu-pair decisions of UD Japanese GSD train, about 32 features each),
read by our svmlight reader. Both learners get the same settings: polynomial
kernel of degree d, PA-I, C = 1, 10 epochs, averaging, shuffling, kernel
slicing -- opal's ``-t 1 -d D -c 1 -i 10 -a -s -k -p`` against
``PAClassifier(degree=D, margin="slicing")`` with each step rule: ours
(``step="kernel"``, the default: q = k(x, x)) and opal's (``step="opal"``:
q = |x|, with opal's example order policy ``shuffle="once"``: opal's model). ``--order file`` turns shuffling off on both sides
(the same example order: opal's model, up to rounding).

Two tasks per degree, each run of each learner in a fresh process, in
interleaved rounds whose order rotates (medians):

- ``all``: every example (the work J.DepP does when it trains);
- ``held-out``: the first 90% of the file, then accuracy on the last 10%.

Reported per learner: CPU and wall seconds of the process, the learner's own
time for reading and for training, peak RSS, support vectors, and held-out
accuracy. opal is run by ``benchmarks/peers/opal_train.cc``, a small driver
compiled against the kit's unmodified ``pa.h`` (built with the kit's flags,
``g++ -O2``). With ``step="kernel"`` the models differ by design: opal's PA
step uses |x| where conjunct's default uses the kernel norm
k(x, x) = (|x| + 1)^d (DESIGN.md), so its steps are smaller and it keeps more
support vectors; ``step="opal"`` trains opal's model.

    python benchmarks/bench_pecco_train.py                     # d = 2, 3; 3 rounds
    python benchmarks/bench_pecco_train.py --degrees 2 --rounds 5
    python benchmarks/bench_pecco_train.py --work ../peer/work # where the kit's train.py wrote its models
    python benchmarks/bench_pecco_train.py --degrees 2 --rounds 1 --tasks all --sweep-degree 0   # a quick check

It then trains ours on every example with other settings of the same model
(common features N, reuse, termination; --sweep-degree, --sweep-epochs) to show
where the automatic settings stand.

``run_pecco_train(...)`` does the work and returns the results, for
``bench_pecco.py``.
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
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from _common import ROOT, markdown_table, write_results

DRIVER = ROOT / "benchmarks" / "peers" / "opal_train.cc"
DEFAULT_KIT = ROOT.parent / "shared" / "peers" / "jdepp"
DEFAULT_WORK = ROOT.parent / "peer" / "work"


# step=opal also takes opal's example order policy, one shuffle for all epochs (opal's -s); with a
# new order every epoch it keeps about 5% more support vectors on these data.
SYSTEMS = {"opal": None, "conjunct": {"step": "kernel"}, "conjunct step=opal": {"step": "opal", "shuffle": "once"}}


def opal_options(degree: int, shuffle: bool = True) -> List[str]:
    return ["-t", "1", "-d", str(degree), "-c", "1", "-i", "10", "-a", *(["-s"] if shuffle else []), "-k", "-p"]


def build_driver(kit: Path, build: Path) -> Path:
    """Compile the opal driver (once per build folder) with the kit's flags."""
    build.mkdir(parents=True, exist_ok=True)
    binary = build / "opal_train"
    if binary.exists() and binary.stat().st_mtime >= DRIVER.stat().st_mtime:
        return binary
    cxx = os.environ.get("CXX", "g++")
    cmd = [cxx, "-O2", "-DHAVE_CONFIG_H", "-DNO_TIMER", f"-I{kit / 'build'}", f"-I{kit / 'upstream' / 'jdepp'}",
           "-o", str(binary), str(DRIVER)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"building the opal driver failed:\n{' '.join(cmd)}\n{res.stderr[-2000:]}")
    return binary


def split_file(src: Path, folder: Path, share: float = 0.9) -> Dict[str, Path]:
    """The file's first `share` of lines (train) and the rest (held-out)."""
    lines = src.read_text().splitlines(keepends=True)
    cut = int(len(lines) * share)
    train, test = folder / f"{src.parent.name}.train", folder / f"{src.parent.name}.test"
    train.write_text("".join(lines[:cut]))
    test.write_text("".join(lines[cut:]))
    return {"train": train, "test": test, "n_train": cut, "n_test": len(lines) - cut}


def measured(cmd: Sequence[str]) -> dict:
    """Runs cmd in a fresh process: its wall time, CPU seconds and peak RSS (from wait4), stdout and stderr."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        r = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
             "stdout": out.read(), "stderr": err.read()}
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r['stderr'][-2000:]}")
    return r


def opal_run(binary: Path, degree: int, train: Path, test: Optional[Path], model: Path, shuffle: bool = True) -> dict:
    # opal writes its model (as J.DepP does) unless it tests right after training.
    r = measured([str(binary), *opal_options(degree, shuffle), str(train), "-" if test else str(model),
                  str(test) if test else "-"])
    err = r["stderr"].replace("\r", "\n")
    out = {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "max_rss_mb": r["max_rss_mb"]}
    for line in err.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("read_seconds", "train_seconds"):
            out[parts[0].replace("_seconds", "_s")] = float(parts[1])
        if "#SV=" in line:
            out["support_vectors"] = int(line.split("#SV=")[-1].split(";")[0])
        if "acc." in line:
            out["accuracy"] = float(line.split("acc.")[1].split()[0])
    return out


def conjunct_run(degree: int, train: Path, test: Optional[Path], n_iter: int = 10, params: Optional[dict] = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(degree), str(train), str(test) if test else "-",
           str(n_iter), json.dumps(params or {})]
    r = measured(cmd)
    out = json.loads(r["stdout"].strip().splitlines()[-1])
    out.update(wall_s=r["wall_s"], cpu_s=r["cpu_s"], max_rss_mb=r["max_rss_mb"])
    return out


def worker(degree: int, train: str, test: Optional[str], n_iter: int, params: dict) -> None:
    """One conjunct training in this process; prints a JSON line."""
    import numpy as np
    import scipy.sparse as sp

    from conjunct.io.data import read_svmlight
    from conjunct.training import PAClassifier

    t0 = time.process_time()
    X, y = read_svmlight(train)
    t1 = time.process_time()
    params = dict(params)
    shuffle = params.pop("shuffle", True)
    clf = PAClassifier(degree=degree, C=1.0, n_iter=n_iter, margin="slicing", average=True, shuffle=shuffle,
                       random_state=0, **params)
    clf.fit(X, y)
    t2 = time.process_time()
    import resource

    out = {"read_s": t1 - t0, "train_s": t2 - t1, "support_vectors": int(clf.n_support_),
           "common_features": int(clf.stats_["common_features"]),
           # peak RSS up to the end of training (the process's peak also covers the held-out test)
           "train_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if test:
        Xt, yt = read_svmlight(test)
        Xt = Xt[:, :X.shape[1]] if Xt.shape[1] >= X.shape[1] else sp.hstack([Xt, sp.csr_matrix((Xt.shape[0], X.shape[1] - Xt.shape[1]))]).tocsr()
        # pki: exact and small (pke's tables at d = 3 would dwarf the training's memory); features unseen in training dropped
        out["accuracy"] = float(np.mean(clf.model_.compile("pki").predict(Xt) == yt))
    print(json.dumps(out), flush=True)


def run_pecco_train(work: Path = DEFAULT_WORK, kit: Path = DEFAULT_KIT, degrees: Sequence[int] = (2, 3), rounds: int = 3,
                    build: Optional[Path] = None, tasks: Sequence[str] = ("all", "held-out"), verbose: bool = True,
                    systems: Sequence[str] = tuple(SYSTEMS), shuffle: bool = True) -> dict:
    """Times opal and PAClassifier (each step rule) on J.DepP's training vectors; returns the results (see the module doc)."""
    build = Path(build or Path(tempfile.gettempdir()) / "conjunct-opal-train")
    binary = build_driver(Path(kit), build)
    results = []
    scratch = Path(tempfile.mkdtemp(prefix="pecco-train-"))
    try:
        for d in degrees:
            src = Path(work) / "models" / f"jdepp_d{d}" / "depnd.p0.train"
            if not src.exists():
                sys.exit(f"{src} not found: train J.DepP with the peer kit first (scripts/train.py DATA WORK BUILD --degree {d})")
            (scratch / f"d{d}").mkdir()
            parts = split_file(src, scratch / f"d{d}")
            inputs = {"all": (src, None), "held-out": (parts["train"], parts["test"])}
            runs = {(task, system): [] for task in tasks for system in systems}
            for r in range(rounds):
                keys = list(runs)
                keys = keys[r % len(keys):] + keys[:r % len(keys)]
                for task, system in keys:
                    train, test = inputs[task]
                    res = (opal_run(binary, d, train, test, scratch / f"d{d}" / "opal.model", shuffle) if system == "opal"
                           else conjunct_run(d, train, test, params=dict(
                               SYSTEMS[system], shuffle=SYSTEMS[system].get("shuffle", True) if shuffle else False)))
                    runs[(task, system)].append(res)
                    if verbose:
                        print(f"d={d} {task:8s} {system:8s} round {r}: cpu {res['cpu_s']:.2f} s, train {res.get('train_s', 0):.2f} s, "
                              f"SVs {res.get('support_vectors')}, acc {res.get('accuracy')}", flush=True)
            for (task, system), rs in runs.items():
                row = {"degree": d, "task": task, "system": system, "rounds": len(rs),
                       "examples": parts["n_train"] if task == "held-out" else parts["n_train"] + parts["n_test"]}
                for k in ("cpu_s", "wall_s", "read_s", "train_s", "max_rss_mb", "train_rss_mb"):
                    vals = [x[k] for x in rs if x.get(k) is not None]
                    row[k] = statistics.median(vals) if vals else None
                row["support_vectors"] = rs[-1].get("support_vectors")
                row["accuracy"] = rs[-1].get("accuracy")
                results.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    by = {(r["degree"], r["task"], r["system"]): r for r in results}
    for r in results:
        o = by.get((r["degree"], r["task"], "opal"))
        if r["system"] != "opal" and o is not None:
            r["cpu_vs_opal"] = o["cpu_s"] / r["cpu_s"]
            r["train_vs_opal"] = o["train_s"] / r["train_s"] if o.get("train_s") and r.get("train_s") else None
            r["svs_vs_opal"] = r["support_vectors"] / o["support_vectors"] if o.get("support_vectors") else None
            # opal's process peak against ours up to the end of training (the same work: read and train)
            mine = r.get("train_rss_mb") or r["max_rss_mb"]
            r["rss_vs_opal"] = mine / o["max_rss_mb"] if o.get("max_rss_mb") and mine else None
    return {"options": " ".join(opal_options(0, shuffle)).replace("-d 0", "-d D"), "shuffle": shuffle, "rows": results}


def markdown(res: dict) -> str:
    def ratio(v, digits=2):
        return f"{v:.{digits}f}x" if v else ""

    rows = [[r["degree"], r["task"], r["system"], r["examples"], r["cpu_s"], r["wall_s"], r.get("read_s"), r.get("train_s"),
             r["max_rss_mb"] if r["max_rss_mb"] is not None else "", r.get("train_rss_mb") or "", r["support_vectors"],
             f"{r['accuracy']:.4f}" if r["accuracy"] is not None else "",
             ratio(r.get("train_vs_opal")), ratio(r.get("svs_vs_opal"), 3), ratio(r.get("rss_vs_opal"))] for r in res["rows"]]
    order = ("shuffled (opal and `conjunct step=opal` once, `conjunct` every epoch)" if res.get("shuffle", True)
             else "the file's order on both sides")
    return ("opal (`" + res["options"] + "`) against `PAClassifier(degree=D, margin=\"slicing\")` with its default "
            "step (`conjunct`, q = k(x, x)) and with opal's (`conjunct step=opal`, q = |x|) on J.DepP's "
            f"training vectors; example order: {order}. Each run a fresh process, medians of interleaved rounds. "
            "Seconds; `read s` and `train s` are the learner's own CPU time for reading the file and for training; "
            "`train vs opal` is opal's train s / ours (above 1: faster than opal); `SVs vs opal` is ours / opal's; "
            "`peak RSS MB` is the process's (ours includes the held-out test), `train RSS MB` ours up to the end of "
            "training, and `RSS vs opal` that against opal's process peak.\n\n"
            + markdown_table(["d", "task", "learner", "examples", "process CPU s", "wall s", "read s", "train s",
                              "peak RSS MB", "train RSS MB", "SVs", "held-out acc.", "train vs opal", "SVs vs opal",
                              "RSS vs opal"], rows))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3], None if sys.argv[4] == "-" else sys.argv[4], int(sys.argv[5]),
               json.loads(sys.argv[6]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK, help="the peer kit's work folder (models/jdepp_dD/depnd.p0.train)")
    ap.add_argument("--kit", type=Path, default=DEFAULT_KIT, help="the J.DepP peer kit (for opal's pa.h)")
    ap.add_argument("--build", type=Path, default=None, help="where to build the opal driver")
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", nargs="+", default=["all", "held-out"], choices=["all", "held-out"])
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS),
                    help="learners to run (default: opal and both of our step rules)")
    ap.add_argument("--order", choices=["shuffled", "file"], default="shuffled",
                    help="shuffled: opal -s and ours shuffled (default); file: the file's order on both sides")
    ap.add_argument("--sweep-degree", type=int, default=3,
                    help="also train ours with other settings (same model, other speed) at this degree; 0: skip")
    ap.add_argument("--sweep-epochs", type=int, default=3)
    ap.add_argument("--name", default="pecco_train")
    args = ap.parse_args()
    res = run_pecco_train(args.work, args.kit, args.degrees, args.rounds, args.build, args.tasks,
                          systems=args.systems, shuffle=args.order == "shuffled")
    md = markdown(res)
    if args.sweep_degree:
        res["sweep"] = sweep(args.work, args.sweep_degree, args.sweep_epochs)
        md += ("\n\nOur settings that change speed but not the model, on every example, "
               f"d = {args.sweep_degree}, {args.sweep_epochs} epochs (one run each, fresh processes):\n\n"
               + markdown_table(["settings", "N used", "train CPU s", "SVs"],
                                [[json.dumps(r["params"]) if r["params"] else "defaults", r["common_features"], r["train_s"],
                                  r["support_vectors"]] for r in res["sweep"]]))
    write_results(args.name, res, md)
    print(md)


SWEEP = [{}, {"common_features": 100}, {"common_features": 1000}, {"common_features": 3000}, {"reuse": False},
         {"terminate": False}, {"terminate": True}]


def sweep(work: Path, degree: int, epochs: int) -> List[dict]:
    """Training CPU time of ours under SWEEP's settings (every one trains the same model)."""
    src = Path(work) / "models" / f"jdepp_d{degree}" / "depnd.p0.train"
    rows = []
    for params in SWEEP:
        r = conjunct_run(degree, src, None, epochs, params)
        rows.append({"params": params, "train_s": r["train_s"], "support_vectors": r["support_vectors"],
                     "common_features": r["common_features"]})
        print(f"sweep {params}: train {r['train_s']:.2f} s", flush=True)
    return rows


if __name__ == "__main__":
    main()
