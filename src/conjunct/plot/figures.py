"""The figures, each a function of plain data returning a matplotlib Figure."""

from __future__ import annotations

import math
import os
import textwrap
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._errors import ConjunctError
from ..io._atomic import atomic_file
from ._style import (_SEQUENTIAL, Point, Series, _check_panels, _draw_series, _finish, _new_figure, _plain_log_ticks,
                     _points, _si, _styled, _wrapped, method_style)

# -- the figures -----------------------------------------------------------------------------------------
def decoding_speed(panels: Mapping[str, Series], *, x_names: Optional[Mapping[float, str]] = None,
                   title: Optional[str] = "Decoding speed against the number of labels",
                   caption: Optional[str] = None, ylabel: str = "sentences per second (log scale)"):
    """Decoding speed against the number of labels, one line per decoder (Kaji et al. 2010).

    Parameters
    ----------
    panels : mapping of str to mapping of str to points
        Panel title (e.g. the model: ``"averaged perceptron"``, ``"HMM"``) ->
        decoder name -> ``(number of labels, speed)`` points (tokens or
        sentences per second: say which in ``ylabel``).
        Decoder names take their style from :func:`method_style`.
    x_names : mapping of float to str, optional
        A short name of the task at each label count, written under the tick.
    title, caption : str, optional
        Figure title; a small footer (the command that measured the data).
    ylabel : str
        The y axis label.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per panel, log-log, sharing the y axis.
    """
    _check_panels(panels, "decoding_speed")
    with _styled():
        fig, axes = _new_figure(len(panels), sharey=True)
        ticks = sorted({float(p[0]) for series in panels.values() for pts in series.values() for p in pts})
        for ax, (panel, series) in zip(axes, panels.items()):
            _draw_series(ax, series, log_x=True, log_y=True, what=f"decoding_speed, panel {panel!r}")
            ax.set_title(_wrapped(panel, ax))
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"{t:g}" + ("\n" + "\n".join(textwrap.wrap(x_names[t], 12)) if x_names and t in x_names else "")
                                for t in ticks])
            ax.minorticks_off()
            ax.set_xlabel("number of labels (log scale)")
        axes[0].set_ylabel(ylabel)
        _finish(fig, title, caption)
    return fig


def classification_time_vs_size(panels: Mapping[str, Series], references: Optional[Mapping[str, Mapping[str, float]]] = None,
                                *, xlabel: str = "fstrie size [MB] (log scale)", ylabel: str = "µs per classification",
                                title: Optional[str] = "Classification time against fstrie size",
                                caption: Optional[str] = None, log_x: bool = True):
    """Time per classification against a size, with horizontal reference lines (Yoshinaga & Kitsuregawa 2009 Figure 3).

    Parameters
    ----------
    panels : mapping of str to mapping of str to points
        Panel title (e.g. ``"d = 3"``) -> line name -> ``(size, µs)`` points.
        A point may carry a third element, a text written beside it.
    references : mapping of str to mapping of str to float, optional
        Panel title -> method -> µs per classification, drawn as a dotted
        horizontal line across the panel in the method's colour, its value
        written at the right end (PKE: the classifier without an fstrie).
    xlabel, ylabel, title, caption : str, optional
        Axis labels, figure title and footer.
    log_x : bool
        Log scale for the size axis.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per panel.
    """
    _check_panels(panels, "classification_time_vs_size")
    references = references or {}
    unknown = set(references) - set(panels)
    if unknown:
        raise ConjunctError(f"classification_time_vs_size: references for panels that do not exist: {sorted(unknown)}")
    with _styled():
        fig, axes = _new_figure(len(panels))
        for ax, (panel, series) in zip(axes, panels.items()):
            _draw_series(ax, series, log_x=log_x, log_y=False, what=f"classification_time_vs_size, panel {panel!r}")
            for name, value in references.get(panel, {}).items():
                value = float(value)
                if not math.isfinite(value):
                    raise ConjunctError(f"classification_time_vs_size, panel {panel!r}: reference {name!r} is {value}")
                style = method_style(name)
                ax.axhline(value, color=style["color"], linestyle=":", linewidth=1.4, label=name)
                ax.annotate(f"{name} {value:.3g}", xy=(1, value), xycoords=("axes fraction", "data"), ha="right",
                            va="bottom", fontsize=7, color=style["color"])
            ax.set_ylim(bottom=0)
            ax.set_title(_wrapped(panel, ax))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
        _finish(fig, title, caption)
    return fig


