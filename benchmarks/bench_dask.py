"""conjunct.dask on one machine: tagging throughput against workers, the
memory each worker holds, and parameter mixing against serial training.

1. Processing. A perceptron XPOS tagger trained on EWT train tags
   --copies copies of EWT train (CoNLL-U) with ``conjunct tag run``: serial,
   and with ``--scheduler`` on a running LocalCluster of 1 and of 2 worker
   processes (single-threaded), interleaved rounds, median of --repeats.
   Every output is checked byte-identical to the serial one. The cost of
   starting a local:2 cluster (what ``--scheduler local:2`` adds) is timed
   apart.
2. Memory per worker, read by each worker from /proc/self/smaps_rollup (RSS,
   PSS, private) and /proc/self/smaps (the model file's mapping: its RSS and
   PSS). The model's arrays are a read-only memory map of the file: with two
   workers each one's PSS of the mapping is about half its RSS (the pages
   are shared), while the vocabulary (Python strings) is private to each.
3. Iterative parameter mixing: PerceptronTagger (UPOS and XPOS, --epochs)
   trained serially, by ``conjunct.dask.train_tagger`` with one shard (must
   equal serial bit for bit) and with two shards (one per worker), token
   accuracy on EWT test; and PAClassifier (d = 2, PA-I, --pa-epochs) on the
   bunsetsu dependency decisions J.DepP writes for the Kyoto-style training
   data (the peer kit's depnd.p0.train: first 80% to train, last 20% to test),
   serially, by ``conjunct.dask.train_classifier`` with one and two shards.

    python benchmarks/bench_dask.py            # 4 copies of EWT train, 5 epochs, 3 rounds
    python benchmarks/bench_dask.py --quick    # 1 copy, 2 epochs, 1 round
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np
from _common import PEER_WORK, markdown_table, require_shared_data, write_results

from conjunct import cli
from conjunct.tagging import PerceptronTagger
from conjunct.tagging.io import read_tagged

MB = 1 << 20


def worker_memory(model_path: str) -> dict:
    """On a worker: its memory (bytes) and the model file's mapping."""
    def fields(lines):
        out = {}
        for line in lines:
            parts = line.split()
            if len(parts) >= 3 and parts[-1] == "kB" and parts[0].endswith(":"):
                out[parts[0][:-1]] = out.get(parts[0][:-1], 0) + int(parts[1]) * 1024
        return out

    with open("/proc/self/smaps_rollup") as f:
        total = fields(f)
    mapping, inside = [], False
    real = os.path.realpath(model_path)
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and not head[0].endswith(":"):  # a mapping's header line
                inside = len(head) >= 6 and head[-1] == real
            elif inside:
                mapping.append(line)
    m = fields(mapping)
    return {"rss": total.get("Rss", 0), "pss": total.get("Pss", 0),
            "private": total.get("Private_Clean", 0) + total.get("Private_Dirty", 0),
            "model_rss": m.get("Rss", 0), "model_pss": m.get("Pss", 0), "model_size": m.get("Size", 0)}


def memory_per_worker(n: int, model: str, src: str, work: str) -> list:
    """Per worker of a fresh n-worker cluster (the only one running): its
    memory idle, then after tagging ``src`` (the model loaded and in use)."""
    import distributed

    with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        idle = client.run(worker_memory, model)
        tag_command(model, src, os.path.join(work, "out.txt"), client.scheduler.address)
        loaded = client.run(worker_memory, model)
    return [{**loaded[w], "idle_rss": idle[w]["rss"], "idle_pss": idle[w]["pss"]} for w in sorted(loaded)]


def tag_command(model, src, out, scheduler=None):
    argv = ["tag", "run", model, src, "-o", out, "-q"]
    if scheduler:
        argv += ["--scheduler", scheduler]
    assert cli.main(argv) == 0


