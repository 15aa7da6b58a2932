"""Sequence taggers: an averaged structured perceptron and an HMM, both compiled
to a :class:`~conjunct.tagging.chain.LinearChainModel` and decoded in C++."""

from __future__ import annotations

import threading
import time
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .._errors import ConjunctError, DataFormatError, ModelFormatError
from .._params import Params
from ..persistence import Saveable
from ..progress import Slices, bar, say
from .chain import LinearChainModel, check_decoder
from .checks import check_tagger
from ..tokens import as_sentences, tags_of
from .features import FEATURE_VERSION, EncodingCache, Featurizer, _encode_strings

_CACHE_LOCK = threading.Lock()  # guards creating a tagger's encoding cache

__all__ = ["PerceptronTagger", "HMMTagger", "TaggedBatch"]


class TaggedBatch(NamedTuple):
    """Decoded sentences: tags per sentence, each path's score, the decoder's search steps.

    Parameters
    ----------
    tags : list of list of str
        The tags of each sentence.
    scores : ndarray
        Each path's score.
    iterations : ndarray
        The decoder's search steps per sentence.
    """

    tags: List[List[str]]
    scores: np.ndarray
    iterations: np.ndarray


def _check_tags(sentences: Sequence, tags: Sequence, source: str = "<input>") -> None:
    if len(sentences) != len(tags):
        raise DataFormatError(f"{len(sentences)} sentences but {len(tags)} tag sequences", source)
    for k, (s, t) in enumerate(zip(sentences, tags)):
        if isinstance(s, str):
            raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
        if isinstance(t, str) or len(s) != len(t):
            raise DataFormatError(f"sentence {k + 1}: {len(s)} tokens but {1 if isinstance(t, str) else len(t)} tags", source)
        for i, tag in enumerate(t):
            if not isinstance(tag, str) or not tag:
                raise DataFormatError(f"sentence {k + 1}, token {i + 1}: tags must be non-empty strings, got {tag!r}", source)
    if not sentences:
        raise DataFormatError("no training sentences", source)


def _sentences_and_tags(sentences, tags) -> Tuple[list, list]:
    """Tokens and gold tags of any token stream (:mod:`conjunct.tokens`), checked."""
    raw = list(sentences) if not isinstance(sentences, str) else sentences
    tokens = as_sentences(raw)
    tags = tags_of(raw, tags)
    _check_tags(tokens, tags)
    return tokens, tags


def _rank_labels(tags: Sequence[Sequence[str]]) -> Tuple[List[str], Dict[str, int]]:
    """Labels by descending training frequency p(y) (ties by name)."""
    counts: Dict[str, int] = {}
    for t in tags:
        for y in t:
            counts[y] = counts.get(y, 0) + 1
    labels = sorted(counts, key=lambda y: (-counts[y], y))
    return labels, {y: i for i, y in enumerate(labels)}


def _sent_ptr(sentences: Sequence) -> np.ndarray:
    ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sentences], out=ptr[1:])
    return ptr


def _decode_strings(blob: np.ndarray, offsets: np.ndarray) -> List[str]:
    data = bytes(np.asarray(blob, dtype=np.uint8))
    offsets = np.asarray(offsets, dtype=np.int64)
    if len(offsets) == 0 or offsets[0] != 0 or offsets[-1] != len(data) or np.any(np.diff(offsets) < 0):
        raise ValueError("string offsets do not match the blob")
    return [data[offsets[i]:offsets[i + 1]].decode("utf-8", "surrogatepass") for i in range(len(offsets) - 1)]


