"""Sequence labeling: Viterbi vs staggered decoding vs CarpeDiem vs beam search,
and python-crfsuite as a peer -- seed 002's Tables 1-4 in one run. The figure
of decoding speed against the number of labels is drawn from the JSON by
``python benchmarks/plot_results.py benchmarks/results/decode.json -o docs/figures/decode_labels.png``.

Tasks (../shared/data): POS tagging (UD English EWT XPOS, 49 labels), joint
POS+chunk tagging (CoNLL-2000, 319 labels, tags "POS|chunk"), bunsetsu
POS-sequence tagging (UD Japanese v1.4 XPOS, 812 labels) and dependency
supertagging (EWT, XPOS|DEPREL|head side|head UPOS: 2,322 labels; Kaji et al. 2010's
supertagger also reads the gold POS tag: here the HMM gets "word/POS" tokens,
the perceptron the words alone, as its templates read token attributes). Train on the train split, test on the test split; the
bunsetsu task trains on train + dev, because the issue asks for a task with at
least 800 labels and train alone has 763 (no hyperparameter is tuned on dev).

For each task, one process:

1. trains the averaged perceptron twice, decoding with Viterbi and with
   staggered decoding + column-wise expansion (Table 3: training time; the
   supertagger is trained with SD+C-EXP only: with Viterbi, 2,322^2 label
   pairs per token, it would take hours), and the HMM twice, with the old
   fixed smoothing (transitions 1.0, emissions 0.1) and with the smoothing
   chosen on held-out sentences (the default);
2. encodes the test set (tokens -> feature ids, common to every decoder; timed
   and reported on its own row, excluded from decoding time as in the paper;
   model loading is excluded too);
3. decodes the feature ids with every decoder on the same compiled model,
   checking that every exact decoder's path score equals Viterbi's on every
   test sentence, then times them: one batch call per measurement, decoders
   interleaved, median of --repeats rounds after a warm-up round (Table 1:
   sentences/s; Table 2: average search steps). Every decoder starts from
   feature ids: Viterbi, CarpeDiem and beam search compute each token's full
   row of label scores; staggered decoding computes them through its column
   scores, with full rows (the default) or lazily from per-feature group
   bounds ("lazy bounds": LinearChainModel(lazy_scores=True)). The
   supertagger's decoders are timed on its first --time-sentences test
   sentences (Viterbi takes about 4 ms a token there);
4. calibrates beam search (B = 1, 2, 4, ... until its accuracy is within 0.1
   point of the exact decoders', as in the paper) and times the matching width
   with the others (Table 4);
5. times python-crfsuite's tagger (O(T L^2) Viterbi) on the same feature
   strings and label set: its model is trained with its own averaged
   perceptron for --crf-epochs epochs (only its tagging speed is compared;
   its time includes its string-to-id look-ups, so conjunct's end-to-end
   time from tokens is reported beside it). Not run on the supertagger (one
   epoch of its training decodes 200k tokens at 2,322^2 pairs each).

Times are CPU seconds of the decoding thread (time.thread_time): every
decoder is single-threaded, and on a machine shared with other jobs the
thread's CPU time is far steadier than wall-clock time (which the JSON keeps
too).

    python benchmarks/bench_decode.py                      # full run (~1.5 h on 2 cores, half of it the supertagger)
    python benchmarks/bench_decode.py --tasks pos,joint,bunsetsu
    python benchmarks/bench_decode.py --quick              # small slices, a few minutes
    # in a build for this CPU (pip install . -Ccmake.define.CONJUNCT_NATIVE=ON):
    python benchmarks/bench_decode.py --skip-viterbi-training --no-crfsuite --results-name decode_native
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import markdown_table, require_shared_data, write_results

from conjunct.io.corpora import read_conllu
from conjunct.tagging import EXACT_DECODERS, HMMTagger, PerceptronTagger
from conjunct.tagging.base import _sent_ptr
from conjunct.tagging.io import read_tagged

# task: (title, training files, test file, format, tag field)
TASKS = {
    "pos": ("POS tagging (EWT XPOS)", ("ud_english_ewt/en_ewt-ud-train.conllu",), "ud_english_ewt/en_ewt-ud-test.conllu",
            "conllu", "xpos"),
    "joint": ("joint POS+chunk (CoNLL-2000)", ("conll2000/train.txt",), "conll2000/test.txt", "conll2000", "joint"),
    "bunsetsu": ("bunsetsu XPOS (UD Japanese v1.4)",
                 ("ud_japanese_v1.4_bunsetsu/ja-ud-train.conllu", "ud_japanese_v1.4_bunsetsu/ja-ud-dev.conllu"),
                 "ud_japanese_v1.4_bunsetsu/ja-ud-test.conllu", "conllu", "xpos"),
    "supertag": ("dependency supertags (EWT XPOS|DEPREL|head side|head UPOS, gold POS in)",
                 ("ud_english_ewt/en_ewt-ud-train.conllu",), "ud_english_ewt/en_ewt-ud-test.conllu", "supertag", ""),
}
SHORT = {"pos": "EWT XPOS", "joint": "CoNLL-2000 joint", "bunsetsu": "bunsetsu XPOS", "supertag": "EWT supertags"}
# Decoders timed: (name in the tables, decoder, lazy bounds)
DECODERS = [("Viterbi", "viterbi", False), ("SD", "staggered", False), ("SD+C-EXP", "staggered-column", False),
            ("CarpeDiem", "carpediem", False), ("SD, lazy bounds", "staggered", True),
            ("SD+C-EXP, lazy bounds", "staggered-column", True)]
TARGETS = {"pos": 2, "joint": 15, "bunsetsu": 50}  # issue 20, SD+C-EXP over Viterbi (perceptron)


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


def bench_model(name, tagger, Xt, Yt, repeats, beam_max, time_sentences=0):
    """Checks and times every decoder on one trained tagger; returns its results."""
    ptr = _sent_ptr(Xt)
    indptr, ids = tagger._encode(Xt)
    code = {y: i for i, y in enumerate(tagger.labels_)}
    gold = np.array([code.get(y, -1) for ys in Yt for y in ys], dtype=np.int64)
    models = {False: tagger.model_, True: tagger.model_.with_options(lazy_scores=True)}

    def run(decoder, width=1, lazy=False, n=None):
        if n is None:
            return lambda: models[lazy].decode_batch(indptr, ids, ptr, decoder, beam_width=width)
        p = ptr[:n + 1]
        return lambda: models[lazy].decode_batch(indptr[:p[-1] + 1], ids, p, decoder, beam_width=width)

    res = {"decoders": {}}
    ref_paths, ref_scores, _ = run("viterbi")()
    scale = np.maximum(1.0, np.abs(ref_scores))
    exact_acc = accuracy(ref_paths, gold)
    for label, decoder, lazy in DECODERS:
        paths, scores, its = run(decoder, lazy=lazy)()
        res["decoders"][label] = {"accuracy": accuracy(paths, gold), "iterations": float(its.mean()),
                                  "max_iterations": int(its.max()),
                                  "score_mismatches_vs_viterbi": int(np.sum(np.abs(scores - ref_scores) > 1e-9 * scale))}
    # Beam calibration (accuracy only), then the matching width is timed with the rest.
    beams, width = [], 1
    while width <= beam_max:
        paths, scores, _ = run("beam", width)()
        acc = accuracy(paths, gold)
        beams.append({"width": width, "accuracy": acc, "suboptimal_sentences": int(np.sum(scores < ref_scores - 1e-9 * scale))})
        if acc >= exact_acc - 0.001:
            break
        width *= 2
    matched = beams[-1] if beams[-1]["accuracy"] >= exact_acc - 0.001 else None
    n = min(time_sentences, len(Xt)) if time_sentences else len(Xt)
    sub = None if n == len(Xt) else n
    Xs = Xt[:n]
    fns = {label: run(decoder, lazy=lazy, n=sub) for label, decoder, lazy in DECODERS}
    fns["greedy"] = run("greedy", n=sub)
    if matched and matched["width"] > 1:
        fns[f"beam{matched['width']}"] = run("beam", matched["width"], n=sub)
    fns["encode"] = lambda: tagger._encode(Xs)
    # The perceptron keeps nothing between calls: every call meets its text as new.
    fns["end_to_end"] = lambda: tagger.predict(Xs, decoder="staggered-column")
    t = interleaved(fns, repeats)
    res["timed_sentences"] = n
    for label, _, _ in DECODERS:
        cpu, wall = t[label]
        d = res["decoders"][label]
        d.update({"seconds": cpu, "wall_seconds": wall, "sent_per_s": n / cpu})
        print(f"  {name:10s} {label:22s} {n / cpu:12,.0f} sent/s  acc {d['accuracy']:.4f}  "
              f"steps {d['iterations']:5.2f}  mismatches {d['score_mismatches_vs_viterbi']}", flush=True)
    for b in beams:
        key = "greedy" if b["width"] == 1 else f"beam{b['width']}"
        if key in t:
            b.update({"seconds": t[key][0], "wall_seconds": t[key][1], "sent_per_s": n / t[key][0]})
        print(f"  {name:10s} beam B={b['width']:<4d}            acc {b['accuracy']:.4f}"
              + (f"  {b['sent_per_s']:12,.0f} sent/s" if "sent_per_s" in b else ""), flush=True)
    res["beam"] = beams
    res["beam_matched"] = matched
    res["accuracy"] = exact_acc
    res["encode_seconds"], res["encode_sent_per_s"] = t["encode"][0], n / t["encode"][0]
    res["end_to_end_sent_per_s"] = n / t["end_to_end"][0]
    print(f"  {name:10s} tokens -> feature ids {n / t['encode'][0]:12,.0f} sent/s; end to end (SD+C-EXP) "
          f"{n / t['end_to_end'][0]:,.0f} sent/s", flush=True)
    return res


@contextlib.contextmanager
def crfsuite_tagger(featurizer, X, Y, params, algorithm="ap"):
    """A python-crfsuite tagger trained on sentences X and tags Y with
    `featurizer`'s feature strings (closed on exit); None if it is not installed."""
    try:
        import pycrfsuite
    except ImportError:
        yield None
        return
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    trainer.set_params(params)
    for words, tags in zip(X, Y):
        trainer.append(pycrfsuite.ItemSequence([{f: 1.0 for f in fs} for fs in featurizer.strings(words)]), tags)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "crf.model")
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        try:
            yield tagger
        finally:
            tagger.close()


