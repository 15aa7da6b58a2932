"""PKE, kernel splitting and the feature sequence trie equal the brute-force reference."""

import itertools
import pickle
from math import comb

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st

import conjunct
from conjunct.models.classifiers import approximation_report
from conjunct.models.linear import brute_force_margins
from helpers import assert_margins_close, kernel_models, linear_models, linear_scale, random_binary_csr, reference_margins


def check(clf, X, expected, scale):
    got = clf.decision_function(X)
    assert_margins_close(got, expected, scale)
    for i in range(X.shape[0]):
        assert_margins_close(clf.decision_function_one(X[i].indices), expected[i], scale[i])
    np.testing.assert_array_equal(clf.predict(X), clf.rule.predict(got))


@given(kernel_models(), st.sampled_from([0, 3, None]))
def test_pke_exact(case, dense_features):
    model, X = case
    expected, scale = reference_margins(model, X)
    check(model.compile("pke", dense_features=dense_features), X, expected, scale)


@given(st.one_of(kernel_models(), linear_models()), st.integers(0, 3), st.sampled_from([1.0, 1.1, 1.5, 1e9]))
def test_grown_dense_table_exact(case, n_dense, growth):
    # Moving trie subtrees into a larger dense table keeps every margin.
    model, X = case
    base = model.compile("pke", dense_features=n_dense)
    clf = model.compile("pke", dense_features=n_dense, dense_growth=growth)
    meta = base.meta
    grown = clf.meta["n_dense"]
    if meta["degree"] < 3:
        assert grown == meta["n_dense"]
    elif growth == 1e9:
        # Unbounded: every feature becomes dense and the trie keeps only its root.
        assert grown == meta["n_features"] and clf.arrays["store.label"].size == 1
    assert clf.meta["n_conjunctions"] == meta["n_conjunctions"]  # moved, none lost or added
    np.testing.assert_allclose(clf.decision_function(X), base.decision_function(X), rtol=1e-9, atol=1e-9)


def test_default_dense_table_grows_within_budget():
    # A d = 3 model too large for the 4 MiB dense table of its frequent features:
    # the default grows the table, within DENSE_GROWTH of the memory.
    rng = np.random.default_rng(0)
    n_features = 400
    p = 1.0 / np.arange(1, n_features + 1) ** 0.6  # frequent to rare
    rows = [np.flatnonzero(rng.random(n_features) < p * 0.3) for _ in range(300)]
    S = sp.csr_matrix((np.ones(sum(map(len, rows))), np.concatenate(rows), np.cumsum([0] + list(map(len, rows)))),
                      shape=(300, n_features))
    model = conjunct.KernelModel(S, rng.normal(size=(300, 1)), np.zeros(1), degree=3)
    fixed = model.compile("pke", dense_bytes=conjunct.models.classifiers.DEFAULT_DENSE_BYTES)
    grown = model.compile("pke")
    assert grown.meta["n_dense"] > fixed.meta["n_dense"]
    assert grown.nbytes <= 1.25 * fixed.nbytes + 64
    X = random_binary_csr(rng, 50, n_features, 0.1)
    expected = fixed.decision_function(X)
    np.testing.assert_allclose(grown.decision_function(X), expected, rtol=1e-9, atol=1e-9)
    # The classifiers built on the store grow it too, and stay exact.
    for clf in (model.compile("split", common_features=300), model.compile("fstrie", events=X[:25]),
                model.compile("fstrie", events=X[:25], base="split", common_features=300)):
        np.testing.assert_allclose(clf.decision_function(X), expected, rtol=1e-9, atol=1e-9)
    assert model.compile("pke", dense_features=5).meta["n_dense"] == 5  # an explicit size is kept
    # Multi-output stores keep the 4 MiB table (growing measured no faster there).
    wide = conjunct.KernelModel(S, rng.normal(size=(300, 3)), np.zeros(3), degree=3)
    assert wide.compile("pke").meta["n_dense"] == wide.compile("pke", dense_bytes=4 << 20).meta["n_dense"]


