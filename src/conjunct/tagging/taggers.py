"""Sequence taggers: an averaged structured perceptron over the feature
engine's token templates (features and decoding of a batch in one C++ call),
and an HMM (:mod:`conjunct.tagging.hmm`), both compiled to a
:class:`~conjunct.tagging.chain.LinearChainModel`."""

from __future__ import annotations

import time
from typing import Optional, Sequence

import numpy as np

from .. import _core
from .._errors import ConjunctError, ModelFormatError
from ..features.spec import FeatureKeys
from ..io.persistence import nested
from ..progress import Slices, bar, say
from .base import TaggedBatch, _ChainTagger, _rank_labels, _sent_ptr, _sentences_and_tags
from .chain import LinearChainModel, check_decoder
from .features import FEATURE_VERSION, Featurizer, TokenFeatures, token_buffers
from .hmm import HMMTagger

__all__ = ["PerceptronTagger", "HMMTagger", "TaggedBatch"]


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
        Feature templates (:data:`~conjunct.tagging.DEFAULT_TEMPLATES` by default).
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
    feature_keys_ : FeatureKeys
        Every feature's template and values (what the model file stores).
    feature_names_ : list of str
        Feature names by id, generated from the template spec.
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

    def _encode(self, sentences, *, source: str = "<input>"):
        return self._features.encode(sentences, source)

    def _tag(self, sentences, decoder: str, beam_width: int, n_jobs: int):
        return self.model_.tag(self._features.core, *token_buffers(sentences), decoder, beam_width=beam_width,
                               n_jobs=n_jobs)

    @property
    def feature_names_(self):
        """Feature names by id, generated from the template spec (on first use)."""
        if not hasattr(self, "feature_keys_"):  # set with the training arrays, before the model
            self._check_fitted()
        if getattr(self, "_names", None) is None:
            self._names = self.feature_keys_.names()
        return self._names

    @property
    def compiled_features(self) -> "_core.TokenFeatures":
        """The tagger's token-feature engine in the core (its templates' keys
        compiled): what a C++ pipeline that tags takes, beside ``model_.compiled``."""
        return self._features.core

    def _n_features(self) -> int:
        return len(self.feature_keys_)

    def fit(self, sentences: Sequence[Sequence], tags=None) -> "PerceptronTagger":
        """Train on ``sentences`` and their ``tags``.

        Sentences are token lists, (word, tag) pairs, conllu TokenLists, spaCy
        Docs (:mod:`conjunct.io.tokens`). ``tags``: a
        list of tag lists, or None / a CoNLL-U field name (``"upos"``,
        ``"xpos"``) to take the tags the sentences carry.
        """
        from .. import _core

        indptr, ids, ptr, gold = self._training_arrays(sentences, tags)
        trainer = _core.PerceptronTrainer(len(self.feature_keys_), len(self.labels_))
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
        self.feature_keys_, indptr, ids = self._featurizer().build(sentences)
        self._names = None
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
        self._loaded()
        return self

    def _loaded(self) -> None:
        try:
            self._features = TokenFeatures(self.feature_keys_)
        except ValueError as e:  # the file's checks passed, the C++ extractor's did not
            raise ModelFormatError(f"section keys: {e}") from None

    def _base_feature(self) -> int:
        # The bias template's feature (on in every token), when the templates have it.
        spec = self.feature_keys_.spec
        if "bias" not in spec._by_name:
            return -1
        ids = np.flatnonzero(self.feature_keys_.template_of == spec.index("bias"))
        return int(ids[0]) if len(ids) else -1

    def _extra_meta(self) -> dict:
        return {"train_log": getattr(self, "train_log_", []), "feature_version": self.feature_version_}

    def _feature_arrays(self):
        meta, arrays = self.feature_keys_.to_arrays()
        return {"keys": meta}, {f"keys.{k}": v for k, v in arrays.items()}

    def _restore(self, meta: dict, arrays) -> None:
        self.train_log_ = list(meta.get("train_log", []))
        self.feature_version_ = FEATURE_VERSION
        self.feature_keys_ = FeatureKeys.from_arrays(meta["keys"], nested(arrays, "keys"))
        if self.feature_keys_.spec != Featurizer(self.templates).spec:
            raise ValueError("the feature keys' template spec is not that of the tagger's templates")
        self._names = None

