"""How the command line responds: Ctrl-C latency, time to first output, memory
of streaming (issue 18 item 3).

- Ctrl-C: SIGINT is sent to a running command once its progress bar shows
  (a pseudo-terminal is its terminal), and the seconds until it exits are
  timed; the reference is the same for a Python process that imports conjunct
  and sleeps (the interpreter's own exit). Jobs: `conjunct parse train` on EWT
  (the issue's 8.8 s case), `conjunct train` (PA, d = 3) and `conjunct compile
  --method pke` of a d = 4 model (kernel expansion in C++).
- Streaming: `conjunct parse run` of EWT dev read from a pipe: seconds to the
  first output line against seconds to the end; and peak memory (max RSS) of
  `conjunct predict` on a long file with the default --batch-size against one
  batch holding the whole file.

Medians of interleaved rounds.

    python benchmarks/bench_cli_responsiveness.py            # 3 rounds
    python benchmarks/bench_cli_responsiveness.py --quick    # 1 round
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown_table, require_shared_data, write_results  # noqa: E402

CLI = [sys.executable, "-m", "conjunct"]


def interrupt_latency(argv, marker: bytes, timeout: float = 900) -> float:
    """Seconds from SIGINT (sent once ``marker`` is drawn on the terminal) to exit; checks exit 130."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.execvp(argv[0], argv)
    out, sent = b"", None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if sent is None and marker in out:
            os.kill(pid, signal.SIGINT)
            sent = time.monotonic()
    _, status = os.waitpid(pid, 0)
    done = time.monotonic()
    os.close(fd)
    if sent is None:
        raise RuntimeError(f"{argv}: never drew {marker!r}: {out[-500:]!r}")
    code = os.waitstatus_to_exitcode(status)
    if code not in (130, -signal.SIGINT):
        raise RuntimeError(f"{argv}: exit {code} after SIGINT: {out[-500:]!r}")
    return done - sent


def first_output(argv, data: bytes):
    """(seconds to the first output byte, seconds to the end) with ``data`` on a pipe."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = None

    def feed():
        proc.stdin.write(data)
        proc.stdin.close()

    import threading

    writer = threading.Thread(target=feed)
    writer.start()
    while True:
        chunk = proc.stdout.read1(65536)
        if not chunk:
            break
        if first is None:
            first = time.monotonic() - start
    writer.join()
    proc.wait()
    return first, time.monotonic() - start


_PEAK = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def max_rss_mb(argv) -> float:
    """Peak resident memory of a command, in MB (measured by a fresh parent: its only child)."""
    out = subprocess.run([sys.executable, "-c", _PEAK] + argv, check=True, capture_output=True, text=True).stdout
    return int(out.split()[-1]) / 1024


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="1 round instead of 3")
    args = p.parse_args()
    rounds = 1 if args.quick else 3
    data = require_shared_data()
    ewt = data / "ud_english_ewt"
    work = Path(tempfile.mkdtemp(prefix="bench_cli_"))

    # Inputs: generated svmlight data, a wide d = 4 model, a long file to predict, an EWT parser.
    rng = np.random.default_rng(1)
    svm = work / "train.svm"
    with open(svm, "w") as f:
        for _ in range(20000):
            ids = sorted(rng.choice(np.arange(1, 3000), 40, replace=False))
            f.write(f"{rng.integers(0, 2) * 2 - 1} " + " ".join(f"{j}:1" for j in ids) + "\n")
    small = work / "small.svm"
    small.write_text("".join(svm.read_text().splitlines(keepends=True)[:2000]))
    model = work / "m.cjt"
    subprocess.run(CLI + ["train", "-q", str(small), "-o", str(model), "-i", "2"], check=True)
    long = work / "long.svm"
    with open(long, "w") as f:
        text = svm.read_text()
        for _ in range(10):
            f.write(text)
    wide = work / "wide.cjt"
    subprocess.run([sys.executable, "-c", f"""
import numpy as np, scipy.sparse as sp
from conjunct.training import PAClassifier
rng = np.random.default_rng(0)
n, F, L = 1000, 3000, 30
rows = [np.sort(rng.choice(F, L, replace=False)) for _ in range(n)]
X = sp.csr_matrix((np.ones(n * L), np.concatenate(rows), np.arange(0, n * L + 1, L)), shape=(n, F))
PAClassifier(4, n_iter=1).fit(X, rng.integers(0, 2, n)).model_.save({str(wide)!r})
"""], check=True)
    parser = work / "parser.cjt"
    subprocess.run(CLI + ["parse", "train", str(ewt / "en_ewt-ud-dev.conllu"), "-o", str(parser), "-i", "2", "-q"],
                   check=True)

    rss = {"batches of 10,000 lines (default)": max_rss_mb(CLI + ["predict", str(model), str(long)]),
           "one batch (the whole file)": max_rss_mb(CLI + ["predict", str(model), str(long), "--batch-size", "1000000000"])}

    jobs = {
        "parse train (EWT train)": (CLI + ["parse", "train", str(ewt / "en_ewt-ud-train.conllu"), "-o",
                                           str(work / "p.cjt")], b"training PAClassifier:"),
        "train (PA, d = 3, 20,000 examples)": (CLI + ["train", str(svm), "-o", str(work / "t.cjt"), "-d", "3", "-i",
                                                      "1000"], b"training PAClassifier:"),
        "compile --method pke (d = 4 expansion)": (CLI + ["compile", str(wide), "-o", str(work / "c.cjt"), "--method",
                                                          "pke"], b"M steps"),
        "reference: python importing conjunct, sleeping": ([sys.executable, "-c", "import conjunct, sys, time; "
                                                            "sys.stderr.write('ready\\n'); time.sleep(600)"], b"ready"),
    }
    latency = {name: [] for name in jobs}
    conllu = (ewt / "en_ewt-ud-dev.conllu").read_bytes()
    stream = {"first output": [], "end": []}
    for _ in range(rounds):
        for name, (argv, marker) in jobs.items():
            latency[name].append(interrupt_latency(argv, marker))
        first, end = first_output(CLI + ["parse", "run", str(parser), "-"], conllu)
        stream["first output"].append(first)
        stream["end"].append(end)

    med = {k: statistics.median(v) for k, v in latency.items()}
    smed = {k: statistics.median(v) for k, v in stream.items()}
    md = ["## Ctrl-C: seconds from SIGINT to exit (exit code 130), median of %d" % rounds, "",
          markdown_table(["job", "seconds"], [[k, f"{v:.3f}"] for k, v in med.items()]), "",
          "Before (issue 18): Ctrl-C during `conjunct parse train` of EWT took 8.8 s.", "",
          "## Streaming", "",
          markdown_table(["`conjunct parse run` of EWT dev (2,001 sentences) from a pipe", "seconds"],
                         [["first output line", f"{smed['first output']:.2f}"], ["end", f"{smed['end']:.2f}"]]), "",
          markdown_table(["`conjunct predict` of 200,000 examples (%.0f MB of svmlight)" % (long.stat().st_size / 1e6),
                          "peak memory (MB)"], [[k, f"{v:.0f}"] for k, v in rss.items()])]
    write_results("cli_responsiveness", {"rounds": rounds, "interrupt_seconds": latency, "interrupt_median": med,
                                         "parse_run_stream_seconds": stream, "predict_max_rss_mb": rss},
                  "\n".join(md))


if __name__ == "__main__":
    main()