@given(kernel_models(), st.integers(0, 40), st.sampled_from([0, 2, None]))
def test_split_exact_at_every_point(case, n_common, dense_features):
    model, X = case
    expected, scale = reference_margins(model, X)
    check(model.compile("split", common_features=n_common, dense_features=dense_features), X, expected, scale)


@given(kernel_models(), st.sampled_from([0, 1, 5, 40, None]), st.sampled_from(["pke", "split"]), st.booleans())
def test_fstrie_exact(case, max_nodes, base, own_events):
    model, X = case
    expected, scale = reference_margins(model, X)
    params = {"common_features": 4} if base == "split" else {}
    events = X if own_events else None  # None: the support vectors
    clf = model.compile("fstrie", events=events, max_nodes=max_nodes, base=base, **params)
    if max_nodes is not None:
        assert clf.meta["nodes"] <= max_nodes
    check(clf, X, expected, scale)


@given(linear_models(), st.sampled_from([0, 4, None]), st.sampled_from([0, 3, None]))
def test_linear_model_pke_and_fstrie(case, dense_features, max_nodes):
    model, X = case
    expected = brute_force_margins(model, X)
    scale = linear_scale(model, X)
    check(model.compile("pke", dense_features=dense_features), X, expected, scale)
    check(model.compile("fstrie", events=X, max_nodes=max_nodes, dense_features=dense_features), X, expected, scale)


# -- the thresholded expansion (HKE) against its definition -----------------------------------
def thresholded_reference(model, X, sigma, min_support):
    """w_o(t) = c(|t|) * (P_o(t) [c P_o >= s+_o] + N_o(t) [c N_o <= s-_o]) for t with support >= min_support."""
    c = model.kernel.subset_weights()
    A = model.dual_coef
    K = A.shape[1]
    n_pos, n_neg = (A > 0).sum(0), (A < 0).sum(0)
    nz = np.maximum(n_pos + n_neg, 1)
    th_pos, th_neg = sigma * n_pos / nz, -sigma * n_neg / nz
    table = {}
    S = model.support_vectors
    for i in range(S.shape[0]):
        s = S.indices[S.indptr[i]:S.indptr[i + 1]].tolist()
        for r in range(1, model.degree + 1):
            for t in itertools.combinations(sorted(s), r):
                entry = table.setdefault(t, [np.zeros(K), np.zeros(K), 0])
                entry[0] += np.where(A[i] > 0, A[i], 0)
                entry[1] += np.where(A[i] < 0, A[i], 0)
                entry[2] += 1
    out = np.tile(model.intercept + c[0] * A.sum(0), (X.shape[0], 1))
    for row in range(X.shape[0]):
        x = sorted(X.indices[X.indptr[row]:X.indptr[row + 1]].tolist())
        for r in range(1, model.degree + 1):
            for t in itertools.combinations(x, r):
                entry = table.get(t)
                if entry is None or entry[2] < min_support:
                    continue
                P, N = entry[0] * c[r], entry[1] * c[r]
                out[row] += np.where((entry[0] > 0) & (P >= th_pos), P, 0) + np.where((entry[1] < 0) & (N <= th_neg), N, 0)
    return out


@given(kernel_models(max_sv=15, max_features=12), st.sampled_from([0.0, 0.05, 0.5, 2.0, 50.0]), st.integers(1, 3))
def test_hke_matches_definition(case, sigma, min_support):
    model, X = case
    X = X[:, : model.support_vectors.shape[1]]
    expected = thresholded_reference(model, X, sigma, min_support)
    _, scale = reference_margins(model, X)
    clf = model.compile("pke", sigma=sigma, min_support=min_support)
    assert_margins_close(clf.decision_function(X), expected, scale)
    # The fstrie is exact with respect to its (approximate) base.
    trie = model.compile("fstrie", events=X, sigma=sigma, min_support=min_support)
    assert_margins_close(trie.decision_function(X), expected, scale)


