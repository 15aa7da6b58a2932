"""A degree-2 kernel-splitting classifier's file leaves out its store weights
and rare postings: loading recomputes them from the support vectors, bit for
bit (dense and sparse alpha, dense and sparse store rows, one and many
outputs), a crafted file is refused, and the English text pipeline's
analysis is the stages' own, with or without those sections in its file."""

import numpy as np
import pytest

import conjunct
from conjunct import _core
from conjunct.io.model_io import read_header
from conjunct.models._derived import DERIVABLE, TRIE, derivable
from conjunct.models.classifiers import Classifier
from helpers import assert_loads_the_same, random_binary_csr, rewrite_container


def _model(K, seed=0, sparse_alpha=False):
    rng = np.random.default_rng(seed)
    S = random_binary_csr(rng, 300, 60, 0.15)
    coef = rng.normal(size=(300, K))
    if sparse_alpha:  # most support vectors move a few outputs (a multi-class PA model's rows)
        coef *= rng.random(size=(300, K)) < 0.1
    return conjunct.KernelModel(S, coef, rng.normal(size=K), degree=2), S


CASES = [(1, False, {}), (4, False, {"dense_features": 8}), (30, True, {"dense_features": 8}), (30, True, {})]


@pytest.mark.parametrize("K, sparse_alpha, params", CASES)
def test_recomputed_sections_equal_the_compiled_ones_bit_for_bit(K, sparse_alpha, params, tmp_path):
    model, S = _model(K, sparse_alpha=sparse_alpha)
    clf = model.compile("split", common_features=40, **params)
    out = _core.split_derived(meta=clf.meta, arrays={k: v for k, v in clf.arrays.items() if k not in TRIE})
    assert set(TRIE) <= set(out)  # the trie too, from the support vectors alone
    for name in out:
        assert np.asarray(out[name]).tobytes() == np.asarray(clf.arrays[name]).tobytes(), name
    assert sorted(derivable(clf.method, clf.meta, clf.arrays)) == sorted(out)
    if sparse_alpha and not params:
        assert "store.row_value" in out  # the sparse-row layout is covered
    clf.save(tmp_path / "c.cjt")
    names = {s["name"] for s in read_header(tmp_path / "c.cjt")["sections"]}
    assert not any(n[2:] in DERIVABLE + TRIE for n in names)
    again = assert_loads_the_same(clf, tmp_path / "c.cjt", S)
    again.save(tmp_path / "d.cjt")  # saved again: the same sections left out
    assert {s["name"] for s in read_header(tmp_path / "d.cjt")["sections"]} == names


@pytest.mark.parametrize("K, sparse_alpha, params", CASES)
def test_every_thread_count_gives_the_same_bytes(K, sparse_alpha, params):
    # The sums are shared among threads by feature ranges: each value's additions stay one thread's, in order.
    model, _ = _model(K, seed=1, sparse_alpha=sparse_alpha)
    clf = model.compile("split", common_features=40, **params)
    for n_threads in (1, 2, 3, 7, 100):
        out = _core.split_derived(meta=clf.meta, arrays={k: v for k, v in clf.arrays.items() if k not in TRIE},
                                  n_threads=n_threads)
        assert set(TRIE) <= set(out)
        for name in out:
            assert np.asarray(out[name]).tobytes() == np.asarray(clf.arrays[name]).tobytes(), (name, n_threads)


def _drop_last_conjunction(arrays):
    """The trie's last node (a child of the last root child) removed: the trie lacks a conjunction the
    support vectors hold, found while the last features are summed."""
    cb, label = arrays["store.child_begin"], arrays["store.label"]
    n = label.size
    arrays["store.label"] = label[:-1].copy()
    arrays["store.child_begin"] = np.where(cb == n, n - 1, cb)[:-1].astype(cb.dtype)


def test_an_error_in_any_thread_is_raised():
    model, _ = _model(4)
    clf = model.compile("split", common_features=40, dense_features=8)
    arrays = {k: np.array(v) for k, v in clf.arrays.items()}
    _drop_last_conjunction(arrays)
    for n_threads in (1, 2, 4):  # with several, the last range (another thread's) meets it
        with pytest.raises(ValueError, match="lacks a conjunction"):
            _core.split_derived(meta=clf.meta, arrays=arrays, n_threads=n_threads)