def crfsuite_items(featurizer, sentences):
    import pycrfsuite

    return [pycrfsuite.ItemSequence([{f: 1.0 for f in fs} for fs in featurizer.strings(words)]) for words in sentences]


def bench_crfsuite(tagger, X, Y, Xt, Yt, epochs, repeats):
    feat = tagger._featurizer()
    t0 = time.perf_counter()
    with crfsuite_tagger(feat, X, Y, {"max_iterations": epochs}) as crf:
        if crf is None:
            return None
        train_secs = time.perf_counter() - t0
        seqs = crfsuite_items(feat, Xt)

        def run():
            return [crf.tag(s) for s in seqs]

        pred = run()
        secs, wall = interleaved({"crfsuite": run}, repeats)["crfsuite"]
        n_labels = len(crf.labels())
    acc = float(np.mean([p == g for ps, gs in zip(pred, Yt) for p, g in zip(ps, gs)]))
    return {"sent_per_s": len(Xt) / secs, "seconds": secs, "wall_seconds": wall, "accuracy": acc, "labels": n_labels,
            "train_seconds": train_secs, "epochs": epochs}


def read_supertags(path):
    """Words, dependency supertags and gold POS tags of a CoNLL-U file. A
    supertag is the word's XPOS, its relation, the side its head is on (L:
    left, R: right, 0: root) and the head's UPOS -- a word's category and its
    attachment, as in seed 002's supertagging (2,602 HPSG supertags there;
    2,322 such tags in EWT's training split)."""
    words, tags, pos = [], [], []
    for sent in read_conllu(path, fields=("form", "xpos", "deprel", "head", "upos", "id")):
        upos = {int(i): u for _, _, _, _, u, i in sent}
        words.append([w for w, *_ in sent])
        pos.append([x for _, x, *_ in sent])
        tags.append([f"{x}|{d}|{'0' if h == '0' else 'R' if int(h) > int(i) else 'L'}|{upos.get(int(h), 'ROOT')}"
                     for _, x, d, h, _, i in sent])
    return words, tags, pos


