"""Opening a compiled classifier checks every array it is given (a model file
is data from strangers), and compiling reuses what it can."""

from pathlib import Path

import numpy as np
import pytest

import conjunct
from conjunct import _core
from conjunct.budget import MemoryBudgetError, set_memory_budget
from conjunct.models.classifiers import Classifier
from helpers import random_binary_csr


def _model(K=1, degree=3, seed=0):
    rng = np.random.default_rng(seed)
    S = random_binary_csr(rng, 60, 30, 0.2)
    return conjunct.KernelModel(S, rng.normal(size=(60, K)), rng.normal(size=K), degree=degree), rng


def _reopen(clf, mutate, name="bad.cjt"):
    """from_container on clf's data after mutate(meta, arrays) changed copies of them."""
    _, meta, arrays = clf.to_container()
    meta = {**meta, "params": dict(meta["params"])}
    arrays = {k: np.array(v) for k, v in arrays.items()}
    mutate(meta["params"], arrays)
    return Classifier.from_container(meta, arrays, name)


def _set(name, index, value):
    def mutate(meta, arrays):
        arrays[name][index] = value
    return mutate


def _replace(name, value):
    def mutate(meta, arrays):
        arrays[name] = value(arrays[name])
    return mutate


def _meta(key, value):
    def mutate(meta, arrays):
        meta[key] = value
    return mutate


def _nested(key, sub, value):
    def mutate(meta, arrays):
        meta[key] = {**meta[key], sub: value}
    return mutate


CASES = [
    # method, params, mutation, message
    ("pkb", {}, _set("m.sv_indptr", 3, 0), "row pointers decrease"),
    ("pkb", {}, _set("m.sv_indices", 0, 10**6), "outside"),
    ("pkb", {}, _replace("m.sv_indices", lambda a: a[:-1]), "row pointers end"),
    ("pkb", {}, _set("m.alpha", (0, 0), np.nan), "not finite"),
    ("pkb", {}, _replace("m.col_map", lambda a: a.astype(np.int64)), "dtype int64, expected int32"),
    ("pkb", {}, _meta("degree", 10**9), "degree"),
    ("pki", {}, _set("m.inv_indices", 0, 10**6), "outside"),
    ("pki", {}, _set("m.col_map", 0, 10**6), "col_map"),
    ("pki", {}, _meta("n_sv", 5), "outside"),
    ("pke", {"dense_features": 4}, _set("m.store.label", -1, 10**6), "label"),
    ("pke", {"dense_features": 4}, _set("m.store.child_begin", 1, 0), "child_begin"),
    ("pke", {"dense_features": 4}, _replace("m.store.root_map", lambda a: np.full_like(a, -1)), "root_map"),
    ("pke", {"dense_features": 4}, _replace("m.store.dense", lambda a: a[:-1]), "dense has"),
    ("pke", {"dense_features": 4}, _set("m.store.weight", 1, np.inf), "not finite"),
    ("pke", {"dense_features": 4}, _replace("m.bias", lambda a: np.append(a, 0.0)), "K values per trie node"),
    ("pke", {}, _meta("n_dense", 10**6), "n_dense"),
    ("pke", {"dense_features": 4}, _meta("degree", 1), "deeper"),
    ("pke", {}, _replace("m.store.weight", lambda a: None), "not a contiguous numeric array"),
    ("split", {"common_features": 5}, _replace("m.rare_indices", lambda a: a[::-1].copy()), "rare postings"),
    ("split", {"common_features": 5}, _meta("n_common", 10**6), "n_common"),
    ("fstrie", {"max_nodes": 30}, _set("m.trie.label", -1, 10**6), "trie"),
    ("fstrie", {"max_nodes": 30}, _replace("m.trie.weight", lambda a: a[:-1]), "trie.weight"),
    ("fstrie", {"max_nodes": 30}, _set("m.col_map", 0, 0), "col_map differs"),
    ("fstrie", {"max_nodes": 30}, _nested("base_params", "degree", 0), "degree"),
    ("fstrie", {"max_nodes": 30}, _meta("base", "pki"), "base must be"),
]