def processing(data, work, copies, repeats, epochs):
    import distributed

    train = data / "ud_english_ewt" / "en_ewt-ud-train.conllu"
    words, tags = read_tagged(train, tag_field="xpos")
    model = os.path.join(work, "xpos.tagger")
    PerceptronTagger(n_iter=epochs).fit(words, tags).save(model)
    src = os.path.join(work, "input.conllu")
    with open(src, "wb") as out:
        for _ in range(copies):
            with open(train, "rb") as f:
                shutil.copyfileobj(f, out)
    n_sent = len(words) * copies
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None):
        pass
    startup = time.perf_counter() - t0
    clusters = {n: distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
                for n in (1, 2)}
    clients = {n: distributed.Client(c) for n, c in clusters.items()}
    try:
        serial_out = os.path.join(work, "serial.txt")
        conditions = {"serial": None, "dask, 1 worker": clients[1].scheduler.address,
                      "dask, 2 workers": clients[2].scheduler.address}
        times = {name: [] for name in conditions}
        tag_command(model, src, serial_out)  # warm-up: page cache
        for _ in range(repeats):
            for name, address in conditions.items():
                out = os.path.join(work, "out.txt")
                t = time.perf_counter()
                tag_command(model, src, out, address)
                times[name].append(time.perf_counter() - t)
                with open(out, "rb") as a, open(serial_out, "rb") as b:
                    assert a.read() == b.read(), f"{name}: output differs from serial"
    finally:
        for c in clients.values():
            c.close()
        for c in clusters.values():
            c.close()
    memory = {n: memory_per_worker(n, model, src, work) for n in (1, 2)}
    rows = []
    for name, ts in times.items():
        med = float(np.median(ts))
        rows.append({"condition": name, "seconds": med, "sentences_per_second": n_sent / med, "identical": True})
    return {"model_bytes": os.path.getsize(model), "input_bytes": os.path.getsize(src), "sentences": n_sent,
            "rounds": repeats, "local2_startup_seconds": startup, "rows": rows, "memory": memory}


def mixing(data, epochs, field):
    import distributed

    from conjunct.dask import train_tagger

    base = data / "ud_english_ewt"
    words, tags = read_tagged(base / "en_ewt-ud-train.conllu", tag_field=field)
    test_words, test_tags = read_tagged(base / "en_ewt-ud-test.conllu", tag_field=field)
    out = []
    t = time.perf_counter()
    serial = PerceptronTagger(n_iter=epochs).fit(words, tags)
    out.append(("serial fit", serial, time.perf_counter() - t, None))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for shards, mix in ((1, "uniform"), (2, "uniform")):
            t = time.perf_counter()
            tagger = train_tagger(PerceptronTagger(n_iter=epochs), words, tags, client=client, n_shards=shards, mix=mix)
            out.append((f"{shards} shard{'s' if shards > 1 else ''} ({mix})", tagger, time.perf_counter() - t, shards))
    ref = serial.model_.arrays()
    rows = []
    for name, tagger, seconds, shards in out:
        arrays = tagger.model_.arrays()
        same = all(np.array_equal(ref[k], arrays[k]) for k in ref)
        acc = tagger.score(test_words, test_tags)
        rows.append({"tags": field, "training": name, "epochs": epochs, "accuracy": acc, "seconds": seconds,
                     "identical_to_serial": same})
    for r in rows:
        r["points_from_serial"] = 100 * (r["accuracy"] - rows[0]["accuracy"])
    assert rows[1]["identical_to_serial"], "one shard must train the serial model"
    return rows