def test_hke_shrinks_and_reports():
    rng = np.random.default_rng(1)
    S = random_binary_csr(rng, 200, 40, 0.2)
    model = conjunct.KernelModel(S, rng.normal(size=200), 0.1, degree=3)
    X = random_binary_csr(rng, 300, 40, 0.2)
    exact = model.compile("pke", dense_features=0)
    approx = model.compile("pke", sigma=1.0, dense_features=0)
    assert approx.meta["n_conjunctions"] < exact.meta["n_conjunctions"]
    assert approx.nbytes < exact.nbytes
    report = approximation_report(approx, model.compile("pki"), X)
    assert report["examples"] == 300 and report["max_margin_error"] > 0
    assert approximation_report(exact, model.compile("pki"), X)["changed_decisions"] == 0


# -- Algorithm 1 against a direct simulation ------------------------------------------------------
def trie_prefixes(clf):
    """Every stored prefix of a compiled fstrie, as tuples of internal ids."""
    begin, label = clf.arrays["trie.child_begin"], clf.arrays["trie.label"]
    paths = {0: ()}
    for n in range(len(label)):
        for ch in range(begin[n], begin[n + 1]):
            paths[ch] = paths[n] + (int(label[ch]),)
    return set(p for n, p in paths.items() if n != 0)


def algorithm1(events, degree, max_nodes):
    counts = {}
    for e in events:
        for L in range(1, len(e) + 1):
            counts[e[:L]] = counts.get(e[:L], 0) + 1
    alive = set(counts)
    delta = lambda L: sum(comb(L - 1, k - 1) for k in range(2, degree + 1))
    while len(alive) > max_nodes:
        leaves = [p for p in alive if not any(q[:-1] == p for q in alive)]
        # lowest utility first; ties: numerically (lexicographically) largest prefix first
        victim = min(leaves, key=lambda p: counts[p] * delta(len(p)))
        tied = [p for p in leaves if counts[p] * delta(len(p)) == counts[victim] * delta(len(victim))]
        alive.remove(max(tied))
    return alive


@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(0, 30))
def test_algorithm1_pruning(seed, degree, max_nodes):
    rng = np.random.default_rng(seed)
    S = random_binary_csr(rng, 30, 8, 0.4)
    model = conjunct.KernelModel(S, rng.normal(size=30), degree=degree)
    X = random_binary_csr(rng, 25, 8, 0.35)
    clf = model.compile("fstrie", events=X, max_nodes=max_nodes)
    col_map = clf.arrays["col_map"]
    events = []
    for i in range(X.shape[0]):
        ids = [int(col_map[c]) for c in X.indices[X.indptr[i]:X.indptr[i + 1]] if c < len(col_map) and col_map[c] >= 0]
        events.append(tuple(sorted(ids)))
    assert trie_prefixes(clf) == algorithm1(events, degree, max_nodes)


# -- persistence, parameters, errors ---------------------------------------------------------------
@pytest.mark.parametrize("method, params", [("pke", {}), ("pke", {"sigma": 0.3}), ("split", {"common_features": 6}),
                                            ("fstrie", {"max_nodes": 20}), ("fstrie", {"base": "split", "common_features": 3})])
def test_persistence(tmp_path, method, params):
    rng = np.random.default_rng(2)
    S = random_binary_csr(rng, 50, 20, 0.25)
    model = conjunct.KernelModel(S, rng.normal(size=(50, 3)), rng.normal(size=3), degree=3)
    X = random_binary_csr(rng, 30, 22, 0.25)
    clf = model.compile(method, **params)
    expected = clf.decision_function(X)
    clf.save(tmp_path / "c.cjt")
    for again in (conjunct.load(tmp_path / "c.cjt"), conjunct.load(tmp_path / "c.cjt", mmap=True), pickle.loads(pickle.dumps(clf))):
        assert again.method == method
        np.testing.assert_array_equal(again.decision_function(X), expected)


