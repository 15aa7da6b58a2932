"""Test splits give final figures only: training a pipeline on the real corpora
(library, CLI and the accuracy benchmark's training step) never opens a test
file. Every file the process opens while training is recorded through
Python's audit hook ("open" is raised by ``open``, ``io.open`` and ``os.open``,
whichever layer reads)."""

import contextlib
import os
import sys
from pathlib import Path

import pytest

from conjunct.cli import main
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

_opened = None  # the list being recorded into, or None


def _hook(event, args):
    if _opened is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


_installed = False


@contextlib.contextmanager
def files_opened():
    """The paths of every file opened inside the block."""
    global _opened, _installed
    if not _installed:  # an audit hook cannot be removed: install one, switched by _opened
        sys.addaudithook(_hook)
        _installed = True
    _opened = seen = []
    try:
        yield seen
    finally:
        _opened = None


def split_files_of_test(seen, shared_data):
    """The opened corpus files that belong to a test split (the shared corpora name them ``*test*``)."""
    root = os.path.realpath(shared_data)
    corpora = [p for p in seen if os.path.realpath(p).startswith(root + os.sep)]
    return [p for p in corpora if "test" in os.path.basename(p)]


def _gsd(shared_data) -> Path:
    return shared_data / "ud_japanese_gsd"


@pytest.mark.realdata
def test_the_recorder_sees_a_test_split_read(shared_data):
    """The check below can fail: reading test is seen, whichever reader does it."""
    with files_opened() as seen:
        load_gsd_bunsetsu(_gsd(shared_data), "test")
    assert [os.path.basename(p) for p in split_files_of_test(seen, shared_data)] == ["ja_gsd-ud-test.conllu"]


@pytest.mark.realdata
def test_bunsetsu_training_reads_train_and_dev_only(tmp_path, shared_data):
    """GSD train is segmented by a table learned from dev alone; the parser
    (library and ``conjunct parse train``) and the Japanese text pipeline
    (``conjunct analyze train``) then train without opening test."""
    gsd = _gsd(shared_data)
    with files_opened() as seen:
        train = load_gsd_bunsetsu(gsd, "train")
        BunsetsuDependencyParser(degree=2, n_iter=1).fit(train[:60])
        assert main(["parse", "train", str(gsd), "--split", "train", "--task", "bunsetsu", "-o", str(tmp_path / "b.cjt"),
                     "-d", "2", "-i", "1", "--max-sentences", "60", "-q"]) == 0
        assert main(["analyze", "train", "--lang", "ja", str(gsd), "-o", str(tmp_path / "ja.cjt"), "--max-sentences", "40",
                     "-k", "2", "-i", "1", "-d", "2", "-q"]) == 0
    names = {os.path.basename(p) for p in seen}
    assert {"ja_gsd-ud-train.conllu", "ja_gsd-ud-dev.conllu"} <= names
    assert split_files_of_test(seen, shared_data) == []
    assert all(s.derived_segmentation for s in train)


def test_unknown_split_is_refused(tmp_path):
    import conjunct

    with pytest.raises(conjunct.ConjunctError, match="unknown GSD split 'valid'"):
        load_gsd_bunsetsu(tmp_path, "valid")


@pytest.mark.realdata
def test_accuracy_benchmark_trains_without_test(tmp_path, shared_data):
    """benchmarks/bench_accuracy.py trains every model (through the CLI) before
    it reads test: its training step opens no test file."""
    import argparse

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_accuracy
    finally:
        sys.path.remove(str(BENCHMARKS))
    args = argparse.Namespace(langs=["ja", "en"], iterations=1, folds=2, train_sentences=30, reuse=False,
                              no_gold_tag_parser=False)
    with files_opened() as seen:
        trained = bench_accuracy.train_models(args, shared_data, tmp_path)
    assert set(trained["paths"]) == {"ja", "en", "en_gold_tag_parser"} and all(p.exists() for p in trained["paths"].values())
    assert {"ja_gsd-ud-train.conllu", "en_ewt-ud-train.conllu"} <= {os.path.basename(p) for p in seen}
    assert split_files_of_test(seen, shared_data) == []


@pytest.mark.realdata
def test_segment_dictionary_benchmark_reads_test_only_when_asked(shared_data, monkeypatch, tmp_path):
    """bench_segment_dictionary.py chooses on dev: without --test it never opens GSD test."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.chdir(tmp_path)
    import bench_segment_dictionary

    monkeypatch.setattr(bench_segment_dictionary, "write_results", lambda name, data, md: None)
    monkeypatch.setattr(sys, "argv", ["bench_segment_dictionary.py", "--quick", "--train-sentences", "60", "--variants",
                                      "d1+dict"])
    with files_opened() as seen:
        bench_segment_dictionary.main()
    names = {os.path.basename(p) for p in seen}
    assert {"ja_gsd-ud-train.conllu", "ja_gsd-ud-dev.conllu"} <= names
    assert split_files_of_test(seen, shared_data) == []


def test_segment_dictionary_variants_name_their_parameters(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import argparse

    import bench_segment_dictionary as script

    assert script.variant("d2+dict,lm", 10) == {"degree": 2, "dictionary": True, "n_iter": 10, "longest_match": True}
    assert script.variant("d2+dict,t4,f5,s1", 10) == {"degree": 2, "dictionary": True, "n_iter": 10, "type_ngram": 4,
                                                      "dictionary_folds": 5, "random_state": 1}
    for bad in ("d2,lm", "d2+dict,x1"):  # the longest-match flags read the dictionary
        with pytest.raises(argparse.ArgumentTypeError, match="unknown option"):
            script.variant(bad, 10)
