"""conjunct train: svmlight and string data, every algorithm, the model files it writes, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import conjunct
from conjunct.cli import main
from conjunct.datasets import make_zipf_data
from conjunct.models.linear import brute_force_margins


@pytest.fixture
def files(tmp_path):
    feats, y = make_zipf_data(700, n_classes=3, seed=11)
    conjunct.write_strings(tmp_path / "train.txt", feats[:500], y[:500])
    conjunct.write_strings(tmp_path / "test.txt", feats[500:], y[500:])
    index = conjunct.FeatureIndex.from_data(feats)
    conjunct.write_svmlight(tmp_path / "train.svm", index.transform(feats[:500]), y[:500])
    conjunct.write_svmlight(tmp_path / "test.svm", index.transform(feats[500:]), y[500:])
    return tmp_path


@pytest.mark.parametrize("data", ["train.txt", "train.svm"])
def test_train_then_predict(files, data, capsys):
    model = files / "model.cjt"
    test = files / data.replace("train", "test")
    assert main(["train", str(files / data), "-o", str(model), "-d", "3", "-i", "3", "--test", str(test)]) == 0
    out = capsys.readouterr()
    assert "support vectors" in out.err and "epoch 3" in out.err
    accuracy = float(out.out.split()[1])
    loaded = conjunct.load(model)
    assert isinstance(loaded, conjunct.KernelModel) and loaded.degree == 3
    assert loaded.features.is_numeric == data.endswith(".svm")
    assert main(["predict", str(model), str(test), "--print", "accuracy"]) == 0
    assert float(capsys.readouterr().out.split()[1]) == accuracy
    assert accuracy > 0.5


def test_margin_modes_and_explicit_weights(files, capsys):
    data, test = str(files / "train.svm"), files / "test.svm"
    paths = {}
    for margin in ("kernel", "split", "slicing"):
        paths[margin] = files / f"{margin}.cjt"
        assert main(["train", data, "-o", str(paths[margin]), "-d", "2", "-i", "2", "--margin", margin, "-q",
                     "--explicit", str(files / f"{margin}.linear.cjt")]) == 0
    models = {m: conjunct.load(p) for m, p in paths.items()}
    X, _ = conjunct.read_svmlight(test)
    m0 = models["kernel"].decision_function(X)
    for m in ("split", "slicing"):
        np.testing.assert_allclose(models[m].decision_function(X), m0, rtol=1e-9, atol=1e-9 * np.abs(m0).max())
    linear = conjunct.load(files / "slicing.linear.cjt")
    X_small = X[:20]
    np.testing.assert_allclose(brute_force_margins(linear, X_small), models["slicing"].decision_function(X_small),
                               rtol=1e-9, atol=1e-9 * np.abs(m0).max())


def test_l1(files, capsys):
    model = files / "l1.cjt"
    assert main(["train", str(files / "train.txt"), "-o", str(model), "--algorithm", "l1", "-d", "2", "-i", "2",
                 "-C", "0.5", "--test", str(files / "test.txt")]) == 0
    out = capsys.readouterr()
    assert "non-zero conjunctions" in out.err and out.out.startswith("accuracy")
    assert isinstance(conjunct.load(model), conjunct.ConjunctiveLinearModel)


def test_errors(files, capsys):
    bad = files / "bad.svm"
    bad.write_text("1 3:1 5:1\n-1 2:0.5\n")
    assert main(["train", str(bad), "-o", str(files / "m.cjt")]) == 2
    err = capsys.readouterr().err
    assert "bad.svm:2" in err and "binary" in err
    one = files / "one.svm"
    one.write_text("1 3:1\n1 4:1\n")
    assert main(["train", str(one), "-o", str(files / "m.cjt")]) == 2
    assert "two classes" in capsys.readouterr().err
    assert main(["train", str(files / "train.svm"), "-o", str(files / "m.cjt"), "--margin", "kernel",
                 "--common-features", "10"]) == 2
    assert "common_features" in capsys.readouterr().err
    assert main(["train", str(files / "train.svm"), "-o", str(files / "m.cjt"), "--algorithm", "l1", "--explicit", "x"]) == 2
    assert not (files / "m.cjt").exists()