def load_task(key, data, with_pos=False):
    """(title, training words, training tags, test words, test tags) of a task
    (and the training and test gold POS tags of the supertagging task, with_pos)."""
    title, train_paths, test_path, fmt, field = TASKS[key]

    def read(path):
        if fmt == "supertag":
            return read_supertags(path)
        return (*read_tagged(path, format=fmt, tag_field=field), None)

    X, Y, P = [], [], []
    for path in train_paths:
        words, tags, pos = read(data / path)
        X, Y, P = X + words, Y + tags, P + (pos or [])
    Xt, Yt, Pt = read(data / test_path)
    return (title, X, Y, Xt, Yt, P, Pt or []) if with_pos else (title, X, Y, Xt, Yt)


def run_task(key, data, args):
    title, X, Y, Xt, Yt, P, Pt = load_task(key, data, with_pos=True)
    if args.train_sentences:
        X, Y, P = X[:args.train_sentences], Y[:args.train_sentences], P[:args.train_sentences]
    if args.test_sentences:
        Xt, Yt, Pt = Xt[:args.test_sentences], Yt[:args.test_sentences], Pt[:args.test_sentences]
    supertag = TASKS[key][3] == "supertag"
    # The perceptron's and the HMM's inputs (the HMM supertagger's include the gold POS tags).
    perc_in = (X, Xt)
    hmm_in = ([[f"{w}/{p}" for w, p in zip(ws, ps)] for ws, ps in zip(X, P)],
              [[f"{w}/{p}" for w, p in zip(ws, ps)] for ws, ps in zip(Xt, Pt)]) if supertag else (X, Xt)
    labels = {t for ts in Y for t in ts}
    print(f"{title}: {len(X)} training / {len(Xt)} test sentences, {len(labels)} labels", flush=True)
    out = {"title": title, "train_sentences": len(X), "test_sentences": len(Xt),
           "test_tokens": sum(map(len, Xt)), "labels": len(labels), "training": {}}
    taggers = {}
    viterbi_training = not args.skip_viterbi_training and not supertag
    for decoder in ["staggered-column"] + (["viterbi"] if viterbi_training else []):
        tagger = PerceptronTagger(decoder=decoder, n_iter=args.epochs, random_state=0)
        t0 = time.perf_counter()
        tagger.fit(perc_in[0], Y)
        secs = time.perf_counter() - t0
        taggers[decoder] = tagger
        log = tagger.train_log_
        out["training"][decoder] = {"seconds": secs, "decode_update_seconds": sum(e["seconds"] for e in log),
                                    "steps_per_sentence": [e["iterations"] / max(1, e["sentences"]) for e in log],
                                    "accuracy": tagger.score(perc_in[1], Yt, decoder="staggered-column")}
        print(f"  perceptron trained with {decoder}: {secs:.1f} s ({args.epochs} epochs), "
              f"test accuracy {out['training'][decoder]['accuracy']:.4f}", flush=True)
    tagger = taggers["staggered-column"]
    out["features"] = len(tagger.feature_names_)
    out["emission_weights"] = int(len(tagger.model_.w_values))
    time_sentences = args.time_sentences if supertag else 0
    out["perceptron"] = bench_model("perceptron", tagger, perc_in[1], Yt, args.repeats, args.beam_max, time_sentences)
    fixed = HMMTagger(transition_smoothing=1.0, emission_smoothing=0.1).fit(hmm_in[0], Y)
    out["hmm_fixed_smoothing"] = {"accuracy": fixed.score(hmm_in[1], Yt),
                                  "greedy_accuracy": fixed.score(hmm_in[1], Yt, decoder="greedy")}
    t0 = time.perf_counter()
    hmm = HMMTagger().fit(hmm_in[0], Y)
    out["hmm_smoothing"] = {"transition": hmm.transition_smoothing_, "emission": hmm.emission_smoothing_,
                            "fit_seconds": time.perf_counter() - t0,
                            "greedy_accuracy": hmm.score(hmm_in[1], Yt, decoder="greedy")}
    out["hmm"] = bench_model("hmm", hmm, hmm_in[1], Yt, args.repeats, args.beam_max, time_sentences)
    print(f"  hmm accuracy: fixed smoothing {out['hmm_fixed_smoothing']['accuracy']:.4f}, chosen "
          f"({hmm.transition_smoothing_:g}, {hmm.emission_smoothing_:g}) {out['hmm']['accuracy']:.4f}", flush=True)
    if not args.no_crfsuite and not supertag:
        out["crfsuite"] = bench_crfsuite(tagger, X, Y, Xt, Yt, args.crf_epochs, args.repeats)
        if out["crfsuite"]:
            print(f"  crfsuite: {out['crfsuite']['sent_per_s']:,.0f} sent/s, acc {out['crfsuite']['accuracy']:.4f}", flush=True)
    return out


