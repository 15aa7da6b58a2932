"""Every margin mode trains the same model as a brute-force reference.

Same support vectors in the same order, alpha rows (raw and averaged) within
1e-9, the same update decisions, and the same margin at every round (relative
1e-9 of the margin's scale); where kernel slicing stopped a margin early, the
reference confirms that no update was due and that the proven bound holds.
Random problems (hypothesis) cover d = 1..4, binary and multi-class, every
learner, assorted gamma / coef0, with and without intercept, duplicates and
several epochs.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

from conjunct import _core
from train_reference import reference_pa

TOL = 1e-9


def csr_of(rows):
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    indices = np.array([f for r in rows for f in r], dtype=np.int32)
    return indptr, indices


def mode_configs(n_features: int):
    """(name, PaTrainer keyword arguments) for every margin mode and its switches."""
    half = max(n_features // 2, 1)
    configs = [("kernel", dict(margin="kernel")), ("expanded", dict(margin="expanded"))]
    for N in (0, half, n_features):
        configs.append((f"split N={N}", dict(margin="split", common_features=N)))
    for N in (0, half, n_features):
        for reuse in (True, False):
            for terminate in (True, False):
                configs.append((f"slicing N={N} reuse={reuse} terminate={terminate}",
                                dict(margin="slicing", common_features=N, reuse=reuse, terminate=terminate)))
    # Budgets: a tiny one halves N down to 0 at once, a moderate one on the way.
    configs.append(("slicing budget=1B", dict(margin="slicing", common_features=-1, weight_budget=1)))
    configs.append(("slicing budget=3kB", dict(margin="slicing", common_features=-1, weight_budget=3000)))
    configs.append(("split budget=3kB", dict(margin="split", common_features=-1, weight_budget=3000)))
    return configs


def norms_of(rows, order, *, K, degree, gamma, coef0, fit_intercept, step="kernel", **_):
    """q of every round: k(x, x) or |x| (opal's step), + 1 with an intercept, twice that for multi-class."""
    size = (lambda n: n) if step == "opal" else (lambda n: (gamma * n + coef0) ** degree)
    q = np.array([size(len(rows[i])) for i in order], dtype=np.float64) + (1.0 if fit_intercept else 0.0)
    return np.maximum(q * (2 if K > 1 else 1), 1e-300)


def train(rows, labels, order, *, K, degree, gamma, coef0, learner, C, fit_intercept, n_features, margin,
          common_features=-1, reuse=True, terminate=True, weight_budget=0, weights=None, step="kernel"):
    t = _core.PaTrainer(gamma=gamma, coef0=coef0, degree=degree, n_outputs=K, learner=learner, C=C, margin=margin,
                        common_features=common_features, reuse=reuse, terminate=terminate, fit_intercept=fit_intercept,
                        weight_budget=weight_budget, trace=True, step=step)
    t.ensure_features(n_features)
    indptr, indices = csr_of(rows)
    t.run(indptr=indptr, indices=indices, labels=np.asarray(labels, dtype=np.int32), order=np.asarray(order, dtype=np.int64),
          weights=None if weights is None else np.asarray(weights, dtype=np.float64))
    return t


def check_against_reference(t, ref, K, name, norms):
    trace = t.trace()
    n = len(ref.margins)
    assert len(trace["example"]) == n, name
    np.testing.assert_array_equal(trace["updated"].astype(bool), np.array(ref.updated), err_msg=name)
    np.testing.assert_array_equal(trace["rival"], np.array(ref.rivals), err_msg=name)
    # tau = loss / q: the loss inherits the margin's absolute error (scale 1e-9), divided by q.
    taus, ref_taus = trace["tau"], np.array(ref.taus)
    assert np.all(np.abs(taus - ref_taus) <= TOL * (np.abs(ref_taus) + np.array(ref.scales) / norms)), name
    for i in range(n):
        scale = ref.scales[i] + 1e-300
        m = trace["margin"][i]
        if np.isnan(m).any():
            # Stopped early: the bound is a true lower bound of the decision value,
            # and the reference made no update.
            assert not ref.updated[i], name
            assert trace["bound"][i] <= ref.values[i] + TOL * (1 + scale), (name, i, trace["bound"][i], ref.values[i])
        else:
            err = np.abs(m - ref.margins[i]).max()
            assert err <= TOL * scale, (name, i, err, scale)
    sv_indptr, sv_indices, alpha, bias = t.export(False)
    svs = [tuple(sv_indices[sv_indptr[j]:sv_indptr[j + 1]].tolist()) for j in range(len(sv_indptr) - 1)]
    assert svs == ref.svs, name
    A = ref.alpha_matrix(K)
    scale_a = np.abs(A).max() if A.size else 1.0
    np.testing.assert_allclose(alpha, A, rtol=0, atol=TOL * scale_a, err_msg=name)
    np.testing.assert_allclose(bias, ref.bias, rtol=0, atol=TOL * max(scale_a, 1.0), err_msg=name)
    A_avg, b_avg = ref.averaged(K)
    _, _, alpha_avg, bias_avg = t.export(True)
    np.testing.assert_allclose(alpha_avg, A_avg, rtol=0, atol=TOL * scale_a, err_msg=name)
    np.testing.assert_allclose(bias_avg, b_avg, rtol=0, atol=TOL * max(scale_a, 1.0), err_msg=name)
    return trace


@st.composite
def problems(draw, max_rows=30, max_features=20):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, max_rows))
    V = draw(st.integers(1, max_features))
    K = draw(st.sampled_from([1, 1, 3, 4]))
    # Zipfian feature frequencies: a few frequent, many rare features.
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    rows = []
    for _ in range(n):
        if rows and rng.random() < 0.25:  # an exact duplicate of an earlier example
            rows.append(list(rows[rng.integers(len(rows))]))
            continue
        length = int(rng.integers(0, min(V, 9) + 1))
        rows.append(sorted(rng.choice(V, size=length, replace=False, p=p).tolist()))
    labels = rng.choice([-1, 1], size=n) if K == 1 else rng.integers(0, K, size=n)
    epochs = draw(st.integers(1, 3))
    order = np.concatenate([rng.permutation(n) for _ in range(epochs)])
    kw = dict(
        K=K,
        degree=draw(st.integers(1, 4)),
        gamma=draw(st.sampled_from([1.0, 0.5, 2.0])),
        coef0=draw(st.sampled_from([1.0, 0.0, 0.5, 2.0])),
        learner=draw(st.sampled_from(["pa1", "pa1", "pa", "pa2", "perceptron"])),
        C=draw(st.sampled_from([1.0, 0.05, 10.0])),
        fit_intercept=draw(st.booleans()),
        step=draw(st.sampled_from(["kernel", "opal"])),
    )
    if draw(st.booleans()):  # sample weights: zeros, fractions, large
        kw["weights"] = rng.choice([0.0, 0.25, 1.0, 3.0], size=n).tolist()
    return rows, labels.tolist(), order.tolist(), V, kw


