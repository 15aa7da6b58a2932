"""conjunct.plot and benchmarks/plot_results.py: every figure renders from small synthetic data, the
readers draw the committed benchmark results, and bad input gets a clear error."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from conjunct import ConjunctError  # noqa: E402
from conjunct import plot  # noqa: E402
from conjunct.training import PAClassifier  # noqa: E402

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
# The benchmarks' results readers (a script of benchmarks/, not part of the package).
_spec = importlib.util.spec_from_file_location("plot_results", RESULTS.parent / "plot_results.py")
plot_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_results)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def data_lines(ax):
    """The lines drawn from data (not reference or fit lines): those with markers."""
    return [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")]


def assert_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 5000


def test_decoding_speed(tmp_path):
    panels = {
        "perceptron": {"viterbi": [(49, 1e5), (319, 2e3), (812, 1e3)], "staggered-column": [(49, 1.1e5), (319, 1.7e4), (812, 6e4)],
                       "python-crfsuite": [(49, 2e4), (812, 200)]},
        "HMM": {"viterbi": [(49, 1.6e5), (812, 1.2e3)], "staggered": [(49, 6e4), (812, 2.5e5)]},
    }
    fig = plot.decoding_speed(panels, x_names={49: "EWT", 319: "CoNLL", 812: "UD Japanese"}, caption="python bench.py")
    assert len(fig.axes) == 2
    assert [len(data_lines(ax)) for ax in fig.axes] == [3, 2]
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in fig.axes)
    # one legend for both panels, each decoder once
    (legend,) = fig.legends
    assert sorted(t.get_text() for t in legend.get_texts()) == sorted(["viterbi", "staggered-column", "python-crfsuite", "staggered"])
    assert any("python bench.py" in t.get_text() for t in fig.texts)
    assert_png(plot.save_figure(fig, tmp_path / "d.png"))


def test_classification_time_vs_size_has_reference_lines(tmp_path):
    panels = {"d = 2": {"fstrie": [(0.07, 1.0, "0 nodes"), (0.5, 1.1), (6.0, 1.5, "368k nodes")]},
              "d = 3": {"fstrie": [(0.07, 3.9), (6.0, 4.5)], "split": [(0.07, 5.0), (6.0, 5.2)]}}
    refs = {"d = 2": {"PKE": 0.86}, "d = 3": {"PKE": 4.5, "split (no fstrie)": 5.4}}
    fig = plot.classification_time_vs_size(panels, refs)
    assert len(fig.axes) == 2
    assert [len(data_lines(ax)) for ax in fig.axes] == [1, 2]
    # reference lines are horizontal, at the value, in the method's colour
    pke = [ln for ln in fig.axes[1].get_lines() if ln.get_label() == "PKE"]
    assert len(pke) == 1 and set(pke[0].get_ydata()) == {4.5}
    assert pke[0].get_color() == plot.method_style("PKE")["color"]
    (split,) = [ln for ln in fig.axes[1].get_lines() if ln.get_label() == "split (no fstrie)"]
    assert split.get_color() == plot.method_style("split")["color"] and split.get_linestyle() == ":"
    assert_png(plot.save_figure(fig, tmp_path / "c.png"))


def test_training_time_fits_exponents(tmp_path):
    n = np.array([1000, 2000, 4000, 8000])
    fig = plot.training_time({"dep (d = 3)": {"SL": list(zip(n, 1e-3 * n ** 1.1)), "KERNEL": list(zip(n, 1e-6 * n ** 2.0))}})
    (ax,) = fig.axes
    assert len(data_lines(ax)) == 2
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lab.startswith("SL") and "1.10" in lab for lab in labels)
    assert any(lab.startswith("KERNEL") and "2.00" in lab for lab in labels)
    # plus one dotted fitted line per method
    assert len(ax.get_lines()) == 4
    assert plot.fitted_exponent([(10, 5.0), (100, 50.0), (1000, 500.0)]) == pytest.approx(1.0)
    assert plot.fitted_exponent([(10, 5.0)]) is None
    assert_png(plot.save_figure(fig, tmp_path / "t.png"))


def test_learning_curve_from_an_estimators_history(tmp_path):
    from conjunct.datasets import make_zipf_data

    feats, y = make_zipf_data(600, n_classes=3, seed=1)
    clf = PAClassifier(degree=2, n_iter=4, random_state=0)
    seen = []
    clf.callback = seen.append
    clf.fit(feats[:500], y[:500])
    records = plot.epoch_records(clf.history_)
    assert [r["epoch"] for r in records] == [1, 2, 3, 4]
    assert all(0 < r["update_rate"] <= 1 for r in records)
    assert records[-1]["support_vectors"] == clf.n_support_
    assert seen == clf.history_  # the callback saw the same reports
    for r in records:
        r["test_accuracy"] = 0.5 + 0.1 * r["epoch"]
    fig = plot.learning_curve({"d = 2": records, "d = 3": records[:2]})
    # accuracy, updates, support vectors: three panels, two curves each
    assert [ax.get_title() for ax in fig.axes] == ["held-out accuracy", "updates", "support vectors"]
    assert all(len(data_lines(ax)) == 2 for ax in fig.axes)
    assert_png(plot.save_figure(fig, tmp_path / "l.png"))


def test_epoch_records_from_a_taggers_log():
    log = [{"epoch": 1, "token_errors": 50, "tokens": 1000, "iterations": 300, "sentences": 100, "seconds": 0.2},
           {"epoch": 2, "token_errors": 20, "tokens": 1000, "iterations": 200, "sentences": 100, "seconds": 0.2}]
    recs = plot.epoch_records(log)
    assert [r["online_error_rate"] for r in recs] == [0.05, 0.02]
    assert [r["search_steps_per_sentence"] for r in recs] == [3.0, 2.0]
    fig = plot.learning_curve({"tagger": recs})
    assert [ax.get_title() for ax in fig.axes] == ["training errors", "search steps"]
    with pytest.raises(ConjunctError, match="neither rounds and updates"):
        plot.epoch_records([{"epoch": 1, "loss": 3}])


def test_method_style_is_one_per_method():
    pke = plot.method_style("PKE")
    assert plot.method_style("fstrie L (pke)") == plot.method_style("fstrie")
    assert plot.method_style("PA-I KE (d=3)")["color"] == pke["color"]  # expanded: the same colour in training
    assert plot.method_style("PA-I SL N=500 (d=3)") == plot.method_style("SL")
    assert plot.method_style("SL*") != plot.method_style("SL")
    assert plot.method_style("staggered-column") == plot.method_style("SD+C-EXP")
    assert plot.method_style("LIBSVM svm_predict")["linestyle"] == "--"  # peers dashed
    assert plot.method_style("SLOW thing") != plot.method_style("SL")
    assert plot.method_style("something new") == plot.method_style("something new")
    # a variant keeps its method's colour and marker, told apart by its line and an open marker
    lazy, sd = plot.method_style("SD, lazy bounds"), plot.method_style("SD")
    assert (lazy["color"], lazy["marker"]) == (sd["color"], sd["marker"])
    assert lazy["linestyle"] != sd["linestyle"] and lazy["markerfacecolor"] == "white" and "markerfacecolor" not in sd


def test_bad_plain_data_is_refused():
    with pytest.raises(ConjunctError, match="no panels"):
        plot.decoding_speed({})
    with pytest.raises(ConjunctError, match="log scale needs positive"):
        plot.decoding_speed({"p": {"viterbi": [(49, 0.0)]}})
    with pytest.raises(ConjunctError, match=r"\(x, y\) or \(x, y, text\)"):
        plot.training_time({"p": {"SL": [(1, 2, 3, 4)]}})
    with pytest.raises(ConjunctError, match="not finite"):
        plot.training_time({"p": {"SL": [(1, float("nan"))]}})
    with pytest.raises(ConjunctError, match="panels that do not exist"):
        plot.classification_time_vs_size({"d = 2": {"fstrie": [(1, 1)]}}, {"d = 3": {"PKE": 1.0}})
    with pytest.raises(ConjunctError, match="none of the quantities"):
        plot.learning_curve({"x": [{"epoch": 1, "loss_of_something": 2}]})
    with pytest.raises(ConjunctError, match="curve 'x', epoch 2: loss is '3', expected a number"):
        plot.learning_curve({"x": [{"epoch": 1, "loss": 2}, {"epoch": 2, "loss": "3"}]})


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ConjunctError, match=r"pip install 'conjunct\[plot\]'"):
        plot.decoding_speed({"p": {"viterbi": [(49, 1.0)]}})


def _lines_per_panel(name, figure, data):
    """What each panel of a committed results file's figure must hold: the number of lines, from the JSON."""
    if name == "decode":  # a line per decoder, the beam matching exact accuracy, python-crfsuite beside the perceptron
        lines = []
        for model in ("perceptron", "hmm"):
            tasks = [t[model] for t in data["tasks"].values() if model in t]
            names = {d for t in tasks for d, v in t["decoders"].items() if v.get("sent_per_s")}
            beam = any(t.get("beam_matched", {}).get("sent_per_s") for t in tasks)
            crf = model == "perceptron" and any(t.get("crfsuite", {}).get("sent_per_s") for t in data["tasks"].values())
            lines.append(len(names) + beam + crf)
        return lines
    if name == "classify":
        return [1] * sum("fstrie_size_sweep" in r for r in data["results"])
    if name.startswith("fstrie_limit"):
        return [len({a["method"].split(",")[0] for a in data["alternatives"]})]
    if name.startswith("train"):
        key = "time_against_N" if figure == "N" else "time_against_examples"
        return [len([m for m, rs in out[key].items() if any("error" not in e for e in rs.values())])
                for out in data["results"].values() if out.get(key)]
    if name == "learning_curve":
        return [len(data["curves"])] * 3  # accuracy, updates, support vectors
    if name == "adaptive":
        return [len(data["streams"])] * 4
    raise AssertionError(name)


