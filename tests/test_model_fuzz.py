"""Structural fuzz of every model kind, in the default suite: seeded crafted edits
(digest recomputed) and bit flips (verify=False), each loaded in a worker process
so that a crash is seen. The long run is ``benchmarks/fuzz_models.py``."""

import os
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import fuzz_models  # noqa: E402

KINDS = {"kernel_model", "conjunctive_linear_model", "feature_index", "classifier", "perceptron_tagger", "hmm_tagger",
         "task_pipeline", "text_pipeline"}


@pytest.fixture(scope="module")
def samples():
    return fuzz_models.build_samples()


def test_samples_cover_every_kind_and_method(samples):
    kinds = {fuzz_models.ModelFile(s.data).kind for s in samples}
    assert kinds == KINDS
    methods = {fuzz_models.ModelFile(s.data).meta.get("method") for s in samples} - {None}
    from conjunct.models.classifier_checks import METHOD_SPECS

    assert methods == set(METHOD_SPECS)  # a new method needs a sample here


def test_crafted_edits_and_bit_flips_give_clean_errors_or_working_models(samples):
    table, failures, notes = fuzz_models.fuzz(samples, n_edits=600, n_flips=150, seed=20240601, jobs=1)
    assert failures == [], "\n".join(f"{f['sample']}: {f['what']} ({f['mode']}): {f['outcome']} {f['detail']}"
                                     for f in failures[:20])
    total = table["(all)"]
    assert sum(total.values()) == 750
    # The edits reach every sample, are mostly refused, sometimes still load, and
    # the neutral ones (section order, extra sections, info counts) load unchanged.
    assert all(sum(table[s.name].values()) >= 20 for s in samples)
    assert total["rejected"] > 300 and total["loaded"] > 50 and total["neutral-ok"] > 20


def test_rejections_name_the_file_and_the_problem(samples):
    _, _, notes = fuzz_models.fuzz(samples[:6], n_edits=60, n_flips=0, seed=3, jobs=1)
    for record in notes["rejected"]:
        assert record["detail"].startswith(("<pickle>: ", "<bytes>: ", "/")), record  # bytes: the pickle path


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_the_harness_reports_a_crash_as_a_crash(samples):
    """A probe that kills its worker is counted as a crash, and the pool goes on."""
    crashing = fuzz_models.Sample("selftest", samples[0].data, {"kind": "selftest-signal", "signal": signal.SIGSEGV})
    pool = fuzz_models.WorkerPool([crashing, samples[0]], jobs=1)
    try:
        results = pool.run([(0, "selftest", crashing.data, "bytes", False), (1, samples[0].name, samples[0].data, "bytes", True)])
    finally:
        pool.close()
    assert results[0][0] == "crash" and f"signal {int(signal.SIGSEGV)}" in results[0][1]
    assert results[1][0] == "neutral-ok"


def _edited(sample, edit):
    import copy

    from conjunct.io import persistence

    mf = fuzz_models.ModelFile(sample.data)
    meta = copy.deepcopy(mf.meta)
    edit(meta)
    return lambda: persistence.from_bytes(mf.dumps(meta=meta))