# Updates that cancel (0.05 + 0.05 - 0.1 on one support vector) leave alpha at
# zero but the incremental margins with a rounding residue: tolerances scale
# with the updates' total size, not with |alpha|.
CANCELLING_UPDATES = (
    [[0], [0], [0], [0], [0], [], [0], [0], [0], [], [0], [0], [], [], [0], [], [0], [0], [], [], [], [0], [], [0], []],
    [-1, -1, 1, 1, -1, -1, -1, 1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, 1, -1, 1, -1, 1, 1, 1],
    [15, 1, 5, 13, 21, 12, 3, 17, 22, 19, 7, 23, 16, 6, 4, 20, 14, 9, 2, 10, 18, 0, 11, 24, 8],
    1,
    dict(K=1, degree=1, gamma=1.0, coef0=1.0, learner="pa1", C=0.05, fit_intercept=False),
)


@given(problems())
@example(CANCELLING_UPDATES)
def test_every_mode_equals_reference(problem):
    rows, labels, order, V, kw = problem
    ref = reference_pa(rows, labels, order, **kw)
    assume(not ref.near_tie)
    for name, config in mode_configs(V):
        t = train(rows, labels, order, n_features=V, **kw, **config)
        check_against_reference(t, ref, kw["K"], name, norms_of(rows, order, **kw))