@pytest.mark.parametrize("name, figure, n_axes", [
    ("decode", None, 2), ("classify", None, 2), ("fstrie_limit_d3", None, 1), ("train", "examples", 2), ("train", "N", 2),
    ("train_quick", "examples", 2), ("learning_curve", None, 3), ("adaptive", None, 4),
])
def test_figures_of_the_committed_results(name, figure, n_axes):
    path = RESULTS / f"{name}.json"
    data = json.loads(path.read_text())
    fig = plot_results.figure_from_results(plot_results.read_results(path), source=str(path), figure=figure)
    assert len(fig.axes) == n_axes
    assert all(data_lines(ax) for ax in fig.axes)
    expected = _lines_per_panel(name, figure, data)
    if expected is not None:
        assert [len(data_lines(ax)) for ax in fig.axes] == expected
    footer = " ".join(t.get_text().replace("\n", " ") for t in fig.texts)
    assert data["command"] in footer
    # the footer names the command that draws the figure
    assert f"python benchmarks/plot_results.py {path.name}" + (f" --figure {figure}" if figure not in (None, "examples") else "") in footer


# (results file, how to break it, what the error must name besides the file)
MALFORMED = [
    ("decode", lambda d: d["tasks"]["pos"].pop("labels"), "no 'tasks.pos.labels'"),
    ("classify", lambda d: d["results"][1]["fstrie_size_sweep"][2].pop("trie_mb"),
     r"'results\[1\].fstrie_size_sweep\[2\]' needs trie_mb"),
    ("fstrie_limit_d3", lambda d: d["alternatives"][0].pop("memory_mb"), r"'alternatives\[0\]' needs memory_mb"),
    ("train", lambda d: d.pop("results"), "no 'results'"),
    ("learning_curve", lambda d: d["curves"]["d = 2"][3].pop("epoch"), r"no 'curves.d = 2\[3\].epoch'"),
    ("learning_curve", lambda d: d["curves"]["d = 3"][0].__setitem__("support_vectors", "many"), r"'curves.d = 3\[0\].support_vectors' is 'many', expected a number"),
    ("adaptive", lambda d: d["streams"][2].pop("cache_sizes"), r"no 'streams\[2\].cache_sizes'"),
    ("adaptive", lambda d: d["streams"][0]["cache_sizes"][1].pop("speedup"),
     r"'streams\[0\].cache_sizes\[1\]' needs cache_rows, hit_rate and speedup"),
    ("adaptive", lambda d: d["streams"][1]["curve"]["hit_rate"].pop(), r"'streams\[1\].curve': .* differ in length"),
    ("adaptive", lambda d: d["streams"][3]["curve"]["pke_us"].__setitem__(4, None), r"'streams\[3\].curve.pke_us\[4\]' is None"),
]


