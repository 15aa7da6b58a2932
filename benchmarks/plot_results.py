"""Draw a benchmark's results JSON (or an estimator's saved ``history_``) as a figure.

    python benchmarks/plot_results.py benchmarks/results/decode.json [-o OUT.png] [--figure NAME] [--dpi N]

The readers of the results files the benchmark scripts write: they know each
script's JSON and hand plain data to :mod:`conjunct.plot`, which draws every
figure (the library itself never reads these files). ``_common.write_figures``
draws through them too. Needs matplotlib (``pip install ".[plot]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from conjunct._errors import ConjunctError
from conjunct.plot._style import Point, _canonical, _si
from conjunct.plot.figures import (_CURVE_QUANTITIES, adaptive_cache, classification_time_vs_size, decoding_speed,
                                   epoch_records, learning_curve, save_figure, training_time)

SCRIPT = "benchmarks/plot_results.py"

# -- benchmark results -> figures --------------------------------------------------------------------------
class _Results:
    """A results JSON with its file name, for messages that say where a field is missing."""

    def __init__(self, data: Any, source: str, figure: Optional[str] = None):
        self.data = data
        self.source = source
        self.figure = figure  # None: the kind's default figure

    def need(self, obj: Any, *keys: str, kind: type = dict, where: str = "") -> Any:
        for key in keys:
            where = f"{where}.{key}" if where else key
            if not isinstance(obj, dict) or key not in obj:
                raise ConjunctError(f"{self.source}: no '{where}' in this results file")
            obj = obj[key]
        if not isinstance(obj, kind):
            raise ConjunctError(f"{self.source}: '{where}' is a {type(obj).__name__}, expected a {kind.__name__}")
        return obj

    def number(self, obj: Mapping[str, Any], key: str, where: str) -> Optional[float]:
        v = obj.get(key)
        return None if v is None else self.as_number(v, f"{where}.{key}")

    def as_number(self, v: Any, where: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConjunctError(f"{self.source}: '{where}' is {v!r}, expected a number")
        return float(v)

    def caption(self) -> Optional[str]:
        d = self.data if isinstance(self.data, dict) else {}
        env: Dict[str, Any] = d["environment"] if isinstance(d.get("environment"), dict) else {}
        parts = []
        if d.get("command"):
            parts.append(f"data: {d['command']}")
        if env.get("git_commit"):
            parts.append(f"commit {env['git_commit']}")
        if env.get("cpu"):
            parts.append(f"{env['cpu']}, {env.get('cores', '?')} cores")
        if d.get("date"):
            parts.append(str(d["date"]))
        # the file as named when that is a path within the project, else its name alone
        shown = self.source if not os.path.isabs(self.source) and not self.source.startswith("..") else \
            os.path.basename(self.source)
        parts.append(f"figure: python {SCRIPT} {shown}" + (f" --figure {self.figure}" if self.figure else ""))
        return " · ".join(parts)


def read_results(path: Union[str, os.PathLike]) -> Any:
    """The parsed JSON of a results file, with errors that name the file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``benchmarks/results/*.json`` file or a saved training history.

    Returns
    -------
    object
        The parsed JSON.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError as e:
        raise ConjunctError(f"{path}: no such file") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConjunctError(f"{path}: not a JSON file ({e})") from e


_MODEL_TITLES = {"perceptron": "averaged perceptron", "hmm": "HMM"}
_DECODER_NAMES = {"viterbi": "Viterbi", "staggered": "SD", "staggered-column": "SD+C-EXP", "carpediem": "CarpeDiem"}


def _decode_figure(r: _Results):
    tasks = r.need(r.data, "tasks")
    per_model: Dict[str, Dict[str, List[Point]]] = {}
    names: Dict[float, str] = {}
    for tname, task in tasks.items():
        where = f"tasks.{tname}"
        if not isinstance(task, dict):
            raise ConjunctError(f"{r.source}: '{where}' is a {type(task).__name__}, expected a dict")
        labels = r.number(task, "labels", where)
        if labels is None:
            raise ConjunctError(f"{r.source}: no '{where}.labels' in this results file")
        # Tokens per second: the tasks' sentences differ in length (9 to 24 tokens on average).
        tokens, sentences = r.number(task, "test_tokens", where), r.number(task, "test_sentences", where)
        if not tokens or not sentences:
            raise ConjunctError(f"{r.source}: '{where}' needs test_tokens and test_sentences")
        per_sentence = tokens / sentences
        names[labels] = _short_task(task.get("title", tname))
        for model in [k for k, v in task.items() if isinstance(v, dict) and "decoders" in v]:
            lines = per_model.setdefault(model, {})
            decoders = r.need(task, model, "decoders", where=where)
            for dname, d in decoders.items():
                sps = r.number(d, "sent_per_s", f"{where}.{model}.decoders.{dname}") if isinstance(d, dict) else None
                if sps:
                    lines.setdefault(_DECODER_NAMES.get(dname, dname), []).append((labels, sps * per_sentence))
            matched = task[model].get("beam_matched")
            if isinstance(matched, dict) and r.number(matched, "sent_per_s", f"{where}.{model}.beam_matched"):
                lines.setdefault("beam, width matching exact accuracy", []).append(
                    (labels, matched["sent_per_s"] * per_sentence, f"B={matched['width']}" if "width" in matched else ""))
        crf = task.get("crfsuite")
        if isinstance(crf, dict) and r.number(crf, "sent_per_s", f"{where}.crfsuite") and "perceptron" in per_model:
            per_model["perceptron"].setdefault("python-crfsuite (CRF, Viterbi)", []).append(
                (labels, crf["sent_per_s"] * per_sentence))
    if not per_model:
        raise ConjunctError(f"{r.source}: no tasks.*.<model>.decoders in this results file")
    panels = {_MODEL_TITLES.get(m, m): lines for m, lines in per_model.items()}
    return decoding_speed(panels, x_names=names, caption=r.caption(), ylabel="tokens per second (log scale)",
                          title="Decoding speed against the number of labels (decoding from feature ids)")


def _short_task(title: str) -> str:
    """'POS tagging (EWT XPOS)' -> 'EWT XPOS': the part in brackets names the data."""
    m = re.search(r"\(([^()]*)\)\s*$", title)
    return m.group(1) if m else title


def _classify_figure(r: _Results):
    results = r.need(r.data, "results", kind=list)
    panels: Dict[str, Dict[str, List[Point]]] = {}
    refs: Dict[str, Dict[str, float]] = {}
    for i, res in enumerate(results):
        where = f"results[{i}]"
        if not isinstance(res, dict) or "fstrie_size_sweep" not in res:
            continue
        sweep = r.need(res, "fstrie_size_sweep", kind=list, where=where)
        degree = res.get("degree", "?")
        sv = res.get("support_vectors")
        panel = f"d = {degree}" + (f", {int(sv):,} support vectors" if isinstance(sv, (int, float)) else "")
        pts: List[Point] = []
        for j, p in enumerate(sweep):
            w = f"{where}.fstrie_size_sweep[{j}]"
            mb, us = r.number(p, "trie_mb", w), r.number(p, "us_per_classification", w)
            if mb is None or us is None:
                raise ConjunctError(f"{r.source}: '{w}' needs trie_mb and us_per_classification")
            nodes = p.get("max_nodes")
            pts.append((mb, us, f"{_si(nodes)} nodes" if isinstance(nodes, (int, float)) and j in (0, len(sweep) - 1) else ""))
        panels[panel] = {"fstrie (PKE base), pruned to a node budget": pts}
        methods = {m.get("method"): m for m in res.get("methods", []) if isinstance(m, dict)}
        refs[panel] = {f"{name} (no fstrie)": float(methods[name]["us_per_classification"]) for name in ("PKE", "split")
                       if name in methods and isinstance(methods[name].get("us_per_classification"), (int, float))}
    if not panels:
        raise ConjunctError(f"{r.source}: no results[*].fstrie_size_sweep in this results file "
                            "(bench_classify.py without --no-sweep writes it)")
    return classification_time_vs_size(panels, refs, caption=r.caption(),
                                       title="Classification time against fstrie size (labels: node budget)")


def _fstrie_limit_figure(r: _Results):
    alts = r.need(r.data, "alternatives", kind=list)
    lines: Dict[str, List[Point]] = {}
    ref: Dict[str, float] = {}
    for j, a in enumerate(alts):
        w = f"alternatives[{j}]"
        if not isinstance(a, dict):
            raise ConjunctError(f"{r.source}: '{w}' is a {type(a).__name__}, expected a dict")
        name = str(a.get("method", ""))
        mb, us = r.number(a, "memory_mb", w), r.number(a, "us_per_classification", w)
        if mb is None or us is None:
            raise ConjunctError(f"{r.source}: '{w}' needs memory_mb and us_per_classification")
        family = name.split(",")[0].strip() or name
        # "PKE, fixed 4 MiB dense table (146 features)" -> 146; "split, 500 common features" -> 500
        counts = re.findall(r"(\d[\d,]*)(?:\s+[a-z]+){0,2}\s+features", name)
        lines.setdefault(family, []).append((mb, us, counts[-1] if counts else ""))
        if "(default)" in name:
            ref[f"{family} (default)"] = us
    if not lines:
        raise ConjunctError(f"{r.source}: 'alternatives' is empty")
    degree = r.data.get("degree", "?")
    panel = f"d = {degree}" + (f", {int(r.data['support_vectors']):,} support vectors"
                               if isinstance(r.data.get("support_vectors"), (int, float)) else "")
    return classification_time_vs_size(
        {panel: {f"{k} (labels: features in the dense table)" if _canonical(k) == "PKE" else
                 f"{k} (labels: common features)" if _canonical(k) == "split" else k: v for k, v in lines.items()}},
        {panel: ref}, xlabel="classifier memory [MB] (log scale)",
        title="Classification time against memory: PKE's dense table and split points", caption=r.caption())


def _train_degree(r: _Results, out: Mapping[str, Any], key: str) -> Optional[int]:
    """The degree of a sweep: from its entries, else from the table entry that trained the same model."""
    for rs in out.get(key, {}).values():
        for e in (rs.values() if isinstance(rs, dict) else []):
            if isinstance(e, dict) and isinstance(e.get("degree"), int):
                return e["degree"]
    digests = {e.get("model_digest") for rs in out.get(key, {}).values() if isinstance(rs, dict)
               for e in rs.values() if isinstance(e, dict) and e.get("model_digest") is not None}
    for e in out.get("table", {}).values():
        if isinstance(e, dict) and e.get("model_digest") in digests and isinstance(e.get("degree"), int):
            return e["degree"]
    return None


def _train_figure(r: _Results, key: str):
    results = r.need(r.data, "results")
    panels: Dict[str, Dict[str, List[Point]]] = {}
    for wname, out in results.items():
        if not isinstance(out, dict) or not out.get(key):
            continue
        sweep = r.need(out, key, where=f"results.{wname}")
        lines: Dict[str, List[Point]] = {}
        for method, rs in sweep.items():
            if not isinstance(rs, dict):
                raise ConjunctError(f"{r.source}: 'results.{wname}.{key}.{method}' is a {type(rs).__name__}, expected a dict")
            pts: List[Point] = []
            for x, e in rs.items():
                w = f"results.{wname}.{key}.{method}.{x}"
                if not isinstance(e, dict) or "error" in e:
                    continue
                s = r.number(e, "seconds", w)
                try:
                    xv = float(x)
                except ValueError as err:
                    raise ConjunctError(f"{r.source}: '{w}': the key {x!r} is not a number") from err
                if s:
                    pts.append((xv, s))
            if pts:
                lines[method] = pts
        if not lines:
            continue
        workload = out.get("workload", {}) if isinstance(out.get("workload"), dict) else {}
        desc = workload.get("description") or wname
        degree = _train_degree(r, out, key)
        n = out.get("train_examples")
        bits = [f"d = {degree}" if degree else None,
                f"N = {_common_n(out, key)}" if key == "time_against_examples" and _common_n(out, key) else None,
                f"all {int(n):,} examples" if key == "time_against_N" and isinstance(n, (int, float)) else None]
        panels[f"{desc} ({', '.join(b for b in bits if b)})" if any(bits) else desc] = lines
    if not panels:
        raise ConjunctError(f"{r.source}: no results.*.{key} in this results file")
    settings = r.data.get("settings", {}) if isinstance(r.data.get("settings"), dict) else {}
    how = ", ".join(x for x in (f"C = {settings['C']:g}" if isinstance(settings.get("C"), (int, float)) else None,
                                f"{settings['n_iter']} epochs" if settings.get("n_iter") else None) if x)
    what = "the number of training examples" if key == "time_against_examples" else "N, the number of common features"
    title = f"Averaged PA-I training time against {what}" + (f" ({how})" if how else "")
    if key == "time_against_examples":
        return training_time(panels, title=title, caption=r.caption())
    # Time against N is not a power law (Yoshinaga & Kitsuregawa 2010 Figs. 1-2 have a
    # minimum): no fit.
    return training_time(panels, title=title, caption=r.caption(), xlabel="N, common features expanded (log scale)",
                         fit=False)


def _common_n(out: Mapping[str, Any], key: str) -> Optional[str]:
    """The N the growth sweep used (the table's 'PA-I SL N=500 (d=3)'), when one N serves all its lines."""
    ns = {m.group(1) for name in out.get("table", {}) for m in [re.search(r"\bSL N=(\d+) \(d=3\)", name)] if m}
    return ns.pop() if len(ns) == 1 else None


def _history_curves(r: _Results) -> Dict[str, List[Dict[str, float]]]:
    d = r.data
    if isinstance(d, dict) and isinstance(d.get("curves"), dict):
        curves = {}
        for name, recs in d["curves"].items():
            if not isinstance(recs, list) or not all(isinstance(x, dict) for x in recs):
                raise ConjunctError(f"{r.source}: 'curves.{name}' must be a list of per-epoch records")
            for k, rec in enumerate(recs):
                if "epoch" not in rec:
                    raise ConjunctError(f"{r.source}: no 'curves.{name}[{k}].epoch' in this results file")
                for key in ("epoch",) + _CURVE_QUANTITIES:
                    r.number(rec, key, f"curves.{name}[{k}]")
            curves[name] = recs
        return curves
    history = d.get("history") if isinstance(d, dict) else d
    if not isinstance(history, list) or not all(isinstance(x, dict) for x in history):
        raise ConjunctError(f"{r.source}: a history must be a list of records")
    recs = history if all("update_rate" in x or "test_accuracy" in x for x in history) else epoch_records(history)
    return {str(d.get("name", "training")) if isinstance(d, dict) else "training": recs}


def _learning_figure(r: _Results):
    title = "Learning curves"
    if isinstance(r.data, dict) and r.data.get("title"):
        title = f"Learning curves: {r.data['title']}"
    return learning_curve(_history_curves(r), title=title, caption=r.caption())


def _adaptive_figure(r: _Results):
    streams = r.need(r.data, "streams", kind=list)
    if not streams:
        raise ConjunctError(f"{r.source}: 'streams' is empty")
    rows_hit: Dict[str, List[Point]] = {}
    rows_speedup: Dict[str, List[Point]] = {}
    along_hit: Dict[str, List[Point]] = {}
    along_speedup: Dict[str, List[Point]] = {}
    chunks: set = set()
    for i, s in enumerate(streams):
        where = f"streams[{i}]"
        if not isinstance(s, dict):
            raise ConjunctError(f"{r.source}: '{where}' is a {type(s).__name__}, expected a dict")
        name = str(r.need(s, "stream", kind=str, where=where))
        for j, c in enumerate(r.need(s, "cache_sizes", kind=list, where=where)):
            w = f"{where}.cache_sizes[{j}]"
            if not isinstance(c, dict):
                raise ConjunctError(f"{r.source}: '{w}' is a {type(c).__name__}, expected a dict")
            if c.get("policy", "lru") != "lru":  # lfu and no-doorkeeper runs are single points at one size
                continue
            rows, hit, speedup = (r.number(c, k, w) for k in ("cache_rows", "hit_rate", "speedup"))
            if rows is None or hit is None or speedup is None:
                raise ConjunctError(f"{r.source}: '{w}' needs cache_rows, hit_rate and speedup")
            rows_hit.setdefault(name, []).append((rows, hit))
            rows_speedup.setdefault(name, []).append((rows, speedup))
        curve = s.get("curve")
        if curve is None:
            continue
        w = f"{where}.curve"
        cols = [r.need(s, "curve", key, kind=list, where=where) for key in ("end", "pke_us", "adaptive_us", "hit_rate")]
        if len({len(c) for c in cols}) != 1:
            raise ConjunctError(f"{r.source}: '{w}': end, pke_us, adaptive_us and hit_rate differ in length "
                                f"({', '.join(str(len(c)) for c in cols)})")
        ends = [r.as_number(v, f"{w}.end[{k}]") for k, v in enumerate(cols[0])]
        sizes = [e - b for b, e in zip([0.0] + ends, ends)]
        if any(n <= 0 for n in sizes):
            raise ConjunctError(f"{r.source}: '{w}.end' must increase, got {cols[0]}")
        full = max(sizes)
        decisions = s.get("decisions")
        chunks.add("per tenth of the stream" if isinstance(decisions, int) and int(full) == decisions // 10 else
                   f"per chunk of {_si(full)} decisions")
        pke_total = adaptive_total = 0.0
        for k, (end, n) in enumerate(zip(ends, sizes)):
            pke = r.as_number(cols[1][k], f"{w}.pke_us[{k}]")
            adaptive = r.as_number(cols[2][k], f"{w}.adaptive_us[{k}]")
            # Time so far, not per chunk: a chunk of a thousand decisions lasts milliseconds and one stall
            # in it would dwarf the rest; the cumulative ratio is what the stream has gained so far.
            pke_total += pke * n
            adaptive_total += adaptive * n
            along_speedup.setdefault(name, []).append((end, pke_total / adaptive_total))
            if n >= full / 2:  # a remainder of a few decisions is no hit rate
                along_hit.setdefault(name, []).append((end, r.as_number(cols[3][k], f"{w}.hit_rate[{k}]")))
    if not rows_hit:
        raise ConjunctError(f"{r.source}: no streams[*].cache_sizes with policy 'lru' in this results file")
    chunk = chunks.pop() if len(chunks) == 1 else "per chunk"
    return adaptive_cache(rows_hit, rows_speedup, along_hit or None, along_speedup or None,
                          title="Self-adaptive classifier on text never seen, one pass from an empty cache: "
                                "hit rate and speed-up over PKE", caption=r.caption(),
                          notes={"rows_hit_rate": "LRU", "rows_speedup": "LRU", "stream_hit_rate": f"default cache, {chunk}",
                                 "stream_speedup": "default cache, time so far"})


def _script(data: Mapping[str, Any]) -> Optional[str]:
    """The benchmark script a results file's command ran, e.g. 'bench_decode.py'."""
    m = re.search(r"\b(bench_\w+\.py)\b", str(data.get("command", "")))
    return m.group(1) if m else None


def results_kind(data: Any) -> Optional[str]:
    """Which kind of results ``data`` holds (a key of :data:`FIGURES`), or None.

    Parameters
    ----------
    data : object
        Parsed JSON of a results file.

    Returns
    -------
    str or None
        ``"decode"``, ``"classify"``, ``"fstrie_limit"``, ``"train"``,
        ``"learning_curve"`` or ``"adaptive"``: from the benchmark script its
        ``command`` names when it names one (None for a script without a
        figure), else from the fields it holds.
    """
    if isinstance(data, list):
        return "learning_curve" if data and all(isinstance(x, dict) and "epoch" in x for x in data) else None
    if not isinstance(data, dict):
        return None
    # The script that wrote the file says what it is (bench_chunk_segment.py also writes "tasks", but no decoders);
    # files without a command (a saved history, hand-made data) are told by their fields.
    script = _script(data)
    if script:
        return _SCRIPT_KINDS.get(script)
    if isinstance(data.get("tasks"), dict):
        return "decode"
    if isinstance(data.get("alternatives"), list):
        return "fstrie_limit"
    res = data.get("results")
    if isinstance(res, list) and any(isinstance(x, dict) and ("fstrie_size_sweep" in x or "methods" in x) for x in res):
        return "classify"
    if isinstance(res, dict) and any(isinstance(x, dict) and ("time_against_examples" in x or "time_against_N" in x)
                                     for x in res.values()):
        return "train"
    if isinstance(data.get("curves"), dict) or isinstance(data.get("history"), list):
        return "learning_curve"
    if isinstance(data.get("streams"), list) and any(isinstance(x, dict) and "cache_sizes" in x for x in data["streams"]):
        return "adaptive"
    return None


#: Results kind -> figure name -> figure builder (first: the default), and what each kind is.
FIGURES: Dict[str, Dict[str, Callable[[_Results], Any]]] = {
    "decode": {"labels": _decode_figure},
    "classify": {"fstrie-size": _classify_figure},
    "fstrie_limit": {"memory": _fstrie_limit_figure},
    "train": {"examples": lambda r: _train_figure(r, "time_against_examples"),
              "N": lambda r: _train_figure(r, "time_against_N")},
    "learning_curve": {"epochs": _learning_figure},
    "adaptive": {"cache": _adaptive_figure},
}
_SCRIPT_KINDS = {"bench_decode.py": "decode", "bench_classify.py": "classify", "bench_fstrie_limit.py": "fstrie_limit",
                 "bench_train.py": "train", "bench_learning_curve.py": "learning_curve", "bench_adaptive.py": "adaptive"}
_KIND_HELP = {
    "decode": "bench_decode.py (tasks.*.<model>.decoders)",
    "classify": "bench_classify.py (results[*].fstrie_size_sweep)",
    "fstrie_limit": "bench_fstrie_limit.py (alternatives)",
    "train": "bench_train.py (results.*.time_against_examples / time_against_N)",
    "learning_curve": "bench_learning_curve.py (curves) or an estimator's history_ (a list of records)",
    "adaptive": "bench_adaptive.py (streams[*].cache_sizes, streams[*].curve)",
}


def figure_from_results(data: Any, *, source: str = "<results>", figure: Optional[str] = None):
    """The figure of a benchmark's results JSON.

    Parameters
    ----------
    data : object
        Parsed JSON (:func:`read_results`). Fields the reader does not use
        are ignored, so results that grow new fields still draw.
    source : str
        The file name, for error messages and the caption.
    figure : str, optional
        Which figure, when a kind has several (see :data:`FIGURES`); default
        the first.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, captioned with the command that produced the data.

    Raises
    ------
    ConjunctError
        The JSON is none of the known results, or lacks a field its figure needs.
    """
    kind = results_kind(data)
    if kind is None:
        top = sorted(data)[:12] if isinstance(data, dict) else type(data).__name__
        by = f" (written by {_script(data)})" if isinstance(data, dict) and _script(data) else ""
        known = "; ".join(f"{k}: {v}" for k, v in _KIND_HELP.items())
        raise ConjunctError(f"{source}: not a results file {SCRIPT} knows{by} (top level: {top}). It reads {known}")
    figures = FIGURES[kind]
    if figure is not None and figure not in figures:
        raise ConjunctError(f"{source}: {kind} results have the figures {list(figures)}, not {figure!r}")
    default = next(iter(figures))
    try:
        return figures[figure or default](_Results(data, source, figure if figure not in (None, default) else None))
    except ConjunctError as e:
        if str(e).startswith(f"{source}: "):
            raise
        # a check of the figure itself (a bad value the reader passed on): still say which file
        raise ConjunctError(f"{source}: {e}") from e


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a results JSON file (or a JSON list of an estimator's history_)")
    ap.add_argument("-o", "--output", help="image to write; the format follows the extension "
                                           "(default: the results file with .png)")
    ap.add_argument("--figure", help="which figure when the results hold several (train: examples, N; default the first)")
    ap.add_argument("--dpi", type=_positive_int, default=130, help="resolution of raster images (default 130)")
    args = ap.parse_args(argv)
    try:
        data = read_results(args.results)
        fig = figure_from_results(data, source=args.results, figure=args.figure)
        out = args.output or os.path.splitext(args.results)[0] + ".png"
        if os.path.exists(out) and os.path.samefile(out, args.results):
            raise ConjunctError(f"-o {out} would destroy the results file {args.results}")
        print(save_figure(fig, out, dpi=args.dpi))
    except ConjunctError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