def pa_mixing(vectors: str, epochs: int, limit: int):
    import distributed

    from conjunct import PAClassifier, read_svmlight
    from conjunct.dask import train_classifier

    X, y = read_svmlight(vectors)[:2]
    n = X.shape[0] if not limit else min(limit, X.shape[0])
    cut = int(0.8 * n)
    train, test = (X[:cut], y[:cut]), (X[cut:n], y[cut:n])
    out = []
    t = time.perf_counter()
    serial = PAClassifier(degree=2, n_iter=epochs, random_state=0).fit(*train)
    out.append(("serial fit", serial, time.perf_counter() - t))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for shards in (1, 2):
            t = time.perf_counter()
            est = train_classifier(PAClassifier(degree=2, n_iter=epochs, random_state=0), *train, client=client,
                                   n_shards=shards)
            out.append((f"{shards} shard{'s' if shards > 1 else ''} (uniform)", est, time.perf_counter() - t))
    ref = serial.model_.to_container()
    rows = []
    for name, est, seconds in out:
        c = est.model_.to_container()
        same = c[1] == ref[1] and c[2].keys() == ref[2].keys() and all(np.array_equal(ref[2][k], c[2][k]) for k in ref[2])
        rows.append({"task": f"bunsetsu decisions ({cut:,} train / {n - cut:,} test)", "training": name,
                     "epochs": epochs, "accuracy": est.score(*test), "support_vectors": est.n_support_,
                     "seconds": seconds, "identical_to_serial": same})
    for r in rows:
        r["points_from_serial"] = 100 * (r["accuracy"] - rows[0]["accuracy"])
    assert rows[1]["identical_to_serial"], "one shard must train the serial model"
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=4, help="copies of EWT train tagged (default 4)")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--epochs", type=int, default=5, help="training epochs (default 5)")
    ap.add_argument("--pa-epochs", type=int, default=10, help="PA epochs on the bunsetsu decisions (default 10)")
    ap.add_argument("--vectors", default=str(PEER_WORK / "models" / "jdepp_d2" / "depnd.p0.train"),
                    help="J.DepP's training vectors of the bunsetsu decisions (the peer kit's work folder)")
    ap.add_argument("--quick", action="store_true", help="1 copy, 1 round, 2 epochs, 10,000 decisions")
    args = ap.parse_args()
    if args.quick:
        args.copies, args.repeats, args.epochs, args.pa_epochs = 1, 1, 2, 2
    data = require_shared_data()
    work = tempfile.mkdtemp(prefix="bench-dask-")
    try:
        proc = processing(data, work, args.copies, args.repeats, args.epochs)
        mix = mixing(data, args.epochs, "upos") + mixing(data, args.epochs, "xpos")
        pa = pa_mixing(args.vectors, args.pa_epochs, 10000 if args.quick else 0) if os.path.exists(args.vectors) else []
    finally:
        shutil.rmtree(work, ignore_errors=True)
    md = [f"## Tagging {proc['sentences']:,} sentences ({proc['input_bytes'] / MB:.0f} MB of CoNLL-U) with an XPOS tagger "
          f"({proc['model_bytes'] / MB:.1f} MB model file)\n",
          markdown_table(["condition", "seconds (median)", "sentences/s", "output = serial"],
                         [[r["condition"], f"{r['seconds']:.2f}", f"{r['sentences_per_second']:,.0f}",
                           "yes" if r["identical"] else "NO"] for r in proc["rows"]]),
          f"\nStarting and stopping a local:2 cluster (paid once per `--scheduler local:2` command): "
          f"{proc['local2_startup_seconds']:.1f} s.\n",
          "## Memory per worker (MB)\n",
          markdown_table(["workers", "worker", "RSS idle", "RSS", "PSS", "private", "model mapping RSS",
                          "model mapping PSS"],
                         [[n, k + 1, f"{m['idle_rss'] / MB:.1f}", f"{m['rss'] / MB:.1f}", f"{m['pss'] / MB:.1f}",
                           f"{m['private'] / MB:.1f}", f"{m['model_rss'] / MB:.2f}", f"{m['model_pss'] / MB:.2f}"]
                          for n, ms in proc["memory"].items() for k, m in enumerate(ms)]),
          "\nRSS idle: the worker before any task; the rest after tagging (model loaded). The model file's pages "
          "are mapped read-only: PSS counts a shared page once per process sharing it.\n",
          "\n## Iterative parameter mixing (EWT train -> test, token accuracy)\n",
          markdown_table(["tags", "training", "epochs", "accuracy", "points from serial", "seconds", "= serial model"],
                         [[r["tags"], r["training"], r["epochs"], f"{100 * r['accuracy']:.2f}",
                           f"{r['points_from_serial']:+.2f}", f"{r['seconds']:.1f}",
                           "yes" if r["identical_to_serial"] else "no"] for r in mix]),
          "\n## Iterative parameter mixing, PAClassifier (d = 2, PA-I, kernel slicing)\n",
          markdown_table(["task", "training", "epochs", "accuracy", "points from serial", "support vectors", "seconds",
                          "= serial model"],
                         [[r["task"], r["training"], r["epochs"], f"{100 * r['accuracy']:.2f}",
                           f"{r['points_from_serial']:+.2f}", f"{r['support_vectors']:,}", f"{r['seconds']:.1f}",
                           "yes" if r["identical_to_serial"] else "no"] for r in pa]) if pa else
          "\n(PAClassifier mixing skipped: no --vectors file)\n"]
    write_results("dask", {"processing": proc, "mixing": mix, "pa_mixing": pa, "quick": args.quick}, "\n".join(md))


if __name__ == "__main__":
    main()