@pytest.mark.parametrize("name, breaks, message", MALFORMED)
def test_a_malformed_results_file_is_named_with_the_missing_key(name, breaks, message):
    data = json.loads((RESULTS / f"{name}.json").read_text())
    breaks(data)
    with pytest.raises(ConjunctError, match=rf"^broken/{name}.json: .*{message}"):
        plot_results.figure_from_results(data, source=f"broken/{name}.json")


def test_results_kind_follows_the_script_that_wrote_the_file():
    assert plot_results.results_kind(json.loads((RESULTS / "adaptive.json").read_text())) == "adaptive"
    # bench_chunk_segment.py writes "tasks" too, but it is no decoding benchmark
    chunk = json.loads((RESULTS / "chunk_segment.json").read_text())
    assert "tasks" in chunk and plot_results.results_kind(chunk) is None
    with pytest.raises(ConjunctError, match=r"chunk_segment.json: not a results file .*\(written by bench_chunk_segment.py\)"):
        plot_results.figure_from_results(chunk, source="chunk_segment.json")
    # without a command, the fields tell
    adaptive = json.loads((RESULTS / "adaptive.json").read_text())
    del adaptive["command"]
    assert plot_results.results_kind(adaptive) == "adaptive"


def test_adaptive_cache(tmp_path):
    rows = [1024, 4096, 16384, 65536]
    fig = plot.adaptive_cache({"dep": [(r, 0.4 + 0.05 * i) for i, r in enumerate(rows)],
                               "labels": [(r, 0.3 + 0.05 * i) for i, r in enumerate(rows)]},
                              {"dep": [(r, 0.9 + 0.1 * i) for i, r in enumerate(rows)],
                               "labels": [(r, 1.1) for r in rows]},
                              {"dep": [(1000, 0.4), (2000, 0.5), (3000, 0.55)], "labels": [(500, 0.3), (1000, 0.35)]},
                              {"dep": [(1000, 0.8), (2000, 1.0), (3000, 1.2)], "labels": [(500, 1.0), (1000, 1.1)]},
                              notes={"rows_hit_rate": "LRU"}, caption="python benchmarks/bench_adaptive.py")
    assert len(fig.axes) == 4
    assert [len(data_lines(ax)) for ax in fig.axes] == [2, 2, 2, 2]
    assert fig.axes[0].get_title() == "hit rate against cache rows (LRU)"
    # one colour per stream in every panel
    for name in ("dep", "labels"):
        assert len({ln.get_color() for ax in fig.axes for ln in data_lines(ax) if ln.get_label() == name}) == 1
    # speed-up panels: log scale, PKE at 1 in PKE's colour, at least four labelled ticks on a narrow range
    for ax in (fig.axes[1], fig.axes[3]):
        assert ax.get_yscale() == "log"
        (ref,) = [ln for ln in ax.get_lines() if ln.get_label() == "PKE (speed-up 1)"]
        assert set(ref.get_ydata()) == {1.0} and ref.get_color() == plot.method_style("PKE")["color"]
        lo, hi = ax.get_ylim()
        assert len([t for t in ax.get_yticks() if lo <= t <= hi]) >= 4
    fig.canvas.draw()
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["$2^{10}$", "$2^{12}$", "$2^{14}$", "$2^{16}$"]
    assert_png(plot.save_figure(fig, tmp_path / "a.png"))
    # the cache-rows panels alone
    assert len(plot.adaptive_cache({"dep": [(1024, 0.5)]}, {"dep": [(1024, 1.2)]}).axes) == 2


