"""The self-adaptive classifier computes the brute-force margins whatever its
cache holds: random models (d = 1..4, K >= 1, unseen features), tiny caches
that evict constantly, both evictions, with and without the doorkeeper, both
bases, warm starts, threads sharing one classifier, and real models."""

import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import conjunct
from conjunct import ConjunctError
from conjunct.models.linear import brute_force_margins
from helpers import assert_margins_close, kernel_models, linear_models, linear_scale, random_binary_csr, reference_margins


def stream(X: sp.csr_matrix, seed: int) -> sp.csr_matrix:
    """X's rows three times, the last time shuffled: prefixes recur, get cached and evicted."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    return sp.vstack([X, X, X[order]]).tocsr()


cache_params = st.fixed_dictionaries({
    "cache_rows": st.sampled_from([0, 1, 2, 3, 7, 1000]),
    "eviction": st.sampled_from(["lru", "lfu"]),
    "doorkeeper": st.booleans(),
    "sharing": st.sampled_from(["thread", "shared"]),
    "shards": st.sampled_from([1, 3]),
})


def check_stream(clf, X, expected, scale):
    # Batch and single calls interleave on one cache; every call must be exact.
    assert_margins_close(clf.decision_function(X), expected, scale)
    for i in range(X.shape[0]):
        assert_margins_close(clf.decision_function_one(X[i].indices), expected[i], scale[i])
    got = clf.decision_function(X)
    assert_margins_close(got, expected, scale)
    np.testing.assert_array_equal(clf.predict(X), clf.rule.predict(got))
    np.testing.assert_array_equal(clf.predict(X, early_exit=False), clf.rule.predict(got))
    assert [clf.predict_one(X[i].indices) for i in range(X.shape[0])] == clf.rule.predict(got).tolist()


@settings(deadline=None)
@given(kernel_models(), cache_params, st.sampled_from(["pke", "split"]), st.booleans(), st.integers(0, 9))
def test_adaptive_equals_reference(case, params, base, warm, seed):
    model, X = case
    X = stream(X, seed)
    expected, scale = reference_margins(model, X)
    warm_start = X[: max(1, X.shape[0] // 4)] if warm else None
    clf = model.compile("adaptive", base=base, warm_start=warm_start, **params)
    check_stream(clf, X, expected, scale)
    counts = clf.cache_stats()
    assert counts["nodes"] <= counts["capacity"] <= params["cache_rows"] + params["shards"]
    assert 0.0 <= counts["hit_rate"] <= 1.0


@settings(deadline=None)
@given(linear_models(), cache_params, st.integers(0, 9))
def test_adaptive_linear_models(case, params, seed):
    model, X = case
    X = stream(X, seed)
    expected = brute_force_margins(model, X)
    scale = linear_scale(model, X)
    clf = model.compile("adaptive", **params)
    check_stream(clf, X, expected, scale)


def test_tiny_caches_evict_constantly_and_stay_exact():
    rng = np.random.default_rng(3)
    S = random_binary_csr(rng, 80, 40, 0.2)
    model = conjunct.KernelModel(S, rng.normal(size=(80, 3)), rng.normal(size=3), degree=3)
    X = stream(random_binary_csr(rng, 150, 45, 0.2), 1)
    expected, scale = reference_margins(model, X)
    for eviction in ("lru", "lfu"):
        clf = model.compile("adaptive", cache_rows=5, eviction=eviction, doorkeeper=False)
        assert_margins_close(clf.decision_function(X), expected, scale)
        s = clf.cache_stats()
        assert s["evicted"] > 100 and s["nodes"] == 5, s
        assert s["inserted"] - s["evicted"] == s["nodes"]


def test_counters_hits_and_clear():
    rng = np.random.default_rng(5)
    S = random_binary_csr(rng, 60, 30, 0.3)
    model = conjunct.KernelModel(S, rng.normal(size=(60, 1)), np.zeros(1), degree=2)
    X = random_binary_csr(rng, 40, 30, 0.3)
    clf = model.compile("adaptive", doorkeeper=False)
    clf.decision_function(X)
    first = clf.cache_stats()
    assert first["calls"] == 40 and first["full_hits"] <= 40
    clf.decision_function(X)  # the same vectors again: every one is found whole
    second = clf.cache_stats()
    assert second["full_hits"] - first["full_hits"] == 40
    assert second["hit_rate"] > first["hit_rate"]
    clf.clear_cache()
    cleared = clf.cache_stats()
    assert cleared["calls"] == 0 and cleared["nodes"] == 0
    # With the doorkeeper a vector is cached on its second sighting, found on its third.
    door = model.compile("adaptive")
    for _ in range(2):
        door.decision_function(X)
    before = door.cache_stats()["full_hits"]
    door.decision_function(X)
    assert door.cache_stats()["full_hits"] - before == 40


@pytest.mark.parametrize("sharing,shards", [("thread", 1), ("shared", 1), ("shared", 4)])
def test_threads_share_one_classifier(sharing, shards):
    rng = np.random.default_rng(11)
    S = random_binary_csr(rng, 200, 120, 0.08)
    model = conjunct.KernelModel(S, rng.normal(size=(200, 2)), rng.normal(size=2), degree=3)
    X = stream(random_binary_csr(rng, 400, 130, 0.08), 2)
    expected = model.compile("pkb").decision_function(X)
    _, scale = reference_margins(model, X)
    for rows in (3, 50, 100000):
        clf = model.compile("adaptive", cache_rows=rows, sharing=sharing, shards=shards, doorkeeper=rows != 3)
        # C++ threads splitting one batch, and Python threads calling it at once (the GIL is released).
        assert_margins_close(clf.decision_function(X, n_jobs=2), expected, scale)
        results = [None] * 4

        def work(t):
            order = np.random.default_rng(t).permutation(X.shape[0])
            out = np.empty_like(expected)
            out[order] = clf.decision_function(X[order])
            results[t] = out

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for r in results:
            assert_margins_close(r, expected, scale)
        s = clf.cache_stats()
        assert s["caches"] == (shards if sharing == "shared" else s["caches"]) and s["calls"] + s["bypassed"] > 0


def test_save_load_pickle_start_empty(tmp_path):
    rng = np.random.default_rng(2)
    S = random_binary_csr(rng, 50, 30, 0.3)
    model = conjunct.KernelModel(S, rng.normal(size=(50, 2)), rng.normal(size=2), degree=3)
    X = random_binary_csr(rng, 60, 30, 0.3)
    clf = model.compile("adaptive", cache_rows=100, eviction="lfu", warm_start=X[:10], max_nodes=20)
    expected = clf.decision_function(X)
    assert clf.cache_stats()["calls"] == 60
    path = tmp_path / "adaptive.cjt"
    clf.save(path)
    for again in (conjunct.load(path), conjunct.load(path, mmap=True), pickle.loads(pickle.dumps(clf))):
        assert again.method == "adaptive" and again.meta["eviction"] == "lfu" and again.meta["cache_rows"] == 100
        assert again.cache_stats()["calls"] == 0 and again.cache_stats()["nodes"] == 0  # the cache is runtime state
        np.testing.assert_allclose(again.decision_function(X), expected, rtol=1e-9, atol=1e-12)
        assert again.cache_stats()["static_positions"] > 0  # the warm-start trie was saved


def test_bad_parameters():
    rng = np.random.default_rng(0)
    model = conjunct.KernelModel(random_binary_csr(rng, 10, 8, 0.3), rng.normal(size=(10, 1)), np.zeros(1), degree=2)
    for bad in ({"cache_rows": -1}, {"cache_rows": 1.5}, {"eviction": "fifo"}, {"sharing": "global"}, {"shards": 0},
                {"base": "pki"}, {"max_nodes": 5}, {"no_such_option": 1}):
        with pytest.raises(ConjunctError):
            model.compile("adaptive", **bad)
    with pytest.raises(ConjunctError):
        model.compile("pke").cache_stats()


@pytest.mark.realdata
def test_real_bunsetsu_model_stream_and_parser(shared_data):
    """A trained bunsetsu parser with method="adaptive": the same heads and
    margins as PKB on dev text, with prefixes found in the stream."""
    from conjunct.tasks.bunsetsu import BunsetsuDependencyParser, load_gsd_bunsetsu

    data = shared_data / "ud_japanese_gsd"
    train = load_gsd_bunsetsu(data, "train")[:800]
    dev = load_gsd_bunsetsu(data, "dev")[:200]
    p = BunsetsuDependencyParser(degree=3, n_iter=3, method="pkb").fit(train)
    reference = p.parse(dev)
    events = p.collect_events(dev)["depends"]
    expected = p.classifier_.decision_function(events)
    for params in ({}, {"cache_rows": 64, "eviction": "lfu"}, {"base": "split", "sharing": "shared", "shards": 2}):
        p.compile("adaptive", **params)
        assert p.parse(dev) == reference
        clf = p.classifier_
        assert clf.cache_stats()["cached_positions"] > 0
        np.testing.assert_allclose(clf.decision_function(events), expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    p.compile("adaptive", warm_start=events[:500])
    assert p.parse(dev) == reference and p.classifier_.cache_stats()["static_positions"] > 0
