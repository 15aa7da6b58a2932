"""The whole path of a shipped Japanese text pipeline: trained small, saved,
loaded, it analyses text exactly as the trained one does, and its file is
smaller than one that stores every section (as files written before did,
which still load): the bunsetsu chunker's and parser's fstries over a
degree-2 split base leave out the base's weights, recomputed at load."""

import numpy as np
import pytest

import conjunct
from conjunct.analysis import JapaneseTextPipeline
from conjunct.io.model_io import read_header
from conjunct.models import classifiers
from conjunct.tagging import JAPANESE_TEMPLATES, PerceptronTagger
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu
from conjunct.tasks.chunk import Chunker
from conjunct.tasks.segment import WordSegmenter

# Every feature common: the split base's store is pke's, plus the support vectors it is summed from.
FSTRIE_OVER_SPLIT = {"base": "split", "common_features": 1 << 30, "dense_features": 64}


def _text(s):
    return "".join(t.form for b in s.bunsetsu for t in b.tokens)


def _fields(analyses):
    return [(a.forms, a.upos, a.xpos, a.bunsetsu, a.bunsetsu_heads, a.heads) for a in analyses]


def _stage_classifiers(nlp):
    return {"bunsetsu": nlp.bunsetsu.classifiers_["chunk"], "parser": nlp.parser.classifiers_["depends"]}


@pytest.mark.realdata
def test_a_small_japanese_pipeline_saves_smaller_and_analyses_the_same(tmp_path, shared_data, monkeypatch):
    base = shared_data / "ud_japanese_gsd"
    train, test = load_gsd_bunsetsu(base, "train")[:150], load_gsd_bunsetsu(base, "test")[:60]
    nlp = JapaneseTextPipeline(
        WordSegmenter(n_iter=2, method_params={"dense_features": 64}),
        PerceptronTagger(n_iter=2, templates=JAPANESE_TEMPLATES),
        Chunker(n_iter=2, method="fstrie", method_params=FSTRIE_OVER_SPLIT),
        BunsetsuDependencyParser(degree=2, n_iter=2, method="fstrie", method_params=FSTRIE_OVER_SPLIT),
        folds=2).fit(train)
    texts = [_text(s) for s in test]
    want = _fields(nlp.analyze(texts))
    nlp.save(tmp_path / "new.cjt")
    real = classifiers.derivable  # an fstrie's sections all stored, as files written before held them
    monkeypatch.setattr(classifiers, "derivable", lambda method, *a: [] if method == "fstrie" else real(method, *a))
    nlp.save(tmp_path / "old.cjt")
    monkeypatch.undo()
    new, old = read_header(tmp_path / "new.cjt"), read_header(tmp_path / "old.cjt")
    for stage, component in (("bunsetsu", "chunk"), ("parser", "depends")):
        derived = new["meta"]["stages"][stage]["meta"]["components"][component]["classifier"]["meta"]["derived"]
        assert {"base.store.dense", "base.store.weight"} <= set(derived)
        assert "derived" not in old["meta"]["stages"][stage]["meta"]["components"][component]["classifier"]["meta"]
    assert (tmp_path / "new.cjt").stat().st_size < (tmp_path / "old.cjt").stat().st_size
    for stage in ("bunsetsu", "parser"):  # here the segmenter (already a split classifier's) is most of the file
        sizes = [sum(s["nbytes"] for s in h["sections"] if s["name"].startswith(f"stage.{stage}.")) for h in (new, old)]
        assert sizes[0] < 0.6 * sizes[1], (stage, sizes)
    trained = _stage_classifiers(nlp)
    stored = None
    for path in ("old.cjt", "new.cjt"):
        for mmap in (False, True):
            again = conjunct.load(tmp_path / path, mmap=mmap)
            assert _fields(again.analyze(texts)) == want, path
            loaded = _stage_classifiers(again)
            stored = stored or loaded
            for stage, clf in loaded.items():  # the recomputed weights are the trained ones
                for name, a in stored[stage].arrays.items():
                    assert np.asarray(clf.arrays[name]).tobytes() == np.asarray(a).tobytes(), (path, stage, name)
                for name, a in trained[stage].arrays.items():  # the files keep the columns that carry weight
                    if not name.endswith("col_map"):
                        assert np.asarray(clf.arrays[name]).tobytes() == np.asarray(a).tobytes(), (path, stage, name)


@pytest.mark.realdata
def test_analyze_train_ships_japanese_bunsetsu_stages_as_split_with_every_feature_common(shared_data, tmp_path):
    from conjunct.cli import main

    args = ["analyze", "train", "--lang", "ja", str(shared_data / "ud_japanese_gsd"), "--max-sentences", "60", "-k", "2",
            "-i", "1", "-q"]
    assert main([*args, "-o", str(tmp_path / "ja.cjt")]) == 0
    nlp = conjunct.load(tmp_path / "ja.cjt")
    meta = read_header(tmp_path / "ja.cjt")["meta"]["stages"]
    for stage, (name, clf) in (("bunsetsu", *nlp.bunsetsu.classifiers_.items()), ("parser", *nlp.parser.classifiers_.items())):
        assert clf.method == "split" and clf.meta["n_common"] == clf.meta["n_features"]  # PKE's store
        derived = meta[stage]["meta"]["components"][name]["classifier"]["meta"]["derived"]
        assert "store.dense" in derived and ("store.weight" in derived or "store.row_value" in derived)
    assert main([*args, "-d", "3", "-o", str(tmp_path / "ja3.cjt")]) == 0  # degree 3: the parser's default method
    assert conjunct.load(tmp_path / "ja3.cjt").parser.method != "split"
