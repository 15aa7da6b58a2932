"""Iterative parameter mixing for :class:`~conjunct.training.PAClassifier`
(kernel models): each epoch every worker trains one pass over its shard from
the current mixed support set, and the driver mixes the shards' coefficients
over the union of their support vectors.

A support vector is a set of features; shards that add the same set add the
same support vector. Mixing takes the weighted mean of every support
vector's coefficients alpha (a shard without it counts zero) and of its
averaged coefficients, as :mod:`conjunct.dask.mixing` does for the tagger;
the rounds move on by every shard's examples. The mixed state goes back to
the trainer as its update log (two updates per support vector and output:
one that weighs nothing in the average, one that weighs one round), which
the trainer replays exactly as it does when a pickled estimator resumes.
With one shard nothing is mixed: the shard's own log is passed on, and the
model is :meth:`PAClassifier.fit`'s, bit for bit.
"""

from __future__ import annotations

import copy
from typing import Optional

import numpy as np

from .._errors import ConjunctError
from ._cluster import connect
from .mixing import _ranges, check_mix, deal

__all__ = ["train_classifier", "mix_supports"]


def _rows(indptr, indices, labels, rows: np.ndarray) -> tuple:
    n = np.diff(indptr)[rows]
    sub = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(n, out=sub[1:])
    return sub, indices[_ranges(indptr[rows], n)], labels[rows]


def _writable(v):
    if isinstance(v, dict):
        return {k: _writable(x) for k, x in v.items()}
    return v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v


def _pa_shard_epoch(shell, shard, saved, order, n_features: int, keep_log: bool):
    """On a worker: one pass over the shard from ``saved`` (None: empty); the
    new state as a log (``keep_log``) or as (support set, alpha, averaged alpha, rounds)."""
    indptr, indices, labels = shard
    if saved is not None:  # arrays that arrive zero-copy are read-only; the trainer's binding wants writable ones
        saved = {k: _writable(v) for k, v in saved.items()}
    if saved is None:
        trainer = shell._new_trainer()
        trainer.ensure_features(n_features)
    else:
        trainer = shell._load_trainer(saved)
    trainer.run(indptr=indptr, indices=indices, labels=labels, order=order)
    stats = dict(trainer.stats())
    if keep_log:
        return shell._save_trainer(trainer), stats
    sv_indptr, sv_indices, alpha, _ = trainer.export(average=False)
    averaged = trainer.export(average=True)[2]
    return (sv_indptr, sv_indices, alpha, averaged, int(trainer.rounds)), stats