def test_adaptive_cache_refuses_bad_data():
    hit, speed = {"dep": [(1024, 0.5)]}, {"dep": [(1024, 1.2)]}
    with pytest.raises(ConjunctError, match="both stream_hit_rate and stream_speedup"):
        plot.adaptive_cache(hit, speed, stream_hit_rate={"dep": [(10, 0.5)]})
    with pytest.raises(ConjunctError, match="a speed-up must be positive"):
        plot.adaptive_cache(hit, {"dep": [(1024, 0.0)]})
    with pytest.raises(ConjunctError, match="cache rows must be positive"):
        plot.adaptive_cache({"dep": [(0, 0.5)]}, speed)
    with pytest.raises(ConjunctError, match=r"a hit rate is a share in \[0, 1\], got \[57.0\]"):
        plot.adaptive_cache({"dep": [(1024, 57)]}, speed)
    with pytest.raises(ConjunctError, match="stream position must be positive"):
        plot.adaptive_cache(hit, speed, {"dep": [(0, 0.5)]}, {"dep": [(0, 1.0)]})
    with pytest.raises(ConjunctError, match="has no lines"):
        plot.adaptive_cache({}, speed)
    with pytest.raises(ConjunctError, match=r"notes for panels it does not draw: \['stream_speedup'\]"):
        plot.adaptive_cache(hit, speed, notes={"stream_speedup": "x"})


