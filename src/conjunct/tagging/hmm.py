"""A first-order HMM tagger (maximum-likelihood estimates, additive smoothing),
compiled to a :class:`~conjunct.tagging.chain.LinearChainModel` and decoded in C++."""

from __future__ import annotations

from typing import Dict, NamedTuple, Sequence

import numpy as np

from .._errors import ConjunctError, DataFormatError
from .base import _ChainTagger, _encode_strings, _decode_strings, _rank_labels, _sent_ptr, _sentences_and_tags
from .chain import LinearChainModel, check_decoder
from .features import TokenFeatures, attribute_value, spec_of, token_buffers
from ..features.spec import MAX_PARTS, FeatureKeys

__all__ = ["HMMTagger", "TRANSITION_GRID", "EMISSION_GRID"]


class _HMMCounts(NamedTuple):
    """What maximum-likelihood estimation of an HMM needs from tagged sentences."""

    words: Dict[str, int]     # word -> index, in order of appearance
    trans: np.ndarray         # (L, L) counts of (previous, current) label
    start: np.ndarray         # (L,) first labels
    end: np.ndarray           # (L,) last labels
    pair_word: np.ndarray     # distinct (word, label) pairs ...
    pair_label: np.ndarray
    pair_count: np.ndarray    # ... and their counts
    label_total: np.ndarray   # (L,) tokens per label
    hapax: np.ndarray         # (L,) tokens of words seen once, per label


def _hmm_counts(sentences, y: np.ndarray, L: int) -> _HMMCounts:
    words: Dict[str, int] = {}
    for k, sent in enumerate(sentences):
        for i, w in enumerate(sent):
            if not isinstance(w, str) or not w:
                raise DataFormatError(f"sentence {k + 1}, token {i + 1}: an HMM needs word tokens (non-empty "
                                      f"strings), got {w!r}")
            words.setdefault(w, len(words))
    wid = np.fromiter((words[w] for s in sentences for w in s), dtype=np.int64, count=len(y))
    ptr = _sent_ptr(sentences)
    nonempty = np.diff(ptr) > 0
    first, last = ptr[:-1][nonempty], ptr[1:][nonempty] - 1
    inner = np.ones(len(y), dtype=bool)
    inner[first] = False
    prev_idx = np.flatnonzero(inner)
    trans = np.bincount(y[prev_idx - 1] * L + y[prev_idx], minlength=L * L).reshape(L, L).astype(np.float64)
    keys, counts = np.unique(wid * L + y, return_counts=True)
    word_total = np.bincount(wid, minlength=len(words))
    return _HMMCounts(words, trans, np.bincount(y[first], minlength=L).astype(np.float64),
                      np.bincount(y[last], minlength=L).astype(np.float64), keys // L, keys % L, counts,
                      np.bincount(y, minlength=L).astype(np.float64),
                      np.bincount(y[word_total[wid] == 1], minlength=L).astype(np.float64))


def _hmm_model(c: _HMMCounts, a: float, b: float) -> LinearChainModel:
    """The HMM of counts `c` with additive smoothing `a` (transitions) and `b`
    (emissions), as a linear-chain model: feature 0 holds every label's
    unseen-pair score, feature 1 the unknown word's, feature 2 + w word w's."""
    L, V = len(c.label_total), len(c.words)
    out_total = c.trans.sum(axis=1) + c.end + a * (L + 1)
    T = np.log(c.trans + a) - np.log(out_total)[:, None]
    S = np.log(c.start + a) - np.log(c.start.sum() + a * L)
    F = np.log(c.end + a) - np.log(out_total)
    # Emissions, sparse: base[y] for unseen pairs, plus log((count + b) / b) for seen ones.
    base = np.log(b) - np.log(c.label_total + b * (V + 1))
    hapax = c.hapax
    rows = np.concatenate([np.zeros(L, np.int64), np.ones(int(np.count_nonzero(hapax)), np.int64), c.pair_word + 2])
    labs = np.concatenate([np.arange(L), np.flatnonzero(hapax), c.pair_label])
    vals = np.concatenate([base, np.log(hapax[hapax > 0] + b) - np.log(b), np.log(c.pair_count + b) - np.log(b)])
    order = np.lexsort((labs, rows))
    w_indptr = np.zeros(V + 3, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=V + 2), out=w_indptr[1:])
    return LinearChainModel(w_indptr, labs[order], vals[order], T, S, F, base_feature=0)


