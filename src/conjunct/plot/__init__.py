"""Figures of conjunct's benchmarks and training runs.

Every figure is a function of plain data (numbers, lists and dicts) that
returns a :class:`matplotlib.figure.Figure`, so a test, a benchmark script or
a notebook can draw one without any benchmark file:

- :func:`decoding_speed`: sentences per second against the number of labels,
  one line per decoder, log scales (Kaji et al. 2010);
- :func:`classification_time_vs_size`: time per classification against the
  size of an fstrie (or of a model), with horizontal reference lines such as
  PKE (Yoshinaga & Kitsuregawa 2009 Figure 3);
- :func:`training_time`: training time against the number of examples (or of
  common features N), log-log, each line labelled with its fitted exponent
  (Yoshinaga & Kitsuregawa 2010 Figures 1-4);
- :func:`learning_curve`: accuracy, updates and support vectors per epoch,
  from an estimator's ``history_`` (:func:`epoch_records`) or a callback;
- :func:`adaptive_cache`: the self-adaptive classifier's hit rate and
  speed-up over PKE against cache rows and along the stream (Yoshinaga &
  Kitsuregawa 2014).

``benchmarks/plot_results.py`` reads the JSON the benchmark scripts write and
draws it through these functions. Every method keeps one colour, marker and
line style in every figure (:func:`method_style`): PKE is the same blue
wherever it appears, peers are dashed.

matplotlib is an optional dependency (``pip install 'conjunct[plot]'``).
Figures are drawn off screen with the Agg canvas; pyplot is never imported.
"""

from ._style import INSTALL_HINT, Point, Series, method_style
from .figures import (adaptive_cache, classification_time_vs_size, decoding_speed, epoch_records, fitted_exponent,
                      learning_curve, save_figure, training_time)

__all__ = [
    "INSTALL_HINT",
    "Point",
    "Series",
    "adaptive_cache",
    "classification_time_vs_size",
    "decoding_speed",
    "epoch_records",
    "fitted_exponent",
    "learning_curve",
    "method_style",
    "save_figure",
    "training_time",
]