def fitted_exponent(points: Sequence[Point]) -> Optional[float]:
    """Slope of log y against log x by least squares: y grows as x ** slope.

    Parameters
    ----------
    points : sequence of (x, y)
        At least two points with distinct positive x and positive y.

    Returns
    -------
    float or None
        The exponent, or None when fewer than two usable points.
    """
    pts = [(math.log(float(p[0])), math.log(float(p[1]))) for p in points if float(p[0]) > 0 and float(p[1]) > 0]
    if len({x for x, _ in pts}) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def training_time(panels: Mapping[str, Series], *, xlabel: str = "training examples (log scale)",
                  ylabel: str = "training time [s] (log scale)", variable: str = "n", fit: bool = True,
                  title: Optional[str] = "Training time against the number of examples",
                  caption: Optional[str] = None):
    """Training time against the number of examples (or of common features), log-log (Yoshinaga & Kitsuregawa 2010).

    Parameters
    ----------
    panels : mapping of str to mapping of str to points
        Panel title (e.g. the workload) -> method (``"SL"``, ``"SP"``,
        ``"KERNEL"``, ...) -> ``(examples, seconds)`` points.
    xlabel, ylabel : str
        Axis labels.
    variable : str
        The name of x in the fitted law written in the legend (``n``, ``N``).
    fit : bool
        Label each line with its fitted exponent (``SL  ∝ n^1.40``) and draw
        the fitted power law as a thin dotted line.
    title, caption : str, optional
        Figure title and footer.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per panel.
    """
    _check_panels(panels, "training_time")

    def label(name: str, xs: List[float], ys: List[float]) -> str:
        k = fitted_exponent(list(zip(xs, ys))) if fit else None
        return name if k is None else f"{name}  ∝ ${variable}^{{{k:.2f}}}$"

    with _styled():
        fig, axes = _new_figure(len(panels))
        for ax, (panel, series) in zip(axes, panels.items()):
            _draw_series(ax, series, log_x=True, log_y=True, what=f"training_time, panel {panel!r}", label=label)
            if fit:
                for name, pts in series.items():
                    xs, ys, _ = _points(pts, name)
                    k = fitted_exponent(list(zip(xs, ys)))
                    if k is None:
                        continue
                    # the least-squares line passes through the mean of the logs
                    mx = sum(map(math.log, xs)) / len(xs)
                    my = sum(map(math.log, ys)) / len(ys)
                    ends = [xs[0], xs[-1]]
                    ax.plot(ends, [math.exp(my + k * (math.log(x) - mx)) for x in ends], color=method_style(name)["color"],
                            linestyle=":", linewidth=1.0, marker=None, alpha=0.8)
            ax.set_title(_wrapped(panel, ax))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.legend(loc="best")
        _finish(fig, title, caption, shared_legend=False)
    return fig


# Learning-curve quantities: panel -> the record keys drawn on it (solid, dashed) and the axis label.
_CURVE_PANELS: Sequence[Tuple[str, Sequence[str], str]] = (
    ("accuracy", ("test_accuracy", "train_accuracy"), "fraction of examples classified right"),
    ("loss", ("loss",), "training loss"),
    ("updates", ("update_rate",), "updates per training example"),
    ("training errors", ("online_error_rate",), "mistakes per token while training"),
    ("search steps", ("search_steps_per_sentence",), "search steps per sentence"),
    ("support vectors", ("support_vectors",), "support vectors"),
    ("conjunctions", ("conjunctions",), "conjunctions with a weight"),
)
_CURVE_LABELS = {"test_accuracy": "held-out", "train_accuracy": "training"}
# The record keys learning_curve draws.
_CURVE_QUANTITIES: Tuple[str, ...] = tuple(k for _, keys, _ in _CURVE_PANELS for k in keys)