def test_adaptive_figure_reads_the_numbers_right():
    data = json.loads((RESULTS / "adaptive.json").read_text())
    fig = plot_results.figure_from_results(data, source="adaptive.json")
    s = data["streams"][2]
    lru = [c for c in s["cache_sizes"] if c["policy"] == "lru"]

    def line(ax):
        (ln,) = [ln for ln in ax.get_lines() if ln.get_label() == s["stream"]]
        return list(ln.get_xdata()), list(ln.get_ydata())

    assert line(fig.axes[0]) == ([c["cache_rows"] for c in lru], [c["hit_rate"] for c in lru])
    assert line(fig.axes[1]) == ([c["cache_rows"] for c in lru], [c["speedup"] for c in lru])
    c = s["curve"]
    sizes = np.diff([0] + c["end"])
    xs, ys = line(fig.axes[2])
    # the hit rate per chunk, without a remainder of a few decisions at the end
    assert xs == [e for e, n in zip(c["end"], sizes) if n >= sizes.max() / 2] and len(xs) < len(c["end"])
    assert ys == [h for h, n in zip(c["hit_rate"], sizes) if n >= sizes.max() / 2]
    # the speed-up over the stream so far: PKE's time over the adaptive classifier's
    xs, ys = line(fig.axes[3])
    assert xs == c["end"]
    assert ys[-1] == pytest.approx(np.dot(c["pke_us"], sizes) / np.dot(c["adaptive_us"], sizes))
    assert ys[0] == pytest.approx(c["pke_us"][0] / c["adaptive_us"][0])


def test_decode_figure_reads_the_numbers_right():
    data = json.loads((RESULTS / "decode.json").read_text())
    fig = plot_results.figure_from_results(data, source="decode.json")
    pos = data["tasks"]["pos"]
    per_sentence = pos["test_tokens"] / pos["test_sentences"]
    (sd_c,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "SD+C-EXP"]
    # x = labels, y = tokens per second
    assert sd_c.get_xdata()[0] == pos["labels"]
    assert sd_c.get_ydata()[0] == pytest.approx(pos["perceptron"]["decoders"]["SD+C-EXP"]["sent_per_s"] * per_sentence)


