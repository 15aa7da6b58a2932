"""conjunct plot: draw a benchmark's results JSON (or a training history) as a figure."""

from __future__ import annotations

import argparse
import os


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def register(sub) -> None:
    p = sub.add_parser(
        "plot",
        help="draw a benchmark's results JSON as a figure (needs matplotlib: pip install 'conjunct[plot]')",
        description="Draw benchmarks/results/*.json from bench_decode, bench_classify, bench_fstrie_limit, "
                    "bench_train, bench_learning_curve or bench_adaptive (or a JSON list of an estimator's history_) "
                    "as a figure.",
    )
    p.add_argument("results", help="a results JSON file")
    p.add_argument("-o", "--output", help="image to write; the format follows the extension "
                                          "(default: the results file with .png)")
    p.add_argument("--figure", help="which figure when the results hold several "
                                    "(train: examples, N; default the first)")
    p.add_argument("--dpi", type=_positive_int, default=130, help="resolution of raster images (default 130)")
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import plot

    data = plot.read_results(args.results)
    fig = plot.figure_from_results(data, source=args.results, figure=args.figure)
    out = args.output or os.path.splitext(args.results)[0] + ".png"
    print(plot.save_figure(fig, out, dpi=args.dpi))
    return 0