def test_termination_and_reuse_happen():
    """The bounds do stop margins and partial margins are reused (the checks above are not vacuous)."""
    rng = np.random.default_rng(3)
    V = 40
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    rows = [sorted(rng.choice(V, size=6, replace=False, p=p).tolist()) for _ in range(120)]
    w = rng.normal(size=V)
    labels = [1 if w[r].sum() > 0 else -1 for r in rows]
    order = np.concatenate([rng.permutation(len(rows)) for _ in range(4)]).tolist()
    kw = dict(K=1, degree=3, gamma=1.0, coef0=1.0, learner="pa1", C=1.0, fit_intercept=False)
    ref = reference_pa(rows, labels, order, **kw)
    assert not ref.near_tie
    t = train(rows, labels, order, n_features=V, margin="slicing", common_features=8, **kw)
    check_against_reference(t, ref, 1, "slicing", norms_of(rows, order, **kw))
    s = t.stats()
    assert s["terminated"] > 20
    assert s["reused"] > 100
    assert s["kernel_steps"] > 0 and s["expanded_steps"] > 0


def test_dense_triples_follow_each_example():
    """d = 3, Eq. 5 on the dense tables: the pairs' index list built for one example is not reused
    for the next (long and short rows alternate, so a stale list would be read), and the update
    through that list changes each triple once: every mode keeps the reference's margins and model."""
    rng = np.random.default_rng(11)
    V = 48
    p = 1.0 / np.arange(1, V + 1) ** 0.8
    p /= p.sum()
    rows = [sorted(rng.choice(V, size=(30 if i % 2 else 4 + i % 7), replace=False, p=p).tolist()) for i in range(40)]
    w = rng.normal(size=V)
    labels = [1 if w[r].sum() > 0 else -1 for r in rows]
    order = np.concatenate([np.arange(len(rows)), rng.permutation(len(rows))]).tolist()
    kw = dict(K=1, degree=3, gamma=1.0, coef0=1.0, learner="pa1", C=1.0, fit_intercept=False)
    ref = reference_pa(rows, labels, order, **kw)
    assert not ref.near_tie
    for name, config in [("expanded", dict(margin="expanded")), ("split", dict(margin="split", common_features=V)),
                         ("slicing", dict(margin="slicing", common_features=V))]:
        t = train(rows, labels, order, n_features=V, **kw, **config)
        check_against_reference(t, ref, 1, name, norms_of(rows, order, **kw))
        assert t.stats()["expanded_steps"] > 0, name


# -- real data: CoNLL-2000 chunking with YamCha-style window features ------------------------------
@pytest.fixture(scope="module")
def chunk_rows(shared_data):
    from conjunct import FeatureIndex
    from conjunct.io.corpora import read_conll2000, window_features

    sents = read_conll2000(shared_data / "conll2000" / "train.txt")[:120]
    feats = [window_features(s, i) for s in sents for i in range(len(s))]
    tags = np.array([s[i][2] for s in sents for i in range(len(s))])
    index = FeatureIndex.from_data(feats)
    ranks = index.ranks() - 1  # internal ids: frequency ranks, 0 = most frequent
    rows = [sorted(ranks[index.id(f)] for f in set(r)) for r in feats]
    return rows, tags, len(index)


def step_scale(trace, rows, K, degree):
    """An upper bound of sum |alpha k| + |b| before each round: sum |tau| so far times k(|x|)."""
    cum = np.concatenate([[0.0], np.cumsum(np.abs(trace["tau"]) * (2 if K > 1 else 1))])[:-1]
    lengths = np.array([len(rows[i]) for i in trace["example"]])
    return (1 + cum) * (lengths + 1.0) ** degree