def test_readers_tolerate_extra_fields_and_explain_missing_ones():
    data = json.loads((RESULTS / "decode.json").read_text())
    data["new_top_level_field"] = {"anything": [1, 2]}
    data["tasks"]["pos"]["perceptron"]["decoders"]["Viterbi"]["p95_seconds"] = 0.1
    assert len(plot_results.figure_from_results(data, source="x.json").axes) == 2
    del data["tasks"]["pos"]["labels"]
    with pytest.raises(ConjunctError, match=r"x.json: no 'tasks.pos.labels'"):
        plot_results.figure_from_results(data, source="x.json")
    with pytest.raises(ConjunctError, match="not a results file benchmarks/plot_results.py knows"):
        plot_results.figure_from_results({"something": 1}, source="y.json")
    train = json.loads((RESULTS / "train.json").read_text())
    with pytest.raises(ConjunctError, match=r"figures \['examples', 'N'\], not 'labels'"):
        plot_results.figure_from_results(train, source="train.json", figure="labels")
    train["results"]["dep"]["time_against_examples"]["SL"]["30793"]["seconds"] = "fast"
    with pytest.raises(ConjunctError, match="expected a number"):
        plot_results.figure_from_results(train, source="train.json")


def test_training_figure_title_comes_from_the_data():
    train = json.loads((RESULTS / "train.json").read_text())
    train["results"]["dep"]["workload"]["description"] = "A workload of my own"
    train["settings"]["n_iter"] = 7
    fig = plot_results.figure_from_results(train, source="train.json")
    assert fig.axes[0].get_title().replace("\n", " ").startswith("A workload of my own (d = 3")
    assert "7 epochs" in fig._suptitle.get_text()


def test_plot_results_script(tmp_path, capsys):
    out = tmp_path / "decode.png"
    assert plot_results.main([str(RESULTS / "decode.json"), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert_png(out)
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"epoch": 1, "epoch_done": True, "rounds": 10, "updates": 4, "support_vectors": 4},
                                   {"epoch": 2, "epoch_done": True, "rounds": 20, "updates": 6, "support_vectors": 5}]))
    assert plot_results.main([str(history)]) == 0
    assert_png(tmp_path / "history.png")  # default output: beside the JSON
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert plot_results.main([str(bad)]) == 2
    assert "not a JSON file" in capsys.readouterr().err
    assert plot_results.main([str(RESULTS / "decode.json"), "-o", str(tmp_path / "no" / "such" / "dir.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    # -o naming the results file (here through a link) is refused before the file is touched
    results = tmp_path / "decode.json"
    results.write_text((RESULTS / "decode.json").read_text())
    (tmp_path / "link.png").symlink_to(results)
    assert plot_results.main([str(results), "-o", str(tmp_path / "link.png")]) == 2
    assert "would destroy" in capsys.readouterr().err and json.loads(results.read_text())["tasks"]


def test_version_flag():
    import conjunct

    out = subprocess.run([sys.executable, "-m", "conjunct", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"conjunct {conjunct.__version__}"


BENCHMARKS = RESULTS.parent


def test_benchmarks_draw_only_through_conjunct_plot():  # (plot_results.py hands conjunct.plot the data)
    # one style for every figure: no benchmark script draws with matplotlib itself
    offenders = [p.name for p in BENCHMARKS.glob("*.py")
                 if re.search(r"^\s*(import matplotlib|from matplotlib)", p.read_text(encoding="utf-8"), re.M)]
    assert offenders == []


def test_a_benchmark_writes_its_figure_as_plot_results_draws_it(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import _common

    monkeypatch.setattr(_common, "RESULTS", tmp_path)
    (tmp_path / "adaptive.json").write_text((RESULTS / "adaptive.json").read_text())
    (tmp_path / "train.json").write_text((RESULTS / "train.json").read_text())
    assert _common.write_figures("adaptive", {None: tmp_path / "adaptive.png"}) == [tmp_path / "adaptive.png"]
    assert_png(tmp_path / "adaptive.png")
    written = _common.write_figures("train", {"examples": tmp_path / "e.png", "N": tmp_path / "n.png"})
    assert [p.name for p in written] == ["e.png", "n.png"]
    out = capsys.readouterr().out
    assert "--figure N -o" in out and "python benchmarks/plot_results.py" in out
    # a results file the benchmark broke is named in the error
    (tmp_path / "adaptive.json").write_text(json.dumps({"command": "python benchmarks/bench_adaptive.py", "streams": []}))
    with pytest.raises(ConjunctError, match=r"adaptive.json: 'streams' is empty"):
        _common.write_figures("adaptive", {None: tmp_path / "x.png"})
