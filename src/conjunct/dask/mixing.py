"""Distributed training by iterative parameter mixing (McDonald, Hall and Mann
2010): every epoch each worker trains one pass over its shard starting from
the current mixed parameters, and the driver averages what comes back.

The perceptron tagger's whole training state is mixed: the weights ``w`` and
the averaging sums ``u`` (the averaged weight is ``w - u / c``; ``c`` counts
the examples seen). Mixing takes the weighted mean of the weights and of the
averaged weights, and moves ``c`` on by every shard's examples, so the mixed
state's averaged weights are the mean of the shards' averaged weights. With
one shard nothing is mixed, and the epochs, shuffles and updates are those of
:meth:`PerceptronTagger.fit`: the same model, bit for bit.
"""

from __future__ import annotations

import time
from typing import Optional, Sequence, Tuple

import numpy as np

from .._errors import ConjunctError
from ._cluster import connect

__all__ = ["train_tagger", "mix_states", "MIXES", "check_mix", "deal"]

#: How shards are weighted: equally, or by their number of sentences.
MIXES = ("uniform", "size")


def _shard_epoch(shard, state, order, n_features: int, n_labels: int, decoder: str, beam_width: int):
    """On a worker: one pass over the shard from ``state`` (None: zeros); (new state, counts)."""
    from .. import _core

    indptr, ids, ptr, gold = shard
    trainer = _core.PerceptronTrainer(n_features, n_labels)
    if state is not None:
        trainer.set_state(*state)
    stats = dict(trainer.epoch(indptr, ids, ptr, gold, order, decoder, beam_width=beam_width))
    return trainer.state(), stats


