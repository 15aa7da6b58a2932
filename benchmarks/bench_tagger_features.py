"""Tagger accuracy by feature set, on development data, with known and unknown
words apart.

The averaged perceptron (10 epochs, SD+C-EXP) is trained with

- the templates of feature version 1 (the defaults before this comparison),
- python-crfsuite's usual templates (its tutorial's word2features without the
  POS columns: lower-cased word, 2- and 3-letter suffixes, case and digit
  flags, the neighbouring words and their case flags),
- the current defaults (version 1 plus 5- and 6-letter suffixes and word
  flags: hyphen, digit, upper case, title case, all capitals, length),
- and any ablation given with --sets,

and python-crfsuite itself is trained with its usual templates and its usual
training (L-BFGS, c1 = 0.1, c2 = 0.01) on the tasks where that takes minutes
(--crfsuite-tasks; its training costs O(T L^2) per iteration).

Tasks: EWT XPOS and UPOS|FEATS (train -> dev), CoNLL-2000 joint POS|chunk
(the last tenth of train held out: there is no dev split), bunsetsu XPOS
(train -> dev). A word is unknown if the training split does not have it.

    python benchmarks/bench_tagger_features.py                 # ~20 min on 2 cores
    python benchmarks/bench_tagger_features.py --tasks xpos --sets "+s5s6=s5,s6"
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import markdown_table, require_shared_data, write_results
from bench_decode import crfsuite_items, crfsuite_tagger

from conjunct.tagging import DEFAULT_TEMPLATES, Featurizer, PerceptronTagger
from conjunct.tagging.io import read_tagged

CRFSUITE_USUAL = ("bias", "lw", "s3", "s2", "allcaps", "title", "digit", "w-1", "title-1", "allcaps-1", "w+1",
                  "title+1", "allcaps+1")
# The defaults before this comparison: words, affixes up to 4 letters, shape, neighbouring words.
VERSION_1_DEFAULTS = ("bias", "w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape",
                      "w-2", "w-1", "w+1", "w+2", "w-1|w", "w|w+1")
SETS = {"version 1 defaults": VERSION_1_DEFAULTS, "python-crfsuite's usual templates": CRFSUITE_USUAL,
        "defaults": DEFAULT_TEMPLATES}
TASKS = {
    "xpos": ("EWT XPOS", "ud_english_ewt/en_ewt-ud-train.conllu", "ud_english_ewt/en_ewt-ud-dev.conllu", "conllu", "xpos"),
    "ufeats": ("EWT UPOS|FEATS", "ud_english_ewt/en_ewt-ud-train.conllu", "ud_english_ewt/en_ewt-ud-dev.conllu",
               "conllu", "upos|feats"),
    "joint": ("CoNLL-2000 joint", "conll2000/train.txt", None, "conll2000", "joint"),
    "bunsetsu": ("bunsetsu XPOS", "ud_japanese_v1.4_bunsetsu/ja-ud-train.conllu",
                 "ud_japanese_v1.4_bunsetsu/ja-ud-dev.conllu", "conllu", "xpos"),
}


def load(key, data):
    title, train, dev, fmt, field = TASKS[key]
    X, Y = read_tagged(data / train, format=fmt, tag_field=field)
    if dev is None:  # the last tenth of the training split
        n = len(X) * 9 // 10
        return title, X[:n], Y[:n], X[n:], Y[n:]
    Xd, Yd = read_tagged(data / dev, format=fmt, tag_field=field)
    return title, X, Y, Xd, Yd


def scores(pred, X, Xd, Yd):
    """Accuracy over all, known and unknown words, and the unknown words' share."""
    known = {w for s in X for w in s}
    hit = np.array([p == g for ps, gs in zip(pred, Yd) for p, g in zip(ps, gs)])
    unk = np.array([w not in known for ws in Xd for w in ws])
    return {"accuracy": float(hit.mean()), "known": float(hit[~unk].mean()),
            "unknown": float(hit[unk].mean()) if unk.any() else float("nan"), "unknown_share": float(unk.mean())}


def crfsuite_run(X, Y, Xd, Yd, max_iterations):
    feat = Featurizer(CRFSUITE_USUAL)
    t0 = time.perf_counter()
    with crfsuite_tagger(feat, X, Y, {"c1": 0.1, "c2": 0.01, "max_iterations": max_iterations}, "lbfgs") as crf:
        if crf is None:
            return None
        pred = [crf.tag(items) for items in crfsuite_items(feat, Xd)]
    return {**scores(pred, X, Xd, Yd), "seconds": time.perf_counter() - t0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default=",".join(TASKS), help="comma-separated: " + ", ".join(TASKS))
    p.add_argument("--sets", action="append", default=[],
                   help="an extra set NAME=TEMPLATE,TEMPLATE,... added to the defaults (repeatable)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--crfsuite-tasks", default="xpos", help="tasks python-crfsuite is trained on ('' for none)")
    p.add_argument("--crf-iterations", type=int, default=100, help="python-crfsuite's L-BFGS iterations")
    args = p.parse_args()
    data = require_shared_data()
    sets = dict(SETS)
    for spec in args.sets:
        name, _, extra = spec.partition("=")
        sets[name] = tuple(DEFAULT_TEMPLATES) + tuple(t for t in extra.split(",") if t)
    tasks = [t for t in args.tasks.split(",") if t]
    results = {"epochs": args.epochs, "sets": {k: list(v) for k, v in sets.items()}, "tasks": {}}
    for key in tasks:
        title, X, Y, Xd, Yd = load(key, data)
        res = results["tasks"][key] = {"title": title, "labels": len({t for ts in Y for t in ts}), "sets": {}}
        for name, templates in sets.items():
            t0 = time.perf_counter()
            tagger = PerceptronTagger(templates=templates, n_iter=args.epochs).fit(X, Y)
            res["sets"][name] = {**scores(tagger.predict(Xd), X, Xd, Yd), "features": len(tagger.feature_names_),
                                 "seconds": time.perf_counter() - t0}
            print(key, name, {k: round(v, 4) for k, v in res["sets"][name].items()}, flush=True)
        if key in args.crfsuite_tasks.split(","):
            crf = crfsuite_run(X, Y, Xd, Yd, args.crf_iterations)
            if crf:
                res["crfsuite"] = crf
                print(key, "python-crfsuite", {k: round(v, 4) for k, v in crf.items()}, flush=True)
    R = results["tasks"]
    head = ["features (model)"] + [f"{R[k]['title']} ({R[k]['labels']} labels)" for k in tasks]
    rows = []
    for name in sets:
        rows.append([f"{name} (perceptron)"] + [f"{R[k]['sets'][name]['accuracy']:.4f} / {R[k]['sets'][name]['known']:.4f} / "
                                               f"{R[k]['sets'][name]['unknown']:.4f}" for k in tasks])
    rows.append(["python-crfsuite's usual templates (python-crfsuite, L-BFGS)"]
                + [f"{R[k]['crfsuite']['accuracy']:.4f} / {R[k]['crfsuite']['known']:.4f} / {R[k]['crfsuite']['unknown']:.4f}"
                   if "crfsuite" in R[k] else "not run" for k in tasks])
    rows.append(["unknown words' share of the tokens"] + [f"{R[k]['sets']['defaults']['unknown_share']:.3f}" for k in tasks])
    md = ("Dev accuracy: all / known words / unknown words.\n\n" + markdown_table(head, rows) + "\n\nTemplates:\n\n"
          + "\n".join(f"- {name}: `{' '.join(t)}`" for name, t in sets.items()))
    write_results("tagger_features", results, md)


if __name__ == "__main__":
    main()
