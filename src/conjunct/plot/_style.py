"""The one style of conjunct's figures: a colour, marker and line style per method, fonts, and the
layout (title, shared legend, caption) every figure gets."""

from __future__ import annotations

import math
import re
import textwrap
import zlib
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from .._errors import ConjunctError

#: A point: ``(x, y)``, or ``(x, y, text)`` to write ``text`` beside it.
Point = Union[Tuple[float, float], Tuple[float, float, str]]
#: Lines of one axes: name -> points.
Series = Mapping[str, Sequence[Point]]

INSTALL_HINT = "pip install 'conjunct[plot]'"

# -- one style for every figure --------------------------------------------------------------------
# Methods that do the same computation share a colour across classification
# and training (PKI / KERNEL: the kernel over an inverted index; PKE / KE:
# expanded conjunctions; split / SP), brute-force references are grey, the
# method a figure is about is red, and peers are dashed.
_GREY, _BROWN, _BLUE, _GREEN, _RED = "#595959", "#8c564b", "#1f77b4", "#2ca02c", "#d62728"
_ORANGE, _PURPLE, _PINK, _OLIVE, _CYAN = "#ff7f0e", "#9467bd", "#e377c2", "#bcbd22", "#17becf"

_STYLES: Dict[str, Tuple[str, str, str]] = {  # canonical name -> (colour, marker, line style)
    "PKB": (_GREY, "s", "-"),
    "PKI": (_BROWN, "v", "-"),
    "PKE": (_BLUE, "o", "-"),
    "split": (_GREEN, "D", "-"),
    "fstrie": (_RED, "^", "-"),
    "KERNEL": (_BROWN, "v", "-"),
    "KE": (_BLUE, "o", "-"),
    "SP": (_GREEN, "D", "-"),
    "SL*": (_ORANGE, "P", "-"),
    "SL": (_RED, "^", "-"),
    "Viterbi": (_GREY, "s", "-"),
    "SD": (_ORANGE, "P", "-"),
    "SD+C-EXP": (_RED, "^", "-"),
    "CarpeDiem": (_PURPLE, "X", "-"),
    "beam": (_OLIVE, "d", "-"),
    "LIBSVM": (_PURPLE, "*", "--"),
    "scikit-learn SVC": (_PINK, "h", "--"),
    "python-crfsuite": (_PINK, "h", "--"),
    "VW": (_OLIVE, "p", "--"),
    "l1-LLM": (_CYAN, "<", "--"),
}
# Spelling in the benchmark files -> canonical name (matched on the start of the name).
_ALIASES: Sequence[Tuple[str, str]] = (
    ("fstrie", "fstrie"), ("svm-ke", "PKE"), ("staggered-column", "SD+C-EXP"), ("staggered", "SD"),
    ("sd+c-exp", "SD+C-EXP"), ("sd", "SD"), ("viterbi", "Viterbi"), ("carpediem", "CarpeDiem"), ("beam", "beam"),
    ("crfsuite", "python-crfsuite"), ("python-crfsuite", "python-crfsuite"), ("libsvm", "LIBSVM"),
    ("scikit-learn", "scikit-learn SVC"), ("sklearn", "scikit-learn SVC"), ("vw", "VW"), ("vowpal", "VW"),
    ("l1", "l1-LLM"), ("pkb", "PKB"), ("pki", "PKI"), ("pke", "PKE"), ("split", "split"), ("kernel", "KERNEL"),
    ("ke", "KE"), ("expanded", "KE"), ("sp", "SP"), ("sl*", "SL*"), ("sl", "SL"), ("slicing", "SL"),
)
# A variant of a method ("SD, lazy bounds") keeps the method's colour and marker, with an open marker and a
# dash-dot line, so the two lines of one method stay apart in the same panel.
_VARIANT = re.compile(r",\s*lazy bounds\s*$", re.IGNORECASE)
# Colours for names no rule knows, picked by a hash of the name so they stay put between figures.
_SPARE = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354")
# Lines of learning curves are settings (degrees, C), not methods: a palette of their own.
_SEQUENTIAL = ("#332288", "#44aa99", "#cc6677", "#999933", "#88ccee")


