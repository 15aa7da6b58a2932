"""Which templates the English parser's label component reads: accuracy and
the label classifier's share of the decision time, per variant.

One parser (d = 2, PA-I, --n-iter epochs, fstrie) is trained on the first
--train-sentences EWT training sentences with the pipeline's own split (the
label component without the lookahead s1, b2, b3); for every variant the label
component is retrained on the label examples of every configuration template
(the "full" variant: the lookahead too) minus the variant's roles, the
transition component staying the same, and the parser is evaluated on EWT dev
(--rounds times; the fastest label time is kept). The label and transition
classifier times come from the same runs, so their ratio is the figure to
compare across variants (absolute times follow the machine's load;
callgrind instruction counts are in docs/english_parser.md).

    python benchmarks/bench_english_label_features.py [--features malt] [--train-sentences 2000]
"""

from __future__ import annotations

import argparse
import copy

from _common import SHARED_DATA, markdown_table, require_shared_data, write_results

#: Variant -> the roles whose templates the label component leaves out.
VARIANTS = {
    "full": (),
    "without lookahead (shipped)": ("s1", "b2", "b3"),
    "s0 and b0 only": ("s1", "b1", "b2", "b3", "hs0"),
}


def _role(name: str) -> str:
    return name.split("=", 1)[0].split(".", 1)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", default="malt", choices=("malt", "rich"))
    ap.add_argument("--train-sentences", type=int, default=2000)
    ap.add_argument("--n-iter", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--name", default="english_label_features")
    args = ap.parse_args()
    require_shared_data()
    from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
    from conjunct.tasks.english.features import ConfigurationFeatures, spec_for
    from conjunct.tasks.english.oracle import arc_eager_oracle
    from conjunct.tasks.english.transitions import LA, RA, State, is_projective
    from conjunct.training import PAClassifier

    base = SHARED_DATA / "ud_english_ewt"
    train = read_ud_english(base / "en_ewt-ud-train.conllu")[:args.train_sentences]
    dev = read_ud_english(base / "en_ewt-ud-dev.conllu")
    parser = EnglishDependencyParser(degree=2, n_iter=args.n_iter, features=args.features).fit(train)
    # Label examples over every template of the set (both components'), filtered per variant.
    spec = spec_for(args.features, None)
    feats, labels = [], []
    for s in train:
        if not is_projective(s.heads):
            continue
        cf, state = ConfigurationFeatures(s, spec=spec), State(len(s))
        for t, label in arc_eager_oracle(s.heads, s.labels):
            if t == LA or (t == RA and state.stack[-1] != 0):
                feats.append(cf.features(state) + cf.arc_features(state, 0 if t == LA else 1))
                labels.append(label)
            state.apply(t, label)
    rows, results = [], {}
    for name, drop in VARIANTS.items():
        p = copy.deepcopy(parser)
        est = PAClassifier(degree=2, C=p.C, n_iter=args.n_iter, margin=p.margin, common_features=p.common_features,
                           random_state=p.random_state)
        est.fit([[f for f in row if _role(f) not in drop] for row in feats], labels)
        p.models_ = {**p.models_, "label": est.model_}
        p.compile(p.method, events=train)
        runs = [p.evaluate(dev) for _ in range(args.rounds)]
        best = min(runs, key=lambda r: r["label_classifier_seconds"])
        label_s = best["label_classifier_seconds"]
        trans_s = best["classifier_seconds"] - label_s
        results[name] = {"leaves_out": list(drop), "uas": best["uas"], "las": best["las"], "label_seconds": label_s,
                         "transition_seconds": trans_s, "label_features": len(est.model_.features)}
        rows.append([name, ", ".join(drop) or "-", f"{100 * best['uas']:.2f}", f"{100 * best['las']:.2f}",
                     f"{label_s / trans_s:.2f}" if trans_s else "-", f"{len(est.model_.features):,}"])
    md = (f"EWT dev, {args.features} features, first {args.train_sentences} training sentences, d = 2, "
          f"{args.n_iter} epochs, fstrie.\n\n"
          + markdown_table(["label component", "leaves out", "dev UAS", "dev LAS", "label / transition time",
                            "label features"], rows))
    write_results(args.name, {"features": args.features, "train_sentences": args.train_sentences,
                              "n_iter": args.n_iter, "variants": results}, md)


if __name__ == "__main__":
    main()