@pytest.mark.parametrize("name,edit,match", [
    ("chunker", lambda m: m["config"].update(window=-1), "config.window"),
    ("chunker", lambda m: m["config"].update(window=10**9), "config.window"),
    ("segmenter", lambda m: m["config"].update(ngram=15), "config.ngram"),
    ("chunker", lambda m: m.update(task="nope"), "header field 'task'"),
    ("chunker", lambda m: m["components"].update(extra=m["components"]["chunk"]), "components"),
    ("chunker", lambda m: m["params"].update(method="nope"), "params.method"),
    ("chunker", lambda m: m["params"].update(surprise=1), "params.surprise"),
    ("segmenter", lambda m: m["components"]["boundary"]["classifier"]["meta"]["rule"].update(kind="argmax"), "rule.kind"),
    ("segmenter", lambda m: m["components"]["boundary"]["classifier"]["meta"]["rule"].update(classes=[-1, 2]),
     "needs a class '1'"),
    ("english_parser", lambda m: m["components"]["label"]["classifier"]["meta"]["features"].update(numeric=True),
     "named features|features"),
    ("chunker_with_models", lambda m: m["components"]["chunk"]["model"]["meta"]["features"].update(numeric=True),
     "named features|features"),
    ("chunker_with_models", lambda m: m["components"]["chunk"]["model"].update(kind="classifier"), "model.kind"),
    ("english_parser", lambda m: m["components"]["transition"]["classifier"]["meta"]["rule"].update(kind="ovo"),
     "rule.kind"),
    ("tokenizer", lambda m: m["config"].update(ngram=4), "config.ngram"),
    ("tokenizer", lambda m: m["components"]["sentence"]["classifier"]["meta"]["rule"].update(classes=[0, 8]),
     "needs a class '1'"),
    ("english_parser", lambda m: m["config"].update(features="ud-english"), "config.features"),
    ("tokenizer", lambda m: m["components"].pop("sentence"), "components"),
    ("text_pipeline_en", lambda m: m["stages"].update(tokenizer=m["stages"]["chunker"]), "stages.tokenizer.meta.task"),
    ("text_pipeline_en", lambda m: m.update(lang="xx"), "header field 'lang'"),
    ("text_pipeline_en", lambda m: m["params"].update(folds=1), "params.folds"),
    ("text_pipeline_en", lambda m: m["params"].update(surprise=1), "params.surprise"),
    ("text_pipeline_en", lambda m: m["stages"].pop("parser"), "stages"),
    ("text_pipeline_en", lambda m: m["stages"].update(parser=m["stages"]["chunker"]), "stages.parser.meta.task"),
    ("text_pipeline_en", lambda m: m["stages"].update(tagger=None), "stages.tagger"),
    ("text_pipeline_en", lambda m: m["stages"]["tagger"]["meta"].update(labels=["NOUN", "VERB"]), "joint UPOS|XPOS"),
    ("text_pipeline_en", lambda m: m["stages"]["tagger"].update(kind="kernel_model"), "stages.tagger.kind"),
])
def test_pipeline_settings_and_components_are_checked(samples, name, edit, match):
    from conjunct import ModelFormatError

    sample = next(s for s in samples if s.name == name)
    with pytest.raises(ModelFormatError, match=match):
        _edited(sample, edit)()


@pytest.mark.parametrize("name,edit,match", [
    ("perceptron_tagger", lambda m: m.update(feature_version=4), "feature_version"),
    ("perceptron_tagger", lambda m: m.update(feature_version=2), "feature_version.*retrain it"),
    ("perceptron_tagger", lambda m: m["keys"]["templates"].pop(), "keys"),
    ("perceptron_tagger", lambda m: m.update(feature_version="2"), "feature_version"),
    ("hmm_tagger", lambda m: m.pop("smoothing"), "'smoothing': missing"),
    ("hmm_tagger", lambda m: m.update(smoothing=[1.0, 0.0]), "'smoothing'"),
    ("hmm_tagger", lambda m: m.update(smoothing=[1.0]), "'smoothing'"),
    ("hmm_tagger", lambda m: m["params"].update(emission_smoothing="more"), "params.emission_smoothing"),
    ("hmm_tagger", lambda m: m["smoothing_scores"][0].update(accuracy=2.0), r"smoothing_scores\[0\].accuracy"),
])
def test_tagger_header_fields_are_checked(samples, name, edit, match):
    from conjunct import ModelFormatError

    sample = next(s for s in samples if s.name == name)
    assert fuzz_models.ModelFile(sample.data).meta.get("smoothing_scores", [None]), "the HMM sample chose its smoothing"
    with pytest.raises(ModelFormatError, match=match):
        _edited(sample, edit)()


def test_nested_sections_are_checked_like_their_own_kind(samples):
    from conjunct import ModelFormatError
    from conjunct.io import persistence

    sample = next(s for s in samples if s.name == "chunker")
    mf = fuzz_models.ModelFile(sample.data)
    arrays = dict(mf.arrays)
    label = arrays["classifier.chunk.m.trie.label"].copy()
    label[-1] = 10**6
    arrays["classifier.chunk.m.trie.label"] = label
    with pytest.raises(ModelFormatError, match="section 'm.trie.label': value 1000000"):
        persistence.from_bytes(mf.dumps(arrays=arrays))


@pytest.mark.parametrize("groups", [["core", {}], ["core", ["edge"]], ["edge"], ["core", "core"], ["core", "nope"], "core"])
def test_bunsetsu_feature_groups_are_checked(groups):
    """The script's bunsetsu sample found an unhashable group crashing the check itself."""
    from conjunct import ModelFormatError
    from conjunct.io.validation import Meta as _Meta
    from conjunct.io.validation import Where as _Where
    from conjunct.tasks.bunsetsu.pipeline import _bunsetsu_groups

    with pytest.raises(ModelFormatError, match="config.groups"):
        _bunsetsu_groups(_Meta({"groups": groups}, "config", _Where("m.cjt")))
    _bunsetsu_groups(_Meta({"groups": ["core", "edge"]}, "config", _Where("m.cjt")))
