"""Sequence labeling: Viterbi vs staggered decoding vs CarpeDiem vs beam search,
and python-crfsuite as a peer -- seed 002's Tables 1-4 in one run.

Tasks (../shared/data): POS tagging (UD English EWT XPOS, 49 labels), joint
POS+chunk tagging (CoNLL-2000, 319 labels, tags "POS|chunk") and bunsetsu
POS-sequence tagging (UD Japanese v1.4 XPOS, 812 labels). Train on the train
split, test on the test split; the bunsetsu task trains on train + dev, because
the issue asks for a task with at least 800 labels and train alone has 763
(no hyperparameter is tuned on dev here).

For each task, one process:

1. trains the averaged perceptron twice, decoding with Viterbi and with
   staggered decoding + column-wise expansion (Table 3: training time), and an
   HMM;
2. encodes the test set (tokens -> feature ids, common to every decoder; timed
   and reported on its own row, excluded from decoding time as in the paper;
   model loading is excluded too);
3. decodes the feature ids with every decoder on the same compiled model: one
   batch call over the test set per measurement, decoders interleaved, median
   of --repeats rounds after a warm-up round (Table 1: sentences/s; Table 2:
   average search steps), checking that every exact decoder's path score
   equals Viterbi's on every sentence. Every decoder starts from feature ids:
   Viterbi, CarpeDiem and beam search compute each token's full row of label
   scores, staggered decoding only the scores it needs;
4. calibrates beam search (B = 1, 2, 4, ... until its accuracy is within 0.1
   point of the exact decoders', as in the paper) and times the matching width
   with the others (Table 4);
5. times python-crfsuite's tagger (O(T L^2) Viterbi) on the same feature
   strings and label set: its model is trained with its own averaged
   perceptron for --crf-epochs epochs (only its tagging speed is compared;
   its time includes its string-to-id look-ups, so conjunct's end-to-end
   time from tokens is reported beside it).

Times are CPU seconds of the decoding thread (time.thread_time): every
decoder is single-threaded, and on a machine shared with other jobs the
thread's CPU time is far steadier than wall-clock time (which the JSON keeps
too).

    python benchmarks/bench_decode.py                      # full run (~15-25 min on 2 cores)
    python benchmarks/bench_decode.py --quick              # small slices, a minute or two
    python benchmarks/bench_decode.py --tasks joint --epochs 5 --no-crfsuite
    # in a build for this CPU (pip install . -Ccmake.define.CONJUNCT_NATIVE=ON):
    python benchmarks/bench_decode.py --skip-viterbi-training --no-crfsuite --results-name decode_native
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import markdown_table, require_shared_data, write_results

from conjunct.tagging import EXACT_DECODERS, HMMTagger, PerceptronTagger
from conjunct.tagging.io import read_tagged
from conjunct.tagging.taggers import _sent_ptr

# task: (title, training files, test file, format, tag field)
TASKS = {
    "pos": ("POS tagging (EWT XPOS)", ("ud_english_ewt/en_ewt-ud-train.conllu",), "ud_english_ewt/en_ewt-ud-test.conllu",
            "conllu", "xpos"),
    "joint": ("joint POS+chunk (CoNLL-2000)", ("conll2000/train.txt",), "conll2000/test.txt", "conll2000", "joint"),
    "bunsetsu": ("bunsetsu XPOS (UD Japanese v1.4)",
                 ("ud_japanese_v1.4_bunsetsu/ja-ud-train.conllu", "ud_japanese_v1.4_bunsetsu/ja-ud-dev.conllu"),
                 "ud_japanese_v1.4_bunsetsu/ja-ud-test.conllu", "conllu", "xpos"),
}
DECODER_NAMES = {"viterbi": "Viterbi", "staggered": "SD", "staggered-column": "SD+C-EXP", "carpediem": "CarpeDiem"}


def accuracy(paths, gold_ids):
    return float(np.mean(paths == gold_ids)) if len(gold_ids) else 0.0


def interleaved(fns, repeats, min_seconds=0.05, setup=None):
    """Median CPU seconds per call of each function in `fns` (name -> callable),
    over `repeats` rounds that run every function in turn (after one warm-up
    round); each measurement loops a function for at least `min_seconds`.
    `setup` (name -> callable) runs untimed before each call of that function.
    Returns {name: (cpu_seconds, wall_seconds)}."""
    setup = setup or {}
    cpu = {k: [] for k in fns}
    wall = {k: [] for k in fns}
    for r in range(repeats + 1):
        for name, fn in fns.items():
            calls, c_total, w_total = 0, 0.0, 0.0
            while calls == 0 or c_total < min_seconds:
                if name in setup:
                    setup[name]()
                c0, w0 = time.thread_time(), time.perf_counter()
                fn()
                c_total += time.thread_time() - c0
                w_total += time.perf_counter() - w0
                calls += 1
            if r:
                cpu[name].append(c_total / calls)
                wall[name].append(w_total / calls)
    return {k: (float(np.median(cpu[k])), float(np.median(wall[k]))) for k in fns}


def bench_model(name, tagger, Xt, Yt, repeats, beam_max):
    """Times every decoder on one trained tagger; returns rows of results."""
    ptr = _sent_ptr(Xt)
    indptr, ids = tagger._encode(Xt)
    enc = (indptr, ids, ptr)
    code = {y: i for i, y in enumerate(tagger.labels_)}
    gold = np.array([code.get(y, -1) for ys in Yt for y in ys], dtype=np.int64)
    n = len(Xt)
    model = tagger.model_

    def run(decoder, width=1):
        return lambda: model.decode_batch(indptr, ids, ptr, decoder, width)

    res = {"decoders": {}}
    ref_paths, ref_scores, _ = run("viterbi")()
    exact_acc = accuracy(ref_paths, gold)
    for decoder in EXACT_DECODERS:
        paths, scores, its = run(decoder)()
        mismatches = int(np.sum(np.abs(scores - ref_scores) > 1e-9 * np.maximum(1.0, np.abs(ref_scores))))
        res["decoders"][decoder] = {"accuracy": accuracy(paths, gold), "iterations": float(its.mean()),
                                    "max_iterations": int(its.max()), "score_mismatches_vs_viterbi": mismatches}
    # Beam calibration (accuracy only), then the matching width is timed with the rest.
    beams, width = [], 1
    while width <= beam_max:
        paths, scores, _ = run("beam", width)()
        acc = accuracy(paths, gold)
        beams.append({"width": width, "accuracy": acc,
                      "suboptimal_sentences": int(np.sum(scores < ref_scores - 1e-9 * np.maximum(1.0, np.abs(ref_scores))))})
        if acc >= exact_acc - 0.001:
            break
        width *= 2
    matched = beams[-1] if beams[-1]["accuracy"] >= exact_acc - 0.001 else None
    fns = {d: run(d) for d in EXACT_DECODERS}
    fns["greedy"] = run("greedy")
    if matched and matched["width"] > 1:
        fns[f"beam{matched['width']}"] = run("beam", matched["width"])
    def new_cache():  # built untimed before every end-to-end call: text met for the first time
        tagger._cache = None
        tagger._encoding_cache(tagger._featurizer())

    if isinstance(tagger, PerceptronTagger):
        # Without the tagger's encoding cache, and end to end with a new one per
        # call (bench_featurize.py times the cache in more settings).
        fns["encode"] = lambda: tagger._featurizer().encode(Xt, tagger._vocab)
    else:
        fns["encode"] = lambda: tagger._encode(Xt)

    def end_to_end():
        return tagger.predict(Xt, decoder="staggered-column")

    fns["end_to_end"] = end_to_end
    t = interleaved(fns, repeats, setup={"end_to_end": new_cache} if isinstance(tagger, PerceptronTagger) else None)
    for decoder in EXACT_DECODERS:
        cpu, wall = t[decoder]
        res["decoders"][decoder].update({"seconds": cpu, "wall_seconds": wall, "sent_per_s": n / cpu})
        d = res["decoders"][decoder]
        print(f"  {name:10s} {decoder:17s} {n / cpu:12,.0f} sent/s  acc {d['accuracy']:.4f}  "
              f"steps {d['iterations']:5.2f}  mismatches {d['score_mismatches_vs_viterbi']}", flush=True)
    for b in beams:
        key = "greedy" if b["width"] == 1 else f"beam{b['width']}"
        if key in t:
            b.update({"seconds": t[key][0], "wall_seconds": t[key][1], "sent_per_s": n / t[key][0]})
        print(f"  {name:10s} beam B={b['width']:<4d}       acc {b['accuracy']:.4f}"
              + (f"  {b['sent_per_s']:12,.0f} sent/s" if "sent_per_s" in b else ""), flush=True)
    res["beam"] = beams
    res["beam_matched"] = matched
    res["encode_seconds"], res["encode_sent_per_s"] = t["encode"][0], n / t["encode"][0]
    res["end_to_end_sent_per_s"] = n / t["end_to_end"][0]
    print(f"  {name:10s} tokens -> feature ids {n / t['encode'][0]:12,.0f} sent/s; end to end (SD+C-EXP) "
          f"{n / t['end_to_end'][0]:,.0f} sent/s", flush=True)
    return res


def bench_crfsuite(tagger, X, Y, Xt, Yt, epochs, repeats):
    try:
        import pycrfsuite
    except ImportError:
        return None
    feat = tagger._featurizer()
    trainer = pycrfsuite.Trainer(algorithm="ap", verbose=False)
    trainer.set_params({"max_iterations": epochs})
    t0 = time.perf_counter()
    for words, tags in zip(X, Y):
        trainer.append(pycrfsuite.ItemSequence([{f: 1.0 for f in fs} for fs in feat.strings(words)]), tags)
    import tempfile, os

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "crf.model")
        trainer.train(path)
        train_secs = time.perf_counter() - t0
        crf = pycrfsuite.Tagger()
        crf.open(path)
        seqs = [pycrfsuite.ItemSequence([{f: 1.0 for f in fs} for fs in feat.strings(words)]) for words in Xt]

        def run():
            return [crf.tag(s) for s in seqs]

        pred = run()
        secs, wall = interleaved({"crfsuite": run}, repeats)["crfsuite"]
        n_labels = len(crf.labels())
        crf.close()
    acc = float(np.mean([p == g for ps, gs in zip(pred, Yt) for p, g in zip(ps, gs)]))
    return {"sent_per_s": len(Xt) / secs, "seconds": secs, "wall_seconds": wall, "accuracy": acc, "labels": n_labels,
            "train_seconds": train_secs, "epochs": epochs}


def load_task(key, data):
    """(title, training words, training tags, test words, test tags) of a task."""
    title, train_paths, test_path, fmt, field = TASKS[key]
    X, Y = [], []
    for path in train_paths:
        words, tags = read_tagged(data / path, format=fmt, tag_field=field)
        X += words
        Y += tags
    Xt, Yt = read_tagged(data / test_path, format=fmt, tag_field=field)
    return title, X, Y, Xt, Yt


def run_task(key, data, args):
    title, X, Y, Xt, Yt = load_task(key, data)
    if args.train_sentences:
        X, Y = X[:args.train_sentences], Y[:args.train_sentences]
    if args.test_sentences:
        Xt, Yt = Xt[:args.test_sentences], Yt[:args.test_sentences]
    labels = {t for ts in Y for t in ts}
    print(f"{title}: {len(X)} training / {len(Xt)} test sentences, {len(labels)} labels", flush=True)
    out = {"title": title, "train_sentences": len(X), "test_sentences": len(Xt),
           "test_tokens": sum(map(len, Xt)), "labels": len(labels), "training": {}}
    taggers = {}
    for decoder in (["staggered-column"] + ([] if args.skip_viterbi_training else ["viterbi"])):
        tagger = PerceptronTagger(decoder=decoder, n_iter=args.epochs, random_state=0)
        t0 = time.perf_counter()
        tagger.fit(X, Y)
        secs = time.perf_counter() - t0
        taggers[decoder] = tagger
        log = tagger.train_log_
        out["training"][decoder] = {"seconds": secs, "decode_update_seconds": sum(e["seconds"] for e in log),
                                    "steps_per_sentence": [e["iterations"] / max(1, e["sentences"]) for e in log],
                                    "accuracy": tagger.score(Xt, Yt, decoder="viterbi")}
        print(f"  perceptron trained with {decoder}: {secs:.1f} s ({args.epochs} epochs), "
              f"test accuracy {out['training'][decoder]['accuracy']:.4f}", flush=True)
    tagger = taggers["staggered-column"]
    out["features"] = len(tagger.feature_names_)
    out["emission_weights"] = int(len(tagger.model_.w_values))
    out["perceptron"] = bench_model("perceptron", tagger, Xt, Yt, args.repeats, args.beam_max)
    hmm = HMMTagger().fit(X, Y)
    out["hmm"] = bench_model("hmm", hmm, Xt, Yt, args.repeats, args.beam_max)
    if not args.no_crfsuite:
        out["crfsuite"] = bench_crfsuite(tagger, X, Y, Xt, Yt, args.crf_epochs, args.repeats)
        if out["crfsuite"]:
            print(f"  crfsuite: {out['crfsuite']['sent_per_s']:,.0f} sent/s, acc {out['crfsuite']['accuracy']:.4f}", flush=True)
    return out


def markdown(results: dict) -> str:
    tasks = [k for k in TASKS if k in results["tasks"]]
    R = results["tasks"]
    head = ["decoder"] + [f"{R[k]['title']}, {R[k]['labels']} labels" for k in tasks]
    parts = []
    for model in ("perceptron", "hmm"):
        rows = []
        for d in EXACT_DECODERS:
            rows.append([DECODER_NAMES[d]] + [f"{R[k][model]['decoders'][d]['sent_per_s']:,.0f} "
                                               f"({R[k][model]['decoders'][d]['sent_per_s'] / R[k][model]['decoders']['viterbi']['sent_per_s']:.1f}×)"
                                               for k in tasks])
        beam_row = ["beam, B matching exact accuracy"]
        for k in tasks:
            b = R[k][model]["beam_matched"]
            v = R[k][model]["decoders"]["viterbi"]["sent_per_s"]
            beam_row.append(f"{b['sent_per_s']:,.0f} ({b['sent_per_s'] / v:.1f}×, B={b['width']})" if b else "not reached")
        rows.append(beam_row)
        rows.append(["tokens → feature ids (every decoder's input; no cache)"] + [f"{R[k][model]['encode_sent_per_s']:,.0f}" for k in tasks])
        if model == "perceptron" and all(R[k].get("crfsuite") for k in tasks):
            rows.append(["python-crfsuite (Viterbi, string features)"] + [f"{R[k]['crfsuite']['sent_per_s']:,.0f}" for k in tasks])
            rows.append(["conjunct end to end from tokens (SD+C-EXP, new encoding cache per call)"] + [f"{R[k]['perceptron']['end_to_end_sent_per_s']:,.0f}" for k in tasks])
        parts.append(f"### Table 1 ({model}): decoding speed from feature ids, sentences per CPU second (× Viterbi)\n\n"
                     + markdown_table(head, rows))
    rows = [[f"{m}: {DECODER_NAMES[d]}"] + [f"{R[k][m]['decoders'][d]['iterations']:.2f}" for k in tasks]
            for m in ("perceptron", "hmm") for d in ("staggered", "staggered-column")]
    parts.append("### Table 2: average search steps per sentence\n\n" + markdown_table(head, rows))
    if all("viterbi" in R[k]["training"] for k in tasks):
        rows = [[f"{DECODER_NAMES[d]}"] + [f"{R[k]['training'][d]['seconds']:.1f} s (acc {R[k]['training'][d]['accuracy']:.4f})"
                                          for k in tasks] for d in ("viterbi", "staggered-column")]
        parts.append(f"### Table 3: perceptron training time, {results['epochs']} epochs\n\n" + markdown_table(head, rows))
    rows = []
    for m in ("perceptron", "hmm"):
        rows.append([f"{m}: Viterbi"] + [f"{R[k][m]['decoders']['viterbi']['sent_per_s']:,.0f}" for k in tasks])
        rows.append([f"{m}: SD+C-EXP"] + [f"{R[k][m]['decoders']['staggered-column']['sent_per_s']:,.0f}" for k in tasks])
        beam_row = [f"{m}: beam (B matching exact accuracy)"]
        for k in tasks:
            b = R[k][m]["beam_matched"]
            beam_row.append(f"{b['sent_per_s']:,.0f} (B={b['width']})" if b else "not reached")
        rows.append(beam_row)
    parts.append("### Table 4: comparison with beam search (sentences per CPU second)\n\n" + markdown_table(head, rows))
    rows = []
    for m in ("perceptron", "hmm"):
        rows.append([f"{m}, exact decoders"] + [f"{R[k][m]['decoders']['viterbi']['accuracy']:.4f}" for k in tasks])
        rows.append([f"{m}, greedy (B=1)"] + [f"{R[k][m]['beam'][0]['accuracy']:.4f}" for k in tasks])
    if all(R[k].get("crfsuite") for k in tasks):
        rows.append([f"python-crfsuite (its perceptron, {results['crf_epochs']} epoch(s))"] + [f"{R[k]['crfsuite']['accuracy']:.4f}" for k in tasks])
    parts.append("### Token accuracy on the test split\n\n" + markdown_table(["model"] + head[1:], rows))
    targets = {"pos": 3, "joint": 15, "bunsetsu": 50}
    rows = []
    for m in ("perceptron", "hmm"):
        row = [f"{m}: SD+C-EXP / Viterbi"]
        for k in tasks:
            x = R[k][m]["decoders"]["staggered-column"]["sent_per_s"] / R[k][m]["decoders"]["viterbi"]["sent_per_s"]
            row.append(f"{x:.1f}× (target ≥ {targets[k]}×: {'met' if x >= targets[k] else 'missed'})")
        rows.append(row)
        row = [f"{m}: SD+C-EXP / beam at exact accuracy"]
        for k in tasks:
            b = R[k][m]["beam_matched"]
            x = R[k][m]["decoders"]["staggered-column"]["sent_per_s"] / b["sent_per_s"] if b else float("nan")
            row.append(f"{x:.2f}× ({'faster' if x > 1 else 'slower'})" if b else "beam never matched")
        rows.append(row)
    parts.append("### Issue 5 targets\n\n" + markdown_table(head, rows))
    mism = sum(R[k][m]["decoders"][d]["score_mismatches_vs_viterbi"] for k in tasks for m in ("perceptron", "hmm") for d in EXACT_DECODERS)
    parts.append(f"Exactness: {mism} test sentences where an exact decoder's path score differs from Viterbi's "
                 "(relative tolerance 1e-9).")
    return "\n\n".join(parts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="pos,joint,bunsetsu", help="comma-separated: " + ", ".join(TASKS))
    p.add_argument("--epochs", type=int, default=10, help="perceptron epochs (paper: 10)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per measurement (median)")
    p.add_argument("--train-sentences", type=int, default=0, help="use only the first N training sentences")
    p.add_argument("--test-sentences", type=int, default=0, help="use only the first N test sentences")
    p.add_argument("--beam-max", type=int, default=256, help="largest beam width tried")
    p.add_argument("--skip-viterbi-training", action="store_true", help="do not train with Viterbi (Table 3)")
    p.add_argument("--no-crfsuite", action="store_true", help="skip the python-crfsuite peer")
    p.add_argument("--crf-epochs", type=int, default=1, help="python-crfsuite perceptron epochs (speed only)")
    p.add_argument("--quick", action="store_true", help="small slices: 2000/300 sentences, 3 epochs, 3 repeats")
    p.add_argument("--results-name", default="decode",
                   help="write benchmarks/results/<name>.md and .json (default decode; e.g. decode_native for a "
                        "CONJUNCT_NATIVE build)")
    args = p.parse_args()
    if args.quick:
        args.train_sentences = args.train_sentences or 2000
        args.test_sentences = args.test_sentences or 300
        args.epochs, args.repeats = 3, 3
    data = require_shared_data()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    for t in tasks:
        if t not in TASKS:
            p.error(f"unknown task {t!r}")
    results = {"epochs": args.epochs, "repeats": args.repeats, "crf_epochs": args.crf_epochs, "tasks": {}}
    for t in tasks:
        results["tasks"][t] = run_task(t, data, args)
    write_results(args.results_name, results, markdown(results))


if __name__ == "__main__":
    main()