class _ChainTagger(Saveable, Params):
    """What the taggers share: decoding, scoring, persistence."""

    kind = ""

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise ConjunctError(f"this {type(self).__name__} is not fitted yet; call fit(sentences, tags) first")

    # -- encoding (per tagger) -----------------------------------------------------
    def _encode(self, sentences, *, train: bool = False, source: str = "<input>"):
        raise NotImplementedError

    # -- decoding --------------------------------------------------------------------
    def decode(self, sentences: Sequence[Sequence], *, decoder: Optional[str] = None, beam_width: Optional[int] = None,
               n_jobs: int = 1) -> TaggedBatch:
        """Tag ``sentences`` and report each path's score and the decoder's search steps.

        Parameters
        ----------
        sentences : sequence of token lists (or of per-token feature-string lists)
        decoder : str, optional
            One of :data:`~conjunct.tagging.DECODERS`; the tagger's ``decoder`` by default.
        beam_width : int, optional
            Beam width for ``decoder="beam"``; the tagger's by default.
        n_jobs : int
            Threads (sentences are split between them).
        """
        self._check_fitted()
        decoder = self.decoder if decoder is None else decoder
        beam_width = self.beam_width if beam_width is None else beam_width
        check_decoder(decoder, beam_width)
        sentences = as_sentences(sentences)
        indptr, ids = self._encode(sentences)
        ptr = _sent_ptr(sentences)
        paths, scores, iterations = self.model_.decode_batch(indptr, ids, ptr, decoder, beam_width=beam_width,
                                                             n_jobs=n_jobs)
        labels = self.labels_
        tags = [[labels[y] for y in paths[ptr[i]:ptr[i + 1]].tolist()] for i in range(len(sentences))]
        return TaggedBatch(tags, scores, iterations)

    def predict(self, sentences: Sequence[Sequence], *, decoder: Optional[str] = None,
                beam_width: Optional[int] = None, n_jobs: int = 1) -> List[List[str]]:
        """The tags of every sentence (see :meth:`decode`)."""
        return self.decode(sentences, decoder=decoder, beam_width=beam_width, n_jobs=n_jobs).tags

    def score(self, sentences: Sequence[Sequence], tags=None, *, decoder: Optional[str] = None,
              n_jobs: int = 1) -> float:
        """Token accuracy of the predicted tags against ``tags`` (None / a field
        name: the tags the sentences carry, as in ``fit``)."""
        sentences, tags = _sentences_and_tags(sentences, tags)
        pred = self.predict(sentences, decoder=decoder, n_jobs=n_jobs)
        total = sum(len(t) for t in tags)
        correct = sum(p == g for ps, gs in zip(pred, tags) for p, g in zip(ps, gs))
        return correct / total if total else 0.0

    # -- persistence -------------------------------------------------------------------
    def _extra_meta(self) -> dict:
        return {}

    def to_container(self):
        self._check_fitted()
        blob, offsets = _encode_strings(self.feature_names_)
        arrays = {**self.model_.arrays(), "names_blob": blob, "names_offsets": offsets}
        meta = {"params": self.get_params(), "labels": list(self.labels_), **self._extra_meta()}
        if getattr(self, "tag_field_", None):
            meta["tag_field"] = self.tag_field_
        return self.kind, meta, arrays

    @classmethod
    def check_sections(cls, meta, arrays, where) -> None:
        check_tagger(meta, arrays, where, cls.kind)

    @classmethod
    def from_container(cls, meta: dict, arrays, name: str = "<model>"):
        try:
            tagger = cls(**meta["params"])
            tagger.labels_ = [str(y) for y in meta["labels"]]
            tagger.feature_names_ = _decode_strings(arrays["names_blob"], arrays["names_offsets"])
            tagger._restore(meta)
            if meta.get("tag_field"):
                tagger.tag_field_ = str(meta["tag_field"])
            tagger.model_ = LinearChainModel(arrays["w_indptr"], arrays["w_labels"], arrays["w_values"],
                                             arrays["transitions"], arrays["start"], arrays["end"],
                                             tagger._base_feature())
            if tagger.model_.n_labels != len(tagger.labels_) or tagger.model_.n_features != len(tagger.feature_names_):
                raise ValueError("labels or features do not match the weights")
        except (KeyError, ValueError, TypeError, ConjunctError) as e:
            raise ModelFormatError(f"corrupt {cls.kind.replace('_', ' ')} ({e})", name) from None
        return tagger

    def _restore(self, meta: dict) -> None:
        self._vocab = {f: i for i, f in enumerate(self.feature_names_)}

    def _base_feature(self) -> int:
        """The feature every token carries (see LinearChainModel), or -1."""
        return -1

    def __reduce__(self):
        if not hasattr(self, "model_"):
            return (type(self), (), self.get_params())
        return super().__reduce__()

    def __setstate__(self, state):  # unfitted taggers pickle their parameters only
        self.set_params(**state)

    def info(self) -> dict:
        """A summary of the tagger (what ``conjunct info`` prints)."""
        self._check_fitted()
        return {"kind": self.kind.replace("_", " "), "labels": len(self.labels_), "features": len(self.feature_names_),
                "emission_weights": int(len(self.model_.w_values)), "decoder": self.decoder,
                "most_frequent_labels": list(self.labels_[:10]), "tag_field": getattr(self, "tag_field_", None),
                **self.get_params()}


