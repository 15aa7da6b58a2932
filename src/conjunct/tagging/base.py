"""What the sequence taggers share: checked training data, label ranks,
decoding, scoring and persistence of a :class:`~conjunct.tagging.chain.LinearChainModel`."""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .._errors import ConjunctError, DataFormatError, ModelFormatError
from .._params import Params
from ..io.persistence import Saveable
from ..io.tokens import as_sentences, tags_of
from .chain import LinearChainModel, check_decoder
from .checks import check_tagger

__all__ = ["TaggedBatch"]


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
    """Tokens and gold tags of any token stream (:mod:`conjunct.io.tokens`), checked."""
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


def _encode_strings(strings: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    """UTF-8 bytes of ``strings`` (lone surrogates kept) as one uint8 blob, and offsets into it."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


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
    def _encode(self, sentences, *, source: str = "<input>"):
        """Every token's feature ids (CSR indptr, ids)."""
        raise NotImplementedError

    def _tag(self, sentences, decoder: str, beam_width: int, n_jobs: int):
        """(paths, scores, iterations) of the sentences."""
        indptr, ids = self._encode(sentences)
        return self.model_.decode_batch(indptr, ids, _sent_ptr(sentences), decoder, beam_width=beam_width,
                                        n_jobs=n_jobs)

    # -- decoding --------------------------------------------------------------------
    def decode(self, sentences: Sequence[Sequence], *, decoder: Optional[str] = None, beam_width: Optional[int] = None,
               n_jobs: int = 1) -> TaggedBatch:
        """Tag ``sentences`` and report each path's score and the decoder's search steps.

        Parameters
        ----------
        sentences : sequence of token lists (any form of :mod:`conjunct.io.tokens`)
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
        ptr = _sent_ptr(sentences)
        paths, scores, iterations = self._tag(sentences, decoder, beam_width, n_jobs)
        flat = np.asarray(self.labels_, dtype=object)[paths].tolist()
        tags = [flat[b:e] for b, e in zip(ptr[:-1].tolist(), ptr[1:].tolist())]
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

    def _feature_arrays(self) -> Tuple[dict, dict]:
        """(meta, arrays) of the tagger's features in its model file."""
        raise NotImplementedError

    def to_container(self):
        self._check_fitted()
        feature_meta, feature_arrays = self._feature_arrays()
        arrays = {**self.model_.arrays(), **feature_arrays}
        meta = {"params": self.get_params(), "labels": list(self.labels_), **self._extra_meta(), **feature_meta}
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
            tagger._restore(meta, arrays)
            if meta.get("tag_field"):
                tagger.tag_field_ = str(meta["tag_field"])
            tagger.model_ = LinearChainModel(arrays["w_indptr"], arrays["w_labels"], arrays["w_values"],
                                             arrays["transitions"], arrays["start"], arrays["end"],
                                             tagger._base_feature())
            if tagger.model_.n_labels != len(tagger.labels_) or tagger.model_.n_features != tagger._n_features():
                raise ValueError("labels or features do not match the weights")
            tagger._loaded()
        except (KeyError, ValueError, TypeError, ConjunctError) as e:
            raise ModelFormatError(f"corrupt {cls.kind.replace('_', ' ')} ({e})", name) from None
        return tagger

    def _restore(self, meta: dict, arrays) -> None:
        """The tagger's features and extra state from its file."""
        raise NotImplementedError

    def _n_features(self) -> int:
        return len(self.feature_names_)

    def _loaded(self) -> None:
        """Anything built from the restored model (called once it is complete)."""

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
        return {"kind": self.kind.replace("_", " "), "labels": len(self.labels_), "features": self._n_features(),
                "emission_weights": int(len(self.model_.w_values)), "decoder": self.decoder,
                "most_frequent_labels": list(self.labels_[:10]), "tag_field": getattr(self, "tag_field_", None),
                **self.get_params()}