@pytest.mark.parametrize("method, params, mutate, message", CASES)
def test_open_rejects_malformed_arrays(method, params, mutate, message):
    model, _ = _model()
    clf = model.compile(method, **params)
    with pytest.raises(conjunct.ModelFormatError, match=f"bad.cjt.*{message}"):
        _reopen(clf, mutate)


def test_open_rejects_missing_array_and_sparse_alpha_output():
    model, _ = _model(K=6)
    model = conjunct.KernelModel(model.support_vectors, np.where(np.arange(6) % 3 == 0, model.dual_coef, 0.0),
                                 model.intercept, degree=3)
    clf = model.compile("pki")
    assert clf.arrays["alpha_out"].size > 0  # stored sparse
    with pytest.raises(conjunct.ModelFormatError, match="names output"):
        _reopen(clf, _set("m.alpha_out", 0, 6))
    with pytest.raises(conjunct.ModelFormatError, match="missing array 'inv_indptr'"):
        _reopen(clf, lambda meta, arrays: arrays.pop("m.inv_indptr"))


def test_malformed_file_names_the_file(tmp_path):
    model, _ = _model()
    clf = model.compile("pke", dense_features=4)
    kind, meta, arrays = clf.to_container()
    arrays = dict(arrays, **{"m.store.label": np.full_like(arrays["m.store.label"], 10**6)})
    conjunct.io.model_io.write_container(tmp_path / "crafted.cjt", kind, meta, arrays)
    for mmap in (False, True):
        with pytest.raises(conjunct.ModelFormatError, match="crafted.cjt.*label"):
            conjunct.load(tmp_path / "crafted.cjt", mmap=mmap)


def test_decision_rule_is_set_once():
    model, rng = _model(K=3)
    clf = model.compile("pke")
    assert clf.compiled.rule == "argmax" and clf.compiled.n_classes == 3
    X = random_binary_csr(rng, 20, 30, 0.2)
    np.testing.assert_array_equal(clf.predict(X), clf.rule.predict(clf.decision_function(X)))
    with pytest.raises(ValueError, match="decision rule"):
        _core.open_classifier(method="pke", meta=clf.meta, arrays=clf.arrays, rule="sign", n_classes=2)


@pytest.mark.parametrize("K, rule, n_classes", [(1, "sign", 2), (3, "argmax", 3)])
def test_the_compiled_handle_carries_its_rule_and_classes(K, rule, n_classes):
    """Classifier.compiled is what the task loops take: it brings its own rule and classes."""
    model, rng = _model(K=K)
    clf = model.compile("pke")
    handle = clf.compiled
    assert isinstance(handle, _core.CompiledClassifier) and handle is clf.compiled
    assert (handle.method, handle.rule, handle.n_classes, handle.n_outputs) == ("pke", rule, n_classes, K)
    assert handle.n_classes == len(clf.classes)
    X = random_binary_csr(rng, 30, 30, 0.2)
    np.testing.assert_array_equal(clf.classes[handle.predict_batch(indptr=X.indptr.astype(np.int64),
                                                                   indices=X.indices)], clf.predict(X))
    with pytest.raises(AttributeError):
        clf.compiled = handle
    with pytest.raises(AttributeError):
        handle.rule = "ovo"


