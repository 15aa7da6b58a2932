"""A deterministic generator of Zipfian, NLP-like classification data.

The examples imitate the decisions of a dependency parser: a *head* and a
*modifier* token (word, tag, suffix), their distance, tags between them, and
neighbouring words. Words follow a Zipf law; tags and suffixes are functions of
the words (correlated templates); neighbouring words are Zipfian noise. The
label depends on conjunctions: a pure pairwise interaction of the two tags and
a pure three-way interaction of the two tags and the distance (both centred so
that lower-order models cannot see them), plus a weak unigram effect and label
noise. On the default settings a degree-2 model clearly beats a linear one,
and degree 3 beats degree 2.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np

__all__ = ["make_zipf_data"]

_DISTANCES = ("1", "2-5", "6+")


def _zipf_probs(n: int, a: float) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** a
    return p / p.sum()


def _centre(table: np.ndarray) -> np.ndarray:
    """Remove every lower-order marginal, leaving a pure interaction."""
    t = table.copy()
    for axis in range(t.ndim):
        t -= t.mean(axis=axis, keepdims=True)
    return t


def make_zipf_data(
    n_samples: int = 2000,
    *,
    n_classes: int = 2,
    n_words: int = 3000,
    n_tags: int = 10,
    n_suffixes: int = 40,
    zipf_a: float = 1.1,
    unigram_strength: float = 0.4,
    pair_strength: float = 1.0,
    triple_strength: float = 1.4,
    label_noise: float = 0.03,
    context: int = 1,
    seed: int = 0,
) -> Tuple[List[List[str]], np.ndarray]:
    """Generate Zipfian NLP-like examples whose labels depend on feature conjunctions.

    Parameters
    ----------
    n_samples : int
        Number of examples.
    n_classes : int
        2 gives labels -1/+1; more gives labels 0..n_classes-1.
    n_words, n_tags, n_suffixes : int
        Vocabulary sizes of the word, tag and suffix templates.
    zipf_a : float
        Zipf exponent of word (and tag) frequencies.
    unigram_strength, pair_strength, triple_strength : float
        Scale of the label's dependence on single tags, on the pair of tags, and
        on the triple (head tag, modifier tag, distance).
    label_noise : float
        Probability that a label is replaced by a random one.
    context : int
        Neighbouring words (word and tag features) on each side of the head and
        the modifier; more context gives longer, still Zipfian, feature vectors.
    seed : int
        Everything (the hidden "grammar" and the samples) derives from it: the
        same seed gives the same data. The grammar does not depend on
        ``n_samples``, so a longer run extends a shorter one's distribution.

    Returns
    -------
    features : list of list of str
        Active features of each example (``"h.w=w17"``, ``"dist=2-5"``, ...).
    y : numpy.ndarray of int
        Labels.
    """
    if n_samples < 0:
        raise ValueError("n_samples must be >= 0")
    if n_classes < 2:
        raise ValueError("n_classes must be >= 2")
    if not 0.0 <= label_noise <= 1.0:
        raise ValueError("label_noise must be in [0, 1]")
    if context < 1:
        raise ValueError("context must be >= 1")
    grammar = np.random.default_rng([seed, 0])
    rng = np.random.default_rng([seed, 1])
    n_out = 1 if n_classes == 2 else n_classes
    tag_of_word = grammar.choice(n_tags, size=n_words, p=_zipf_probs(n_tags, 0.8))
    suffix_of_word = grammar.integers(0, n_suffixes, size=n_words)
    uni_h = grammar.normal(size=(n_out, n_tags)) * unigram_strength
    uni_m = grammar.normal(size=(n_out, n_tags)) * unigram_strength
    pair = np.stack([_centre(grammar.normal(size=(n_tags, n_tags))) for _ in range(n_out)]) * pair_strength
    triple = np.stack([_centre(grammar.normal(size=(n_tags, n_tags, len(_DISTANCES)))) for _ in range(n_out)]) * triple_strength
    word_p = _zipf_probs(n_words, zipf_a)

    def words(k):
        return rng.choice(n_words, size=k, p=word_p)

    h, m = words(n_samples), words(n_samples)
    h_prev = [words(n_samples) for _ in range(context)]
    m_next = [words(n_samples) for _ in range(context)]
    # Tags are mostly a function of the word (ambiguous 10% of the time).
    def tags(w):
        t = tag_of_word[w].copy()
        flip = rng.random(len(w)) < 0.1
        t[flip] = rng.integers(0, n_tags, size=int(flip.sum()))
        return t

    ht, mt = tags(h), tags(m)
    dist = rng.choice(len(_DISTANCES), size=n_samples, p=[0.45, 0.4, 0.15])
    n_between = np.where(dist == 0, 0, rng.integers(0, 4, size=n_samples))
    score = uni_h[:, ht] + uni_m[:, mt] + pair[:, ht, mt] + triple[:, ht, mt, dist]
    if n_out == 1:
        y = np.where(score[0] > 0, 1, -1)
        classes = np.array([-1, 1])
    else:
        y = np.argmax(score, axis=0)
        classes = np.arange(n_classes)
    noisy = rng.random(n_samples) < label_noise
    y[noisy] = rng.choice(classes, size=int(noisy.sum()))
    tag_p = _zipf_probs(n_tags, zipf_a)
    features: List[List[str]] = []
    for i in range(n_samples):
        row = [
            f"h.w=w{h[i]}", f"h.t=T{ht[i]}", f"h.s=s{suffix_of_word[h[i]]}",
            f"m.w=w{m[i]}", f"m.t=T{mt[i]}", f"m.s=s{suffix_of_word[m[i]]}",
            f"dist={_DISTANCES[dist[i]]}",
        ]
        for k in range(context):
            row += [f"h-{k + 1}.w=w{h_prev[k][i]}", f"h-{k + 1}.t=T{tag_of_word[h_prev[k][i]]}",
                    f"m+{k + 1}.w=w{m_next[k][i]}", f"m+{k + 1}.t=T{tag_of_word[m_next[k][i]]}"]
        between = sorted(set(rng.choice(n_tags, size=n_between[i], p=tag_p).tolist()))
        row.extend(f"btw.t=T{t}" for t in between)
        features.append(row)
    return features, y.astype(np.int64)