def _canonical(name: str) -> Optional[str]:
    text = re.sub(r"^PA-I\s+", "", name.strip())
    text = re.sub(r"\s*\(d\s*=\s*\d+\)$", "", text)
    text = re.sub(r"\s+N=\d+$", "", text)
    if text in _STYLES:
        return text
    low = text.lower()
    for prefix, canon in _ALIASES:
        # a whole word: "SL" must not claim "SLOW", "sd" not "sdk"
        if low == prefix or re.match(re.escape(prefix) + r"(?![a-z0-9])", low):
            return canon
    return None


def method_style(name: str) -> Dict[str, str]:
    """Colour, marker and line style of a method, the same in every figure.

    Parameters
    ----------
    name : str
        A method as the benchmarks spell it: ``"PKE"``, ``"fstrie L (pke)"``,
        ``"PA-I SL N=500 (d=3)"``, ``"staggered-column"``, ``"LIBSVM svm_predict"``, ...

    Returns
    -------
    dict
        ``color``, ``marker`` and ``linestyle`` (keyword arguments of
        ``Axes.plot``). Peers are dashed; a variant of a method (``"SD, lazy
        bounds"``) has the method's colour, a dash-dot line and an open marker
        (``markerfacecolor``); a name no rule knows gets a colour chosen by a
        hash of the name, so it too keeps its colour everywhere.
    """
    canon = _canonical(name)
    if canon is not None:
        color, marker, ls = _STYLES[canon]
    else:
        color, marker, ls = _SPARE[zlib.crc32(name.encode("utf-8")) % len(_SPARE)], "o", "-"
    style = {"color": color, "marker": marker, "linestyle": ls}
    if canon is not None and _VARIANT.search(name):
        # a variant of a method drawn beside it (decode.json: "SD" and "SD, lazy bounds"): its colour, told apart
        style.update(linestyle="-.", markerfacecolor="white")
    return style


_RC = {
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "legend.frameon": False,
}


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ConjunctError(f"conjunct.plot needs matplotlib, an optional dependency: {INSTALL_HINT}") from e
    return matplotlib, Figure, FigureCanvasAgg


@contextmanager
def _styled() -> Iterator[None]:
    matplotlib, _, _ = _matplotlib()
    with matplotlib.rc_context(_RC):
        yield


def _new_figure(n_panels: int, *, panel_width: float = 4.6, height: float = 3.7, ncols: Optional[int] = None,
                sharey: bool = False):
    """A Figure on an Agg canvas with ``n_panels`` axes in one row (or ``ncols`` columns)."""
    _, Figure, FigureCanvasAgg = _matplotlib()
    ncols = ncols or n_panels
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(max(panel_width * ncols, 5.0), height * nrows))
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey).ravel().tolist()
    for ax in axes[n_panels:]:
        fig.delaxes(ax)
    return fig, axes[:n_panels]


