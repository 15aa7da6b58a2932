"""Faults under ``--scheduler local:2``: every run is either byte-identical to
the serial run or a clear error within a bounded time, and leaves no
temporary file.

Each run is ``conjunct tag run MODEL INPUT -o OUT -q --scheduler local:2`` in
a subprocess (its own temporary directory, so pieces are counted exactly),
over --copies copies of EWT dev with a perceptron UPOS tagger, while one
fault is injected:

- none (the control);
- the worker processes killed once, or every 1.5 s (a kill storm) while the
  run lasts, up to --storm kills;
- the model file replaced once the first part is written: by ``mv`` (the
  documented safe way) and by ``cp`` over it, each with the default
  ``--on-model-change fail`` and with ``finish``; the replacement is another
  tagger whose tags are lower case, so a mix would show;
- Ctrl-C (SIGINT) to the driver once the first part is written;
- the output on a small tmpfs (mounted here when permitted: root) that cannot
  hold the parts and the joined output: disk full.

OUT exists before every run with other content. A run is **identical** when
it exits 0 and OUT equals the serial output; a **clear error** when it exits
non-zero, standard error is one ``conjunct: ...`` line (no traceback) and OUT
still holds its old content; anything else (a mix, a partial file, a
traceback, a hang past --timeout, a leftover ``.conjunct-parts-*`` folder or
``conjunct-piece-*`` file) is a failure.

``--command analyze`` runs ``conjunct analyze`` with two English text
pipelines instead (trained on --analyze-sentences sentences of EWT train with
seeds 0 and 1).

    python benchmarks/bench_dask_faults.py                 # 3 repeats of each fault
    python benchmarks/bench_dask_faults.py --quick         # 1 repeat, 1 copy
    python benchmarks/bench_dask_faults.py --command analyze --copies 1 --repeats 1
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from _common import ROOT, markdown_table, require_shared_data, write_results

OLD = b"the output before the run\n"


def workers_of(proc) -> list:
    """The worker processes of a local:N driver (multiprocessing spawns)."""
    import psutil

    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return []
    out = []
    for c in children:
        try:
            if "spawn_main" in " ".join(c.cmdline()):
                out.append(c)
        except psutil.Error:
            pass
    return out


def wait_for(cond, proc, limit=600.0) -> bool:
    t = time.monotonic()
    while not cond():
        if proc.poll() is not None or time.monotonic() - t > limit:
            return False
        time.sleep(0.05)
    return True


def run_once(fault: str, ctx: dict, timeout: float) -> dict:
    outdir = ctx["disk"] if fault == "disk full" else ctx["outdir"]
    out = os.path.join(outdir, "out.txt")
    with open(out, "wb") as f:
        f.write(OLD)
    model = os.path.join(ctx["work"], "model" + os.path.splitext(ctx["a"])[1])
    shutil.copyfile(ctx["a"], model)
    tmp = tempfile.mkdtemp(prefix="tmp-", dir=ctx["work"])
    argv = [sys.executable, "-m", "conjunct", *ctx["command"], model, ctx["input"], "-o", out,
            "--scheduler", "local:2", "--worker-timeout", str(ctx["worker_timeout"])]
    if fault.endswith("(finish)"):
        argv += ["--on-model-change", "finish"]
    env = {**os.environ, "TMPDIR": tmp, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    parts = lambda: glob.glob(os.path.join(outdir, ".conjunct-parts-*"))  # noqa: E731
    first_part = lambda: any(glob.glob(os.path.join(p, "part-*")) for p in parts())  # noqa: E731
    kills, note, t_fault = 0, "", None
    if fault.startswith("kill"):
        if wait_for(lambda: parts() and workers_of(proc), proc):
            time.sleep(1.0)  # pieces running
            t_fault = time.monotonic()
            rounds = 1 if fault == "kill once" else ctx["storm"]
            for _ in range(rounds):
                for w in workers_of(proc):
                    try:
                        w.kill()
                        kills += 1
                    except Exception:
                        pass
                if proc.poll() is not None:
                    break
                time.sleep(1.5)
    elif fault.startswith("model") or fault == "Ctrl-C":
        if wait_for(first_part, proc):
            t_fault = time.monotonic()
            if fault == "Ctrl-C":
                proc.send_signal(signal.SIGINT)
            elif " mv" in fault:
                staged = os.path.join(ctx["work"], "staged")
                shutil.copyfile(ctx["b"], staged)
                os.replace(staged, model)
            else:
                shutil.copyfile(ctx["b"], model)  # cp over it: the same inode rewritten
        else:
            note = "finished before the fault"
    try:
        _, err = proc.communicate(timeout=timeout)
        hang = False
    except subprocess.TimeoutExpired:
        hang = True
        for w in workers_of(proc):
            w.kill()
        proc.kill()
        _, err = proc.communicate()
    end = time.monotonic()
    seconds, after_fault = end - t0, None if t_fault is None else end - t_fault
    err = err.decode("utf-8", "replace").strip().replace(ctx["work"], "WORK")
    with open(out, "rb") as f:
        data = f.read()
    leftovers = parts() + glob.glob(os.path.join(tmp, "conjunct-piece-*"))
    shutil.rmtree(tmp, ignore_errors=True)
    one_line = err.count("\n") == 0 and err.startswith("conjunct:") and "Traceback" not in err
    if hang:
        outcome = "HANG"
    elif proc.returncode == 0 and data == ctx["serial"] and not err:
        outcome = "identical"
    elif proc.returncode != 0 and one_line and data == OLD:
        outcome = "clear error"
    elif proc.returncode == 0 and data == ctx["serial_b"]:
        outcome = "identical (new model)"  # the file was replaced before any piece ran
    else:
        outcome = "WRONG"
    if leftovers:
        outcome += " + LEFTOVERS"
    return {"fault": fault, "exit": proc.returncode, "seconds": seconds, "seconds_after_fault": after_fault, "outcome": outcome, "kills": kills,
            "stderr": err[-600:], "leftovers": [os.path.basename(p) for p in leftovers], "note": note,
            "old_output_kept": data == OLD}


def mount_small_disk(path: str, size: int) -> str:
    """Mount a tmpfs of ``size`` bytes at ``path``; '' when it worked, else why not."""
    os.makedirs(path, exist_ok=True)
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], capture_output=True, text=True)
    except OSError as e:
        return str(e)
    return "" if r.returncode == 0 else (r.stderr.strip() or f"mount exited {r.returncode}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=4, help="copies of EWT dev tagged (default 4)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each fault (default 3)")
    ap.add_argument("--storm", type=int, default=20, help="kill rounds of a storm, 1.5 s apart (default 20)")
    ap.add_argument("--worker-timeout", type=float, default=60.0, help="--worker-timeout of the runs (default 60)")
    ap.add_argument("--timeout", type=float, default=600.0, help="a run longer than this is a hang (default 600 s)")
    ap.add_argument("--faults", default=None, help="comma-separated subset of the faults")
    ap.add_argument("--command", choices=["tag", "analyze"], default="tag",
                    help="tag: conjunct tag run with a UPOS tagger (default); analyze: conjunct analyze with English "
                         "text pipelines trained on --analyze-sentences sentences of EWT train (seeds 0 and 1)")
    ap.add_argument("--analyze-sentences", type=int, default=1000, help="training sentences of the analyze pipelines")
    ap.add_argument("--quick", action="store_true", help="1 copy, 1 repeat, storms of 8 kills")
    args = ap.parse_args()
    if args.quick:
        args.copies, args.repeats, args.storm = 1, 1, 8
    faults = ["none", "kill once", "kill storm", "model mv", "model cp", "model mv (finish)", "model cp (finish)",
              "Ctrl-C", "disk full"]
    if args.faults:
        faults = [f.strip() for f in args.faults.split(",")]
    data = require_shared_data()
    from conjunct.tagging import PerceptronTagger
    from conjunct.tagging.io import read_tagged

    work = tempfile.mkdtemp(prefix="bench-dask-faults-")
    disk = os.path.join(work, "disk")
    mounted = False
    try:
        words, tags = read_tagged(data / "ud_english_ewt" / "en_ewt-ud-train.conllu", tag_field="upos")
        ctx = {"work": work, "outdir": os.path.join(work, "out"), "disk": disk, "storm": args.storm,
               "worker_timeout": args.worker_timeout, "a": os.path.join(work, "a.tagger"),
               "b": os.path.join(work, "b.tagger"), "input": os.path.join(work, "input.conllu")}
        os.makedirs(ctx["outdir"])
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        if args.command == "tag":
            ctx["command"] = ["tag", "run", "-q"]
            PerceptronTagger(n_iter=2).fit(words[:4000], tags[:4000]).save(ctx["a"])
            PerceptronTagger(n_iter=2).fit(words[4000:8000], [[t.lower() for t in s] for s in tags[4000:8000]]).save(
                ctx["b"])
        else:  # English text pipelines trained on different sentences: their outputs differ
            ctx["command"] = ["analyze"]
            ctx["a"], ctx["b"] = ctx["a"].replace(".tagger", ".cjt"), ctx["b"].replace(".tagger", ".cjt")
            train = str(data / "ud_english_ewt" / "en_ewt-ud-train.conllu")
            for path, seed in ((ctx["a"], 0), (ctx["b"], 1)):
                subprocess.run([sys.executable, "-m", "conjunct", "analyze", "train", "--lang", "en", train,
                                "--max-sentences", str(args.analyze_sentences), "-i", "2", "-k", "2", "--seed",
                                str(seed), "-q", "-o", path], check=True, env=env)
        with open(ctx["input"], "wb") as out:
            for _ in range(args.copies):
                with open(data / "ud_english_ewt" / "en_ewt-ud-dev.conllu", "rb") as f:
                    shutil.copyfileobj(f, out)
        for name, model in (("serial", ctx["a"]), ("serial_b", ctx["b"])):
            path = os.path.join(work, name + ".txt")
            subprocess.run([sys.executable, "-m", "conjunct", *ctx["command"], model, ctx["input"], "-o", path],
                           check=True, env=env)
            with open(path, "rb") as f:
                ctx[name] = f.read()
        # a disk that cannot hold the whole output
        disk_size = (len(ctx["serial"]) * 3 // 4 + 4095) // 4096 * 4096
        disk_problem = mount_small_disk(disk, disk_size) if "disk full" in faults else "not asked for"
        mounted = not disk_problem
        if not mounted and "disk full" in faults:
            faults.remove("disk full")
        runs = []
        for r in range(args.repeats):
            for fault in faults:
                res = run_once(fault, ctx, args.timeout)
                res["repeat"] = r
                runs.append(res)
                print(f"{fault:20s} {res['outcome']:22s} exit {res['exit']} {res['seconds']:6.1f} s  {res['stderr'][:160]}",
                      file=sys.stderr)
    finally:
        if mounted:
            subprocess.run(["umount", disk], check=False)
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    for fault in dict.fromkeys(r["fault"] for r in runs):
        rs = [r for r in runs if r["fault"] == fault]
        outcomes = {}
        for r in rs:
            outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
        rows.append([fault, len(rs), ", ".join(f"{k} {v}" for k, v in outcomes.items()),
                     f"{max(r['seconds'] for r in rs):.0f}",
                     max((f"{r['seconds_after_fault']:.1f}" for r in rs if r["seconds_after_fault"] is not None), default="-",
                         key=float),
                     max(r["kills"] for r in rs), sum(len(r["leftovers"]) for r in rs),
                     next((r["stderr"] for r in rs if r["exit"]), "")[:220].replace("|", "\\|")])
    what = "Tagging" if args.command == "tag" else "`conjunct analyze` (English) of"
    md = [f"{what} {args.copies} cop{'y' if args.copies == 1 else 'ies'} of EWT dev ({len(ctx['serial']):,} bytes of output) with "
          f"`--scheduler local:2 --worker-timeout {args.worker_timeout:g}`; {args.repeats} runs of each fault; "
          f"kill storms of up to {args.storm} rounds 1.5 s apart. "
          + ("Disk full: a tmpfs of " + f"{disk_size:,} bytes." if mounted else f"Disk full not run: {disk_problem}.")
          + "\n",
          markdown_table(["fault", "runs", "outcomes", "slowest run (s)", "slowest exit after the fault (s)",
                                 "workers killed (most)", "leftover files", "error (first)"], rows),
          "\nidentical: exit 0 and the serial output byte for byte; clear error: a non-zero exit, one `conjunct:` line "
          "on standard error and the old output kept (WORK: the benchmark's temporary folder). Workers killed: "
          "processes killed by the benchmark, including restarted workers killed before they connected. Times were "
          "taken on a 2-core machine shared with other jobs.\n"]
    write_results("dask_faults" + ("_analyze" if args.command == "analyze" else "") + ("_quick" if args.quick else ""),
                  {"command_run": args.command, "runs": runs, "copies": args.copies, "repeats": args.repeats, "storm": args.storm,
                   "worker_timeout": args.worker_timeout, "disk_full": "" if mounted else disk_problem,
                   "disk_bytes": disk_size if mounted else None}, "\n".join(md))
    bad = [r for r in runs if r["outcome"] not in ("identical", "clear error")
           and not (r["fault"] == "none" and r["outcome"] == "identical")]
    if bad:
        print(f"{len(bad)} runs neither identical to serial nor a clear error", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