@pytest.mark.parametrize("method, params", [("pke", {"dense_features": 2}), ("split", {"common_features": 8}),
                                            ("fstrie", {"max_nodes": 30}), ("adaptive", {})])
def test_sparse_rows_exact_and_saved(tmp_path, method, params):
    """A multi-class model whose support vectors each move one of K outputs
    stores its conjunctions' rows sparse: same margins as the brute force,
    smaller than the dense rows, saved and loaded (mapped too) unchanged."""
    rng = np.random.default_rng(5)
    K = 12
    S = random_binary_csr(rng, 80, 40, 0.15)
    alpha = np.zeros((80, K))
    alpha[np.arange(80), rng.integers(0, K, size=80)] = rng.normal(size=80)
    model = conjunct.KernelModel(S, alpha, rng.normal(size=K), degree=2)
    X = random_binary_csr(rng, 60, 44, 0.2)
    expected, scale = reference_margins(model, X)
    clf = model.compile(method, **params)
    store = "base.store." if method in ("fstrie", "adaptive") else "store."
    if method == "split":
        store = "common.store." if any(k.startswith("common.store.") for k in clf.arrays) else store
    assert store + "row_begin" in clf.arrays and store + "weight" not in clf.arrays, sorted(clf.arrays)
    n_nodes = clf.arrays[store + "row_begin"].size - 1
    assert clf.arrays[store + "row_value"].size < n_nodes * K / 3
    assert_margins_close(clf.decision_function(X), expected, scale)
    clf.save(tmp_path / "c.cjt")
    for again in (conjunct.load(tmp_path / "c.cjt"), conjunct.load(tmp_path / "c.cjt", mmap=True)):
        np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))


def test_bad_parameters():
    rng = np.random.default_rng(3)
    model = conjunct.KernelModel(random_binary_csr(rng, 10, 5, 0.5), rng.normal(size=10), degree=2)
    with pytest.raises(conjunct.ConjunctError, match="unexpected keyword"):
        model.compile("pke", sigmaa=1)
    with pytest.raises(conjunct.ConjunctError, match="sigma"):
        model.compile("pke", sigma=-1)
    with pytest.raises(conjunct.ConjunctError, match="base"):
        model.compile("fstrie", base="pki")
    linear = conjunct.ConjunctiveLinearModel([[0, 1]], [1.0])
    with pytest.raises(conjunct.ConjunctError, match="kernel model"):
        linear.compile("split")
    with pytest.raises(conjunct.ConjunctError, match="needs events"):
        linear.compile("fstrie")
    with pytest.raises(conjunct.ConjunctError, match="kernel model"):
        linear.compile("pki")


def test_fstrie_events_from_file(tmp_path):
    rows = [["a", "b", "c"], ["a", "c"], ["b", "d"]]
    index = conjunct.FeatureIndex.from_data(rows)
    model = conjunct.KernelModel(index.transform(rows), [1.0, -0.5, 0.25], degree=3, features=index)
    events = tmp_path / "events.txt"
    conjunct.write_strings(events, [["a", "b", "c", "zzz"], ["a", "b"]], [0, 0])
    clf = model.compile("fstrie", events=events)
    assert clf.meta["distinct_events"] == 2 and clf.meta["nodes"] == 3
    np.testing.assert_allclose(clf.decision_function(rows), model.compile("pkb").decision_function(rows), rtol=1e-12)


# -- early exit never changes a decision ----------------------------------------------------------------
@given(kernel_models(), st.sampled_from(["pke", "split", "fstrie"]), st.sampled_from([0.0, 3.0, 50.0]))
def test_early_exit_keeps_decisions(case, method, shift):
    model, X = case
    # Shifting the bias moves margins away from zero, so that bounds settle decisions early.
    model = conjunct.KernelModel(model.support_vectors, model.dual_coef, model.intercept + shift * np.sign(model.intercept),
                                 degree=model.degree, gamma=model.gamma, coef0=model.coef0, decision=model.rule.kind,
                                 classes=model.classes)
    params = {"common_features": 3} if method == "split" else ({"events": X, "max_nodes": 4} if method == "fstrie" else {})
    clf = model.compile(method, **params)
    full = clf.rule.predict(clf.decision_function(X))
    np.testing.assert_array_equal(clf.predict(X, early_exit=True), full)
    np.testing.assert_array_equal(clf.predict(X, early_exit=False), full)
    assert [clf.predict_one(X[i].indices) for i in range(X.shape[0])] == full.tolist()