_WORD_SPEC = spec_of(["w"])

#: Smoothing values tried when chosen on held-out data ("auto").
TRANSITION_GRID = (1e-3, 1e-2, 0.1, 1.0)
EMISSION_GRID = (1e-4, 1e-3, 1e-2, 0.1, 1.0)


class HMMTagger(_ChainTagger):
    """First-order HMM tagger: maximum-likelihood estimates with additive smoothing.

    Scores are log probabilities: ``log p(y_1 | BOS)``, ``log p(y_n | y_{n-1})``,
    ``log p(EOS | y_N)`` and ``log p(x_n | y_n)``. Transitions are smoothed with
    ``transition_smoothing`` added to every count (EOS included as an outcome);
    emissions with ``emission_smoothing`` over the training vocabulary plus one
    unknown word, whose count per label is the number of words seen once with it
    (words that occur once are the best guess of what an unseen word is).

    With ``"auto"`` (the default) the smoothing is chosen on held-out data:
    every tenth training sentence is held out, the HMM of the other nine tenths
    is decoded on it for every value of :data:`TRANSITION_GRID` x
    :data:`EMISSION_GRID`, and the most accurate pair (ties: the larger
    smoothing) is used to estimate the final model from all sentences. A
    fixed amount suits large tag sets badly: the smoothing mass of the whole
    vocabulary swamps the counts of rare labels.

    Parameters
    ----------
    decoder, beam_width : see :class:`PerceptronTagger`
    transition_smoothing : float or "auto"
        Added to every transition count.
    emission_smoothing : float or "auto"
        Added to every emission count.

    Attributes
    ----------
    transition_smoothing_, emission_smoothing_ : float
        The smoothing used.
    smoothing_scores_ : list of dict
        With "auto": the held-out accuracy of every pair tried.
    """

    kind = "hmm_tagger"

    def __init__(self, decoder: str = "staggered-column", *, beam_width: int = 4, transition_smoothing="auto",
                 emission_smoothing="auto"):
        self.decoder = decoder
        self.beam_width = beam_width
        self.transition_smoothing = transition_smoothing
        self.emission_smoothing = emission_smoothing

    def _encode(self, sentences, *, source: str = "<input>"):
        # Feature 0 carries every label's unseen-pair score, feature 1 the unknown
        # word's. Words are looked up by the C++ token engine (one template, the
        # word itself), so encoding costs no Python work per token.
        indptr_w, ids_w = self._word_features().core.extract(*token_buffers(sentences, source))
        n = len(indptr_w) - 1
        ids = np.ones(2 * n, dtype=np.int32)
        ids[0::2] = 0
        word = ids[1::2]
        word[np.diff(indptr_w) > 0] = ids_w + 2
        return np.arange(0, 2 * n + 1, 2, dtype=np.int64), ids

    def _word_features(self) -> TokenFeatures:
        """The C++ lookup of the vocabulary: key k is word ``feature_names_[k + 2]``."""
        if getattr(self, "_words_engine", None) is None:
            words = self.feature_names_[2:]
            codes = np.full((len(words), MAX_PARTS), -1, dtype=np.int32)
            codes[:, 0] = np.arange(len(words), dtype=np.int32)
            keys = FeatureKeys(_WORD_SPEC, [[attribute_value("w", w) for w in words]],
                               np.zeros(len(words), dtype=np.int32), codes)
            self._words_engine = TokenFeatures(keys)
        return self._words_engine

    @staticmethod
    def _grid(value, grid, name):
        if isinstance(value, str) and value == "auto":
            return tuple(grid)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0 \
                or not np.isfinite(value):
            raise ConjunctError(f"{name} must be a positive number or 'auto', got {value!r}")
        return (float(value),)

    def fit(self, sentences: Sequence[Sequence[str]], tags=None) -> "HMMTagger":
        """Estimate the HMM from tagged sentences of word tokens (any form of
        :mod:`conjunct.io.tokens`; ``tags`` as for :meth:`PerceptronTagger.fit`),
        choosing the smoothing first if "auto"."""
        check_decoder(self.decoder, self.beam_width)
        grid_a = self._grid(self.transition_smoothing, TRANSITION_GRID, "transition_smoothing")
        grid_b = self._grid(self.emission_smoothing, EMISSION_GRID, "emission_smoothing")
        sentences, tags = _sentences_and_tags(sentences, tags)
        self.labels_, code = _rank_labels(tags)
        L = len(self.labels_)
        y = np.fromiter((code[t] for ts in tags for t in ts), dtype=np.int64)
        a, b = grid_a[0], grid_b[0]
        self.smoothing_scores_ = []
        if len(grid_a) * len(grid_b) > 1 and len(sentences) >= 10:
            a, b = self._choose_smoothing(sentences, y, L, grid_a, grid_b)
        counts = _hmm_counts(sentences, y, L)
        self.transition_smoothing_, self.emission_smoothing_ = a, b
        self.feature_names_ = ["<all>", "<unknown>"] + list(counts.words)
        self._words_engine = None
        self.model_ = _hmm_model(counts, a, b)
        return self

    def _choose_smoothing(self, sentences, y, L, grid_a, grid_b):
        ptr = _sent_ptr(sentences)
        held = np.zeros(len(sentences), dtype=bool)
        held[9::10] = True
        in_held = np.repeat(held, np.diff(ptr))
        fit_sents = [s for s, h in zip(sentences, held) if not h]
        test_sents = [s for s, h in zip(sentences, held) if h]
        counts = _hmm_counts(fit_sents, y[~in_held], L)
        vocab = counts.words
        ids = np.array([[0, vocab[w] + 2 if w in vocab else 1] for s in test_sents for w in s], dtype=np.int32)
        indptr = np.arange(0, 2 * len(ids) + 1, 2, dtype=np.int64)
        test_ptr = _sent_ptr(test_sents)
        gold = y[in_held]
        best = None
        for a in sorted(grid_a, reverse=True):
            for b in sorted(grid_b, reverse=True):
                paths, _, _ = _hmm_model(counts, a, b).decode_batch(indptr, ids.reshape(-1), test_ptr, "staggered-column")
                acc = float(np.mean(paths == gold)) if len(gold) else 0.0
                self.smoothing_scores_.append({"transition_smoothing": a, "emission_smoothing": b, "accuracy": acc})
                if best is None or acc > best[0]:
                    best = (acc, a, b)
        return best[1], best[2]

    def _extra_meta(self) -> dict:
        return {"smoothing": [self.transition_smoothing_, self.emission_smoothing_],
                "smoothing_scores": self.smoothing_scores_}

    def _base_feature(self) -> int:
        return 0  # every token carries the row of unseen-pair scores

    def _feature_arrays(self):
        blob, offsets = _encode_strings(self.feature_names_)
        return {}, {"names_blob": blob, "names_offsets": offsets}

    def _restore(self, meta: dict, arrays) -> None:
        self.feature_names_ = _decode_strings(arrays["names_blob"], arrays["names_offsets"])
        self._words_engine = None
        # Files from before "auto" smoothing hold the numbers in the parameters.
        a, b = meta.get("smoothing", [self.transition_smoothing, self.emission_smoothing])
        self.transition_smoothing_, self.emission_smoothing_ = float(a), float(b)
        self.smoothing_scores_ = list(meta.get("smoothing_scores", []))
