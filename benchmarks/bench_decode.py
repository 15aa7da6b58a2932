"""Sequence labeling: Viterbi vs staggered decoding vs CarpeDiem vs beam search,
and python-crfsuite as a peer -- seed 002's Tables 1-4 in one run.

Tasks (../shared/data): POS tagging (UD English EWT XPOS, 49 labels), joint
POS+chunk tagging (CoNLL-2000, 319 labels, tags "POS|chunk") and bunsetsu
POS-sequence tagging (UD Japanese v1.4 XPOS, 763 labels in train). Train on
the train split, test on the test split.

For each task, one process:

1. trains the averaged perceptron twice, decoding with Viterbi and with
   staggered decoding + column-wise expansion (Table 3: training time), and an
   HMM;
2. encodes the test set once (feature extraction is timed separately and
   excluded from decoding time, as in the paper; model loading is excluded);
3. times every decoder on the same compiled model and feature ids: median
   of --repeats runs after one warm-up, one batch call over the test set
   (Table 1: sentences/s; Table 2: average search steps), checking that every
   exact decoder's path score equals Viterbi's on every sentence;
4. calibrates beam search (B = 1, 2, 4, ... until its accuracy is within 0.1
   point of the exact decoders', as in the paper) (Table 4);
5. times python-crfsuite's tagger (O(T L^2) Viterbi) on the same feature
   strings and label set: its model is trained with its own averaged
   perceptron for --crf-epochs epochs (only its tagging speed is compared;
   its time includes its string-to-id look-ups, so conjunct's end-to-end
   time from tokens is reported beside it).

    python benchmarks/bench_decode.py                      # full run (~15-25 min on 2 cores)
    python benchmarks/bench_decode.py --quick              # small slices, a minute or two
    python benchmarks/bench_decode.py --tasks joint --epochs 5 --no-crfsuite
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import markdown_table, require_shared_data, write_results

from conjunct._timing import median_seconds
from conjunct.tagging import EXACT_DECODERS, HMMTagger, PerceptronTagger
from conjunct.tagging.io import read_tagged
from conjunct.tagging.taggers import _sent_ptr

TASKS = {
    "pos": ("POS tagging (EWT XPOS)", "ud_english_ewt/en_ewt-ud-train.conllu", "ud_english_ewt/en_ewt-ud-test.conllu", "conllu", "xpos"),
    "joint": ("joint POS+chunk (CoNLL-2000)", "conll2000/train.txt", "conll2000/test.txt", "conll2000", "joint"),
    "bunsetsu": ("bunsetsu XPOS (UD Japanese v1.4)", "ud_japanese_v1.4_bunsetsu/ja-ud-train.conllu",
                 "ud_japanese_v1.4_bunsetsu/ja-ud-test.conllu", "conllu", "xpos"),
}
DECODER_NAMES = {"viterbi": "Viterbi", "staggered": "SD", "staggered-column": "SD+C-EXP", "carpediem": "CarpeDiem"}


def accuracy(paths, gold_ids):
    return float(np.mean(paths == gold_ids)) if len(gold_ids) else 0.0


def time_decoder(model, enc, decoder, beam_width, repeats):
    indptr, ids, ptr = enc
    out = model.decode_batch(indptr, ids, ptr, decoder, beam_width)
    secs = median_seconds(lambda: model.decode_batch(indptr, ids, ptr, decoder, beam_width), repeats=repeats,
                          warmup=1, min_seconds=0.2)
    return secs, out


def bench_model(name, tagger, Xt, Yt, repeats, beam_max):
    """Times every decoder on one trained tagger; returns rows of results."""
    t0 = time.perf_counter()
    indptr, ids = tagger._encode(Xt)
    encode_secs = time.perf_counter() - t0
    ptr = _sent_ptr(Xt)
    enc = (indptr, ids, ptr)
    code = {y: i for i, y in enumerate(tagger.labels_)}
    gold = np.array([code.get(y, -1) for ys in Yt for y in ys], dtype=np.int64)
    n = len(Xt)
    res = {"encode_seconds": encode_secs, "decoders": {}}
    ref_scores = None
    for decoder in EXACT_DECODERS:
        secs, (paths, scores, its) = time_decoder(tagger.model_, enc, decoder, 1, repeats)
        if ref_scores is None:
            ref_scores = scores
        mismatches = int(np.sum(np.abs(scores - ref_scores) > 1e-9 * np.maximum(1.0, np.abs(ref_scores))))
        res["decoders"][decoder] = {"seconds": secs, "sent_per_s": n / secs, "accuracy": accuracy(paths, gold),
                                    "iterations": float(its.mean()), "max_iterations": int(its.max()),
                                    "score_mismatches_vs_viterbi": mismatches}
        print(f"  {name:10s} {decoder:17s} {n / secs:12,.0f} sent/s  acc {accuracy(paths, gold):.4f}  "
              f"steps {its.mean():5.2f}  mismatches {mismatches}", flush=True)
    exact_acc = res["decoders"]["viterbi"]["accuracy"]
    beams = []
    width = 1
    while width <= beam_max:
        secs, (paths, scores, _) = time_decoder(tagger.model_, enc, "beam", width, repeats)
        acc = accuracy(paths, gold)
        beams.append({"width": width, "seconds": secs, "sent_per_s": n / secs, "accuracy": acc,
                      "suboptimal_sentences": int(np.sum(scores < ref_scores - 1e-9 * np.maximum(1.0, np.abs(ref_scores))))})
        print(f"  {name:10s} beam B={width:<4d}       {n / secs:12,.0f} sent/s  acc {acc:.4f}", flush=True)
        if acc >= exact_acc - 0.001:
            break
        width *= 2
    res["beam"] = beams
    res["beam_matched"] = beams[-1] if beams[-1]["accuracy"] >= exact_acc - 0.001 else None
    # End to end from tokens (feature extraction included), staggered with column-wise expansion.
    secs = median_seconds(lambda: tagger.predict(Xt, decoder="staggered-column"), repeats=max(1, repeats // 2), warmup=1)
    res["end_to_end_sent_per_s"] = n / secs
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
        secs = median_seconds(run, repeats=repeats, warmup=1, min_seconds=0.2)
        n_labels = len(crf.labels())
        crf.close()
    acc = float(np.mean([p == g for ps, gs in zip(pred, Yt) for p, g in zip(ps, gs)]))
    return {"sent_per_s": len(Xt) / secs, "seconds": secs, "accuracy": acc, "labels": n_labels,
            "train_seconds": train_secs, "epochs": epochs}


def run_task(key, data, args):
    title, train_path, test_path, fmt, field = TASKS[key]
    X, Y = read_tagged(data / train_path, format=fmt, tag_field=field)
    Xt, Yt = read_tagged(data / test_path, format=fmt, tag_field=field)
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
        if model == "perceptron" and all(R[k].get("crfsuite") for k in tasks):
            rows.append(["python-crfsuite (Viterbi, string features)"] + [f"{R[k]['crfsuite']['sent_per_s']:,.0f}" for k in tasks])
            rows.append(["conjunct end to end from tokens (SD+C-EXP)"] + [f"{R[k]['perceptron']['end_to_end_sent_per_s']:,.0f}" for k in tasks])
        parts.append(f"### Table 1 ({model}): decoding speed, sentences/s (× Viterbi)\n\n" + markdown_table(head, rows))
    rows = [[DECODER_NAMES[d]] + [f"{R[k][m]['decoders'][d]['iterations']:.2f}" for k in tasks]
            for m in ("perceptron",) for d in ("staggered", "staggered-column")]
    parts.append("### Table 2: average search steps per sentence (perceptron)\n\n" + markdown_table(head, rows))
    if all("viterbi" in R[k]["training"] for k in tasks):
        rows = [[f"{DECODER_NAMES[d]}"] + [f"{R[k]['training'][d]['seconds']:.1f} s (acc {R[k]['training'][d]['accuracy']:.4f})"
                                          for k in tasks] for d in ("viterbi", "staggered-column")]
        parts.append(f"### Table 3: perceptron training time, {results['epochs']} epochs\n\n" + markdown_table(head, rows))
    rows = [["Viterbi"] + [f"{R[k]['perceptron']['decoders']['viterbi']['sent_per_s']:,.0f}" for k in tasks],
            ["SD+C-EXP"] + [f"{R[k]['perceptron']['decoders']['staggered-column']['sent_per_s']:,.0f}" for k in tasks]]
    beam_row = ["beam (B matching exact accuracy)"]
    for k in tasks:
        b = R[k]["perceptron"]["beam_matched"]
        beam_row.append(f"{b['sent_per_s']:,.0f} (B={b['width']})" if b else "not reached")
    rows.append(beam_row)
    parts.append("### Table 4: comparison with beam search (perceptron, sentences/s)\n\n" + markdown_table(head, rows))
    rows = []
    for m in ("perceptron", "hmm"):
        rows.append([f"{m}, exact decoders"] + [f"{R[k][m]['decoders']['viterbi']['accuracy']:.4f}" for k in tasks])
        rows.append([f"{m}, greedy (B=1)"] + [f"{R[k][m]['beam'][0]['accuracy']:.4f}" for k in tasks])
    if all(R[k].get("crfsuite") for k in tasks):
        rows.append([f"python-crfsuite (its perceptron, {results['crf_epochs']} epoch(s))"] + [f"{R[k]['crfsuite']['accuracy']:.4f}" for k in tasks])
    parts.append("### Token accuracy on the test split\n\n" + markdown_table(["model"] + head[1:], rows))
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
    write_results("decode", results, markdown(results))


if __name__ == "__main__":
    main()