def ratio(R, k, model, label):
    d = R[k][model]["decoders"]
    return d[label]["sent_per_s"] / d["Viterbi"]["sent_per_s"]


def markdown(results: dict) -> str:
    tasks = [k for k in TASKS if k in results["tasks"]]
    R = results["tasks"]
    head = ["decoder"] + [f"{SHORT[k]}, {R[k]['labels']} labels" for k in tasks]
    parts = []
    sub = [k for k in tasks if R[k]["perceptron"]["timed_sentences"] < R[k]["test_sentences"]]
    note = "".join(f" {SHORT[k]}: timed on the first {R[k]['perceptron']['timed_sentences']} test sentences." for k in sub)
    for model in ("perceptron", "hmm"):
        rows = []
        for label, _, _ in DECODERS:
            rows.append([label] + [f"{R[k][model]['decoders'][label]['sent_per_s']:,.0f} ({ratio(R, k, model, label):.1f}×)"
                                   for k in tasks])
        beam_row = ["beam, B matching exact accuracy"]
        for k in tasks:
            b = R[k][model]["beam_matched"]
            v = R[k][model]["decoders"]["Viterbi"]["sent_per_s"]
            beam_row.append(f"{b['sent_per_s']:,.0f} ({b['sent_per_s'] / v:.1f}×, B={b['width']})" if b else "not reached")
        rows.append(beam_row)
        rows.append(["tokens → feature ids (every decoder's input; no cache)"] + [f"{R[k][model]['encode_sent_per_s']:,.0f}" for k in tasks])
        rows.append(["end to end from tokens (SD+C-EXP" + (", new encoding cache per call)" if model == "perceptron" else ")")]
                    + [f"{R[k][model]['end_to_end_sent_per_s']:,.0f}" for k in tasks])
        if model == "perceptron":
            rows.append(["python-crfsuite (Viterbi, string features)"]
                        + [f"{R[k]['crfsuite']['sent_per_s']:,.0f}" if R[k].get("crfsuite") else "not run" for k in tasks])
        parts.append(f"### Table 1 ({model}): decoding speed from feature ids, sentences per CPU second (× Viterbi)\n\n"
                     + markdown_table(head, rows) + (f"\n\n{note.strip()}" if note else ""))
    rows = [[f"{m}: {label}"] + [f"{R[k][m]['decoders'][label]['iterations']:.2f}" for k in tasks]
            for m in ("perceptron", "hmm") for label in ("SD", "SD+C-EXP", "SD, lazy bounds", "SD+C-EXP, lazy bounds")]
    parts.append("### Table 2: average search steps per sentence\n\n" + markdown_table(head, rows))
    rows = []
    for d, label in (("viterbi", "Viterbi"), ("staggered-column", "SD+C-EXP")):
        rows.append([label] + [f"{R[k]['training'][d]['seconds']:.1f} s (acc {R[k]['training'][d]['accuracy']:.4f})"
                               if d in R[k]["training"] else "not run" for k in tasks])
    parts.append(f"### Table 3: perceptron training time, {results['epochs']} epochs\n\n" + markdown_table(head, rows))
    rows = []
    for m in ("perceptron", "hmm"):
        rows.append([f"{m}: Viterbi"] + [f"{R[k][m]['decoders']['Viterbi']['sent_per_s']:,.0f}" for k in tasks])
        rows.append([f"{m}: SD+C-EXP"] + [f"{R[k][m]['decoders']['SD+C-EXP']['sent_per_s']:,.0f}" for k in tasks])
        beam_row = [f"{m}: beam (B matching exact accuracy)"]
        for k in tasks:
            b = R[k][m]["beam_matched"]
            beam_row.append(f"{b['sent_per_s']:,.0f} (B={b['width']})" if b else "not reached")
        rows.append(beam_row)
    parts.append("### Table 4: comparison with beam search (sentences per CPU second)\n\n" + markdown_table(head, rows))
    rows = []
    for m in ("perceptron", "hmm"):
        rows.append([f"{m}, exact decoders"] + [f"{R[k][m]['accuracy']:.4f}" for k in tasks])
        rows.append([f"{m}, greedy (B=1)"] + [f"{R[k][m]['beam'][0]['accuracy']:.4f}" for k in tasks])
    rows.append(["hmm with the old fixed smoothing (1.0, 0.1), exact"] + [f"{R[k]['hmm_fixed_smoothing']['accuracy']:.4f}" for k in tasks])
    rows.append(["hmm with the old fixed smoothing (1.0, 0.1), greedy"] + [f"{R[k]['hmm_fixed_smoothing']['greedy_accuracy']:.4f}" for k in tasks])
    rows.append(["hmm smoothing chosen on held-out sentences (transitions, emissions)"]
                + [f"{R[k]['hmm_smoothing']['transition']:g}, {R[k]['hmm_smoothing']['emission']:g}" for k in tasks])
    rows.append([f"python-crfsuite (its perceptron, {results['crf_epochs']} epoch(s))"]
                + [f"{R[k]['crfsuite']['accuracy']:.4f}" if R[k].get("crfsuite") else "not run" for k in tasks])
    parts.append("### Token accuracy on the test split\n\n" + markdown_table(["model"] + head[1:], rows))
    rows = []
    for m in ("perceptron", "hmm"):
        row = [f"{m}: SD+C-EXP / Viterbi"]
        for k in tasks:
            x = ratio(R, k, m, "SD+C-EXP")
            row.append(f"{x:.1f}×" + (f" (target ≥ {TARGETS[k]}×: {'met' if x >= TARGETS[k] else 'missed'})"
                                      if m == "perceptron" and k in TARGETS else ""))
        rows.append(row)
        rows.append([f"{m}: SD+C-EXP with lazy bounds / Viterbi"] + [f"{ratio(R, k, m, 'SD+C-EXP, lazy bounds'):.1f}×" for k in tasks])
        row = [f"{m}: SD+C-EXP / beam at exact accuracy"]
        for k in tasks:
            b = R[k][m]["beam_matched"]
            x = R[k][m]["decoders"]["SD+C-EXP"]["sent_per_s"] / b["sent_per_s"] if b else float("nan")
            row.append(f"{x:.2f}× ({'faster' if x > 1 else 'slower'})" if b else "beam never matched")
        rows.append(row)
    parts.append("### Issue 20 targets (from feature ids, one run)\n\n" + markdown_table(head, rows))
    mism = sum(R[k][m]["decoders"][label]["score_mismatches_vs_viterbi"] for k in tasks for m in ("perceptron", "hmm")
               for label, _, _ in DECODERS)
    parts.append(f"Exactness: {mism} test sentences where an exact decoder's path score differs from Viterbi's "
                 "(relative tolerance 1e-9), over every test sentence of every task.")
    return "\n\n".join(parts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default=",".join(TASKS), help="comma-separated: " + ", ".join(TASKS))
    p.add_argument("--epochs", type=int, default=10, help="perceptron epochs (paper: 10)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per measurement (median)")
    p.add_argument("--train-sentences", type=int, default=0, help="use only the first N training sentences")
    p.add_argument("--test-sentences", type=int, default=0, help="use only the first N test sentences")
    p.add_argument("--time-sentences", type=int, default=300,
                   help="time the supertagger's decoders on its first N test sentences (exactness and accuracy use all)")
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
