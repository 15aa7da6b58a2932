import subprocess
import sys

import numpy as np
import pytest

import conjunct
from conjunct.cli import main

svmutil = pytest.importorskip("libsvm.svmutil")


@pytest.fixture
def libsvm_model(tmp_path):
    rng = np.random.default_rng(5)
    X = [{int(j): 1 for j in np.flatnonzero(rng.random(30) < 0.2) + 1} for _ in range(120)]
    y = [int(v) for v in rng.integers(0, 3, 120)]
    m = svmutil.svm_train(y, X, "-t 1 -d 2 -g 1 -r 1 -q")
    path = tmp_path / "m.libsvm"
    svmutil.svm_save_model(str(path), m)
    data = tmp_path / "data.svm"
    data.write_text("".join(f"{lab} " + " ".join(f"{k}:1" for k in sorted(x)) + "\n" for lab, x in zip(y, X)))
    pred, _, _ = svmutil.svm_predict(y, X, m, "-q")
    return path, data, [int(p) for p in pred]


def test_help_entry_points():
    for cmd in (["conjunct", "--help"], [sys.executable, "-m", "conjunct", "--help"]):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        for sub in ("convert", "predict", "info", "demo"):
            assert sub in out


def test_convert_info_predict(tmp_path, libsvm_model, capsys):
    path, data, pred = libsvm_model
    out = tmp_path / "m.cjt"
    assert main(["convert", str(path), str(out)]) == 0
    assert isinstance(conjunct.load(out), conjunct.KernelModel)
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    assert "support vectors" in capsys.readouterr().out
    assert main(["info", str(out), "--json"]) == 0
    assert '"decision": "ovo"' in capsys.readouterr().out
    labels_file = tmp_path / "labels.txt"
    assert main(["predict", str(out), str(data), "-o", str(labels_file)]) == 0
    assert [int(v) for v in labels_file.read_text().split()] == pred
    # A foreign model file is converted on the fly, with either method.
    assert main(["predict", str(path), str(data), "--method", "pkb"]) == 0
    assert [int(v) for v in capsys.readouterr().out.split()] == pred
    assert main(["predict", str(out), str(data), "--output", "accuracy"]) == 0
    assert capsys.readouterr().out.startswith("accuracy ")
    assert main(["predict", str(out), str(data), "--output", "margins"]) == 0
    first = capsys.readouterr().out.splitlines()[0].split("\t")
    assert int(first[0]) == pred[0] and len(first[1].split()) == 3


def test_predict_stdin_stdout(tmp_path, libsvm_model):
    path, data, pred = libsvm_model
    res = subprocess.run(["conjunct", "predict", str(path), "-"], input=data.read_text(), capture_output=True, text=True, check=True)
    assert [int(v) for v in res.stdout.split()] == pred


def test_cli_errors(tmp_path, capsys, libsvm_model):
    path, data, _ = libsvm_model
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n1 2:0.5\n")
    assert main(["predict", str(path), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.svm:2" in err and "binary" in err
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x01garbage")
    assert main(["info", str(junk)]) == 2
    assert "unknown model format" in capsys.readouterr().err
    (tmp_path / "empty.svm").write_text("")
    assert main(["predict", str(path), str(tmp_path / "empty.svm")]) == 2
    assert "no examples" in capsys.readouterr().err


def test_demo_runs(capsys):
    assert main(["demo", "--n-train", "600", "--n-test", "300", "--degree", "2"]) == 0
    out = capsys.readouterr().out
    assert "demo passed" in out and "PKI" in out
