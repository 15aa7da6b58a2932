"""Jackknifed tags: the tags a tagger predicts on training sentences it never
saw, so that the stages after it are trained on tags as noisy as the ones they
will read on new text (k-fold: each fold is tagged by a tagger trained on the
other k - 1)."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import ConjunctError

__all__ = ["fold_of", "jackknife_tags", "fold_jobs", "collect"]


def fold_of(n: int, k: int, random_state: int = 0) -> np.ndarray:
    """The fold (0..k-1) of each of ``n`` sentences: a seeded shuffle cut into k
    near-equal parts.

    Parameters
    ----------
    n : int
        Sentences.
    k : int
        Folds (at least 2, at most ``n``).
    random_state : int
        Seed of the shuffle.
    """
    if not isinstance(k, (int, np.integer)) or k < 2:
        raise ConjunctError(f"jackknifing needs at least 2 folds, got {k!r}")
    if n < k:
        raise ConjunctError(f"{n} training sentences cannot be cut into {k} folds")
    order = np.random.default_rng(random_state).permutation(n)
    folds = np.empty(n, dtype=np.int64)
    folds[order] = np.arange(n) % k
    return folds


def fold_jobs(make_tagger: Callable[[], object], sentences: Sequence, tags: Sequence[Sequence[str]], folds: np.ndarray,
              *, keep: bool = False) -> List[Tuple[int, Callable[[], tuple]]]:
    """One call per fold ``f``: fit ``make_tagger()`` on the other folds' sentences
    and tag fold ``f``; it returns ``(held-out indices, their tags, tagger or
    None)`` -- the tagger only with ``keep``, else it is freed at once. The
    calls share ``sentences`` and ``tags`` (lists of references, no copies)."""
    k = int(folds.max()) + 1 if folds.size else 0

    def job(f: int) -> Callable[[], tuple]:
        def run() -> tuple:
            held, train = np.flatnonzero(folds == f), np.flatnonzero(folds != f)
            tagger = make_tagger().fit([sentences[i] for i in train], [tags[i] for i in train])
            out = tagger.predict([sentences[i] for i in held])
            return held, out, tagger if keep else None
        return run

    return [(f, job(f)) for f in range(k)]


def collect(results: Sequence[tuple], n: int) -> List[List[str]]:
    """Every sentence's jackknifed tags from the fold calls' results."""
    predicted: List[Optional[List[str]]] = [None] * n
    for held, tags_of_held, _ in results:
        for i, t in zip(held.tolist(), tags_of_held):
            predicted[i] = t
    missing = [i for i, p in enumerate(predicted) if p is None]
    if missing:
        raise ConjunctError(f"sentence {missing[0] + 1} was in no fold")
    return predicted  # type: ignore[return-value]


def jackknife_tags(make_tagger: Callable[[], object], sentences: Sequence, tags: Sequence[Sequence[str]], k: int, *,
                   random_state: int = 0, verbose: int = 0,
                   on_fold: Optional[Callable[[int, object, np.ndarray], None]] = None,
                   n_jobs: Optional[int] = 1) -> Tuple[List[List[str]], np.ndarray]:
    """(predicted tags of every sentence, fold of every sentence): fold ``f`` is
    tagged by ``make_tagger()`` fitted on the sentences of the other folds.

    Parameters
    ----------
    make_tagger : callable
        Returns a new unfitted tagger (``fit(sentences, tags)``, ``predict(sentences)``).
    sentences, tags : sequences
        The training sentences and their gold tags.
    k : int
        Folds (at least 2).
    random_state : int
        Seed of the assignment of sentences to folds.
    verbose : int
        One line per fold on standard error.
    on_fold : callable, optional
        Called as ``on_fold(f, tagger, held_out_indices)`` after each fold's
        tagger is trained (tests check that it never saw its fold), in fold order.
    n_jobs : int or None
        Folds trained at once, in threads (their training runs in C++ without
        the GIL); -1: one per CPU. Each fold's tagger is the one the serial
        run trains: the folds share nothing but the read-only data.
    """
    from .schedule import run_jobs

    sentences, tags = list(sentences), list(tags)
    folds = fold_of(len(sentences), k, random_state)
    jobs = _jobs(n_jobs, k)
    calls = fold_jobs(make_tagger, sentences, tags, folds, keep=on_fold is not None)
    t0 = time.perf_counter()
    results = run_jobs([(f"fold {f + 1}", call, 1.0) for f, call in calls], jobs, desc="jackknife folds")
    ordered = [results[f"fold {f + 1}"] for f in range(k)]
    predicted = collect(ordered, len(sentences))
    for f, (held, _, tagger) in enumerate(ordered):
        if on_fold is not None:
            on_fold(f, tagger, held)
        if verbose:
            right = sum(p == g for i in held for p, g in zip(predicted[i], tags[i]))
            total = sum(len(tags[i]) for i in held)
            print(f"jackknife fold {f + 1}/{k}: {len(held):,} sentences tagged by a tagger trained on "
                  f"{len(sentences) - len(held):,}, accuracy {right / max(1, total):.4f}", file=sys.stderr, flush=True)
    if verbose:
        print(f"jackknife: {k} folds in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return predicted, folds


def _jobs(n_jobs: Optional[int], k: int) -> int:
    if n_jobs is None or n_jobs == -1:
        return max(1, min(k, os.cpu_count() or 1))
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ConjunctError(f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}")
    return int(min(n_jobs, k))
