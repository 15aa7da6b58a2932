"""The Japanese segmenter's word-dictionary features (Neubig et al. 2011) on
UD Japanese GSD r2.8: each variant (degree, with or without the dictionary
flags) is trained on GSD train with the text pipeline's layout and scored on
**dev**, the split to choose on; ``--test VARIANT`` scores the chosen one on
test once. The cost of a character is measured separately, as callgrind
instruction counts (``--callgrind MODEL``: the instructions of segmenting GSD
test ``--passes`` times, between two callgrind dumps, so loading is left out).

    python benchmarks/bench_segment_dictionary.py                        # d1, d2 with and without the dictionary
    python benchmarks/bench_segment_dictionary.py --variants d2+dict --test d2+dict --save-dir models/
    python benchmarks/bench_segment_dictionary.py --quick                # 300 sentences, 2 epochs
    python benchmarks/bench_segment_dictionary.py --variants d2+dict d2+dict,t4 d2+dict,n4,C0.5,i20

A variant is a base (d1, d2, d3, each with or without +dict) and options
after commas: ``nK`` longest character n-gram, ``tK`` longest character-type
n-gram, ``C<x>`` PA-I's C, ``iK`` epochs (default ``-i``), ``fK`` dictionary folds,
``sK`` the shuffling seed (default 0), ``lm`` the longest-match flags (``d2+dict,lm``).
    valgrind --tool=callgrind python benchmarks/bench_segment_dictionary.py --callgrind seg.cjm
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from _common import markdown_table, require_shared_data, write_results


def variant(name: str, iterations: int) -> dict:
    """WordSegmenter parameters of a variant name (see the module docstring)."""
    base, *options = name.split(",")
    degree, plus, dictionary = base.partition("+")
    if degree not in ("d1", "d2", "d3") or (plus and dictionary != "dict"):
        raise argparse.ArgumentTypeError(f"variant {name!r}: the base is d1, d2 or d3, with or without +dict")
    params = {"degree": int(degree[1]), "dictionary": bool(plus), "n_iter": iterations}
    keys = {"n": ("ngram", int), "t": ("type_ngram", int), "C": ("C", float), "i": ("n_iter", int),
            "f": ("dictionary_folds", int), "s": ("random_state", int)}
    for o in options:
        if o == "lm" and plus:
            params["longest_match"] = True
            continue
        if not o or o[0] not in keys:
            raise argparse.ArgumentTypeError(f"variant {name!r}: unknown option {o!r} (n, t, C, i, f, s; lm with +dict)")
        key, kind = keys[o[0]]
        params[key] = kind(o[1:])
    return params


def callgrind_pass(model: str, passes: int) -> None:
    """Segment GSD test ``passes`` times between two callgrind dumps (run under callgrind)."""
    import conjunct
    from conjunct.tasks.segment import read_segmented_conllu

    seg = conjunct.load(model)
    texts = ["".join(s) for s in read_segmented_conllu(require_shared_data() / "ud_japanese_gsd" / "r2.8" /
                                                       "ja_gsd-ud-test.conllu")]
    seg.segment(texts[:5])
    subprocess.run(["callgrind_control", "-d", str(os.getpid())], check=True, capture_output=True)
    for _ in range(passes):
        seg.segment(texts)
    subprocess.run(["callgrind_control", "-d", str(os.getpid())], check=True, capture_output=True)
    print(f"characters {sum(map(len, texts))} passes {passes}: the second dump's instructions / "
          f"{passes * sum(map(len, texts))} = instructions per character")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", nargs="+", default=["d2", "d1+dict", "d2+dict"])
    ap.add_argument("--test", default=None, help="score this variant on test (once, chosen on dev)")
    ap.add_argument("--train-sentences", type=int, default=None)
    ap.add_argument("-i", "--iterations", type=int, default=10)
    ap.add_argument("--save-dir", type=Path, default=None, help="save each variant's model here")
    ap.add_argument("--reuse", action="store_true", help="load a variant's model from --save-dir when it is there")
    ap.add_argument("--quick", action="store_true", help="300 training sentences, 2 epochs")
    ap.add_argument("--callgrind", default=None, metavar="MODEL", help="segment GSD test with MODEL between callgrind dumps")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    if args.callgrind:
        return callgrind_pass(args.callgrind, args.passes)
    if args.quick:
        args.train_sentences, args.iterations = args.train_sentences or 300, 2
    from conjunct.tasks.base import shipped_layout
    from conjunct.tasks.segment import WordSegmenter, read_segmented_conllu

    base = require_shared_data() / "ud_japanese_gsd" / "r2.8"
    train = read_segmented_conllu(base / "ja_gsd-ud-train.conllu")[:args.train_sentences]
    dev = read_segmented_conllu(base / "ja_gsd-ud-dev.conllu")
    rows, results = [], {}
    names = list(dict.fromkeys(args.variants + ([args.test] if args.test else [])))
    params = {name: variant(name, args.iterations) for name in names}  # every name checked before the first fit
    for name in names:
        path = args.save_dir / f"seg_{name.replace('+', '_').replace(',', '_')}.cjm" if args.save_dir else None
        t0 = time.perf_counter()
        if args.reuse and path is not None and path.exists():
            import conjunct

            seg, seconds = conjunct.load(path), None  # trained by an earlier run: no fit time
        else:
            seg = WordSegmenter(**params[name], **shipped_layout()).fit(train)
            seconds = time.perf_counter() - t0
        r = {"dev": seg.evaluate(dev), "fit_seconds": seconds, "support_vectors":
             seg.training_stats_["boundary"]["support_vectors"] if hasattr(seg, "training_stats_") else ""}
        if name == args.test:  # chosen on dev before this line runs
            r["test"] = seg.evaluate(read_segmented_conllu(base / "ja_gsd-ud-test.conllu"))
        if path is not None and not (args.reuse and path.exists()):
            args.save_dir.mkdir(parents=True, exist_ok=True)
            seg.save(path)
        results[name] = r
        rows.append([name, f"{100 * r['dev']['f1']:.2f}", f"{100 * r['test']['f1']:.2f}" if "test" in r else "",
                     r["support_vectors"], "" if seconds is None else round(seconds)])
        print(rows[-1], flush=True)
    md = (f"GSD r2.8, trained on {args.train_sentences or 'all'} train sentences ({args.iterations} epochs, the text "
          "pipeline's layout). Word F1 (%); test only for the variant chosen on dev.\n\n"
          + markdown_table(["variant", "dev word F1", "test word F1", "support vectors", "fit (s)"], rows)
          + "\n\nFit times were taken on a shared machine; accuracies do not depend on load.\n")
    write_results(args.name or ("segment_dictionary_quick" if args.quick else "segment_dictionary"),
                  {"train_sentences": args.train_sentences, "iterations": args.iterations, "results": results}, md)


if __name__ == "__main__":
    main()
