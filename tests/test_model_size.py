"""What a task pipeline's file holds: its compiled classifiers, and the kernel
models beside them only when asked (``keep_models``); pkb / pki classifiers
give their models back exactly, so such a file can still be recompiled."""

import numpy as np
import pytest

import conjunct
from conjunct.io.model_io import read_header
from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu


@pytest.fixture(scope="module")
def gsd(shared_data):
    data = shared_data / "ud_japanese_gsd"
    return load_gsd_bunsetsu(data, "train")[:300], load_gsd_bunsetsu(data, "dev")[:60]


def _sections(path):
    return {s["name"]: s["nbytes"] for s in read_header(path)["sections"]}


@pytest.mark.realdata
@pytest.mark.parametrize("method", ["pkb", "pki"])
def test_models_recovered_exactly_from_kernel_classifiers(tmp_path, gsd, method):
    train, dev = gsd
    parser = BunsetsuDependencyParser(degree=2, n_iter=2, method=method).fit(train)
    parser.save(tmp_path / "p.cjt")
    assert not any(k.startswith("model.") for k in _sections(tmp_path / "p.cjt"))
    again = conjunct.load(tmp_path / "p.cjt")
    assert not again.keep_models and again.parse(dev) == parser.parse(dev)
    a, b = parser.models_["depends"], again.models_["depends"]
    # the file keeps only the names of features some support vector has: the same vectors, by name
    assert len(b.features) == len(set(a.support_vectors.indices)) < len(a.features)
    names = lambda m: [[m.features.name(i) for i in m.support_vectors[r].indices] for r in range(m.n_support_vectors)]
    assert names(a) == names(b)
    assert np.array_equal(a.dual_coef, b.dual_coef) and np.array_equal(a.intercept, b.intercept)
    assert (a.degree, a.gamma, a.coef0) == (b.degree, b.gamma, b.coef0) and b.features is again.classifier_.features
    # recompiling the recovered model is compiling the trained one
    want = parser.compile("pke").parse(dev)
    assert again.compile("pke").parse(dev) == want
    assert np.array_equal(again.classifier_.arrays["store.weight"], parser.classifier_.arrays["store.weight"])


@pytest.mark.realdata
def test_keep_models_stores_them_and_a_compiled_only_file_refuses_recompiling(tmp_path, gsd):
    train, dev = gsd
    parser = BunsetsuDependencyParser(degree=2, n_iter=2, method="pke").fit(train)
    want = parser.parse(dev)
    parser.save(tmp_path / "small.cjt")
    parser.keep_models = True
    parser.save(tmp_path / "full.cjt")
    small, full = _sections(tmp_path / "small.cjt"), _sections(tmp_path / "full.cjt")
    model = {k: v for k, v in full.items() if k.startswith("model.depends.")}
    assert model and "model.depends.sv_indices" in model and "model.depends.features.names_blob" in model
    assert set(full) - set(model) == set(small) and (tmp_path / "small.cjt").stat().st_size < (tmp_path / "full.cjt").stat().st_size
    kept = conjunct.load(tmp_path / "full.cjt")  # a file with its models (as every older file) keeps them on saving
    assert kept.keep_models and kept.parse(dev) == want and kept.compile("pkb").parse(dev) == want
    bare = conjunct.load(tmp_path / "small.cjt", mmap=True)
    assert bare.parse(dev) == want and bare.models_ == {}
    with pytest.raises(conjunct.ConjunctError, match="retrain it"):
        bare.compile("pkb")
    with pytest.raises(conjunct.ConjunctError, match="keep-models"):
        bare.compile("fstrie", events=train)


@pytest.mark.parametrize("method", ["pkb", "pki", "pke", "split", "fstrie"])
def test_dropping_unused_feature_names_keeps_every_margin(method):
    from conjunct.training import PAClassifier

    rng = np.random.default_rng(0)
    words = [f"w{k}" for k in range(60)]
    # each example has a feature of its own; the easy ones never become support vectors
    feats = [list(rng.choice(words, 5, replace=False)) + [f"u{i}"] for i in range(300)]
    labels = [int("w1" in f or "w2" in f and "w3" in f) for f in feats]
    model = PAClassifier(degree=2, n_iter=1).fit(feats, labels).model_
    clf = model.compile(method, **({"events": feats[:50]} if method == "fstrie" else {}))
    small = clf.without_unused_features()
    assert len(small.features) == int((clf.arrays["col_map"] >= 0).sum()) < len(clf.features)
    probe = [list(rng.choice(words, 6, replace=False)) + [f"u{i}", "never seen"] for i in range(200)]
    assert np.array_equal(small.decision_function(probe), clf.decision_function(probe))


@pytest.mark.realdata
def test_a_pickled_copy_keeps_models_and_every_feature(gsd):
    import copy
    import pickle

    train, dev = gsd
    parser = BunsetsuDependencyParser(degree=1, n_iter=1, method="pke").fit(train[:100])
    for again in (copy.copy(parser), pickle.loads(pickle.dumps(parser))):
        assert not again.keep_models and len(again.classifier_.features) == len(parser.classifier_.features)
        assert again.models_["depends"].n_support_vectors == parser.models_["depends"].n_support_vectors
        assert again.parse(dev) == parser.parse(dev)


@pytest.mark.realdata
def test_analyze_train_ships_the_compact_layout(shared_data, tmp_path):
    from conjunct.cli import main
    from conjunct.tasks.base import SHIPPED_MIN_SUPPORT
    from conjunct.tasks.english import read_ud_english

    treebank = shared_data / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    args = ["analyze", "train", "--lang", "en", str(treebank), "--max-sentences", "60", "-k", "2", "-i", "1", "-q"]
    assert main([*args, "-o", str(tmp_path / "small.cjt")]) == 0
    assert main([*args, "--keep-models", "-o", str(tmp_path / "full.cjt")]) == 0
    header = read_header(tmp_path / "small.cjt")
    assert header["format_version"] == 2 and any("decode" in s for s in header["sections"])
    assert not any(".model." in s["name"] for s in header["sections"])
    assert any(".model." in s["name"] for s in read_header(tmp_path / "full.cjt")["sections"])
    small, full = conjunct.load(tmp_path / "small.cjt"), conjunct.load(tmp_path / "full.cjt", mmap=True)
    for stage in (small.parser, small.tokenizer):
        for clf in stage.classifiers_.values():
            assert clf.method == "split"
            support = np.bincount(clf.arrays["sv_indices"], minlength=clf.meta["n_features"])
            assert clf.meta["n_common"] == (support >= SHIPPED_MIN_SUPPORT).sum() < clf.meta["n_features"]
    sentences = [s.forms for s in read_ud_english(treebank)[60:120]]
    want = small.analyze(sentences)
    assert full.analyze(sentences) == want
    full.parser.compile("pkb")  # the brute-force reference decides the same
    assert full.analyze(sentences) == want
