"""conjunct.plot and `conjunct plot`: every figure renders from small synthetic data, the readers
draw the committed benchmark results, and bad input gets a clear error."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from conjunct import ConjunctError  # noqa: E402
from conjunct import plot  # noqa: E402
from conjunct.cli import main  # noqa: E402
from conjunct.training import PAClassifier  # noqa: E402

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
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


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ConjunctError, match=r"pip install 'conjunct\[plot\]'"):
        plot.decoding_speed({"p": {"viterbi": [(49, 1.0)]}})


@pytest.mark.parametrize("name, figure, n_axes", [
    ("decode", None, 2), ("classify", None, 2), ("fstrie_limit_d3", None, 1), ("train", "examples", 2), ("train", "N", 2),
])
def test_figures_of_the_committed_results(name, figure, n_axes):
    path = RESULTS / f"{name}.json"
    fig = plot.figure_from_results(plot.read_results(path), source=str(path), figure=figure)
    assert len(fig.axes) == n_axes
    assert all(data_lines(ax) for ax in fig.axes)
    data = json.loads(path.read_text())
    assert any(data["command"] in t.get_text().replace("\n", " ") for t in fig.texts)


def test_decode_figure_reads_the_numbers_right():
    data = json.loads((RESULTS / "decode.json").read_text())
    fig = plot.figure_from_results(data, source="decode.json")
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
    assert len(plot.figure_from_results(data, source="x.json").axes) == 2
    del data["tasks"]["pos"]["labels"]
    with pytest.raises(ConjunctError, match=r"x.json: no 'tasks.pos.labels'"):
        plot.figure_from_results(data, source="x.json")
    with pytest.raises(ConjunctError, match="not a results file conjunct plot knows"):
        plot.figure_from_results({"something": 1}, source="y.json")
    train = json.loads((RESULTS / "train.json").read_text())
    with pytest.raises(ConjunctError, match=r"figures \['examples', 'N'\], not 'labels'"):
        plot.figure_from_results(train, source="train.json", figure="labels")
    train["results"]["dep"]["time_against_examples"]["SL"]["30793"]["seconds"] = "fast"
    with pytest.raises(ConjunctError, match="expected a number"):
        plot.figure_from_results(train, source="train.json")


def test_training_figure_title_comes_from_the_data():
    train = json.loads((RESULTS / "train.json").read_text())
    train["results"]["dep"]["workload"]["description"] = "A workload of my own"
    train["settings"]["n_iter"] = 7
    fig = plot.figure_from_results(train, source="train.json")
    assert fig.axes[0].get_title().replace("\n", " ").startswith("A workload of my own (d = 3")
    assert "7 epochs" in fig._suptitle.get_text()


def test_cli_plot(tmp_path, capsys):
    out = tmp_path / "decode.png"
    assert main(["plot", str(RESULTS / "decode.json"), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert_png(out)
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"epoch": 1, "epoch_done": True, "rounds": 10, "updates": 4, "support_vectors": 4},
                                   {"epoch": 2, "epoch_done": True, "rounds": 20, "updates": 6, "support_vectors": 5}]))
    assert main(["plot", str(history)]) == 0
    assert_png(tmp_path / "history.png")  # default output: beside the JSON
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["plot", str(bad)]) == 2
    assert "not a JSON file" in capsys.readouterr().err
    assert main(["plot", str(RESULTS / "decode.json"), "-o", str(tmp_path / "no" / "such" / "dir.png")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_version_flag():
    import conjunct

    out = subprocess.run([sys.executable, "-m", "conjunct", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"conjunct {conjunct.__version__}"
