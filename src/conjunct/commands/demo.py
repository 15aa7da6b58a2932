"""conjunct demo: the main job end to end on generated data."""

from __future__ import annotations

from ._common import at_least, option


def register(sub) -> None:
    d = sub.add_parser("demo", help="the main job end to end on generated Zipfian data")
    d.add_argument("--n-train", type=at_least(1), default=4000, help="training examples to generate (default 4000)")
    d.add_argument("--n-test", type=at_least(1), default=2000, help="test examples to generate (default 2000)")
    option(d, "degree", default=3, help="degree d of the polynomial kernel (default 3)")
    d.add_argument("--classes", type=at_least(2), default=2, help="number of classes (default 2)")
    option(d, "seed", help="seed of the generator and the shuffling (default 0)")
    d.set_defaults(func=run)


def run(args) -> int:
    from ..demo import run_demo

    return run_demo(n_train=args.n_train, n_test=args.n_test, degree=args.degree, n_classes=args.classes, seed=args.seed)
