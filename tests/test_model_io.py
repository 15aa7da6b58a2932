import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import conjunct
from conjunct.io import model_io
from helpers import random_binary_csr


@pytest.fixture
def model():
    rng = np.random.default_rng(3)
    rows = [[f"f{j}" for j in range(30) if rng.random() < 0.2] for _ in range(80)]
    index = conjunct.FeatureIndex.from_data(rows)
    S = index.transform(rows)
    return conjunct.KernelModel(S, rng.normal(size=(80, 3)), rng.normal(size=3), degree=3, gamma=0.5, coef0=2.0,
                                classes=["A", "B", "C"], features=index, source="test")


@pytest.fixture
def X(model):
    rng = np.random.default_rng(4)
    return random_binary_csr(rng, 40, len(model.features) + 5, 0.2)


def assert_same_model(a, b):
    assert (a.support_vectors != b.support_vectors).nnz == 0
    np.testing.assert_array_equal(a.dual_coef, b.dual_coef)
    np.testing.assert_array_equal(a.intercept, b.intercept)
    assert (a.degree, a.gamma, a.coef0) == (b.degree, b.gamma, b.coef0)
    assert a.rule == b.rule and a.features == b.features and a.source == b.source


@pytest.mark.parametrize("mmap", [False, True])
def test_model_roundtrip(tmp_path, model, X, mmap):
    path = tmp_path / "m.cjt"
    model.save(path)
    again = conjunct.load(path, mmap=mmap)
    assert_same_model(model, again)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("method", ["pkb", "pki"])
@pytest.mark.parametrize("mmap", [False, True])
def test_classifier_roundtrip(tmp_path, model, X, method, mmap):
    clf = model.compile(method)
    path = tmp_path / f"{method}.cjt"
    clf.save(path)
    again = conjunct.load(path, mmap=mmap)
    assert isinstance(again, conjunct.Classifier) and again.method == method
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    assert again.predict_one(["f1", "f2"]) == clf.predict_one(["f1", "f2"])
    if mmap:
        assert not again.arrays["bias"].flags.writeable


def test_pickle(model, X):
    again = pickle.loads(pickle.dumps(model))
    assert_same_model(model, again)
    clf = pickle.loads(pickle.dumps(model.compile("pki")))
    np.testing.assert_array_equal(clf.decision_function(X), model.decision_function(X))


def test_foreign_empty_truncated_corrupt(tmp_path, model):
    path = tmp_path / "m.cjt"
    model.save(path)
    data = path.read_bytes()

    foreign = tmp_path / "foreign"
    foreign.write_bytes(b"svm_type c_svc\nkernel_type polynomial\n" + b"x" * 100)
    with pytest.raises(conjunct.ModelFormatError, match="bad magic"):
        conjunct.load(foreign)

    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    for mmap in (False, True):
        with pytest.raises(conjunct.ModelFormatError, match="not a conjunct model"):
            conjunct.load(empty, mmap=mmap)

    for cut in (10, 64, 200, len(data) - 1):
        truncated = tmp_path / f"trunc{cut}"
        truncated.write_bytes(data[:cut])
        with pytest.raises(conjunct.ModelFormatError, match="truncated|not a conjunct"):
            conjunct.load(truncated)

    for pos in (70, len(data) // 2, len(data) - 3):
        corrupt = bytearray(data)
        corrupt[pos] ^= 0x55
        bad = tmp_path / f"corrupt{pos}"
        bad.write_bytes(bytes(corrupt))
        with pytest.raises(conjunct.ModelFormatError, match="corrupt"):
            conjunct.load(bad)

    newer = bytearray(data)
    newer[8] = 99
    (tmp_path / "newer").write_bytes(bytes(newer))
    with pytest.raises(conjunct.ModelFormatError, match="version 99"):
        conjunct.load(tmp_path / "newer")

    with pytest.raises(conjunct.ModelFormatError, match="no such file"):
        conjunct.load(tmp_path / "missing")
    with pytest.raises(conjunct.ModelFormatError, match="is a directory"):
        conjunct.load(tmp_path)
    with pytest.raises(conjunct.ModelFormatError, match="is a directory"):
        conjunct.load(tmp_path, mmap=True)


def test_unknown_kind(tmp_path):
    path = tmp_path / "x.cjt"
    model_io.write_container(path, "hologram", {}, {"a": np.zeros(3)})
    with pytest.raises(conjunct.ModelFormatError, match="unknown model kind"):
        conjunct.load(path)


def test_atomic_save_keeps_old_file(tmp_path, model, monkeypatch):
    path = tmp_path / "m.cjt"
    model.save(path)
    before = path.read_bytes()

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(model_io, "_write", explode)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.cjt"]  # no temporary file left


def test_alignment_and_little_endian(tmp_path, model):
    path = tmp_path / "m.cjt"
    model.save(path)
    header = model_io.read_header(path)
    assert header["kind"] == "kernel_model" and header["format_version"] == 1
    for s in header["sections"]:
        assert s["offset"] % 64 == 0
        assert s["dtype"][0] in "<|"
    assert header["file_size"] == os.path.getsize(path)


@pytest.mark.parametrize("where", ["header", "sections", "last byte"])
def test_damage_is_reported_as_a_digest_error_while_hashing_on_a_thread(tmp_path, where):
    # load hashes on another thread while it checks and builds: whatever the damage breaks first, the
    # error is the digest's, and an intact file loads as before.
    import conjunct
    from conjunct.io import model_io

    rng = np.random.default_rng(0)
    S = sp.random(80, 30, density=0.2, format="csr", random_state=1)
    S.data[:] = 1
    model = conjunct.KernelModel(S, rng.normal(size=(80, 2)), rng.normal(size=2), degree=2)
    path = tmp_path / "m.cjt"
    model.compile("split", common_features=10).save(path)
    data = bytearray(path.read_bytes())
    header = model_io.read_header(path)
    at = {"header": model_io._PREAMBLE.size + 5, "sections": header["sections"][0]["offset"] + 3,
          "last byte": len(data) - 1}[where]
    data[at] ^= 0xFF
    bad = tmp_path / "bad.cjt"
    bad.write_bytes(bytes(data))
    for mmap in (False, True):
        with pytest.raises(conjunct.ModelFormatError, match="checking the digest"):
            conjunct.load(bad, mmap=mmap)
    expected = model.compile("split", common_features=10).decision_function(S)
    assert np.array_equal(conjunct.load(path).decision_function(S), expected)