def test_early_exit_triggers():
    from conjunct import _core

    rng = np.random.default_rng(5)
    S = random_binary_csr(rng, 100, 30, 0.2)
    model = conjunct.KernelModel(S, rng.normal(size=100) * 1e-3, 5.0, degree=3)
    X = random_binary_csr(rng, 200, 30, 0.3)
    for method in ("pke", "split", "fstrie"):
        clf = model.compile(method)
        _core.early_exit_counters(True)
        clf.predict(X)
        stops, skipped = _core.early_exit_counters(True)
        assert stops == 200 and skipped > 0
        clf.predict(X, early_exit=False)
        assert _core.early_exit_counters(True) == (0, 0)


def test_expansion_limit():
    rng = np.random.default_rng(6)
    model = conjunct.KernelModel(random_binary_csr(rng, 50, 30, 0.4), rng.normal(size=50), degree=3)
    with pytest.raises(conjunct.ConjunctError, match="max_conjunctions"):
        model.compile("pke", dense_features=0, max_conjunctions=100)
    assert model.compile("pke", dense_features=0, max_conjunctions=10**7).meta["n_conjunctions"] > 100


@pytest.mark.parametrize("method, params", [("split", {"common_features": 8}), ("fstrie", {"base": "split", "common_features": 8}),
                                            ("fstrie", {"max_nodes": 30}), ("pke", {})])
def test_threads_share_one_classifier(method, params):
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(8)
    model = conjunct.KernelModel(random_binary_csr(rng, 200, 60, 0.1), rng.normal(size=(200, 3)), rng.normal(size=3), degree=3)
    X = random_binary_csr(rng, 400, 70, 0.1)
    clf = model.compile(method, **params)
    margins, labels = clf.decision_function(X), clf.predict(X)
    rows = [X[i].indices for i in range(X.shape[0])]

    def work(_):
        return (np.array([clf.decision_function_one(r) for r in rows]), [clf.predict_one(r) for r in rows])

    with ThreadPoolExecutor(4) as pool:
        for m, l in pool.map(work, range(8)):
            np.testing.assert_allclose(m, margins, rtol=1e-12, atol=1e-12)
            assert l == labels.tolist()
    np.testing.assert_array_equal(clf.decision_function(X, n_jobs=3), margins)
    np.testing.assert_array_equal(clf.predict(X, n_jobs=3), labels)


def test_split_stops_inside_the_common_part_of_vectors_with_rare_features():
    # Each check bounds the rare features' kernel block as well, so a settled
    # decision stops before the whole common part is added: more positions are
    # skipped than the vectors' rare features alone.
    from conjunct import _core

    rng = np.random.default_rng(7)
    S = random_binary_csr(rng, 200, 40, 0.15)
    model = conjunct.KernelModel(S, rng.normal(size=200) * 1e-3, 5.0, degree=2)
    X = random_binary_csr(rng, 300, 40, 0.4)
    clf = model.compile("split", common_features=20, dense_features=0)
    internal = clf.arrays["col_map"][X.indices]
    rare = int(np.count_nonzero(internal >= clf.meta["n_common"]))
    assert rare > 0
    _core.early_exit_counters(True)
    got = clf.predict(X)
    stops, skipped = _core.early_exit_counters(True)
    assert stops == X.shape[0] and skipped > rare
    np.testing.assert_array_equal(got, clf.rule.predict(clf.decision_function(X)))
