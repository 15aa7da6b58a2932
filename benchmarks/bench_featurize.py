"""Tagging from tokens: the featurizer with and without its encoding cache, end to end.

For each tagging task of bench_decode (EWT POS, CoNLL-2000 joint POS+chunk,
bunsetsu XPOS), a perceptron tagger is trained (SD+C-EXP, 10 epochs), then the
test split is turned into feature ids and tagged:

- tokens -> feature ids without a cache (every call starts from nothing);
- with a fresh cache (text never seen, nothing remembered);
- with a cache that has seen the training text first, on the (unseen) test
  text: the steady state of a stream of text from one domain tagged in batches
  (``conjunct tag run``);
- on text the cache has seen (everything remembered);
- decoding alone (SD+C-EXP, from feature ids), and end to end from tokens with
  the training-warmed cache and with a fresh one;
- python-crfsuite's tagging of the same test set with the same features
  (string feature lists built beforehand, and built per call by the
  featurizer: what a user of crfsuite does), its model trained for one epoch.

Times are CPU seconds of the calling thread, medians over rounds; every cache
measurement starts from a new cache built the same way, so the warm-up never
leaks into the timing. The results are checked: every cached encoding equals
the uncached one.

Usage::

    python benchmarks/bench_featurize.py                 # all three tasks (~5 min on 2 cores)
    python benchmarks/bench_featurize.py --tasks pos --repeats 3 --no-crfsuite
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import markdown_table, require_shared_data, write_results
from bench_decode import TASKS, crfsuite_items, crfsuite_tagger, load_task

from conjunct.tagging import PerceptronTagger
from conjunct.tagging.features import EncodingCache
from conjunct.tagging.taggers import _sent_ptr


def cpu_median(fn, repeats, setup=None, min_seconds=0.05):
    """Median CPU seconds per call of fn() over `repeats` rounds (after one
    warm-up round); setup() runs untimed before every call."""
    times = []
    for r in range(repeats + 1):
        total, calls = 0.0, 0
        while total < min_seconds or calls == 0:
            if setup is not None:
                setup()
            c0 = time.thread_time()
            fn()
            total += time.thread_time() - c0
            calls += 1
        if r:
            times.append(total / calls)
    return float(np.median(times))


def same(a, b):
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def bench_task(key, data, args):
    title, X, Y, Xt, Yt = load_task(key, data)
    n, n_tok = len(Xt), sum(map(len, Xt))
    print(f"{title}: {len(X)} training / {n} test sentences ({n_tok} tokens)", flush=True)
    tagger = PerceptronTagger(decoder="staggered-column", n_iter=args.epochs).fit(X, Y)
    feat, vocab = tagger._featurizer(), tagger._vocab
    box = {}

    def fresh():
        box["cache"] = EncodingCache(feat.templates, vocab)

    def trained():
        fresh()
        feat.encode(X, vocab, cache=box["cache"])

    reference = feat.encode(Xt, vocab)
    for setup in (fresh, trained):
        setup()
        assert same(feat.encode(Xt, vocab, cache=box["cache"]), reference), "cached encoding differs"
        assert same(feat.encode(Xt, vocab, cache=box["cache"]), reference), "cached encoding differs"
    trained()
    stats = {"types_after_training_text": box["cache"].n_types, "keys_after_training_text": box["cache"].n_keys}
    feat.encode(Xt, vocab, cache=box["cache"])
    stats["new_types_in_test"] = box["cache"].n_types - stats["types_after_training_text"]
    stats["new_keys_in_test"] = box["cache"].n_keys - stats["keys_after_training_text"]

    R = args.repeats
    secs = {}
    secs["encode_no_cache"] = cpu_median(lambda: feat.encode(Xt, vocab), R)
    secs["encode_fresh_cache"] = cpu_median(lambda: feat.encode(Xt, vocab, cache=box["cache"]), R, setup=fresh)
    secs["encode_unseen_text"] = cpu_median(lambda: feat.encode(Xt, vocab, cache=box["cache"]), R, setup=trained)
    fresh()
    feat.encode(Xt, vocab, cache=box["cache"])
    secs["encode_seen_text"] = cpu_median(lambda: feat.encode(Xt, vocab, cache=box["cache"]), R)
    indptr, ids = reference
    ptr = _sent_ptr(Xt)
    secs["decode"] = cpu_median(lambda: tagger.model_.decode_batch(indptr, ids, ptr, "staggered-column", beam_width=1), R)

    def tagger_cache(warm_with):
        def setup():  # a new cache (built untimed), warmed with some text or not
            tagger._cache = None
            tagger._encoding_cache(feat)
            if warm_with is not None:
                tagger._encode(warm_with)
        return setup

    secs["end_to_end_unseen_text"] = cpu_median(lambda: tagger.predict(Xt), R, setup=tagger_cache(X))
    secs["end_to_end_fresh_cache"] = cpu_median(lambda: tagger.predict(Xt), R, setup=tagger_cache(None))
    t0 = time.thread_time()
    EncodingCache(feat.templates, vocab)
    secs["new_cache"] = time.thread_time() - t0
    out = {"title": title, "test_sentences": n, "test_tokens": n_tok, "features": len(tagger.feature_names_),
           "labels": len(tagger.labels_), "accuracy": tagger.score(Xt, Yt), "seconds": secs, **stats}
    if not args.no_crfsuite:
        out["crfsuite"] = bench_crfsuite(feat, X, Y, Xt, Yt, R)
    for k, v in secs.items():
        if k == "new_cache":
            print(f"  {k:24s} {v:.3f} s", flush=True)
            continue
        print(f"  {k:24s} {n / v:12,.0f} sent/s  {v / n_tok * 1e6:6.2f} µs/token", flush=True)
    return out


def bench_crfsuite(feat, X, Y, Xt, Yt, repeats):
    with crfsuite_tagger(feat, X, Y, {"max_iterations": 1}) as crf:
        if crf is None:
            print("  python-crfsuite not installed: skipped", flush=True)
            return None
        seqs = crfsuite_items(feat, Xt)
        tag_only = cpu_median(lambda: [crf.tag(s) for s in seqs], repeats)
        with_features = cpu_median(lambda: [crf.tag(s) for s in crfsuite_items(feat, Xt)], repeats)
    print(f"  crfsuite tag only {len(Xt) / tag_only:12,.0f} sent/s; with features {len(Xt) / with_features:,.0f}",
          flush=True)
    return {"tag_seconds": tag_only, "with_features_seconds": with_features}


ROWS = [
    ("encode_no_cache", "tokens → feature ids, no cache"),
    ("encode_fresh_cache", "tokens → feature ids, new cache (nothing remembered)"),
    ("encode_unseen_text", "tokens → feature ids, unseen text, cache has seen the training text"),
    ("encode_seen_text", "tokens → feature ids, text the cache has seen"),
    ("decode", "decoding alone (SD+C-EXP, from feature ids)"),
    ("end_to_end_fresh_cache", "end to end from tokens, new cache"),
    ("end_to_end_unseen_text", "end to end from tokens, unseen text, cache has seen the training text"),
]
NEW_CACHE = "building a new cache (the vocabulary copied to C++), once per tagger: seconds"


def markdown(results):
    R = results["tasks"]
    tasks = list(R)
    head = ["sentences per CPU second"] + [f"{R[k]['title']}, {R[k]['labels']} labels" for k in tasks]
    rows = []
    for key, label in ROWS:
        rows.append([label] + [f"{R[k]['test_sentences'] / R[k]['seconds'][key]:,.0f}" for k in tasks])
    rows.append([NEW_CACHE] + [f"{R[k]['seconds']['new_cache']:.2f}" for k in tasks])
    if all(R[k].get("crfsuite") for k in tasks):
        rows.append(["python-crfsuite tagging, string features built beforehand"]
                    + [f"{R[k]['test_sentences'] / R[k]['crfsuite']['tag_seconds']:,.0f}" for k in tasks])
        rows.append(["python-crfsuite tagging, string features built per call"]
                    + [f"{R[k]['test_sentences'] / R[k]['crfsuite']['with_features_seconds']:,.0f}" for k in tasks])
    speed = ["cache speed-up on unseen text (no cache / training-warmed cache)"] + [
        f"{R[k]['seconds']['encode_no_cache'] / R[k]['seconds']['encode_unseen_text']:.1f}×" for k in tasks]
    rows.append(speed)
    stats = [["test tokens"] + [f"{R[k]['test_tokens']:,}" for k in tasks],
             ["word types / keys remembered from the training text"]
             + [f"{R[k]['types_after_training_text']:,} / {R[k]['keys_after_training_text']:,}" for k in tasks],
             ["new word types / keys in the test text"]
             + [f"{R[k]['new_types_in_test']:,} / {R[k]['new_keys_in_test']:,}" for k in tasks],
             ["perceptron token accuracy"] + [f"{R[k]['accuracy']:.4f}" for k in tasks]]
    return (f"Perceptron taggers ({results['epochs']} epochs, SD+C-EXP) on the test splits; medians of "
            f"{results['repeats']} rounds. Every cached encoding was checked equal to the uncached one.\n\n"
            + markdown_table(head, rows) + "\n\n" + markdown_table(["data"] + head[1:], stats))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="pos,joint,bunsetsu", help="comma-separated: " + ", ".join(TASKS))
    p.add_argument("--epochs", type=int, default=10, help="perceptron epochs")
    p.add_argument("--repeats", type=int, default=5, help="timed rounds per measurement (median)")
    p.add_argument("--no-crfsuite", action="store_true", help="skip the python-crfsuite peer")
    p.add_argument("--results-name", default="featurize", help="write benchmarks/results/<name>.md and .json")
    args = p.parse_args()
    data = require_shared_data()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    for t in tasks:
        if t not in TASKS:
            p.error(f"unknown task {t!r}")
    results = {"epochs": args.epochs, "repeats": args.repeats, "tasks": {}}
    for t in tasks:
        results["tasks"][t] = bench_task(t, data, args)
    write_results(args.results_name, results, markdown(results))


if __name__ == "__main__":
    main()
