"""Decoding from feature ids (LinearChainModel.decode_batch): staggered decoding
reads the weights through its lazy column scores (sparse tokens are never
expanded to all labels), every other decoder through the full emission table.
Every exact decoder must return Viterbi's best score, and every returned score
must be the score of the returned path under an independent numpy model.
Random models up to 3000 labels: a base feature on (nearly) every token, dense,
long and short weight rows, integer weights (ties), frequency-ranked labels."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conjunct import ConjunctError
from conjunct.tagging import EXACT_DECODERS
from conjunct.tagging.chain import LinearChainModel

RTOL = 1e-9


def random_model(rng, L, F, base, ties, ranked, t_scale):
    """Sparse rows (labels strictly increasing), start/end, transitions."""
    indptr, labels, values = [0], [], []
    for f in range(F):
        kind = "dense" if f == base else rng.choice(["dense", "long", "short", "short", "empty"])
        size = {"dense": L, "long": max(1, L // 2), "short": int(rng.integers(1, 4)), "empty": 0}[kind]
        size = min(size, L)
        ys = np.sort(rng.choice(L, size=size, replace=False)) if size < L else np.arange(L)
        vs = rng.normal(size=size) * 2
        if ranked:
            vs -= np.log1p(ys)
        if ties:
            vs = np.round(vs)
        keep = vs != 0.0
        labels.extend(ys[keep].tolist()), values.extend(vs[keep].tolist())
        indptr.append(len(labels))
    T = rng.normal(size=(L, L)) * t_scale
    start, end = rng.normal(size=L), rng.normal(size=L)
    if ties:
        T, start, end = np.round(T), np.round(start), np.round(end)
    return LinearChainModel(np.array(indptr), np.array(labels, dtype=np.int32), np.array(values, dtype=np.float64),
                            T, start, end, base_feature=base)


def random_tokens(rng, F, base, n_sent, max_len):
    """Sentences of feature-id tokens: the base feature on most tokens (missing
    or repeated on some), a few other features, now and then an unknown id."""
    lengths = rng.integers(0, max_len + 1, size=n_sent)
    rows = []
    for _ in range(int(lengths.sum())):
        ids = [int(f) for f in rng.choice(F, size=int(rng.integers(0, 4)))] if F else []
        if base >= 0:
            r = rng.random()
            if r < 0.85:
                ids.insert(int(rng.integers(0, len(ids) + 1)), base)
            elif r < 0.9:
                ids += [base, base]
        if rng.random() < 0.1:
            ids.append(F + int(rng.integers(0, 3)))  # unseen in training: no weight
        rows.append(ids)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=indptr[1:])
    ids = np.array([f for r in rows for f in r], dtype=np.int32)
    sent_ptr = np.zeros(n_sent + 1, dtype=np.int64)
    np.cumsum(lengths, out=sent_ptr[1:])
    return indptr, ids, sent_ptr


def reference_scores(model, indptr, ids, sent_ptr, paths):
    """Path scores from a dense numpy copy of the model (no C++ involved)."""
    L, F = model.n_labels, model.n_features
    W = np.zeros((F, L))
    for f in range(F):
        a, b = model.w_indptr[f], model.w_indptr[f + 1]
        W[f, model.w_labels[a:b]] = model.w_values[a:b]
    out = []
    for i in range(len(sent_ptr) - 1):
        t0, t1 = sent_ptr[i], sent_ptr[i + 1]
        s = 0.0
        for n, t in enumerate(range(t0, t1)):
            y = paths[t]
            e = sum(W[f, y] for f in ids[indptr[t]:indptr[t + 1]] if 0 <= f < F)
            if n == 0:
                e += model.start[y]
            else:
                s += model.transitions[paths[t - 1], y]
            if t == t1 - 1:
                e += model.end[y]
            s += e
        out.append(s)
    return np.array(out)


def variants(model):
    """The same model decoded with full rows and with lazy bounded scores
    (label groups of 1, 4 and 8 labels)."""
    return [model] + [model.with_options(lazy_scores=True, group_size=g) for g in (1, 4, 8)]


def check_model(model, indptr, ids, sent_ptr):
    iterations = None
    for m in variants(model):
        iterations = check_variant(m, indptr, ids, sent_ptr)
    return iterations


def check_variant(model, indptr, ids, sent_ptr):
    ref_paths, ref, _ = model.decode_batch(indptr, ids, sent_ptr, "viterbi")
    scale = np.maximum(1.0, np.abs(ref))
    np.testing.assert_allclose(reference_scores(model, indptr, ids, sent_ptr, ref_paths), ref, rtol=RTOL, atol=RTOL)
    for name in EXACT_DECODERS:
        paths, scores, iterations = model.decode_batch(indptr, ids, sent_ptr, name)
        assert np.all(np.abs(scores - ref) <= RTOL * scale), name
        assert paths.min(initial=0) >= 0 and paths.max(initial=0) < model.n_labels
        np.testing.assert_allclose(reference_scores(model, indptr, ids, sent_ptr, paths), scores, rtol=RTOL, atol=RTOL)
        assert np.all(iterations >= 1)
    for width in (1, 2):
        _, scores, _ = model.decode_batch(indptr, ids, sent_ptr, "beam", beam_width=width)
        assert np.all(scores <= ref + RTOL * scale)
    return iterations


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(0, 30), st.booleans(), st.booleans(),
       st.booleans(), st.sampled_from([0.0, 0.5, 2.0]))
def test_lazy_scores_match_viterbi(seed, L, F, has_base, ties, ranked, t_scale):
    rng = np.random.default_rng(seed)
    base = 0 if has_base and F > 0 else -1
    model = random_model(rng, L, F, base, ties, ranked, t_scale)
    check_model(model, *random_tokens(rng, F, base, n_sent=4, max_len=9))


@settings(max_examples=8)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1000, 2000, 3000]), st.booleans())
def test_lazy_scores_large_label_sets(seed, L, ties):
    rng = np.random.default_rng(seed)
    model = random_model(rng, L, 12, 0, ties, True, float(rng.choice([0.1, 1.0])))
    check_model(model, *random_tokens(rng, 12, 0, n_sent=2, max_len=6))


@given(st.integers(0, 2**32 - 1), st.integers(2, 300))
def test_lazy_staggered_respects_lemma_2(seed, L):
    rng = np.random.default_rng(seed)
    model = random_model(rng, L, 10, 0, False, True, 1.0)
    indptr, ids, sent_ptr = random_tokens(rng, 10, 0, n_sent=3, max_len=8)
    for m in (model, model.with_options(lazy_scores=True)):
        _, _, iterations = m.decode_batch(indptr, ids, sent_ptr, "staggered")
        assert np.all(iterations <= math.ceil(math.log2(L)) + 1)


def test_hmm_like_model_has_sparse_tokens_and_exact_bounds():
    """Base row plus one word row per token (an HMM): known words weigh a few
    labels (sparse tokens), the unknown word most of them (Eq. 1 precomputed
    for the pair); staggered decoding returns Viterbi's score."""
    rng = np.random.default_rng(7)
    L, V = 500, 200
    base = -np.log1p(np.arange(L)) - 5.0
    unknown = (np.sort(rng.choice(L, L // 2, replace=False)), rng.random(L // 2) * 4)
    rows = [(np.arange(L), base), unknown]
    rows += [(np.sort(rng.choice(L, 3, replace=False)), rng.random(3) * 8) for _ in range(V)]
    indptr = np.cumsum([0] + [len(r[0]) for r in rows])
    model = LinearChainModel(indptr, np.concatenate([r[0] for r in rows]).astype(np.int32),
                             np.concatenate([r[1] for r in rows]), rng.normal(size=(L, L)), np.zeros(L), np.zeros(L),
                             base_feature=0)
    words = rng.integers(1, V + 2, size=60)
    ids = np.stack([np.zeros_like(words), words], axis=1).ravel().astype(np.int32)
    tok_ptr = np.arange(0, len(ids) + 1, 2, dtype=np.int64)
    check_model(model, tok_ptr, ids, np.array([0, 10, 30, 31, 60], dtype=np.int64))


def test_model_validation():
    T = np.zeros((3, 3))
    z = np.zeros(3)
    with pytest.raises(ConjunctError, match="strictly increasing"):
        LinearChainModel([0, 2], np.array([1, 1], np.int32), [1.0, 2.0], T, z, z)
    with pytest.raises(ConjunctError, match="base feature"):
        LinearChainModel([0, 1], np.array([1], np.int32), [1.0], T, z, z, base_feature=1)
    ok = dict(w_indptr=[0, 1, 2], w_labels=np.array([1, 2], np.int32), w_values=[1.0, 2.0], transitions=T, start=z,
              end=z)
    for size in (0, 3, 6):
        with pytest.raises(ConjunctError, match="power of two"):
            LinearChainModel(**ok, lazy_scores=True, group_size=size)