class PerceptronTagger(_ChainTagger):
    """Averaged structured perceptron tagger (Collins 2002) over feature templates,
    with label-bigram, start and end scores, decoded by any decoder.

    Parameters
    ----------
    decoder : str
        Decoder for training and prediction: ``"staggered-column"`` (staggered
        decoding with column-wise expansion, exact, the fastest), ``"staggered"``,
        ``"viterbi"``, ``"carpediem"`` (exact), ``"beam"``, ``"greedy"`` (approximate).
    beam_width : int
        Width for ``decoder="beam"``.
    n_iter : int
        Training epochs.
    templates : sequence of str, optional
        Feature templates (:data:`~conjunct.tagging.DEFAULT_TEMPLATES` by default);
        ignored for sentences given as feature lists.
    average : bool
        Average the weights over all updates (Collins 2002).
    shuffle : bool
        Visit the training sentences in a new random order each epoch.
    random_state : int
        Seed of the shuffling.
    verbose : bool
        Print one progress line per epoch to standard error.

    Attributes
    ----------
    labels_ : list of str
        Labels by descending training frequency (label id = rank).
    feature_names_ : list of str
        Feature strings by id.
    model_ : LinearChainModel
        The compiled model.
    train_log_ : list of dict
        Per epoch: token errors, sentence errors, decoder search steps, seconds.
    tag_field_ : str, optional
        Which corpus tags it learned (``xpos``, ``upos|feats``, ``joint``, ...),
        set by ``conjunct tag train`` and saved with the model; ``conjunct tag
        eval`` reads the same field by default.
    """

    kind = "perceptron_tagger"

    def __init__(self, decoder: str = "staggered-column", *, beam_width: int = 4, n_iter: int = 10,
                 templates: Optional[Sequence[str]] = None, average: bool = True, shuffle: bool = True,
                 random_state: int = 0, verbose: bool = False):
        self.decoder = decoder
        self.beam_width = beam_width
        self.n_iter = n_iter
        self.templates = templates
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose

    def _featurizer(self) -> Featurizer:
        return Featurizer(None if self.templates is None else list(self.templates))

    def _encode(self, sentences, *, train: bool = False, source: str = "<input>"):
        if train:
            self._vocab, self.feature_names_ = {}, []
            return self._featurizer().encode(sentences, self._vocab, self.feature_names_, source=source)
        featurizer = self._featurizer()
        return featurizer.encode(sentences, self._vocab, source=source, cache=self._encoding_cache(featurizer))

    def _encoding_cache(self, featurizer: Featurizer) -> EncodingCache:
        # Kept between calls (not pickled), remade when the templates or the vocabulary change.
        with _CACHE_LOCK:
            cache = getattr(self, "_cache", None)
            if cache is None or cache.templates != featurizer.templates or cache.vocab is not self._vocab:
                cache = self._cache = EncodingCache(featurizer.templates, self._vocab)
            return cache

    def fit(self, sentences: Sequence[Sequence], tags=None) -> "PerceptronTagger":
        """Train on ``sentences`` and their ``tags``.

        Sentences are token lists, (word, tag) pairs, conllu TokenLists, spaCy
        Docs (:mod:`conjunct.tokens`) or per-token feature lists. ``tags``: a
        list of tag lists, or None / a CoNLL-U field name (``"upos"``,
        ``"xpos"``) to take the tags the sentences carry.
        """
        from .. import _core

        indptr, ids, ptr, gold = self._training_arrays(sentences, tags)
        trainer = _core.PerceptronTrainer(len(self.feature_names_), len(self.labels_))
        rng = np.random.default_rng(self.random_state)
        order = np.arange(len(ptr) - 1, dtype=np.int64)
        slices = Slices()
        with bar(total=(len(ptr) - 1) * int(self.n_iter), desc=f"training {type(self).__name__}",
                 unit=" sentences") as shown:
            for epoch in range(1, int(self.n_iter) + 1):
                if self.shuffle:
                    rng.shuffle(order)
                t0 = time.perf_counter()
                st: dict = {}

                def step(part):  # the trainer carries its state over: slices train as one pass
                    stats = trainer.epoch(indptr, ids, ptr, gold, part, self.decoder, beam_width=int(self.beam_width))
                    for key, value in stats.items():
                        st[key] = st.get(key, 0) + value

                slices.run(step, order, shown)  # Ctrl-C and the bar stay responsive
                self._log_epoch(st, epoch, time.perf_counter() - t0)
        return self._finish(trainer)

    def _training_arrays(self, sentences, tags):
        """Check the parameters and data; set ``labels_`` and the vocabulary;
        (token indptr, feature ids, sentence pointers, gold label ids)."""
        check_decoder(self.decoder, self.beam_width)
        if not isinstance(self.n_iter, (int, np.integer)) or self.n_iter < 1:
            raise ConjunctError(f"n_iter must be a positive integer, got {self.n_iter!r}")
        sentences, tags = _sentences_and_tags(sentences, tags)
        self.labels_, code = _rank_labels(tags)
        self.feature_version_ = FEATURE_VERSION
        indptr, ids = self._encode(sentences, train=True)
        ptr = _sent_ptr(sentences)
        gold = np.fromiter((code[y] for t in tags for y in t), dtype=np.int32, count=int(ptr[-1]))
        return indptr, ids, ptr, gold

    def _log_epoch(self, st: dict, epoch: int, seconds: float) -> None:
        if epoch == 1:
            self.train_log_ = []
        st["epoch"], st["seconds"] = epoch, seconds
        self.train_log_.append(st)
        if self.verbose:
            say(f"epoch {epoch}/{self.n_iter}: token error {st['token_errors'] / max(1, st['tokens']):.4f}, "
                f"sentence error {st['sentence_errors'] / max(1, st['sentences']):.4f}, "
                f"{st['iterations'] / max(1, st['sentences']):.2f} search steps/sentence ({self.decoder}), "
                f"{st['seconds']:.2f} s")

    def _finish(self, trainer) -> "PerceptronTagger":
        """The model of a trainer's state (averaged if ``average``)."""
        self.model_ = LinearChainModel(*trainer.export_weights(averaged=bool(self.average)),
                                      base_feature=self._base_feature())
        self.n_iter_ = int(self.n_iter)
        return self

    def _base_feature(self) -> int:
        # The bias template's feature (on in every token), when the templates have it.
        return self._vocab.get("bias=", -1)

    def _extra_meta(self) -> dict:
        return {"train_log": getattr(self, "train_log_", []), "feature_version": self.feature_version_}

    def _restore(self, meta: dict) -> None:
        super()._restore(meta)
        self.train_log_ = list(meta.get("train_log", []))
        version = meta.get("feature_version", 1)  # files of version 1 do not say
        if version != FEATURE_VERSION:
            raise ValueError(f"saved with feature version {version!r}; this version of conjunct reads feature "
                             f"version {FEATURE_VERSION} only: retrain the tagger (conjunct tag train)")
        self.feature_version_ = FEATURE_VERSION


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

    def _encode(self, sentences, *, train: bool = False, source: str = "<input>"):
        # Feature 0 carries every label's unseen-pair score, feature 1 the unknown word's.
        get = self._vocab.get
        ids: List[int] = []
        for k, sent in enumerate(sentences):
            if isinstance(sent, str):
                raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
            for i, w in enumerate(sent):
                if not isinstance(w, str) or not w:
                    raise DataFormatError(f"sentence {k + 1}, token {i + 1}: an HMM needs word tokens (non-empty "
                                          f"strings), got {w!r}", source)
                ids.append(0)
                ids.append(get(w, 1))
        indptr = np.arange(0, len(ids) + 1, 2, dtype=np.int64)
        return indptr, np.asarray(ids, dtype=np.int32)

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
        :mod:`conjunct.tokens`; ``tags`` as for :meth:`PerceptronTagger.fit`),
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
        self._vocab = {w: i + 2 for i, w in enumerate(counts.words)}
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

    def _restore(self, meta: dict) -> None:
        self._vocab = {w: i + 2 for i, w in enumerate(self.feature_names_[2:])}
        # Files from before "auto" smoothing hold the numbers in the parameters.
        a, b = meta.get("smoothing", [self.transition_smoothing, self.emission_smoothing])
        self.transition_smoothing_, self.emission_smoothing_ = float(a), float(b)
        self.smoothing_scores_ = list(meta.get("smoothing_scores", []))
