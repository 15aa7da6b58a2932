"""Training a text pipeline's stages at once: the same models as one at a
time, the shared progress bar, the per-stage measurements and the command's
stage report."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

import conjunct
from conjunct.analysis import EnglishTextPipeline, JapaneseTextPipeline
from conjunct.analysis.schedule import Job, StageMeter, run_jobs, stage_report
from conjunct.cli import main
from conjunct.progress import bar, forwarding
from conjunct.tagging import PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.english import EnglishDependencyParser, read_ud_english
from conjunct.tasks.segment import WordSegmenter

SMALL = {"dense_features": 64}


def _untimed(value):
    """A model's header entry without the seconds its training logs record."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _same_model(a, b) -> bool:
    (ka, ma, xa), (kb, mb, xb) = a.to_container(), b.to_container()
    return (ka == kb and _untimed(ma) == _untimed(mb) and sorted(xa) == sorted(xb)
            and all(np.array_equal(np.asarray(xa[k]), np.asarray(xb[k])) for k in xa))


# -- run_jobs and the shared bar ------------------------------------------------------------------
def test_run_jobs_returns_by_name_in_threads_and_records_each_job():
    seen, gate = set(), threading.Barrier(2, timeout=30)

    def job(value):
        def run():
            seen.add(threading.get_ident())
            gate.wait()  # both jobs run at once, or this times out
            return value
        return run

    meter = StageMeter()
    out = run_jobs([("a", job(1), 1.0), ("b", job(2), 3.0)], 2, meter=meter)
    assert out == {"a": 1, "b": 2} and len(seen) == 2
    assert sorted(r["stage"] for r in meter.rows) == ["a", "b"]
    assert all(r["job"] and r["wall_seconds"] >= 0 and r["cpu_seconds"] >= 0 for r in meter.rows)


def test_run_jobs_errors():
    with pytest.raises(ValueError, match="repeat"):
        run_jobs([("a", lambda: 1, 1.0), ("a", lambda: 2, 1.0)])

    def broken():
        raise KeyError("broken stage")

    with pytest.raises(KeyError, match="broken stage"):
        run_jobs([("ok", lambda: 1, 1.0), ("bad", broken, 1.0)], 2)
    with pytest.raises(conjunct.ConjunctError, match="n_jobs"):
        run_jobs([("ok", lambda: 1, 1.0)], 0)
    with pytest.raises(ValueError, match="unknown jobs"):
        run_jobs([Job("a", lambda d: 1, after=("b",))])


def test_jobs_wait_for_what_they_read_and_for_memory():
    order, lock = [], threading.Lock()

    def note(name, value):
        def run(*done):
            with lock:
                order.append(("start", name))
            time.sleep(0.05)
            with lock:
                order.append(("end", name))
            return value if not done else value + sum(done[0].values())
        return run

    jobs = [Job("big", note("big", 1), memory=60), Job("a", note("a", 10), memory=10),
            Job("sum", note("sum", 100), after=("a",), memory=10), Job("huge", note("huge", 1000), memory=80)]
    out = run_jobs(jobs, 2, budget=100)
    assert out == {"big": 1, "a": 10, "sum": 110, "huge": 1000}
    assert order.index(("end", "a")) < order.index(("start", "sum"))
    # 80 never fits beside 60: "huge" starts only once "big" is done (alone, if it must)
    assert order.index(("end", "big")) < order.index(("start", "huge"))
    assert ("start", "a") in order[:2]  # a small job fits beside the big one


def test_bars_inside_forwarding_report_fractions_that_never_go_back():
    got = []
    with forwarding(got.append) as finish:
        with bar(total=10) as b:
            b.update(5)
            b.update(5)
        with bar(total=4) as b:  # a second bar moves the job only past the first one's level
            b.update(2)
        assert sum(got) == pytest.approx(1.0)
        finish()
    assert sum(got) == pytest.approx(1.0) and all(x > 0 for x in got)
    got.clear()
    with forwarding(got.append) as finish:
        with bar(total=4) as b:
            b.update(1)
        finish()
    assert got == [pytest.approx(0.25), pytest.approx(0.75)]
    assert not hasattr(bar(total=1), "sink")  # outside the block: a plain (silent) bar again


