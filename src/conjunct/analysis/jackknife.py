"""Jackknifed tags: the tags a tagger predicts on training sentences it never
saw, so that the stages after it are trained on tags as noisy as the ones they
will read on new text (k-fold: each fold is tagged by a tagger trained on the
other k - 1)."""

from __future__ import annotations

import sys
import time
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import ConjunctError

__all__ = ["fold_of", "jackknife_tags"]


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


def jackknife_tags(make_tagger: Callable[[], object], sentences: Sequence, tags: Sequence[Sequence[str]], k: int, *,
                   random_state: int = 0, verbose: int = 0,
                   on_fold: Optional[Callable[[int, object, np.ndarray], None]] = None) -> Tuple[List[List[str]], np.ndarray]:
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
        tagger is trained (tests check that it never saw its fold).
    """
    sentences, tags = list(sentences), list(tags)
    folds = fold_of(len(sentences), k, random_state)
    predicted: List[Optional[List[str]]] = [None] * len(sentences)
    for f in range(k):
        t0 = time.perf_counter()
        held = np.flatnonzero(folds == f)
        train = np.flatnonzero(folds != f)
        tagger = make_tagger().fit([sentences[i] for i in train], [tags[i] for i in train])
        if on_fold is not None:
            on_fold(f, tagger, held)
        for i, t in zip(held.tolist(), tagger.predict([sentences[i] for i in held])):
            predicted[i] = t
        if verbose:
            right = sum(p == g for i in held for p, g in zip(predicted[i], tags[i]))
            total = sum(len(tags[i]) for i in held)
            print(f"jackknife fold {f + 1}/{k}: {len(held):,} sentences tagged by a tagger trained on {len(train):,}, "
                  f"accuracy {right / max(1, total):.4f}, {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return predicted, folds  # type: ignore[return-value]
