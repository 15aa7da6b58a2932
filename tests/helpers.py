"""Independent reference computations and assertions shared by the tests."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

import conjunct


def reference_margins(model: conjunct.KernelModel, X: sp.csr_matrix):
    """Brute-force margins in numpy, independent of the C++ core.

    Returns (margins (n, K), scale (n, K)): scale is sum_i |alpha_i| k(s_i, x) + |b|,
    the magnitude against which floating-point summation error is judged.
    """
    S = model.support_vectors.toarray()
    X = X.toarray()
    width = max(S.shape[1], X.shape[1])
    S = np.pad(S, ((0, 0), (0, width - S.shape[1])))
    X = np.pad(X, ((0, 0), (0, width - X.shape[1])))
    overlap = X @ S.T
    k = (model.gamma * overlap + model.coef0) ** model.degree
    margins = k @ model.dual_coef + model.intercept
    scale = np.abs(k) @ np.abs(model.dual_coef) + np.abs(model.intercept)
    return margins, scale


def assert_margins_close(actual, expected, scale, rtol: float = 1e-9):
    actual = np.asarray(actual).reshape(np.shape(expected))
    err = np.abs(actual - expected)
    bound = rtol * np.maximum(scale, 1e-300)
    assert np.all(err <= bound), f"max error {err.max():.3e}, worst ratio {(err / bound).max():.3e}"


def random_binary_csr(rng: np.random.Generator, rows: int, cols: int, density: float) -> sp.csr_matrix:
    dense = rng.random((rows, cols)) < density
    return sp.csr_matrix(dense.astype(np.float64))


@st.composite
def kernel_models(draw, max_sv: int = 40, max_features: int = 30, max_outputs: int = 4):
    """A random KernelModel (d = 1..4, K = 1..max_outputs, assorted gamma/coef0)."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_sv = draw(st.integers(0, max_sv))
    n_features = draw(st.integers(1, max_features))
    density = draw(st.sampled_from([0.05, 0.2, 0.5, 0.9]))
    K = draw(st.integers(1, max_outputs))
    degree = draw(st.integers(1, 4))
    gamma = draw(st.sampled_from([1.0, 0.5, 2.0, 0.1]))
    coef0 = draw(st.sampled_from([1.0, 0.0, 0.5, 3.0]))
    S = random_binary_csr(rng, n_sv, n_features, density)
    alpha = rng.normal(size=(n_sv, K))
    # Mostly-zero rows (as in one-vs-one models) take the sparse-alpha path; one non-zero
    # output per support vector (as in multi-class PA) gives stores with sparse rows.
    zeros = draw(st.sampled_from([0.0, 0.7, 1.0, "one"]))
    if zeros == "one":
        keep = np.zeros(alpha.shape, dtype=bool)
        keep[np.arange(n_sv), rng.integers(0, K, size=n_sv)] = True
        alpha[~keep] = 0.0
    else:
        alpha[rng.random(alpha.shape) < zeros] = 0.0
    bias = rng.normal(size=K)
    decision = "sign" if K == 1 else ("ovo" if K == 3 and draw(st.booleans()) else "argmax")
    classes = [0, 1, 2] if decision == "ovo" else None
    model = conjunct.KernelModel(S, alpha, bias, degree=degree, gamma=gamma, coef0=coef0, decision=decision, classes=classes)
    # Test inputs reach beyond the model's columns: unseen features must carry no weight.
    n_rows = draw(st.integers(1, 12))
    X = random_binary_csr(rng, n_rows, n_features + draw(st.integers(0, 10)), draw(st.sampled_from([0.1, 0.3, 0.7])))
    return model, X


@st.composite
def linear_models(draw, max_conj: int = 60, max_features: int = 20, max_outputs: int = 3):
    """A random ConjunctiveLinearModel (conjunctions of 1..4 features) and inputs."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_features = draw(st.integers(1, max_features))
    degree = draw(st.integers(1, 4))
    K = draw(st.integers(1, max_outputs))
    seen = set()
    for _ in range(draw(st.integers(0, max_conj))):
        size = int(rng.integers(1, min(degree, n_features) + 1))
        seen.add(tuple(sorted(rng.choice(n_features, size=size, replace=False).tolist())))
    conj = sorted(seen)
    W = rng.normal(size=(len(conj), K))
    model = conjunct.ConjunctiveLinearModel(conj if conj else sp.csr_matrix((0, n_features)), W.reshape(len(conj), K),
                                            rng.normal(size=K), decision="sign" if K == 1 else "argmax")
    X = random_binary_csr(rng, draw(st.integers(1, 10)), n_features + 3, draw(st.sampled_from([0.2, 0.5, 0.8])))
    return model, X


def linear_scale(model, X) -> np.ndarray:
    """Sum of |w(t)| over stored t ⊆ x plus |b|: the scale of a linear model's margin."""
    from conjunct.models.linear import brute_force_margins

    absolute = conjunct.ConjunctiveLinearModel(model.conjunctions, np.abs(model.weights), np.abs(model.intercept),
                                               decision=model.rule.kind, classes=model.classes)
    return brute_force_margins(absolute, X)


def run_cli(argv, capsys):
    """(exit code, stdout, stderr) of ``conjunct argv`` in this process; argparse's exits count as
    codes, and no traceback may reach standard error."""
    from conjunct.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def rewrite_container(src, dst, edit):
    """Write ``dst`` as the model file ``src`` with ``edit(meta, arrays)`` applied
    to writable copies of its sections (a crafted file for a validation test)."""
    from conjunct.io.model_io import read_container, write_container

    kind, meta, arrays = read_container(src)
    arrays = {k: np.array(v) for k, v in arrays.items()}
    edit(meta, arrays)
    write_container(dst, kind, meta, arrays)
    return dst


def reference_gap_rows(texts, reference, index):
    """(gaps, rows) of the Python reference path: ``reference(text)`` gives a
    text's gap positions and feature names; each row keeps the names ``index`` holds."""
    gaps, rows = [], []
    for t in texts:
        positions, feats = reference(t)
        gaps += positions
        rows += [[i for i in (index.get(f) for f in fl) if i >= 0] for fl in feats]
    return gaps, rows


def assert_loads_the_same(clf, path, X):
    """``path`` (where ``clf`` was saved) loads, mapped or read, to the same
    arrays byte for byte and the same margins on ``X``; returns the last load."""
    for mmap in (False, True):
        again = conjunct.load(path, mmap=mmap)
        for name, a in clf.arrays.items():
            assert np.asarray(again.arrays[name]).tobytes() == np.asarray(a).tobytes(), name
        assert np.array_equal(again.decision_function(X), clf.decision_function(X))
    return again