# -- the meter --------------------------------------------------------------------------------------
def test_stage_meter_sees_a_stage_s_memory_and_cpu():
    meter = StageMeter()
    with meter.stage("small"):
        pass
    with meter.stage("big") as row:
        block = np.ones(200 * 2**20 // 8)  # 200 MB, touched
        row["note"] = "kept"
        total = 0.0
        for _ in range(200_000):
            total += 1.0
    del block
    small, big = meter.phases()
    assert big["note"] == "kept" and big["peak_rss_mb"] >= small["peak_rss_mb"] + 150
    assert big["cpu_seconds"] > 0
    text = stage_report(meter.rows)
    assert text.splitlines()[1].startswith("small") and text.splitlines()[-1].startswith("total")


# -- the pipelines: stages at once train the same models --------------------------------------------
def test_japanese_pipeline_in_threads_is_the_serial_one(shared_data):
    train = load_gsd_bunsetsu(shared_data / "ud_japanese_gsd", "train")[:60]

    def make():
        return JapaneseTextPipeline(WordSegmenter(n_iter=1, method_params=SMALL), PerceptronTagger(n_iter=2),
                                    Chunker(n_iter=1, method_params=SMALL),
                                    BunsetsuDependencyParser(degree=2, n_iter=1, method_params=SMALL), folds=3)

    serial, parallel = make().fit(train, n_jobs=1), make().fit(train, n_jobs=2)
    assert _same_model(serial, parallel)
    assert serial.stats_["jackknife_accuracy"] == parallel.stats_["jackknife_accuracy"]
    stages = [r["stage"] for r in parallel.stats_["stages"] if not r.get("job")]
    assert stages == ["training"]
    jobs = {r["stage"] for r in parallel.stats_["stages"] if r.get("job")}
    assert jobs == {"segmenter", "tagger", "tagger, fold 1", "tagger, fold 2", "tagger, fold 3", "parser",
                    "bunsetsu chunker", "jackknifed sentences"}


def test_english_pipeline_in_threads_is_the_serial_one(shared_data):
    train = read_ud_english(shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu")[:60]
    chunks = conjunct.read_conll2000(shared_data / "conll2000" / "train.txt")[:40]

    def make():
        return EnglishTextPipeline(PerceptronTagger(n_iter=2), EnglishDependencyParser(n_iter=1, method_params=SMALL),
                                   Chunker(n_iter=1, method_params=SMALL), folds=2)

    serial = make().fit(train, chunk_data=chunks, n_jobs=1)
    parallel = make().fit(train, chunk_data=chunks, n_jobs=-1)
    assert _same_model(serial, parallel)
    assert serial.stats_["chunk_tag_accuracy"] == parallel.stats_["chunk_tag_accuracy"]


def test_analyze_train_reports_its_stages(shared_data, tmp_path, capsys):
    treebank = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    out, report = tmp_path / "m.cjt", tmp_path / "stages.json"
    assert main(["analyze", "train", "--lang", "en", str(treebank), "--max-sentences", "40", "-k", "2", "-i", "1",
                 "-j", "2", "-v", "--stage-report", str(report), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "peak RSS MB" in err and "tagger, fold 2" in err
    got = json.loads(report.read_text())
    assert got["lang"] == "en" and got["sentences"] == 40 and got["jobs"] == 2
    phases = [r["stage"] for r in got["stages"] if not r.get("job")]
    assert phases == ["reading", "training", "writing"]
    assert {"parser", "tagger", "tagger, fold 1"} <= {r["stage"] for r in got["stages"] if r.get("job")}
    assert all(r["peak_rss_mb"] > 0 for r in got["stages"] if not r.get("job"))
    one = tmp_path / "one.cjt"
    assert main(["analyze", "train", "--lang", "en", str(treebank), "--max-sentences", "40", "-k", "2", "-i", "1",
                 "-j", "1", "-v", "-o", str(one)]) == 0  # -v: saved with the model
    assert _same_model(conjunct.load(one), conjunct.load(out))
