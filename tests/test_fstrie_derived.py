"""An fstrie classifier's file over a degree-2 split base leaves out what
loading recomputes bit for bit: the base's store weights and rare postings
(from its support vectors) and, where it is cheap, the trie's prefix margins
(from the base and the trie). A crafted file is refused before the core reads
it, and files that hold every section (written before) load as they are."""

import numpy as np
import pytest

import conjunct
from conjunct import ModelFormatError, _core
from conjunct.io.model_io import read_header
from conjunct.models import _derived
from conjunct.models._derived import derivable
from helpers import assert_loads_the_same, random_binary_csr, rewrite_container


def _model(K, seed=0):
    rng = np.random.default_rng(seed)
    S = random_binary_csr(rng, 300, 60, 0.15)
    return conjunct.KernelModel(S, rng.normal(size=(300, K)), rng.normal(size=K), degree=2), S


def _fstrie(K, base, seed=0, **params):
    model, S = _model(K, seed)
    extra = {"common_features": 60} if base == "split" else {}  # every feature common: the base is pke's store
    return model.compile("fstrie", events=S, base=base, **extra, **params), S


@pytest.fixture
def margins_left_out(monkeypatch):
    monkeypatch.setattr(_derived, "LEAVE_OUT_PREFIX_MARGINS", True)


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("base", ["pke", "split"])
def test_recomputed_weights_equal_the_compiled_ones_bit_for_bit(K, base, tmp_path, margins_left_out):
    clf, S = _fstrie(K, base)
    for n_threads in (1, 2, 5):
        out = _core.fstrie_derived(meta=clf.meta, arrays=clf.arrays, n_threads=n_threads)
        assert np.asarray(out["trie.weight"]).tobytes() == np.asarray(clf.arrays["trie.weight"]).tobytes()
    left_out = derivable(clf.method, clf.meta, clf.arrays)
    assert "trie.weight" in left_out
    if base == "split":
        assert "base.store.dense" in left_out and ({"base.store.weight", "base.store.row_value"} & set(left_out))
        assert {"base.store.child_begin", "base.store.label", "base.store.root_map"} <= set(left_out)
    clf.save(tmp_path / "c.cjt")
    names = {s["name"][2:] for s in read_header(tmp_path / "c.cjt")["sections"]}
    assert not names & set(left_out)
    again = assert_loads_the_same(clf, tmp_path / "c.cjt", S)
    again.save(tmp_path / "d.cjt")  # saved again: the same sections left out
    assert {s["name"][2:] for s in read_header(tmp_path / "d.cjt")["sections"]} == names


def test_a_file_that_holds_every_section_loads_as_it_is(tmp_path):
    # Files written before these sections were left out hold them all, with no 'derived' field.
    clf, S = _fstrie(1, "split")
    clf._derived = []
    clf.save(tmp_path / "old.cjt")
    header = read_header(tmp_path / "old.cjt")
    assert "derived" not in header["meta"] and any(s["name"] == "m.trie.weight" for s in header["sections"])
    again = conjunct.load(tmp_path / "old.cjt")
    assert np.array_equal(again.decision_function(S), clf.decision_function(S))


def test_by_default_only_the_bases_sections_are_left_out(tmp_path):
    clf, S = _fstrie(1, "split")
    assert "trie.weight" not in derivable(clf.method, clf.meta, clf.arrays)
    clf.save(tmp_path / "c.cjt")
    header = read_header(tmp_path / "c.cjt")
    assert "base.store.weight" in header["meta"]["derived"] and "trie.weight" not in header["meta"]["derived"]
    assert np.array_equal(conjunct.load(tmp_path / "c.cjt").decision_function(S), clf.decision_function(S))
    pke, _ = _fstrie(1, "pke")
    assert derivable(pke.method, pke.meta, pke.arrays) == []


def _crafted(tmp_path, edit):
    clf, _ = _fstrie(1, "split")
    clf.save(tmp_path / "c.cjt")
    return rewrite_container(tmp_path / "c.cjt", tmp_path / "x.cjt", edit)


def _bad_label(meta, arrays):
    arrays["m.trie.label"][-1] = 10 ** 6


@pytest.mark.parametrize("edit, message", [
    (lambda m, a: m.update(derived=["trie.weight", "trie.label"]), "expected a list of distinct names"),
    (lambda m, a: m.update(derived=["trie.weight", "trie.weight"]), "expected a list of distinct names"),
    (lambda m, a: m["params"].update(base="pke"), "expected a list of distinct names"),
    (lambda m, a: a.update({"m.trie.weight": np.zeros(3)}), "names sections the file also holds"),
    (_bad_label, "section 'm.trie.label'"),  # the Python checks, before the core reads the trie
    (lambda m, a: a.update({"m.base.sv_indices": a["m.base.sv_indices"][::-1].copy()}), "support vectors"),
    (lambda m, a: a.update({"m.base.store.label": np.zeros(3, np.int32)}), "names sections the file also holds"),
])
def test_crafted_files_are_refused(tmp_path, edit, message, margins_left_out):
    with pytest.raises(ModelFormatError, match=message):
        conjunct.load(_crafted(tmp_path, edit))


def test_the_weights_are_recomputed_after_the_base_and_checked_before_the_core(tmp_path, monkeypatch, margins_left_out):
    seen = []
    real = _derived.check_fstrie_inputs
    monkeypatch.setattr(_derived, "check_fstrie_inputs",
                        lambda meta, arrays, name: (seen.append("m.base.store.weight" in arrays), real(meta, arrays, name)))
    clf, S = _fstrie(1, "split")
    clf.save(tmp_path / "c.cjt")
    assert np.array_equal(conjunct.load(tmp_path / "c.cjt").decision_function(S), clf.decision_function(S))
    assert seen == [True]
