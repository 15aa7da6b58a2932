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
    assert main(["convert", str(path), "-o", str(out)]) == 0
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
    assert main(["predict", str(out), str(data), "--print", "accuracy"]) == 0
    assert capsys.readouterr().out.startswith("accuracy ")
    assert main(["predict", str(out), str(data), "--print", "margins"]) == 0
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


def test_compile_and_predict_every_method(tmp_path, libsvm_model, capsys):
    path, data, pred = libsvm_model
    for method, extra in [("pki", []), ("pke", ["--dense-bytes", "0"]), ("split", ["--common-features", "5"]),
                          ("fstrie", ["--events", str(data), "--max-nodes", "50"]), ("fstrie", ["--base", "split", "--max-bytes", "4000"]),
                          ("adaptive", ["--cache-rows", "40", "--eviction", "lfu", "--events", str(data), "--max-nodes", "20"])]:
        out = tmp_path / f"{method}.cjt"
        assert main(["compile", str(path), "-o", str(out), "--method", method, *extra]) == 0
        assert main(["predict", str(out), str(data)]) == 0
        assert [int(v) for v in capsys.readouterr().out.split()] == pred
    # Approximate expansion with a report against the exact classifier.
    assert main(["compile", str(path), "-o", str(tmp_path / "hke.cjt"), "--method", "pke", "--sigma", "0.5", "--report", str(data)]) == 0
    assert "decisions changed" in capsys.readouterr().err
    # A compiled classifier cannot be run as another method or compiled again.
    assert main(["predict", str(tmp_path / "pki.cjt"), str(data), "--method", "pkb"]) == 2
    assert main(["compile", str(tmp_path / "pki.cjt"), "-o", str(tmp_path / "again.cjt")]) == 2
    assert main(["compile", str(path), "-o", str(tmp_path / "x.cjt"), "--method", "pki", "--sigma", "1"]) == 2
    assert "--sigma applies" in capsys.readouterr().err
    assert main(["compile", str(path), "-o", str(tmp_path / "x.cjt"), "--method", "pke", "--cache-rows", "10"]) == 2
    assert "--cache-rows applies" in capsys.readouterr().err


def test_compile_dense_table_size(tmp_path, libsvm_model, capsys):
    path, data, pred = libsvm_model
    out = tmp_path / "dense.cjt"
    assert main(["compile", str(path), "-o", str(out), "--method", "pke", "--dense-features", "3"]) == 0
    assert main(["predict", str(out), str(data)]) == 0
    assert [int(v) for v in capsys.readouterr().out.split()] == pred
    assert conjunct.load(out).meta["n_dense"] == 3
    assert main(["compile", str(path), "-o", str(out), "--method", "pki", "--dense-features", "3"]) == 2
    assert "--dense-features applies" in capsys.readouterr().err
    assert main(["compile", str(path), "-o", str(out), "--method", "pke", "--dense-features", "3", "--dense-bytes", "64"]) == 2
    assert "not both" in capsys.readouterr().err


def test_linear_text_model_cli(tmp_path, capsys):
    text = tmp_path / "llm.txt"
    text.write_text("# conjunct conjunctive linear model\n# classes: neg pos\n# decision: sign\n\t-0.5\nw=a\t1\nw=a t=b\t2\n")
    data = tmp_path / "data.txt"
    data.write_text("pos w=a t=b\nneg t=b\npos w=a\n")
    assert main(["convert", str(text), "-o", str(tmp_path / "llm.cjt")]) == 0
    assert main(["compile", str(tmp_path / "llm.cjt"), "-o", str(tmp_path / "llm-fstrie.cjt"), "--events", str(data)]) == 0
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "llm-fstrie.cjt"), str(data), "--print", "accuracy"]) == 0
    assert capsys.readouterr().out.startswith("accuracy 1.000000")
