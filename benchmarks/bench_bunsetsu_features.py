"""Which bunsetsu feature groups earn their place: dependency and sentence
accuracy on **dev** of the parser trained with all groups, with each group
left out, and with the core group alone (seed 000 Table 1), at d = 2 and 3.

Averaged PA-I, C = 1, 10 epochs, on the 65,789 training decisions of Sassano's
oracle (the same sentences and decisions J.DepP trains on). The test set is
not read: the groups are chosen here, and the test is scored once by
bench_jdepp.py.

    python benchmarks/bench_bunsetsu_features.py [--degrees 2 3] [--quick]
"""

from __future__ import annotations

import argparse
import time

from _common import markdown_table, require_shared_data, write_results

from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, dependency_accuracy, load_gsd_bunsetsu, sassano_parse
from conjunct.tasks.bunsetsu.features import FEATURE_GROUPS, SentenceFeatures


def parse_reference(clf, sentences, groups):
    """Sassano's algorithm in Python, the classifier asked per decision over
    the Python reference templates (independent of the C++ extractor)."""
    out = []
    for s in sentences:
        f, heads = SentenceFeatures(s, groups), [-1] * len(s)
        out.append(sassano_parse(len(s), lambda i, j: clf.predict_one(f.pair(i, j, heads)) == 1, heads))
    return out


def configurations():
    yield "all groups", FEATURE_GROUPS
    for g in FEATURE_GROUPS[1:]:
        yield f"without {g}", tuple(x for x in FEATURE_GROUPS if x != g)
    yield "core only", ("core",)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--degrees", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--quick", action="store_true", help="2,000 training sentences, 3 epochs (a smoke run)")
    args = ap.parse_args()
    data = require_shared_data() / "ud_japanese_gsd"
    train, dev = load_gsd_bunsetsu(data, "train"), load_gsd_bunsetsu(data, "dev")
    n_iter = 10
    if args.quick:
        train, n_iter = train[:2000], 3
    rows, results = [], []
    for name, groups in configurations():
        for d in args.degrees:
            t0 = time.process_time()
            p = BunsetsuDependencyParser(degree=d, n_iter=n_iter, method="pke", groups=groups).fit(train)
            seconds = time.process_time() - t0
            dep, sent = dependency_accuracy(dev, parse_reference(p.classifier_, dev, groups))
            res = {"configuration": name, "groups": list(groups), "degree": d, "dev_dependency_accuracy": dep,
                   "dev_sentence_accuracy": sent, "support_vectors": p.model_.n_support_vectors,
                   "features": len(p.model_.features), "train_cpu_seconds": seconds}
            results.append(res)
            rows.append([name, d, f"{100 * res['dev_dependency_accuracy']:.2f}%", f"{100 * res['dev_sentence_accuracy']:.2f}%",
                         f"{res['support_vectors']:,}", f"{res['features']:,}"])
            print(rows[-1], flush=True)
    md = markdown_table(["features", "d", "dev dep. acc.", "dev sent. acc.", "SVs", "features"], rows)
    write_results("bunsetsu_features" + ("_quick" if args.quick else ""), {"results": results, "n_iter": n_iter}, md)
    print(md)


if __name__ == "__main__":
    main()
