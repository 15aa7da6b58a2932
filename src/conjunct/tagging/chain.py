"""Linear-chain score tables and the decoders over them (all in C++).

Every decoder sees the same score interface: an emission table ``E`` of shape
``(n_tokens, n_labels)`` (start and end scores folded into its first and last
rows) and a transition matrix ``T[prev, cur]``; a path's score is
``sum_n E[n, y_n] + sum_{n>0} T[y_{n-1}, y_n]``. Labels should be numbered by
descending training frequency: staggered decoding activates them in that order
(it is exact for any order, but fast only when frequent labels come first).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from .. import _core
from .._errors import ConjunctError
from .._jobs import resolve_n_jobs

__all__ = ["DECODERS", "EXACT_DECODERS", "ChainDecoder", "Decoded", "check_decoder"]

#: Every decoder: the exact ones, then the approximate ones.
DECODERS = ("viterbi", "staggered", "staggered-column", "carpediem", "beam", "greedy")
#: The decoders that always return a best-scoring path.
EXACT_DECODERS = ("viterbi", "staggered", "staggered-column", "carpediem")


def check_decoder(decoder: str, beam_width: int) -> None:
    """Raise ``ConjunctError`` for an unknown decoder or a bad beam width."""
    if decoder not in DECODERS:
        raise ConjunctError(f"unknown decoder {decoder!r} (choose from {', '.join(DECODERS)})")
    if isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer)) or beam_width < 1:
        raise ConjunctError(f"beam_width must be a positive integer, got {beam_width!r}")


class Decoded(NamedTuple):
    """One decoded sentence: label ids, the path's score and the decoder's search steps.

    Parameters
    ----------
    path : ndarray of int
        The label id of each token.
    score : float
        The path's score.
    iterations : int
        The decoder's search steps (1 for Viterbi).
    """

    path: np.ndarray
    score: float
    iterations: int


def _finite(name: str, a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ConjunctError(f"{name} must be finite (no NaN or infinity)")
    return a


class ChainDecoder:
    """Decoders for raw score tables with one fixed transition matrix.

    Parameters
    ----------
    transitions : array of shape (n_labels, n_labels)
        ``transitions[prev, cur]``; finite.

    Examples
    --------
    >>> import numpy as np
    >>> dec = ChainDecoder(np.array([[0.0, -1.0], [-1.0, 0.0]]))
    >>> dec.decode(np.array([[1.0, 0.0], [0.0, 0.5]]), "staggered-column").path.tolist()
    [0, 0]
    """

    def __init__(self, transitions):
        T = _finite("transitions", transitions)
        if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] == 0:
            raise ConjunctError(f"transitions must be a non-empty square matrix, got shape {T.shape}")
        self.transitions = T
        L = T.shape[0]
        self._core = _core.make_chain_model(np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0), T,
                                            np.zeros(L), np.zeros(L))

    @property
    def n_labels(self) -> int:
        """Number of labels L."""
        return self.transitions.shape[0]

    def _table(self, emissions) -> np.ndarray:
        E = _finite("emissions", emissions)
        if E.ndim != 2 or E.shape[1] != self.n_labels:
            raise ConjunctError(f"emissions must have shape (n_tokens, {self.n_labels}), got {E.shape}")
        return E

    def decode(self, emissions, decoder: str = "staggered-column", beam_width: int = 4) -> Decoded:
        """The best path (exact decoders) or an approximation (beam, greedy)."""
        check_decoder(decoder, beam_width)
        path, score, iterations = self._core.decode_emissions(self._table(emissions), decoder,
                                                              beam_width=int(beam_width))
        return Decoded(path, float(score), int(iterations))

    def path_score(self, emissions, path) -> float:
        """The score of ``path`` (label ids) under ``emissions``."""
        return float(self._core.path_score(self._table(emissions), np.ascontiguousarray(path, dtype=np.int32)))


class LinearChainModel:
    """A compiled linear-chain model: sparse emission weights per feature id
    (labels strictly increasing within a feature), transitions, start and end
    scores (labels in rank order). Immutable.

    ``base_feature`` names a feature that nearly every token carries and that
    weighs every label (a perceptron's bias, an HMM's row of unseen-pair
    scores); staggered decoding then bounds each token's inactive labels from
    the other features' weights alone, without computing all its scores. It
    changes no score. -1: none.

    Parameters
    ----------
    w_indptr, w_labels, w_values : ndarray
        Emission weights in CSR layout: feature f weighs labels
        ``w_labels[w_indptr[f]:w_indptr[f + 1]]`` by the matching ``w_values``.
    transitions : ndarray, shape (L, L)
        Score of label j following label i.
    start, end : ndarray, shape (L,)
        Scores of a path's first and last label.
    base_feature : int
        See above.
    lazy_scores : bool
        Staggered decoding computes a token's scores group by group from
        per-feature bounds (True) or its full row at once (False, the default:
        faster on every tagger measured, see docs/tagging.md). Exact either way.
    group_size : int
        Labels per group of the bound tables (a power of two).
    """

    def __init__(self, w_indptr, w_labels, w_values, transitions, start, end, base_feature: int = -1, *,
                 lazy_scores: bool = False, group_size: int = 8):
        self.w_indptr = np.ascontiguousarray(w_indptr, dtype=np.int64)
        self.w_labels = np.ascontiguousarray(w_labels, dtype=np.int32)
        self.w_values = _finite("emission weights", w_values)
        self.transitions = _finite("transitions", transitions)
        self.start = _finite("start scores", start)
        self.end = _finite("end scores", end)
        self.base_feature = int(base_feature)
        self.lazy_scores = bool(lazy_scores)
        self.group_size = int(group_size)
        try:
            self._core = _core.make_chain_model(self.w_indptr, self.w_labels, self.w_values, self.transitions,
                                                self.start, self.end, base_feature=self.base_feature,
                                                lazy_scores=self.lazy_scores, group_size=self.group_size)
        except (ValueError, TypeError) as e:
            raise ConjunctError(f"bad linear-chain model: {e}") from None

    @property
    def n_labels(self) -> int:
        """Number of labels L."""
        return self.transitions.shape[0]

    @property
    def n_features(self) -> int:
        """Number of feature ids with emission weights."""
        return len(self.w_indptr) - 1

    @property
    def compiled(self) -> _core.ChainModel:
        """The core's handle of this model (what the C++ pipelines decode with)."""
        return self._core

    def arrays(self) -> dict:
        """The model's arrays by name (the sections of its model file)."""
        return {"w_indptr": self.w_indptr, "w_labels": self.w_labels, "w_values": self.w_values,
                "transitions": self.transitions, "start": self.start, "end": self.end}

    def with_options(self, **options) -> "LinearChainModel":
        """The same model with other decoding options (``lazy_scores``, ``group_size``)."""
        kw = {"lazy_scores": self.lazy_scores, "group_size": self.group_size, **options}
        return LinearChainModel(self.w_indptr, self.w_labels, self.w_values, self.transitions, self.start, self.end,
                                self.base_feature, **kw)

    def decode_batch(self, indptr, ids, sent_ptr, decoder: str, *, beam_width: int = 4, n_jobs: int = 1):
        """(paths, scores, iterations) of every sentence (token rows [sent_ptr[i], sent_ptr[i+1]))."""
        check_decoder(decoder, beam_width)
        return self._core.decode_batch(indptr, ids, sent_ptr, decoder, beam_width=int(beam_width),
                                       n_threads=resolve_n_jobs(n_jobs))

    def tag(self, features, text, offsets, sent_ptr, decoder: str, *, beam_width: int = 4, n_jobs: int = 1):
        """(paths, scores, iterations) of sentences of tokens ``text[offsets[i]:offsets[i + 1]]``
        (UTF-8): ``features`` (a ``_core.TokenFeatures`` over this model's feature ids) and
        decoding in one C++ call."""
        check_decoder(decoder, beam_width)
        return self._core.tag(features, text, offsets, sent_ptr, decoder, beam_width=int(beam_width),
                              n_threads=resolve_n_jobs(n_jobs))

    def emissions(self, indptr, ids) -> np.ndarray:
        """The emission table of one sentence (start and end scores folded in)."""
        return self._core.emissions(indptr, ids)

    def decoder(self) -> ChainDecoder:
        """A :class:`ChainDecoder` over this model's transitions."""
        return ChainDecoder(self.transitions)
