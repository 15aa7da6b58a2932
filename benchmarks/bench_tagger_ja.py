"""The Japanese pipeline's tagger by feature set, on UD Japanese GSD r2.8
**dev** (the split to choose on): the averaged perceptron the pipeline trains
(joint ``UPOS|XPOS`` tags, gold words of GSD train, 10 epochs) with the
default templates and with the sets given, scored on dev's gold words: UPOS
and joint accuracy, UPOS on words train does not have. The cost of a token
is measured separately, as callgrind instruction counts (``--callgrind
MODEL``: tagging GSD dev ``--passes`` times between two callgrind dumps).

    python benchmarks/bench_tagger_ja.py --sets "+ctype=ctype" "+nb=s1-1,p1+1"
    python benchmarks/bench_tagger_ja.py --quick --sets "+ctype=ctype" --save-dir models/
    python benchmarks/bench_tagger_ja.py --seeds 0 1 2 --sets "+ctype=ctype"     # each set with three shuffling seeds
    valgrind --tool=callgrind python benchmarks/bench_tagger_ja.py --callgrind tagger.cjt

A set is ``+name=t1,t2`` (the defaults and these templates), ``-name=t1,t2``
(the defaults without them) or ``name=t1,t2`` (these alone); a template's
parts are joined by ``|`` as usual (``ctype|s1``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results

GSD = Path("ud_japanese_gsd") / "r2.8"


def template_set(text: str, defaults):
    """(name, templates) of a --sets argument."""
    name, eq, body = text.partition("=")
    if not eq or not name.strip("+-"):
        raise argparse.ArgumentTypeError(f"set {text!r}: expected [+|-]name=template,template,...")
    given = [t for t in body.split(",") if t]
    if name[0] == "+":
        return name[1:], tuple(defaults) + tuple(t for t in given if t not in defaults)
    if name[0] == "-":
        return name[1:], tuple(t for t in defaults if t not in given)
    return name, tuple(given)


def read(split: str):
    from conjunct.tagging.io import read_tagged

    return read_tagged(require_shared_data() / GSD / f"ja_gsd-ud-{split}.conllu", format="conllu", tag_field="upos|xpos")


def scores(pred, X, Xd, Yd) -> dict:
    """UPOS and joint accuracy over every dev word, UPOS over unknown words."""
    known = {w for s in X for w in s}
    rows = [(p.partition("|")[0] == g.partition("|")[0], p == g, w not in known)
            for ps, gs, ws in zip(pred, Yd, Xd) for p, g, w in zip(ps, gs, ws)]
    unk = [r for r in rows if r[2]]
    return {"upos": sum(r[0] for r in rows) / len(rows), "joint": sum(r[1] for r in rows) / len(rows),
            "upos_unknown": sum(r[0] for r in unk) / max(1, len(unk)), "unknown_share": len(unk) / len(rows)}


def callgrind_pass(model: str, passes: int) -> None:
    """Tag GSD dev ``passes`` times between two callgrind dumps (run under callgrind)."""
    import conjunct

    tagger = conjunct.load(model)
    X, _ = read("dev")
    tagger.predict(X[:5])
    subprocess.run(["callgrind_control", "-d", str(os.getpid())], check=True, capture_output=True)
    for _ in range(passes):
        tagger.predict(X)
    subprocess.run(["callgrind_control", "-d", str(os.getpid())], check=True, capture_output=True)
    n = sum(map(len, X))
    print(f"tokens {n} passes {passes}: the second dump's instructions / {passes * n} = instructions per token")


def main() -> None:
    from conjunct.tagging import DEFAULT_TEMPLATES, PerceptronTagger

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=[], help="template sets besides the defaults")
    ap.add_argument("--train-sentences", type=int, default=None)
    ap.add_argument("-i", "--iterations", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="1,000 training sentences, 3 epochs")
    ap.add_argument("--save-dir", type=Path, default=None, help="save each set's tagger here")
    ap.add_argument("--callgrind", default=None, metavar="MODEL", help="tag GSD dev with MODEL between callgrind dumps")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0],
                    help="shuffling seeds (random_state): each set is trained once per seed, to see the spread")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    if args.callgrind:
        return callgrind_pass(args.callgrind, args.passes)
    if args.quick:
        args.train_sentences, args.iterations = args.train_sentences or 1000, 3
    sets = dict([("defaults", tuple(DEFAULT_TEMPLATES))] + [template_set(s, DEFAULT_TEMPLATES) for s in args.sets])
    X, Y = read("train")
    X, Y = X[:args.train_sentences], Y[:args.train_sentences]
    Xd, Yd = read("dev")
    rows, results = [], {}
    for name, templates in sets.items():
        for seed in args.seeds:
            t0 = time.perf_counter()
            tagger = PerceptronTagger(templates=templates, n_iter=args.iterations, random_state=seed).fit(X, Y)
            seconds = time.perf_counter() - t0
            r = {"templates": list(templates), "seed": seed, "fit_seconds": seconds, "features": len(tagger.feature_keys_),
                 **scores(tagger.predict(Xd), X, Xd, Yd)}
            key = name if len(args.seeds) == 1 else f"{name}, seed {seed}"
            if args.save_dir:
                args.save_dir.mkdir(parents=True, exist_ok=True)
                tagger.save(args.save_dir / f"tagger_{key.replace(', seed ', '_s')}.cjt")
            results[key] = r
            rows.append([key, f"{100 * r['upos']:.2f}", f"{100 * r['joint']:.2f}", f"{100 * r['upos_unknown']:.2f}",
                         r["features"], round(seconds)])
            print(rows[-1], flush=True)
    md = (f"UD Japanese GSD r2.8, gold words; trained on {args.train_sentences or 'all'} train sentences (joint UPOS|XPOS, "
          f"{args.iterations} epochs, shuffling seeds {', '.join(map(str, args.seeds))}), scored on dev "
          f"(unknown: {100 * r['unknown_share']:.2f}% of dev words).\n\n"
          + markdown_table(["set", "dev UPOS", "dev UPOS+XPOS", "dev UPOS, unknown words", "features", "fit (s)"], rows)
          + "\n\nSets: " + "; ".join(f"{n}: {' '.join(t)}" for n, t in sets.items() if n != "defaults")
          + "\n\nFit times were taken on a shared machine; accuracies do not depend on load.\n")
    write_results(args.name or ("tagger_ja_quick" if args.quick else "tagger_ja"),
                  {"train_sentences": args.train_sentences, "iterations": args.iterations, "seeds": args.seeds,
                   "results": results}, md)


if __name__ == "__main__":
    main()