def mix_states(states: Sequence[tuple], weights: Sequence[float], c_before: float) -> tuple:
    """The weighted mean of perceptron trainer states (see the module's docstring).

    Parameters
    ----------
    states : sequence of tuple
        ``PerceptronTrainer.state()`` of every shard after its pass.
    weights : sequence of float
        Each shard's weight (summing to 1).
    c_before : float
        ``c`` of the state every shard started from.

    Returns
    -------
    tuple
        A state for ``PerceptronTrainer.set_state``.
    """
    if len(states) == 1:
        return states[0]
    mu = np.asarray(weights, dtype=np.float64)
    F = len(states[0][0]) - 1
    L = states[0][4].shape[0]
    cs = [float(s[10]) for s in states]
    c = c_before + sum(ck - c_before for ck in cs)
    keys, w, avg = [], [], []
    for s, m, ck in zip(states, mu, cs):
        indptr, labels, sw, su = s[0], s[1], s[2], s[3]
        rows = np.repeat(np.arange(F, dtype=np.int64), np.diff(indptr))
        keys.append(rows * L + labels)
        w.append(m * sw)
        avg.append(m * (sw - su / ck))
    uniq, inv = np.unique(np.concatenate(keys), return_inverse=True)
    w_mix = np.bincount(inv, weights=np.concatenate(w), minlength=len(uniq))
    a_mix = np.bincount(inv, weights=np.concatenate(avg), minlength=len(uniq))
    indptr = np.zeros(F + 1, dtype=np.int64)
    np.cumsum(np.bincount(uniq // L, minlength=F), out=indptr[1:])
    out = [indptr, (uniq % L).astype(np.int32), w_mix, c * (w_mix - a_mix)]
    for k in (4, 6, 8):  # transitions, start, end: dense, with their u
        wk = sum(m * s[k] for s, m in zip(states, mu))
        ak = sum(m * (s[k] - s[k + 1] / ck) for s, m, ck in zip(states, mu, cs))
        out += [wk, c * (wk - ak)]
    return tuple(out) + (c,)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indices ``starts[i] .. starts[i] + lengths[i] - 1`` of every i, concatenated."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - ends + lengths, lengths) + np.arange(int(ends[-1]) if len(ends) else 0)


def _shard(indptr, ids, ptr, gold, sentences: np.ndarray) -> tuple:
    """The training arrays of the given sentences (in that order)."""
    lengths = np.diff(ptr)[sentences]
    tokens = _ranges(ptr[sentences], lengths)
    n_feats = np.diff(indptr)[tokens]
    sub_indptr = np.zeros(len(tokens) + 1, dtype=np.int64)
    np.cumsum(n_feats, out=sub_indptr[1:])
    sub_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=sub_ptr[1:])
    return sub_indptr, ids[_ranges(indptr[tokens], n_feats)], sub_ptr, gold[tokens]


def check_mix(mix: str) -> None:
    """Raise ConjunctError unless ``mix`` is one of :data:`MIXES`."""
    if mix not in MIXES:
        raise ConjunctError(f"mix must be one of {', '.join(MIXES)}, got {mix!r}")


def deal(client, n: int, n_shards: Optional[int], mix: str, make_shard) -> Tuple[list, np.ndarray, list, list]:
    """Examples 0..n-1 dealt round-robin into shards (example i to shard i mod
    S; S = ``n_shards``, by default one per worker), each made by
    ``make_shard(indices)`` and sent once to its worker: (members, weights,
    worker of each shard, shard futures)."""
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    S = int(n_shards) if n_shards is not None else len(workers)
    if S < 1:
        raise ConjunctError(f"n_shards must be at least 1, got {n_shards!r}")
    S = min(S, n)
    members = [np.arange(k, n, S, dtype=np.int64) for k in range(S)]
    sizes = np.array([len(m) for m in members], dtype=np.float64)
    weights = sizes / sizes.sum() if mix == "size" else np.full(S, 1.0 / S)
    homes = [[workers[k % len(workers)]] for k in range(S)]
    # in a list: a scattered tuple or dict would become one future per item
    shards = [client.scatter([make_shard(m)], workers=home)[0] for m, home in zip(members, homes)]
    return members, weights, homes, shards


def train_tagger(tagger, sentences: Sequence[Sequence], tags: Sequence[Sequence[str]], *, client,
                 n_shards: Optional[int] = None, mix: str = "uniform"):
    """Fit a :class:`~conjunct.tagging.PerceptronTagger` by iterative parameter mixing.

    The driver builds the vocabulary and labels (as :meth:`fit` does), deals
    the sentences into ``n_shards`` shards (sentence i to shard i mod
    n_shards: every shard sees every part of a corpus ordered by source or
    genre) and sends each to a worker once. Every epoch it shuffles all
    sentences with the tagger's seed (as :meth:`fit` does) and each shard
    visits its own in that order, starting from the mixed state of the epoch
    before.

    Parameters
    ----------
    tagger : PerceptronTagger
        Its parameters (decoder, epochs, averaging, shuffling, seed) are used; it is fitted in place.
    sentences, tags : sequences
        As for :meth:`PerceptronTagger.fit`.
    client : distributed.Client or str
        The cluster (see :func:`~conjunct.dask.connect`).
    n_shards : int, optional
        Shards (default: one per worker). One shard gives exactly ``fit``'s model.
    mix : {"uniform", "size"}
        Weight the shards equally or by their sentences.

    Returns
    -------
    PerceptronTagger
        ``tagger``, fitted; ``train_log_`` sums the shards' counts per epoch.
    """
    from .. import _core
    from ..tagging.taggers import PerceptronTagger

    if not isinstance(tagger, PerceptronTagger):
        raise ConjunctError(f"train_tagger trains a PerceptronTagger, not a {type(tagger).__name__}")
    check_mix(mix)
    indptr, ids, ptr, gold = tagger._training_arrays(sentences, tags)
    n_sent, F, L = len(ptr) - 1, len(tagger.feature_names_), len(tagger.labels_)
    with connect(client) as c:
        members, weights, homes, shards = deal(c, n_sent, n_shards, mix, lambda m: _shard(indptr, ids, ptr, gold, m))
        S = len(shards)
        rng = np.random.default_rng(tagger.random_state)
        order = np.arange(n_sent, dtype=np.int64)
        state, c_before = None, 1.0
        for epoch in range(1, int(tagger.n_iter) + 1):
            if tagger.shuffle:
                rng.shuffle(order)
            t0 = time.perf_counter()
            shared = None if state is None else c.scatter([state], broadcast=True)[0]  # one future, not one per item
            futures = [c.submit(_shard_epoch, shard, shared, order[order % S == k] // S, F, L, tagger.decoder,
                                int(tagger.beam_width), workers=home, pure=False)
                       for k, (shard, home) in enumerate(zip(shards, homes))]
            results = c.gather(futures)
            state = mix_states([r[0] for r in results], weights, c_before)
            c_before = float(state[10])
            stats = {k: sum(r[1][k] for r in results) for k in results[0][1]}
            tagger._log_epoch(stats, epoch, time.perf_counter() - t0)
    trainer = _core.PerceptronTrainer(F, L)
    trainer.set_state(*state)
    tagger.n_shards_ = S
    return tagger._finish(trainer)
