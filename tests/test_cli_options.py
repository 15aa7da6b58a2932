"""One flag vocabulary across the subcommands."""

import argparse

import numpy as np
import pytest

import conjunct
from conjunct.cli import build_parser, main
from conjunct.datasets import make_zipf_data

VOCABULARY = {
    "output": ["-o", "--output"],
    "degree": ["-d", "--degree"],
    "iterations": ["-i", "--iterations"],
    "quiet": ["-q", "--quiet"],
    "verbose": ["-v", "--verbose"],
    "jobs": ["-j", "--jobs"],
}
OLD = {"--out", "--n-iter", "--n-jobs"}  # spellings conjunct never accepts


def _leaves(parser, path=()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, path + (name,))


def test_every_command_speaks_one_vocabulary():
    leaves = dict(_leaves(build_parser()))
    assert {("train",), ("chunk", "train"), ("segment", "train"), ("parse", "train"), ("tag", "train"),
            ("predict",), ("convert",), ("compile",)} <= set(leaves)
    seen = set()
    for path, parser in leaves.items():
        for action in parser._actions:
            assert not OLD & set(action.option_strings), (path, action.option_strings)
            if action.dest in VOCABULARY:
                assert action.option_strings == VOCABULARY[action.dest], (path, action.option_strings)
                seen.add(action.dest)
    assert seen == set(VOCABULARY)
    # whatever writes a file takes it with -o; whatever trains takes -d (but the tagger), -i and -q
    for path in [("convert",), ("compile",), ("train",), ("chunk", "train"), ("segment", "train"), ("parse", "train"),
                 ("tag", "train"), ("predict",), ("chunk", "run"), ("segment", "run"), ("parse", "run"), ("tag", "run")]:
        assert "-o" in leaves[path]._option_string_actions, path
    for path in [("train",), ("chunk", "train"), ("segment", "train"), ("parse", "train"), ("tag", "train")]:
        options = leaves[path]._option_string_actions
        assert "-i" in options and "-q" in options and ("-d" in options or path == ("tag", "train")), path


@pytest.fixture
def data(tmp_path):
    feats, y = make_zipf_data(300, n_classes=2, seed=3)
    index = conjunct.FeatureIndex.from_data(feats)
    path = tmp_path / "train.svm"
    conjunct.write_svmlight(path, index.transform(feats), y)
    return path


def test_output_is_an_option_only(tmp_path, data, capsys):
    # An output file after the input, or --n-iter / --n-jobs for -i / -j, is refused.
    for argv in (["train", str(data), str(tmp_path / "a.cjt"), "-q"],
                 ["train", str(data), "-o", str(tmp_path / "a.cjt"), "--n-iter", "2", "-q"],
                 ["predict", str(data), str(data), "--n-jobs", "2"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert "error: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", str(data), "-q"])
    assert "-o/--output" in capsys.readouterr().err
    assert not (tmp_path / "a.cjt").exists()
    new = tmp_path / "new.cjt"
    assert main(["train", str(data), "-o", str(new), "-d", "2", "-i", "2", "-q"]) == 0
    X, _ = conjunct.read_svmlight(data)
    out = tmp_path / "labels.txt"
    assert main(["predict", str(new), str(data), "-o", str(out), "-j", "2"]) == 0
    assert out.read_text().split() == [str(v) for v in conjunct.load(new).predict(X)]


def test_predict_output_names_a_file(tmp_path, data, capsys):
    model = tmp_path / "m.cjt"
    assert main(["train", str(data), "-o", str(model), "-d", "2", "-i", "2", "-q"]) == 0
    # --output used to choose what to print; it now names the file, and says so.
    assert main(["predict", str(model), str(data), "--output", "accuracy"]) == 2
    assert "--print accuracy" in capsys.readouterr().err
    assert main(["predict", str(model), str(data), "--print", "accuracy", "-o", str(tmp_path / "acc.txt")]) == 0
    assert (tmp_path / "acc.txt").read_text().startswith("accuracy ")
