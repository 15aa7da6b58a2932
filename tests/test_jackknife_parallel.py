"""Jackknife folds trained in parallel give the serial run's tags."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from conjunct import ConjunctError
from conjunct.analysis import jackknife_tags
from conjunct.tagging import PerceptronTagger


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    words, tags = [], []
    for _ in range(n):
        s = [vocab[i] for i in rng.integers(0, 60, size=rng.integers(3, 12))]
        words.append(s)
        # a tag that depends on the word and its left neighbour, with noise
        tags.append([("A" if int(w[1:]) % 3 else "B") + ("x" if j and s[j - 1] < w else "y")
                     if rng.random() > 0.1 else "C" for j, w in enumerate(s)])
    return words, tags


def test_parallel_folds_equal_serial():
    words, tags = _data()
    order, threads = [], set()

    def record(f, tagger, held):
        order.append(f)

    class Tagger(PerceptronTagger):
        def fit(self, sentences, tags):
            threads.add(threading.get_ident())
            return super().fit(sentences, tags)

    serial, folds = jackknife_tags(lambda: Tagger(n_iter=3), words, tags, 4)
    parallel, folds2 = jackknife_tags(lambda: Tagger(n_iter=3), words, tags, 4, n_jobs=2, on_fold=record)
    assert parallel == serial
    assert np.array_equal(folds, folds2)
    assert order == [0, 1, 2, 3]
    assert len(threads) >= 2  # the serial thread and at least one worker
    auto, _ = jackknife_tags(lambda: Tagger(n_iter=3), words, tags, 4, n_jobs=-1)
    assert auto == serial


def test_n_jobs_is_checked_and_errors_propagate():
    words, tags = _data(20)
    with pytest.raises(ConjunctError, match="n_jobs"):
        jackknife_tags(lambda: PerceptronTagger(n_iter=1), words, tags, 2, n_jobs=0)

    class Broken(PerceptronTagger):
        def fit(self, sentences, tags):
            raise ValueError("broken fold")

    with pytest.raises(ValueError, match="broken fold"):
        jackknife_tags(lambda: Broken(n_iter=1), words, tags, 3, n_jobs=2)