def mix_supports(states, weights, rounds_before: int, n_features: int) -> dict:
    """The weighted mean of shards' support sets, as a trainer's saved state.

    Parameters
    ----------
    states : sequence of tuple
        Per shard ``(sv_indptr, sv_indices, alpha (n_sv, K), averaged alpha, rounds)``.
    weights : sequence of float
        Each shard's weight (summing to 1).
    rounds_before : int
        Rounds of the state every shard started from.
    n_features : int
        Internal features of the trainer.

    Returns
    -------
    dict
        What ``PAClassifier._load_trainer`` takes.
    """
    K = states[0][2].shape[1]
    index: dict = {}
    members = []
    for sv_indptr, sv_indices, _, _, _ in states:
        ids = np.empty(len(sv_indptr) - 1, dtype=np.int64)
        for i in range(len(ids)):
            key = sv_indices[sv_indptr[i]:sv_indptr[i + 1]].tobytes()
            ids[i] = index.setdefault(key, len(index))
        members.append(ids)
    U = len(index)
    alpha, averaged = np.zeros((U, K)), np.zeros((U, K))
    for (_, _, a, g, _), ids, m in zip(states, members, weights):
        np.add.at(alpha, ids, m * a)
        np.add.at(averaged, ids, m * g)
    rounds = int(rounds_before + sum(s[4] - rounds_before for s in states))
    beta = rounds * (alpha - averaged)  # the averaged coefficient is alpha - beta / rounds
    keys = list(index)
    sv_indptr = np.zeros(U + 1, dtype=np.int64)
    np.cumsum([len(k) // 4 for k in keys], out=sv_indptr[1:])
    sv_indices = np.frombuffer(b"".join(keys), dtype=np.int32).copy()  # writable: the binding takes no read-only arrays
    # Per (support vector, output): tau = alpha - beta at round 1 (weight 0 in the average), tau = beta at round 2.
    sv, out = np.nonzero((alpha != 0) | (beta != 0))
    taus = np.stack([alpha[sv, out] - beta[sv, out], beta[sv, out]], axis=1).ravel()
    keep = taus != 0
    events = dict(sv=np.repeat(sv, 2).astype(np.int32)[keep], pos=np.repeat(out, 2).astype(np.int32)[keep],
                  neg=np.full(int(keep.sum()), -1, dtype=np.int32), tau=taus[keep],
                  round=np.tile(np.array([1, 2], dtype=np.int64), len(sv))[keep])
    return dict(events=events, sv_indptr=sv_indptr, sv_indices=sv_indices, rounds=rounds,
                n_features=n_features)


def train_classifier(estimator, X, y, *, client, n_shards: Optional[int] = None, mix: str = "uniform"):
    """Fit a :class:`~conjunct.training.PAClassifier` by iterative parameter mixing.

    The driver encodes the features (as :meth:`fit` does), deals the examples
    into ``n_shards`` shards (example i to shard i mod n_shards), sends each
    to a worker once, and every epoch shuffles all examples with the
    estimator's seed (as :meth:`fit` does); each shard visits its own in that
    order from the mixed state of the epoch before.

    Parameters
    ----------
    estimator : PAClassifier
        Its parameters are used; it is fitted in place.
    X, y
        As for :meth:`PAClassifier.fit`.
    client, n_shards, mix
        As for :func:`~conjunct.dask.train_tagger`: the cluster, the shards (one
        per worker by default; one gives exactly ``fit``'s model), their weights.

    Returns
    -------
    PAClassifier
        ``estimator``, fitted (``n_shards_`` says how many shards).
    """
    from ..training import PAClassifier

    if not isinstance(estimator, PAClassifier):
        raise ConjunctError(f"train_classifier trains a PAClassifier, not a {type(estimator).__name__}")
    check_mix(mix)
    est = estimator
    params = est._validated()
    M, y, _ = est._begin(X, y, None, True, params)  # no sample weights: shards mix uniformly or by size
    trainer, indptr, indices, labels = est._training_rows(M, y)
    n, F = len(indptr) - 1, int(trainer.n_features)
    shell = copy.copy(est)
    shell._trainer = shell._saved_trainer = None
    with connect(client) as c:
        members, weights, homes, shards = deal(c, n, n_shards, mix, lambda m: _rows(indptr, indices, labels, m))
        S = len(shards)
        shell_f = c.scatter(shell, broadcast=True)
        saved, rounds = None, 0
        for _ in range(int(params["n_iter"])):
            order = est._rng.permutation(n).astype(np.int64) if est.shuffle else np.arange(n, dtype=np.int64)
            # in a list: a scattered dict would become one future per key, named by the key
            state = None if saved is None else c.scatter([saved], broadcast=True)[0]
            futures = [c.submit(_pa_shard_epoch, shell_f, shard, state, order[order % S == k] // S, F, S == 1,
                                workers=home, pure=False) for k, (shard, home) in enumerate(zip(shards, homes))]
            results = c.gather(futures)
            saved = results[0][0] if S == 1 else mix_supports([r[0] for r in results], weights, rounds, F)
            rounds = int(saved["rounds"])
            est._epochs_done += 1
    est._trainer = est._load_trainer(saved)
    est.n_iter_ = est._epochs_done
    est.stats_ = est._trainer.stats()
    est.n_shards_ = S
    est._publish()
    return est