def learning_curve(curves: Mapping[str, Sequence[Mapping[str, float]]], *, title: Optional[str] = "Learning curves",
                   caption: Optional[str] = None):
    """Accuracy, loss, updates and support vectors per epoch.

    Parameters
    ----------
    curves : mapping of str to sequence of dict
        Curve name (a setting such as ``"d = 3"``) -> one record per epoch
        with ``epoch`` and any of ``test_accuracy``, ``train_accuracy``,
        ``loss``, ``update_rate`` (updates per example in that epoch),
        ``support_vectors``, ``conjunctions``. :func:`epoch_records` makes
        such records from an estimator's ``history_``. Other keys are ignored.
    title, caption : str, optional
        Figure title and footer.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per quantity that some record holds, one line per curve
        (accuracy: held-out solid, training dashed).
    """
    if not curves:
        raise ConjunctError("learning_curve: no curves")
    for name, records in curves.items():
        if not records:
            raise ConjunctError(f"learning_curve: curve {name!r} has no records")
        for r in records:
            if "epoch" not in r:
                raise ConjunctError(f"learning_curve: curve {name!r}: a record has no 'epoch': {dict(r)!r}")
            for key in ("epoch",) + _CURVE_QUANTITIES:
                v = r.get(key)
                if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                    raise ConjunctError(f"learning_curve: curve {name!r}, epoch {r['epoch']!r}: {key} is {v!r}, "
                                        "expected a number")
    present = [p for p in _CURVE_PANELS if any(k in r for rs in curves.values() for r in rs for k in p[1])]
    if not present:
        held = sorted({k for rs in curves.values() for r in rs for k in r})
        raise ConjunctError(f"learning_curve: the records hold none of the quantities it draws "
                            f"({', '.join(k for p in _CURVE_PANELS for k in p[1])}); they hold {held}")
    from matplotlib.ticker import StrMethodFormatter

    with _styled():
        fig, axes = _new_figure(len(present), panel_width=3.6, height=3.4)
        colours = {name: _SEQUENTIAL[i % len(_SEQUENTIAL)] if len(curves) <= len(_SEQUENTIAL) else method_style(name)["color"]
                   for i, name in enumerate(curves)}
        for ax, (panel, keys, ylabel) in zip(axes, present):
            drawn = [k for k in keys if any(r.get(k) is not None for rs in curves.values() for r in rs)]
            for name, records in curves.items():
                for key, ls in zip(drawn, ("-", "--")):
                    pts = [(float(r["epoch"]), float(r[key])) for r in records if r.get(key) is not None]
                    if not pts:
                        continue
                    suffix = f" ({_CURVE_LABELS[key]})" if len(drawn) > 1 else ""
                    ax.plot(*zip(*pts), color=colours[name], linestyle=ls, marker="o", markersize=3.5, label=name + suffix)
            ax.set_title(" / ".join(_CURVE_LABELS.get(k, "") for k in drawn) + f" {panel}" if panel == "accuracy" else panel)
            ax.set_xlabel("epoch")
            ax.set_ylabel(ylabel)
            ax.xaxis.get_major_locator().set_params(integer=True)
            if ax.get_ylim()[1] >= 10000:
                ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        _finish(fig, title, caption)
    return fig