def test_other_classifiers_keep_every_section():
    model, _ = _model(3)
    deg3 = conjunct.KernelModel(model.support_vectors, model.dual_coef, model.intercept, degree=3)
    for clf in (model.compile("pke"), model.compile("pki"), deg3.compile("split", common_features=10)):
        _, meta, arrays = clf.to_container()
        assert "derived" not in meta and {f"m.{k}" for k in clf.arrays} == set(arrays)
    _, meta, arrays = model.compile("split", common_features=10).to_container()
    assert meta["derived"] and "m.rare_indices" not in arrays


def _crafted(tmp_path, mutate):
    model, _ = _model(4)
    model.compile("split", common_features=40, dense_features=8).save(tmp_path / "ok.cjt")
    return rewrite_container(tmp_path / "ok.cjt", tmp_path / "bad.cjt", mutate)


def _held_trie(meta, arrays):
    """The file holds its trie (as one whose trie is not the support vectors' would)."""
    out = _core.split_derived(meta=meta["params"], arrays={k[2:]: v for k, v in arrays.items() if k.startswith("m.")})
    arrays.update({f"m.{t}": np.array(out[t]) for t in TRIE})
    meta["derived"] = [d for d in meta["derived"] if d not in TRIE]


def _drop_trie_child(meta, arrays):
    # The trie loses a conjunction that support vectors hold: the weights cannot be recomputed.
    _held_trie(meta, arrays)
    label = arrays["m.store.label"]
    label[-1] = label[-1] + 1 if label[-1] + 1 < meta["params"]["n_common"] else label[-1] - 1


@pytest.mark.parametrize("mutate, message", [
    (lambda meta, arrays: meta.update(derived=["bias"]), "derived"),
    (lambda meta, arrays: meta.update(derived="store.dense"), "derived"),
    (lambda meta, arrays: meta.update(method="pke"), "derived"),
    (lambda meta, arrays: arrays.update({"m.store.dense": np.zeros(3)}), "also holds"),
    (_drop_trie_child, "store|trie|label"),
    (lambda meta, arrays: arrays.update({"m.sv_indices": arrays["m.sv_indices"][::-1].copy()}), "support vectors"),
    (lambda meta, arrays: arrays.pop("m.alpha"), "alpha"),
    (lambda meta, arrays: meta["params"].update(n_dense=10**6), "n_dense"),
    (lambda meta, arrays: meta.update(derived=[*meta["derived"], "store.row_value"]), "layout"),
    (lambda meta, arrays: arrays.update({"m.store.label": np.zeros(3, np.int32)}), "also holds"),
    (lambda meta, arrays: _held_trie(meta, arrays) or arrays.pop("m.store.label") is None or
     meta.update(derived=[*meta["derived"], "store.label"]), "given in part"),
])
def test_a_crafted_derived_file_is_refused(tmp_path, mutate, message):
    path = _crafted(tmp_path, mutate)
    for mmap in (False, True):
        with pytest.raises(conjunct.ModelFormatError, match=f"bad.cjt.*({message})"):
            conjunct.load(path, mmap=mmap)


def test_from_container_recomputes_too(tmp_path):
    model, S = _model(4)
    clf = model.compile("split", common_features=40)
    kind, meta, arrays = clf.to_container()
    assert meta["derived"] and not any(k[2:] in meta["derived"] for k in arrays)
    again = Classifier.from_container(meta, dict(arrays))
    assert np.array_equal(again.decision_function(S), clf.decision_function(S))


