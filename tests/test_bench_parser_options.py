"""benchmarks/bench_parser_options.py chooses the English pipeline's parser on
dev: it must train the way ``conjunct analyze train --lang en`` does (the
pipeline it saves analyses exactly like the command's) and never open test."""

import sys
from pathlib import Path

import pytest

import conjunct
from conjunct.cli import main
from conjunct.tasks.english import read_ud_english

from test_heldout import files_opened, split_files_of_test

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _script():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_parser_options
    finally:
        sys.path.remove(str(BENCHMARKS))
    return bench_parser_options


@pytest.mark.realdata
def test_parser_options_match_the_command_and_read_no_test(tmp_path, shared_data, monkeypatch):
    script = _script()
    written = {}
    monkeypatch.setattr(script, "write_results", lambda name, res, md: written.update(name=name, res=res, md=md))
    monkeypatch.setattr(sys, "argv", ["bench_parser_options.py", "--work", str(tmp_path / "w"), "--train-sentences", "60",
                                      "--dev-sentences", "25", "-i", "1", "-k", "2", "--variants", "malt:2", "rich:2",
                                      "rich:2:explore", "--pipeline", "malt:2", "-o", str(tmp_path / "mine.cjt"), "--name", "x"])
    with files_opened() as seen:
        script.main()
    assert split_files_of_test(seen, shared_data) == []
    assert written["name"] == "x" and [r["variant"] for r in written["res"]["results"]] == ["malt:2", "rich:2",
                                                                                         "rich:2:explore"]
    assert all(0 < r["predicted_tags"]["las"] <= r["predicted_tags"]["uas"] <= 1 for r in written["res"]["results"])
    speed = [r["speed"] for r in written["res"]["results"]]
    assert all(s["sentences_per_second"] > 0 and s["decisions"] >= 25 for s in speed)  # at least one per sentence
    assert "decisions/s" in written["md"]

    ewt = shared_data / "ud_english_ewt"
    assert main(["analyze", "train", "--lang", "en", str(ewt / "en_ewt-ud-train.conllu"), "-o", str(tmp_path / "cli.cjt"),
                 "--max-sentences", "60", "-k", "2", "-i", "1", "-q"]) == 0
    dev = [s.forms for s in read_ud_english(ewt / "en_ewt-ud-dev.conllu")[:25]]
    mine, cli = conjunct.load(tmp_path / "mine.cjt"), conjunct.load(tmp_path / "cli.cjt")
    key = lambda a: (a.upos, a.xpos, a.heads, a.deprels)  # noqa: E731
    assert [key(a) for a in mine.analyze(dev)] == [key(a) for a in cli.analyze(dev)]
    text = ["It can't be done, he said. The dog barked at the mailman."]
    assert mine.tokenize(text)[0].words == cli.tokenize(text)[0].words

    # A second run reuses the work files: nothing is trained again and the scores are the same.
    first = written["res"]["results"]
    monkeypatch.setattr(sys, "argv", ["bench_parser_options.py", "--work", str(tmp_path / "w"), "--train-sentences", "60",
                                      "--dev-sentences", "25", "-i", "1", "-k", "2", "--variants", "rich:2"])
    script.main()
    again = written["res"]["results"][0]
    assert again["predicted_tags"] == first[1]["predicted_tags"]
    # Its training cost is the first run's, kept next to the parser; the explored variant reused rich:2 as its first round.
    assert (again["fit_seconds"], again["fit_cpu_seconds"]) == (first[1]["fit_seconds"], first[1]["fit_cpu_seconds"]) != (None, None)
    assert [r["first_round_reused"] for r in first] == [False, False, True]

    # --tokenizer-from takes a pipeline's tokenizer instead of training one (no work file for it).
    (tmp_path / "w" / "n60_i1_k2_s0_tokenizer.pkl").unlink()
    monkeypatch.setattr(sys, "argv", ["bench_parser_options.py", "--work", str(tmp_path / "w"), "--train-sentences", "60",
                                      "--dev-sentences", "25", "-i", "1", "-k", "2", "--variants", "rich:2", "--pipeline",
                                      "rich:2", "-o", str(tmp_path / "rich.cjt"), "--tokenizer-from", str(tmp_path / "cli.cjt")])
    script.main()
    assert not (tmp_path / "w" / "n60_i1_k2_s0_tokenizer.pkl").exists()
    rich = conjunct.load(tmp_path / "rich.cjt")
    assert rich.parser.features == "rich" and rich.tokenize(text)[0].words == cli.tokenize(text)[0].words

    # --callgrind parses dev with a trained variant between two callgrind dumps of this process, and nothing else.
    import os

    events = []
    monkeypatch.setattr(script.subprocess, "run", lambda argv, **kw: events.append(argv))
    real_parse = type(rich.parser).parse
    monkeypatch.setattr(type(rich.parser), "parse", lambda self, s, **kw: events.append(len(s)) or real_parse(self, s, **kw))
    report = written["res"]
    monkeypatch.setattr(sys, "argv", ["bench_parser_options.py", "--work", str(tmp_path / "w"), "--train-sentences", "60",
                                      "--dev-sentences", "25", "-i", "1", "-k", "2", "--callgrind", "rich:2"])
    script.main()
    on, dump = (["callgrind_control", *a, str(os.getpid())] for a in (["-i", "on"], ["-d"]))
    assert events == [5, on, dump, 25, dump] and written["res"] is report  # the whole dev parse between the dumps; no report
    monkeypatch.setattr(sys, "argv", sys.argv[:-1] + ["malt:3"])
    with pytest.raises(SystemExit, match="no such parser"):
        script.main()


def test_variants_name_their_parameters():
    script = _script()
    assert script.parse_variant("rich:2") == {"features": "rich", "degree": 2, "explore": False}
    assert script.parse_variant("zn:3:explore:i20:c0.5") == {"features": "zn", "degree": 3, "explore": True, "n_iter": 20,
                                                             "C": 0.5}
    assert script.parse_variant("richu-order2:2")["features"] == "richu-order2"
    for bad in ("rich", "nope:2", "rich:x", "rich:2:fast", "rich:2:i5:i6"):
        with pytest.raises(SystemExit, match="a variant is"):
            script.parse_variant(bad)


@pytest.mark.realdata
def test_accuracy_benchmark_trains_the_gold_tag_parser_with_the_chosen_features(tmp_path, shared_data):
    """bench_accuracy.py --parser-features gives the parser trained on gold tags the pipeline parser's feature set."""
    import argparse

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_accuracy
    finally:
        sys.path.remove(str(BENCHMARKS))
    args = argparse.Namespace(langs=["en"], iterations=1, folds=2, train_sentences=30, reuse=False, no_gold_tag_parser=False,
                              en_model=tmp_path / "elsewhere.cjt", parser_features="richu")
    trained = bench_accuracy.train_models(args, shared_data, tmp_path)
    assert conjunct.load(trained["paths"]["en_gold_tag_parser"]).features == "richu"
    args.parser_features = None
    (tmp_path / "en_gold_tag_parser.cjt").unlink()
    assert conjunct.load(bench_accuracy.train_models(args, shared_data, tmp_path)["paths"]["en_gold_tag_parser"]).features == "malt"