def epoch_records(history: Sequence[Mapping[str, Any]]) -> List[Dict[str, float]]:
    """One record per epoch from an estimator's ``history_`` or a tagger's ``train_log_``.

    Parameters
    ----------
    history : sequence of dict
        Either the progress reports of ``PAClassifier`` /
        ``L1LogLinearClassifier`` (what their ``callback`` receives and
        ``history_`` keeps: ``epoch``, ``epoch_done``, cumulative ``rounds``
        and ``updates``, ``support_vectors`` or ``conjunctions``), or a
        ``PerceptronTagger``'s ``train_log_`` (``epoch``, ``token_errors``,
        ``tokens``, ``iterations``, ``sentences``, ``seconds`` per epoch).

    Returns
    -------
    list of dict
        Per finished epoch: ``epoch``; ``update_rate`` (updates per example
        in that epoch; omitted when every round updates, as in SGD) or
        ``online_error_rate`` (a tagger's mistakes per token while it
        trained); ``support_vectors`` / ``conjunctions`` when reported; and
        the timing fields present. Add ``test_accuracy`` yourself (e.g.
        after each ``partial_fit``) to draw it.
    """
    out: List[Dict[str, float]] = []
    prev_rounds = prev_updates = 0
    for r in history:
        if not r.get("epoch_done", True):
            continue
        if "epoch" not in r:
            raise ConjunctError(f"epoch_records: a history record has no 'epoch': {dict(r)!r}")
        rec: Dict[str, float] = {"epoch": r["epoch"]}
        if "token_errors" in r and "tokens" in r:
            rec["online_error_rate"] = r["token_errors"] / max(r["tokens"], 1)
        elif "rounds" in r and "updates" in r:
            rounds, updates = r["rounds"] - prev_rounds, r["updates"] - prev_updates
            if rounds > 0 and updates != rounds:
                rec["update_rate"] = updates / rounds
            prev_rounds, prev_updates = r["rounds"], r["updates"]
        else:
            raise ConjunctError("epoch_records: a history record has neither rounds and updates (an estimator's "
                                f"history_) nor token_errors and tokens (a tagger's train_log_): {dict(r)!r}")
        for key in ("support_vectors", "conjunctions", "elapsed", "examples_per_second", "seconds"):
            if key in r:
                rec[key] = r[key]
        if "iterations" in r and r.get("sentences"):
            rec["search_steps_per_sentence"] = r["iterations"] / r["sentences"]
        out.append(rec)
    return out