@pytest.mark.realdata
def test_english_analysis_is_the_stages_own(shared_data, tmp_path):
    from conjunct.analysis import EnglishTextPipeline
    from conjunct.analysis.result import split_joint_tag
    from conjunct.tagging import PerceptronTagger
    from conjunct.tasks.base import shipped_layout
    from conjunct.tasks.english import DepSentence, EnglishDependencyParser, read_ud_english

    base = shared_data / "ud_english_ewt"
    train, dev = read_ud_english(base / "en_ewt-ud-train.conllu")[:200], read_ud_english(base / "en_ewt-ud-dev.conllu")[:80]
    nlp = EnglishTextPipeline(PerceptronTagger(n_iter=2), EnglishDependencyParser(n_iter=1, **shipped_layout()),
                              folds=2).fit(train)
    words = [s.forms for s in dev]
    out = nlp.analyze(words)
    # The stages one by one, through their own APIs: joint tags split in Python, the parser on DepSentences.
    tags = [[split_joint_tag(t) for t in ts] for ts in nlp.tagger.predict(words)]
    upos = [[u for u, _ in ts] for ts in tags]
    xpos = [[x for _, x in ts] for ts in tags]
    parses = nlp.parser.parse([DepSentence(w, u, x) for w, u, x in zip(words, upos, xpos)])
    assert [(a.upos, a.xpos) for a in out] == list(zip(upos, xpos))
    assert [(a.heads, a.deprels) for a in out] == [(list(h), list(l)) for h, l in parses]
    assert nlp.analyze([]) == []
    nlp.save(tmp_path / "en.cjt")
    header = read_header(tmp_path / "en.cjt")
    parser_sections = [s["name"] for s in header["sections"] if s["name"].startswith("stage.parser.")]
    assert not any(n.endswith((".m.store.weight", ".m.store.row_value", ".m.store.dense")) for n in parser_sections)
    again = conjunct.load(tmp_path / "en.cjt")
    assert [a.to_conllu() for a in again.analyze(words)] == [a.to_conllu() for a in out]


def test_loading_and_deciding_import_no_scipy(tmp_path):
    # scipy.sparse is imported on first use only: a third of loading a pipeline, which never needs it.
    import subprocess
    import sys

    model, S = _model(4)
    model.compile("split", common_features=40).save(tmp_path / "c.cjt")
    rows = [np.asarray(S[i].indices, dtype=np.int32).tolist() for i in range(5)]
    code = ("import sys, numpy as np, conjunct\n"
            f"c = conjunct.load({str(tmp_path / 'c.cjt')!r})\n"
            f"print([int(c.predict_one(np.array(r, dtype=np.int32))) for r in {rows!r}])\n"
            "print('scipy.sparse' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[1] == "False"
    assert out[0] == str([int(v) for v in conjunct.load(tmp_path / "c.cjt").predict(S[:5])])


def test_the_pipelines_modules_import_no_scipy():
    # What loading any saved pipeline imports; the training-side modules they pull in (oracles,
    # training rows) must take scipy on first use too, or loading pays for it again.
    import subprocess
    import sys

    code = ("import sys, conjunct, conjunct.analysis.english, conjunct.analysis.japanese, conjunct.tasks.tokenize, "
            "conjunct.tasks.english, conjunct.tasks.segment, conjunct.tasks.bunsetsu, conjunct.tasks.chunk, "
            "conjunct.tasks.rows, conjunct.tagging\n"
            "print(sorted(m for m in sys.modules if m.startswith('scipy')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.parametrize("n_common", [0, 7, 40, 60])
def test_the_postings_check_is_the_transpose(n_common):
    from conjunct.io.validation import Where
    from conjunct.models.classifier_checks import _check_transpose

    _, S = _model(3, seed=2)
    T = S.T.tocsr()  # scipy's transpose: the postings the check must accept, and only those
    begin = int(T.indptr[n_common])
    ptr, ids = T.indptr[n_common:] - begin, T.indices[begin:]
    _check_transpose(S.indptr, S.indices, ptr, ids, n_common, 60, Where("t.cjt"))
    if ids.size:
        bad = ids.copy()
        bad[-1] = (bad[-1] + 1) % 300
        with pytest.raises(conjunct.ModelFormatError, match="postings"):
            _check_transpose(S.indptr, S.indices, ptr, bad, n_common, 60, Where("t.cjt"))
        short = ptr.copy()
        short[1:] -= 1
        short[0] = 0
        with pytest.raises(conjunct.ModelFormatError, match="postings"):
            _check_transpose(S.indptr, S.indices, np.maximum(short, 0), ids, n_common, 60, Where("t.cjt"))


def test_a_huge_n_features_is_refused_before_the_trie_is_rebuilt():
    # The rebuilt trie's root map has n_features entries: more features than columns is refused first.
    model, _ = _model(1)
    clf = model.compile("split", common_features=40)
    arrays = {k: v for k, v in clf.arrays.items() if k not in TRIE}
    with pytest.raises(ValueError, match="column map"):
        _core.split_derived(meta={**clf.meta, "n_features": 2**31 - 1}, arrays=arrays)