def _finish(fig, title: Optional[str], caption: Optional[str], *, shared_legend: bool = True) -> None:
    """Title on top; one legend for all panels below them (labels met twice drawn once); the caption
    (the source command) in small grey type at the bottom. The figure grows to make room, so the
    panels keep their size whatever the title, legend and caption need."""
    width_in, panels_h = fig.get_figwidth(), fig.get_figheight()
    cap_lines = textwrap.wrap(caption, max(int(width_in * 17), 40)) if caption else []
    cap_h = 0.1 + 0.13 * len(cap_lines) if cap_lines else 0.05
    title_lines = textwrap.wrap(title, max(int(width_in * 11), 30)) if title else []
    title_h = 0.15 + 0.2 * len(title_lines) if title_lines else 0.0
    handles: Dict[str, Any] = {}
    if shared_legend:
        for ax in fig.axes:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
    ncol = max(1, min(len(handles), int(width_in // 2.3)))
    legend_h = 0.12 + 0.19 * math.ceil(len(handles) / ncol) if handles else 0.0
    total = panels_h + cap_h + title_h + legend_h
    fig.set_size_inches(width_in, total)
    if title_lines:
        fig.suptitle("\n".join(title_lines), fontsize=10.5, fontweight="bold", y=1 - 0.06 / total, va="top")
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol,
                   bbox_to_anchor=(0.5, cap_h / total))
    if cap_lines:
        fig.text(0.01, 0.02 / total, "\n".join(cap_lines), fontsize=7, color="#555555", ha="left", va="bottom")
    # tight_layout makes room for the suptitle itself
    fig.tight_layout(rect=(0, (cap_h + legend_h) / total, 1, 1))


def _points(points: Sequence[Point], what: str) -> Tuple[List[float], List[float], List[Optional[str]]]:
    xs, ys, texts = [], [], []
    for p in points:
        if len(p) not in (2, 3):
            raise ConjunctError(f"{what}: a point is (x, y) or (x, y, text), got {p!r}")
        x, y = float(p[0]), float(p[1])
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ConjunctError(f"{what}: point {p!r} is not finite")
        xs.append(x)
        ys.append(y)
        texts.append(str(p[2]) if len(p) == 3 else None)
    order = sorted(range(len(xs)), key=xs.__getitem__)
    return [xs[i] for i in order], [ys[i] for i in order], [texts[i] for i in order]


def _check_panels(panels: Mapping[str, Any], what: str) -> None:
    if not panels:
        raise ConjunctError(f"{what}: nothing to draw (no panels)")
    for name, series in panels.items():
        if not series:
            raise ConjunctError(f"{what}: panel {name!r} has no lines")


def _draw_series(ax, series: Series, *, log_x: bool, log_y: bool, what: str,
                 label: Optional[Callable[[str, List[float], List[float]], str]] = None) -> None:
    for name, pts in series.items():
        xs, ys, texts = _points(pts, f"{what}, line {name!r}")
        if not xs:
            continue
        if (log_y and min(ys) <= 0) or (log_x and min(xs) <= 0):
            raise ConjunctError(f"{what}, line {name!r}: log scale needs positive values, got {list(zip(xs, ys))}")
        style = method_style(name)
        ax.plot(xs, ys, label=label(name, xs, ys) if label else name, **style)
        for x, y, t in zip(xs, ys, texts):
            if t:
                ax.annotate(t, (x, y), textcoords="offset points", xytext=(5, -4), fontsize=7, color=style["color"],
                            va="top")
    if log_x:
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
    if log_y:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)


def _plain_log_ticks(axis) -> None:
    """Log-axis ticks as plain numbers (30k, 1M, 0.5) instead of 3×10^4; numbered minor ticks
    when the axis spans less than about two decades (too few major ticks to read it by), and
    ticks at round numbers (0.8, 1, 1.2, 1.5) when it spans less than one. Call it after the
    axes hold everything they draw: it reads their limits."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    axis.axes.autoscale_view()
    lo, hi = sorted(axis.get_view_interval())
    fmt = FuncFormatter(lambda v, _pos: _si(v))
    axis.set_major_formatter(fmt)
    if lo > 0 and hi / lo < 10:
        ticks = _round_ticks(lo, hi)
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_minor_locator(NullLocator())
        return
    few = lo > 0 and hi / lo < 80
    axis.set_minor_formatter(FuncFormatter(lambda v, _pos: _si(v) if str(f"{v:.1e}")[0] in "235" else "")
                             if few else NullFormatter())


# Mantissas of log-axis ticks, sparse to dense: the first that puts four ticks on the axis is used.
_MANTISSAS = ((1, 2, 5), (1, 2, 3, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8),
              (1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9))


def _round_ticks(lo: float, hi: float) -> List[float]:
    """Round numbers between lo and hi (lo > 0), at least four of them when the densest set has them."""
    decades = range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
    ticks: List[float] = []
    for mantissas in _MANTISSAS:
        ticks = [float(f"{m * 10.0 ** k:.6g}") for k in decades for m in mantissas]
        ticks = [t for t in ticks if lo <= t <= hi]
        if len(ticks) >= 4:
            break
    return ticks


def _wrapped(text: str, ax) -> str:
    """A panel title broken into lines that fit its axes."""
    width_in = ax.get_position().width * ax.figure.get_figwidth()
    return "\n".join(textwrap.wrap(text, max(int(width_in * 11), 20)))


def _si(value: float) -> str:
    """1200 -> '1.2k', 35000 -> '35k', 812 -> '812', 0.05 -> '0.05'."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= div:
            v = value / div
            return f"{v:.{0 if v >= 10 or v == int(v) else 1}f}{suffix}"
    return f"{value:.3g}"