@pytest.mark.realdata
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("task", ["binary", "multiclass"])
@pytest.mark.parametrize("step", ["kernel", "opal"])
def test_modes_identical_on_chunking(chunk_rows, task, degree, step):
    rows, tags, V = chunk_rows
    if task == "binary":
        labels, K = np.where(tags == "B-NP", 1, -1), 1
    else:
        classes = np.unique(tags)
        labels, K = np.searchsorted(classes, tags), len(classes)
    rng = np.random.default_rng(degree)
    order = np.concatenate([rng.permutation(len(rows)) for _ in range(2)])
    kw = dict(K=K, degree=degree, gamma=1.0, coef0=1.0, learner="pa1", C=1.0, fit_intercept=False, n_features=V, step=step)
    configs = [("kernel", dict(margin="kernel")), ("expanded", dict(margin="expanded")),
               ("split", dict(margin="split", common_features=64)),
               ("slicing", dict(margin="slicing", common_features=64)),
               ("slicing SL*", dict(margin="slicing", common_features=64, reuse=False)),
               ("slicing no termination", dict(margin="slicing", common_features=64, terminate=False)),
               ("slicing budget", dict(margin="slicing", common_features=-1, weight_budget=200_000))]
    base_t = train(rows, labels, order, **kw, margin="kernel")
    base = base_t.trace()
    base_sv = base_t.export(False)
    base_avg = base_t.export(True)
    scale = step_scale(base, rows, K, degree)
    assert base["updated"].sum() > 100
    for name, config in configs[1:]:
        t = train(rows, labels, order, **kw, **config)
        tr = t.trace()
        np.testing.assert_array_equal(tr["updated"], base["updated"], err_msg=name)
        np.testing.assert_array_equal(tr["rival"], base["rival"], err_msg=name)
        full = ~np.isnan(tr["margin"][:, 0])
        err = np.abs(tr["margin"][full] - base["margin"][full]).max(axis=1)
        assert np.all(err <= TOL * scale[full]), (name, (err / scale[full]).max())
        stopped = ~full
        assert not base["updated"][stopped].any(), name
        sv = t.export(False)
        np.testing.assert_array_equal(sv[0], base_sv[0], err_msg=name)
        np.testing.assert_array_equal(sv[1], base_sv[1], err_msg=name)
        # opal's step overshoots (x's own margin moves by loss k(x, x) / |x|),
        # so the modes' rounding differences grow from update to update: the
        # same decisions, weights equal to about 1e-8 after two epochs.
        alpha_tol = TOL if step == "kernel" else 1e-6
        for got, want in ((sv[2], base_sv[2]), (t.export(True)[2], base_avg[2])):
            np.testing.assert_allclose(got, want, rtol=0, atol=alpha_tol * np.abs(want).max(), err_msg=name)
        if name == "slicing" and degree >= 2:
            s = t.stats()
            assert s["terminated"] > 0 and s["reused"] > 0, name
        if name == "slicing budget" and degree >= 2:
            assert t.stats()["prunes"] > 0, name


