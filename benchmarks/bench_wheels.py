"""Is the portable wheel as fast as the host compiler's build?  Two (or more)
built wheels of conjunct, each installed in its own venv, timed on the same
work in one interleaved run.

The portable manylinux_2_17 wheel is compiled by clang (``zig c++``, static
libc++) and the development build by the host's GCC (libstdc++); both with
the flags of CMakeLists.txt (-O3 for the core, no -march). The work, per
round and wheel, in a fresh process of that wheel's venv:

- training a degree-3 polynomial-kernel model (averaged PA-I, kernel slicing)
  on generated Zipfian data (``conjunct.datasets.make_zipf_data``);
- classifying the test examples with PKB, PKI, PKE and the feature sequence
  trie (10 batch calls per timing), and 2,000 ``predict_one`` calls from strings;
- with ../shared/data: training a POS tagger (averaged perceptron, staggered
  decoding with column-wise expansion) on UD English EWT sentences and decoding
  the test split with staggered decoding and with Viterbi.

Times are CPU seconds of the calling thread (every timed call runs in one
thread), medians of the repeats in a process, then medians over rounds; the
wheels take turns in each round (the order alternates between rounds). The
margins, labels and tag paths of every wheel are compared with the first one's.

    python tools/build_wheels.py --no-sdist                          # dist/*manylinux_2_17*.whl (zig)
    python tools/build_wheels.py --compiler system --no-sdist -o dist/gcc
    python benchmarks/bench_wheels.py --wheel gcc=dist/gcc/conjunct-*.whl --wheel zig=dist/conjunct-*.whl
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKLOADS = ("train PA-I d=3 (slicing)", "classify PKB", "classify PKI", "classify PKE", "classify fstrie",
             "predict_one (strings)", "train tagger (SD+C-EXP)", "decode staggered-column", "decode viterbi")


def thread_seconds(fn, repeats: int) -> float:
    """Median thread CPU time of ``fn()`` over ``repeats`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return statistics.median(times)


def child(out: Path, quick: bool, repeats: int, shared: str) -> None:
    """The timed work, in the venv of one wheel; writes times and outputs to ``out``."""
    import numpy as np

    import conjunct
    from conjunct import _core
    from conjunct.datasets import make_zipf_data
    from conjunct.features.index import FeatureIndex
    from conjunct.training import PAClassifier

    n_train, n_test = (1500, 1000) if quick else (4000, 4000)
    passes = 2 if quick else 10  # batch calls per timed classification (a few ms each)
    feats, y = make_zipf_data(n_train + n_test, seed=0)
    index = FeatureIndex.from_data(feats[:n_train])
    times, outputs = {}, {}
    fitted = {}

    def train():
        fitted["clf"] = PAClassifier(3, margin="slicing", random_state=0).fit(feats[:n_train], y[:n_train])

    times[WORKLOADS[0]] = thread_seconds(train, max(1, repeats // 2))
    model = fitted["clf"].model_
    X_test = model.features.transform(feats[n_train:])
    events = model.features.transform(feats[:n_train])
    for name in ("pkb", "pki", "pke", "fstrie"):
        clf = model.compile(name, events=events) if name == "fstrie" else model.compile(name)
        times[f"classify {name.upper() if name != 'fstrie' else name}"] = thread_seconds(
            lambda c=clf: [c.decision_function(X_test) for _ in range(passes)], repeats)
        outputs[f"margins {name}"] = clf.decision_function(X_test).tolist()
    pke = model.compile("pke")
    one = feats[n_train]
    times["predict_one (strings)"] = thread_seconds(lambda: [pke.predict_one(one) for _ in range(2000)], repeats)

    ewt = Path(shared) / "ud_english_ewt"
    if ewt.is_dir():
        from conjunct.io.corpora import read_conllu
        from conjunct.tagging import PerceptronTagger

        train_sents = read_conllu(ewt / "en_ewt-ud-train.conllu")[: 2000 if quick else 6000]
        test_sents = read_conllu(ewt / "en_ewt-ud-test.conllu")[: 500 if quick else None]
        words = [[t[0] for t in s] for s in train_sents]
        tags = [[t[1] for t in s] for s in train_sents]
        tagger = {}

        def train_tagger():
            tagger["t"] = PerceptronTagger(n_iter=3, random_state=0).fit(words, tags)

        times["train tagger (SD+C-EXP)"] = thread_seconds(train_tagger, max(1, repeats // 2))
        t = tagger["t"]
        test_words = [[tok[0] for tok in s] for s in test_sents]
        for decoder in ("staggered-column", "viterbi"):
            times[f"decode {decoder}"] = thread_seconds(lambda d=decoder: t.decode(test_words, decoder=d), repeats)
            outputs[f"paths {decoder}"] = t.predict(test_words, decoder=decoder)
    out.write_text(json.dumps({"times": times, "outputs": outputs, "core": _core.__file__,
                               "version": conjunct.__version__}))


def make_venv(folder: Path, wheel: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
    return python


def max_rel_diff(a, b) -> float:
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / (np.abs(a).max() + 1e-300))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", action="append", default=[], metavar="NAME=PATH",
                        help="a built wheel to time (give two or more; the first is the baseline)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per workload in a process")
    parser.add_argument("--quick", action="store_true", help="smaller data, 2 rounds (a smoke run; writes no results)")
    parser.add_argument("--venvs", type=Path, default=ROOT / "build" / "bench-wheels", help="where the venvs go")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--shared", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.quick, args.repeats, args.shared)
        return 0

    from _common import SHARED_DATA, markdown_table, write_results

    wheels = {}
    for spec in args.wheel:
        name, sep, pattern = spec.partition("=")
        found = sorted(glob.glob(pattern))  # the shell does not expand a pattern after NAME=
        if not sep or len(found) != 1:
            parser.error(f"--wheel wants NAME=PATH of one existing wheel, got {spec!r} (matches: {found})")
        wheels[name] = Path(found[0]).resolve()
    if len(wheels) < 2:
        parser.error("give at least two --wheel NAME=PATH")
    rounds = 2 if args.quick else args.rounds
    pythons = {name: make_venv(args.venvs.resolve() / name, path) for name, path in wheels.items()}
    samples = {name: {w: [] for w in WORKLOADS} for name in wheels}
    outputs = {}
    names = list(wheels)
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                out = Path(tmp) / f"{name}-{r}.json"
                cmd = [str(pythons[name]), str(Path(__file__).resolve()), "--child", str(out),
                       "--repeats", str(args.repeats), "--shared", str(SHARED_DATA)] + (["--quick"] if args.quick else [])
                subprocess.run(cmd, check=True, cwd=tmp)  # cwd away from src/: the venv's conjunct
                got = json.loads(out.read_text())
                if args.venvs.resolve() not in Path(got["core"]).resolve().parents:
                    raise SystemExit(f"{name}: the child imported conjunct from {got['core']}, not its venv")
                for w, sec in got["times"].items():
                    samples[name][w].append(sec)
                outputs[name] = got["outputs"]
                print(f"round {r + 1}/{rounds} {name}: " + ", ".join(f"{w} {s:.4f}" for w, s in got["times"].items()),
                      flush=True)
    base = names[0]
    medians = {name: {w: statistics.median(v) for w, v in ws.items() if v} for name, ws in samples.items()}
    agreement = {}
    for name in names[1:]:
        for key, ref in outputs[base].items():
            other = outputs[name][key]
            agreement[f"{name} vs {base}: {key}"] = (max_rel_diff(ref, other) if key.startswith("margins")
                                                     else float(ref == other))
    workloads = [w for w in WORKLOADS if w in medians[base]]
    header = ["workload"] + [f"{n} (s)" for n in names] + [f"{n} / {base}" for n in names[1:]]
    rows = [[w] + [medians[n][w] for n in names] + [medians[n][w] / medians[base][w] for n in names[1:]]
            for w in workloads]
    geo = {n: math.exp(statistics.fmean(math.log(medians[n][w] / medians[base][w]) for w in workloads))
           for n in names[1:]}
    rows.append(["geometric mean of the ratios"] + [""] * len(names) + [geo[n] for n in names[1:]])
    checks = "\n".join(f"- {k}: " + (f"max relative difference {v:.1e}" if "margins" in k else
                                      ("identical" if v == 1.0 else "DIFFERENT")) for k, v in agreement.items())
    md = (f"Wheels: " + ", ".join(f"{n} = `{p.name}`" for n, p in wheels.items()) + "\n\n"
          f"CPU seconds of the timed thread, medians of {args.repeats} repeats per process and of {rounds} "
          f"interleaved rounds.\n\n{markdown_table(header, rows)}\n\nOutputs compared with {base}'s:\n\n{checks}\n")
    if args.quick:
        print(md)
        return 0
    write_results("wheels", {"wheels": {n: p.name for n, p in wheels.items()}, "rounds": rounds,
                             "repeats": args.repeats, "medians": medians, "samples": samples,
                             "ratios_geomean": geo, "agreement": agreement}, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
