"""Every exact decoder returns a path whose score equals Viterbi's best score;
beam search never beats it. Random score tables, including label sets of up to
3000 labels, with and without ties and with label-frequency structure."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conjunct import ConjunctError
from conjunct.tagging import DECODERS, EXACT_DECODERS, ChainDecoder

RTOL = 1e-9


def brute_force_best(E, T):
    """The best path score by enumeration (tiny lattices only)."""
    N, L = E.shape
    best = -math.inf
    for flat in range(L ** N):
        path = [(flat // L ** n) % L for n in range(N)]
        s = E[0, path[0]] + sum(T[path[n - 1], path[n]] + E[n, path[n]] for n in range(1, N))
        best = max(best, s)
    return best


@st.composite
def tables(draw, max_labels=40, max_len=12):
    """(E, T) drawn to look like tagging models in several ways: plain Gaussian,
    rounded (many ties), and 'frequency-ranked' (low label ids score higher,
    as staggered decoding expects), with strong or weak transitions."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    L = draw(st.integers(1, max_labels))
    N = draw(st.integers(1, max_len))
    shape = draw(st.sampled_from(["gauss", "ties", "ranked", "sparse"]))
    t_scale = draw(st.sampled_from([0.0, 0.1, 1.0, 5.0]))
    E = rng.normal(size=(N, L)) * 2
    T = rng.normal(size=(L, L)) * t_scale
    if shape == "ties":
        E, T = np.round(E), np.round(T)
    elif shape == "ranked":
        E -= np.log1p(np.arange(L))[None, :] * 2
        E[np.arange(N), rng.integers(0, L, N)] += 4  # a few rare labels win
    elif shape == "sparse":
        E[rng.random(E.shape) < 0.8] = 0.0
        T[rng.random(T.shape) < 0.8] = 0.0
    return E, T


def assert_same_score(actual, expected):
    assert abs(actual - expected) <= RTOL * max(1.0, abs(expected)), (actual, expected)


@given(tables())
def test_exact_decoders_match_viterbi(table):
    E, T = table
    dec = ChainDecoder(T)
    ref = dec.decode(E, "viterbi")
    assert_same_score(dec.path_score(E, ref.path), ref.score)
    for name in EXACT_DECODERS:
        got = dec.decode(E, name)
        assert got.path.shape == (E.shape[0],)
        assert got.path.min() >= 0 and got.path.max() < E.shape[1]
        assert_same_score(dec.path_score(E, got.path), got.score)
        assert_same_score(got.score, ref.score)
    for width in (1, 2, 5):
        approx = dec.decode(E, "beam", beam_width=width)
        assert approx.score <= ref.score + RTOL * max(1.0, abs(ref.score))
    # A beam as wide as the label set keeps every node: it is exact.
    assert_same_score(dec.decode(E, "beam", beam_width=E.shape[1]).score, ref.score)


@given(tables(max_labels=4, max_len=4))
def test_viterbi_is_the_best_path(table):
    E, T = table
    assert_same_score(ChainDecoder(T).decode(E, "viterbi").score, brute_force_best(E, T))


@given(tables(max_labels=300, max_len=8))
def test_staggered_iterations_respect_lemma_2(table):
    E, T = table
    L = E.shape[1]
    dec = ChainDecoder(T)
    # Expanding every column, staggered decoding stops within log2(L) + 1 steps.
    assert 1 <= dec.decode(E, "staggered").iterations <= math.ceil(math.log2(L)) + 1
    assert dec.decode(E, "staggered-column").iterations >= 1
    assert dec.decode(E, "viterbi").iterations == 1


@settings(max_examples=6)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1000, 2000, 3000]), st.integers(1, 4))
def test_exact_decoders_large_label_sets(seed, L, N):
    rng = np.random.default_rng(seed)
    T = rng.normal(size=(L, L)) * rng.choice([0.1, 1.0])
    E = rng.normal(size=(N, L)) * 3 - np.log1p(np.arange(L))[None, :]
    dec = ChainDecoder(T)
    ref = dec.decode(E, "viterbi").score
    for name in EXACT_DECODERS:
        assert_same_score(dec.decode(E, name).score, ref)


def test_greedy_lower_bound_and_one_label():
    dec = ChainDecoder(np.zeros((1, 1)))
    for name in DECODERS:
        got = dec.decode(np.array([[1.0], [2.0], [3.0]]), name)
        assert got.path.tolist() == [0, 0, 0] and got.score == 6.0


def test_empty_sentence():
    dec = ChainDecoder(np.zeros((3, 3)))
    for name in DECODERS:
        got = dec.decode(np.zeros((0, 3)), name)
        assert got.path.shape == (0,) and got.score == 0.0


def test_bad_input():
    with pytest.raises(ConjunctError, match="square"):
        ChainDecoder(np.zeros((2, 3)))
    with pytest.raises(ConjunctError, match="finite"):
        ChainDecoder(np.array([[0.0, np.nan], [0.0, 0.0]]))
    dec = ChainDecoder(np.zeros((2, 2)))
    with pytest.raises(ConjunctError, match="shape"):
        dec.decode(np.zeros((3, 3)))
    with pytest.raises(ConjunctError, match="finite"):
        dec.decode(np.array([[0.0, -np.inf]]))
    with pytest.raises(ConjunctError, match="unknown decoder"):
        dec.decode(np.zeros((1, 2)), "astar")
    with pytest.raises(ConjunctError, match="beam_width"):
        dec.decode(np.zeros((1, 2)), "beam", beam_width=0)