def adaptive_cache(rows_hit_rate: Series, rows_speedup: Series, stream_hit_rate: Optional[Series] = None,
                   stream_speedup: Optional[Series] = None, *, reference: str = "PKE",
                   title: Optional[str] = "Self-adaptive classifier: hit rate and speed-up over PKE",
                   caption: Optional[str] = None, notes: Optional[Mapping[str, str]] = None):
    """An adaptive classifier's prefix cache: hit rate and speed-up against cache rows and along the stream.

    Parameters
    ----------
    rows_hit_rate, rows_speedup : mapping of str to points
        Stream name (e.g. ``"bunsetsu d=2 depends"``) -> ``(cache rows, hit
        rate)`` and ``(cache rows, speed-up)`` points: the share of feature
        positions the cache answered, and the reference's time over the
        adaptive classifier's on the same decisions.
    stream_hit_rate, stream_speedup : mapping of str to points, optional
        Stream name -> ``(stream position, hit rate)`` and ``(stream position,
        speed-up)`` points: how the cache warms up as the stream goes by.
        Without them the figure has the two cache-rows panels only.
    reference : str
        The classifier the speed-up is measured against, drawn as a dotted
        line at 1 in its colour (:func:`method_style`).
    title, caption : str, optional
        Figure title and footer.
    notes : mapping of str to str, optional
        A note in brackets after a panel's title (the cache policy, how the
        stream's points are formed), keyed by the parameter that panel draws:
        ``"rows_hit_rate"``, ``"rows_speedup"``, ``"stream_hit_rate"``,
        ``"stream_speedup"``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (hit rate, speed-up) against cache rows, log scale with
        powers of two written as such; plus two against stream position (log
        scale) when given. Speed-ups on a log scale. One colour per stream in
        every panel, one shared legend.
    """
    grid = [("rows_hit_rate", "hit rate", rows_hit_rate, "cache rows"), ("rows_speedup", "speed-up", rows_speedup, "cache rows")]
    if (stream_hit_rate is None) != (stream_speedup is None):
        raise ConjunctError("adaptive_cache: give both stream_hit_rate and stream_speedup, or neither")
    if stream_hit_rate is not None and stream_speedup is not None:
        grid += [("stream_hit_rate", "hit rate", stream_hit_rate, "stream position"),
                 ("stream_speedup", "speed-up", stream_speedup, "stream position")]
    notes = dict(notes or {})
    unknown = set(notes) - {key for key, _, _, _ in grid}
    if unknown:
        raise ConjunctError(f"adaptive_cache: notes for panels it does not draw: {sorted(unknown)}")
    _check_panels({f"{what} against {x}": series for _, what, series, x in grid}, "adaptive_cache")
    names = list(dict.fromkeys(name for _, _, series, _ in grid for name in series))
    colours = {name: _SEQUENTIAL[i % len(_SEQUENTIAL)] for i, name in enumerate(names)}
    markers = "osD^v"
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    with _styled():
        fig, axes = _new_figure(len(grid), ncols=2, panel_width=4.8, height=3.5)
        for ax, (key, what, series, x) in zip(axes, grid):
            where = f"adaptive_cache, {what} against {x}"
            xs_all: List[float] = []
            for name, pts in series.items():
                xs, ys, _ = _points(pts, f"{where}, line {name!r}")
                if not xs:
                    continue
                if what == "speed-up" and min(ys) <= 0:
                    raise ConjunctError(f"{where}, line {name!r}: a speed-up must be positive, got {list(zip(xs, ys))}")
                if what == "hit rate" and not all(0 <= y <= 1 for y in ys):
                    raise ConjunctError(f"{where}, line {name!r}: a hit rate is a share in [0, 1], got {ys}")
                if min(xs) <= 0:  # both x axes are logarithmic
                    raise ConjunctError(f"{where}, line {name!r}: {x} must be positive, got {xs}")
                xs_all += xs
                i = names.index(name)
                # open markers: streams of one text at two degrees have the same hit rates, drawn over each other
                ax.plot(xs, ys, label=name, color=colours[name], marker=markers[i % len(markers)], markerfacecolor="none",
                        markeredgewidth=1.3, markersize=4.5 if x == "stream position" else 6)
            note = notes.get(key)
            if what == "speed-up":
                ax.set_yscale("log")
                ax.axhline(1.0, color=method_style(reference)["color"], linestyle=":", linewidth=1.4,
                           label=f"{reference} (speed-up 1)")
                _plain_log_ticks(ax.yaxis)
                ax.set_ylabel(f"{reference} time / adaptive time (log scale)")
                ax.set_title(_wrapped(f"speed-up over {reference} against {x}" + (f" ({note})" if note else ""), ax))
            else:
                ax.set_ylim(0, 1)
                ax.set_ylabel("hit rate (share of feature positions)")
                ax.set_title(_wrapped(f"hit rate against {x}" + (f" ({note})" if note else ""), ax))
            ax.set_xscale("log")
            if x == "cache rows":
                ticks = sorted(set(xs_all))
                ax.xaxis.set_major_locator(FixedLocator(ticks))
                ax.xaxis.set_minor_locator(NullLocator())
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: _power_of_two(v)))
                ax.set_xlabel("cache rows (log scale)")
            else:
                # log: the cache warms up over the first thousands of decisions, and streams differ tenfold in length
                _plain_log_ticks(ax.xaxis)
                ax.set_xlabel("stream position (decisions, log scale)")
        _finish(fig, title, caption)
    return fig


def _power_of_two(v: float) -> str:
    """65536 -> '$2^{16}$'; other numbers as plain ones."""
    k = math.log2(v) if v > 0 else 0.5
    return f"$2^{{{int(round(k))}}}$" if abs(k - round(k)) < 1e-9 else _si(v)


def save_figure(fig, path: Union[str, os.PathLike], *, dpi: int = 130) -> str:
    """Write ``fig`` to ``path`` (format from the extension, e.g. ``.png``, ``.svg``, ``.pdf``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure from this module.
    path : str or os.PathLike
        Output file; its folder must exist.
    dpi : int
        Resolution of raster formats.

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise ConjunctError(f"{path}: folder {folder!r} does not exist")
    # The format follows the extension (savefig's default without one); the
    # figure goes beside ``path`` and replaces it only once complete.
    fmt = os.path.splitext(path)[1][1:].lower() or None
    with atomic_file(path, special=True) as f:
        fig.savefig(f, dpi=dpi, format=fmt)
    return path