def test_remembered_prefix_nodes_follow_the_data():
    """The learner remembers each training row's partial-margin trie nodes; a
    later run() whose rows differ under the same row ids (partial_fit on new
    data: other features, longer and shorter rows) must not reuse them blindly:
    every round's margin still equals the kernel mode's."""
    rng = np.random.default_rng(11)
    V = 30
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()

    def batch(n, lo, hi):
        rows = [sorted(rng.choice(V, size=int(rng.integers(lo, hi)), replace=False, p=p).tolist()) for _ in range(n)]
        w = rng.normal(size=V)
        return rows, [1 if w[r].sum() > 0 else -1 for r in rows]

    batches = [batch(60, 3, 8), batch(60, 2, 10), batch(40, 5, 9)]
    # A row remembered, then shorter and different under its id, then as long
    # again with the old row's features past the change: the old nodes there
    # end in the right features but belong to the old prefixes.
    a = [[0, 1, 5, 6, 7, 8], [1, 2, 6, 7, 9, 11], [0, 3, 5, 8, 9, 12]]
    b = [r[:1] + [r[1] + 1] for r in a]
    c = [b[i] + r[2:] for i, r in enumerate(a)]
    batches += [(a * 3, [1, -1, 1] * 3), (b, [-1, 1, 1]), (c * 2, [1, 1, -1] * 2)]
    kw = dict(gamma=1.0, coef0=1.0, degree=3, n_outputs=1, learner="pa1", C=1.0, fit_intercept=False, trace=True,
              weight_budget=0)
    trainers = {"kernel": _core.PaTrainer(margin="kernel", common_features=-1, reuse=False, terminate=False, **kw),
                "slicing": _core.PaTrainer(margin="slicing", common_features=6, reuse=True, terminate=False, **kw)}
    for t in trainers.values():
        t.ensure_features(V)
    for rows, labels in batches:
        indptr, indices = csr_of(rows)
        order = np.concatenate([rng.permutation(len(rows)) for _ in range(3)]).astype(np.int64)
        for t in trainers.values():
            t.run(indptr=indptr, indices=indices, labels=np.asarray(labels, dtype=np.int32), order=order)
    a, b = trainers["kernel"].trace(), trainers["slicing"].trace()
    np.testing.assert_array_equal(a["updated"], b["updated"])
    assert np.all(np.abs(a["margin"] - b["margin"])[:, 0] <= TOL * (1 + np.abs(a["margin"][:, 0])))
    np.testing.assert_allclose(trainers["slicing"].export(False)[2], trainers["kernel"].export(False)[2], rtol=0, atol=1e-9)
    s = trainers["slicing"].stats()
    assert s["remembered_nodes"] > 1000 and s["reused"] > 100


JDEPP_WORK = Path(os.environ.get("CONJUNCT_JDEPP_WORK", Path(__file__).resolve().parents[1].parent / "peer" / "work"))


@pytest.mark.realdata
@pytest.mark.parametrize("step", ["kernel", "opal"])
def test_slicing_equals_kernel_on_jdepp_vectors(step, tmp_path):
    """J.DepP's own training vectors (the peer kit's work folder; skipped without
    it), d = 3: slicing with its defaults (reuse, remembered rows, adaptive
    termination) makes the decisions of the kernel mode and keeps its model."""
    from conjunct.io.data import read_svmlight
    from conjunct.training import PAClassifier

    src = JDEPP_WORK / "models" / "jdepp_d3" / "depnd.p0.train"
    if not src.exists():
        pytest.skip(f"{src} not found (the J.DepP peer kit's training vectors)")
    with open(src) as f:
        head = [next(f) for _ in range(1500)]
    path = tmp_path / "jdepp.train"
    path.write_text("".join(head))
    X, y = read_svmlight(path)
    fits = {m: PAClassifier(3, step=step, margin=m, n_iter=3, shuffle="once", random_state=0, trace=True).fit(X, y)
            for m in ("kernel", "slicing")}
    a, b = fits["kernel"], fits["slicing"]
    np.testing.assert_array_equal(a.trace_["updated"], b.trace_["updated"])
    assert a.model_.n_support_vectors == b.model_.n_support_vectors > 200
    np.testing.assert_array_equal(a.model_.support_vectors.indices, b.model_.support_vectors.indices)
    tol = TOL if step == "kernel" else 1e-6  # opal's step amplifies rounding differences (test_modes_identical_on_chunking)
    np.testing.assert_allclose(b.model_.dual_coef, a.model_.dual_coef, rtol=0, atol=tol * np.abs(a.model_.dual_coef).max())
    s = b.stats_
    assert s["remembered_nodes"] > 10 * len(head) and s["reused"] > 0