def test_a_limit_reached_in_the_core_is_an_error_of_its_own_type():
    """The budget errors are told from bad input by type, not by their message."""
    from conjunct.training.expand import expand

    model, _ = _model(degree=3)
    assert issubclass(_core.LimitExceededError, ValueError)
    arrays = {"sv_indptr": model.support_vectors.indptr.astype(np.int64),
              "sv_indices": model.support_vectors.indices.astype(np.int32)}
    with pytest.raises(_core.LimitExceededError, match="max_bytes"):
        _core.expand_kernel_model(gamma=model.gamma, coef0=model.coef0, degree=3, **arrays,
                                  alpha=np.ascontiguousarray(model.dual_coef), max_bytes=100)
    # Bad input stays a plain ValueError.
    with pytest.raises(ValueError) as bad:
        _core.expand_kernel_model(gamma=model.gamma, coef0=model.coef0, degree=3, **arrays,
                                  alpha=np.zeros(7), max_bytes=100)
    assert not isinstance(bad.value, _core.LimitExceededError)
    # compile_model turns it into MemoryBudgetError under the budget, ConjunctError under an explicit limit.
    with pytest.raises(conjunct.ConjunctError, match="exceeds max_conjunctions") as explicit:
        model.compile("pke", dense_features=0, max_conjunctions=10)
    assert not isinstance(explicit.value, MemoryBudgetError)
    set_memory_budget(2000)
    try:
        with pytest.raises(MemoryBudgetError, match="over the memory budget"):
            model.compile("pke", dense_features=0)
        with pytest.raises(MemoryBudgetError, match="memory budget"):
            expand(model)
    finally:
        set_memory_budget(None)


def test_fstrie_reuses_a_compiled_base():
    model, rng = _model()
    X = random_binary_csr(rng, 40, 30, 0.2)
    for method, params in (("pke", {}), ("split", {"common_features": 5})):
        base = model.compile(method, **params)
        clf = model.compile("fstrie", events=X, base=base, max_nodes=50)
        # The trie views the base's very arrays: nothing was expanded again.
        for k, v in base.arrays.items():
            assert clf.arrays[f"base.{k}"] is v
        assert clf.meta["base"] == method and clf.meta["base_params"] == base.meta
        again = model.compile("fstrie", events=X, base=method, max_nodes=50, **params)
        np.testing.assert_allclose(clf.decision_function(X), again.decision_function(X), rtol=1e-12)
        assert clf.meta["nodes"] == again.meta["nodes"]
    with pytest.raises(conjunct.ConjunctError, match="pke or split"):
        model.compile("fstrie", events=X, base=model.compile("pki"))
    with pytest.raises(conjunct.ConjunctError, match="cannot be changed"):
        model.compile("fstrie", events=X, base=model.compile("pke"), dense_features=3)


def test_pipeline_fstrie_expands_each_kernel_once(monkeypatch):
    from conjunct.models import classifiers
    from conjunct.tasks.segment import WordSegmenter

    calls = []
    compile_classifier = classifiers._core.compile_classifier

    class Counting:
        def __getattr__(self, name):
            return getattr(_core, name)

        @staticmethod
        def compile_classifier(**kw):
            calls.append((kw["method"], "base.col_map" in kw["arrays"]))
            return compile_classifier(**kw)

    monkeypatch.setattr(classifiers, "_core", Counting())
    words = [["日本", "語", "の", "文"], ["これ", "は", "テスト", "です", "。"], ["文", "を", "分け", "る"]] * 5
    seg = WordSegmenter(degree=2, n_iter=2).fit(words)
    assert calls == [("pke", False), ("fstrie", True)]
    assert seg.classifier_.method == "fstrie"


V1 = Path(__file__).parent / "data" / "classifiers_v1"
V1_FILES = ["pkb", "pki", "pke", "pke_multi", "split", "fstrie", "fstrie_split", "linear_pke", "linear_fstrie"]


@pytest.mark.parametrize("name", V1_FILES)
@pytest.mark.parametrize("mmap", [False, True])
def test_files_written_before_load_and_agree(name, mmap):
    # Written by conjunct at d1d359e (tests/data/classifiers_v1/make.py), when
    # Python laid out the arrays: the sections are the same.
    expected = np.load(V1 / "expected.npz")
    X = expected["X"][:, :6] if name.startswith("linear") else expected["X"]
    clf = conjunct.load(V1 / f"{name}.cjt", mmap=mmap)
    np.testing.assert_allclose(clf.decision_function(X), expected[name], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), expected[f"{name}_labels"])
