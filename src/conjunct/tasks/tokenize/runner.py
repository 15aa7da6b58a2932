"""The tokenizer's decisions over many texts (:class:`TokenizerRunner`): the
character gaps of a batch in one C++ call (features from the UTF-8 text and
decisions, without the GIL), then the token ends with one classifier call;
and the same one decision at a time over feature strings
(:func:`tokenize_reference`, the specification it is tested against)."""

from __future__ import annotations

import time
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..._jobs import resolve_n_jobs
from ..runner import Runner, check_classifier, events_matrix
from ..segment.features import boundary_features
from ..segment.runner import boundary_engine, text_buffers
from .features import SentenceEncoder, gap_spec, piece_features, sentence_features, space_mask
from .oracle import TOKEN, WORD, decided_gaps
from .reader import TokenizedText

__all__ = ["TokenizerRunner", "tokenize_reference", "assemble"]

def assemble(text: str, gap_class: dict, sentence_end) -> TokenizedText:
    """Tokens, words and sentences of ``text`` from the class of each decided gap
    (``gap_class``: gap -> "0"/"1"/"2") and ``sentence_end(spans) -> list of bool``
    (per token but the last: a sentence ends after it)."""
    spans: List[Tuple[int, int]] = []
    cuts: List[List[int]] = []
    start = None
    for i, ch in enumerate(text):
        if ch.isspace():
            if start is not None:
                spans.append((start, i))
                start = None
            continue
        if start is None:
            start = i
            cuts.append([])
            continue
        c = gap_class.get(i)
        if c == TOKEN:
            spans.append((start, i))
            start = i
            cuts.append([])
        elif c == WORD:
            cuts[-1].append(i)
    if start is not None:
        spans.append((start, len(text)))
    words = []
    for (a, b), cs in zip(spans, cuts):
        edges = [a, *cs, b]
        words.append(tuple(text[x:y] for x, y in zip(edges, edges[1:])))
    lengths: List[int] = []
    if spans:
        ends = list(sentence_end(spans)) + [True]
        n = 0
        for e in ends:
            n += 1
            if e:
                lengths.append(n)
                n = 0
    return TokenizedText(text, spans, words, lengths)


def assemble_arrays(text: str, gaps: np.ndarray, classes: np.ndarray) -> TokenizedText:
    """:func:`assemble` of the decided ``gaps`` and their ``classes`` with numpy
    (no sentence ends yet: one sentence)."""
    if not text:
        return TokenizedText(text)
    word = np.asarray(space_mask(text) == False)  # noqa: E712 (an array)
    edges = np.diff(np.concatenate(([False], word, [False])).astype(np.int8))
    run_starts, run_ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    cut = gaps[classes == TOKEN] if len(gaps) else gaps
    starts = np.sort(np.concatenate((run_starts, cut))).tolist()
    ends = np.sort(np.concatenate((run_ends, cut))).tolist()
    inner = (gaps[classes == WORD] if len(gaps) else gaps)
    spans = list(zip(starts, ends))
    words: List[Tuple[str, ...]] = [(text[a:b],) for a, b in spans]
    if len(inner):
        owner = np.searchsorted(np.asarray(starts), inner, side="right") - 1
        by_token: dict = {}
        for k, c in zip(owner.tolist(), inner.tolist()):
            by_token.setdefault(k, []).append(c)
        for k, cs in by_token.items():
            a, b = spans[k]
            e = [a, *cs, b]
            words[k] = tuple(text[x:y] for x, y in zip(e, e[1:]))
    return TokenizedText(text, spans, words, [len(spans)] if spans else [])


class TokenizerRunner(Runner):
    """Batched gap and token-end decisions with two compiled classifiers."""

    COUNTERS = ("boundary_decisions", "sentence_decisions", "classifier_seconds", "encode_seconds")

    def __init__(self, boundary, sentence, *, ngram: int = 3, dictionary=None, links: bool = False,
                 link_spans: bool = False, type_ngram: Optional[int] = None, early_exit: bool = True, n_jobs: int = 1):
        check_classifier(boundary, "tokenizer's boundary", rules=("sign", "argmax", "ovo"))
        check_classifier(sentence, "tokenizer's sentence", rules=("sign",))
        super().__init__([boundary, sentence])
        self.boundary, self.sentence = boundary, sentence
        self.early_exit = early_exit
        self.n_jobs = n_jobs
        self.features = boundary_engine(boundary.features, gap_spec(ngram, dictionary is not None, links, link_spans, type_ngram),
                                        "tokenizer's boundary", dictionary)
        self._sentence_encoder: Optional[SentenceEncoder] = None
        self.gap_classes = np.asarray([str(c) for c in boundary.rule.classes], dtype=object)
        self.end_class = [str(c) for c in sentence.rule.classes].index("1")

    @property
    def sentence_encoder(self) -> SentenceEncoder:
        """Built at the first sentence decision: a pipeline given tokens never needs it, and building it
        looks up (and so decodes) the sentence component's feature strings."""
        if self._sentence_encoder is None:
            self._sentence_encoder = SentenceEncoder(self.sentence.features)
        return self._sentence_encoder

    def _predict(self, clf, indptr, cols) -> np.ndarray:
        t0 = time.perf_counter()
        out = clf.compiled.predict_batch(indptr=indptr, indices=cols, n_threads=resolve_n_jobs(self.n_jobs),
                                         early_exit=bool(self.early_exit))
        self.count(classifier_seconds=time.perf_counter() - t0)
        return np.asarray(out)

    def classify_gaps(self, texts: Sequence[str], *, collect: bool = False):
        """Per text, (its decided gaps, their classes) (and, with ``collect``, the rows as events)."""
        clf = self.boundary
        blob, offsets = text_buffers(texts)
        gaps, ptr, codes, events, feature_s, classify_s = self.features.classify(
            classifier=clf.compiled, early_exit=bool(self.early_exit),
            n_threads=resolve_n_jobs(self.n_jobs), text=blob, offsets=offsets, gaps="inner", collect=collect)
        self.count(encode_seconds=feature_s, classifier_seconds=classify_s, boundary_decisions=len(gaps))
        names = self.gap_classes[codes]
        out = [(gaps[a:b], names[a:b]) for a, b in zip(ptr.tolist(), ptr[1:].tolist())]
        if not collect:
            return out
        return out, events_matrix(events[0], events[1], len(clf.features))

    def classify_ends(self, items: Sequence[Tuple[str, Sequence[Tuple[int, int]]]], *, collect: bool = False):
        """Per (text, token spans), whether a sentence ends after each token but the last."""
        t0 = time.perf_counter()
        indptr, cols = self.sentence_encoder.encode(items)
        n_rows = len(indptr) - 1
        self.count(encode_seconds=time.perf_counter() - t0, sentence_decisions=n_rows)
        ends = (self._predict(self.sentence, indptr, cols) == self.end_class) if n_rows else np.zeros(0, dtype=bool)
        out, k = [], 0
        for _, spans in items:
            n = max(len(spans) - 1, 0)
            out.append(ends[k:k + n].tolist())
            k += n
        if not collect:
            return out
        return out, _events(indptr, cols, len(self.sentence.features))

    def run(self, texts: Sequence[str], *, collect: bool = False, timing: bool = False):
        """The :class:`TokenizedText` of every text (with ``collect``, also the
        events of both components)."""
        originals = list(texts)
        # Decisions are taken on each text without its leading and trailing
        # whitespace, as the training paragraphs have none: a window at the
        # text's ends then sees the padding it was trained with.
        texts, shifts = _stripped(originals)
        got = self.classify_gaps(texts, collect=collect)
        gap_classes, gap_events = got if collect else (got, None)
        token_only = [assemble_arrays(t, g, c) for t, (g, c) in zip(texts, gap_classes)]
        got = self.classify_ends([(t.text, t.spans) for t in token_only], collect=collect)
        ends, sent_events = got if collect else (got, None)
        out = [_shifted(_with_sentences(t, e), o, k) for t, e, o, k in zip(token_only, ends, originals, shifts)]
        return (out, gap_events, sent_events) if collect else out


def _events(indptr, cols, width):
    """The classified rows as events, features the model does not know (-1) left out."""
    keep = cols >= 0
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))[keep]
    kept = np.zeros(len(indptr), dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(indptr) - 1), out=kept[1:])
    return events_matrix(kept, cols[keep], width)


def _stripped(texts: Sequence[str]):
    """(each text without leading / trailing whitespace, the length of its leading whitespace)."""
    out, shifts = [], []
    for t in texts:
        core = t.strip()
        out.append(core)
        shifts.append(t.index(core[0]) if core else 0)
    return out, shifts


def _shifted(t: TokenizedText, original: str, shift: int) -> TokenizedText:
    """``t`` (of a stripped text) as the tokenization of ``original``."""
    if shift:
        t.spans = [(a + shift, b + shift) for a, b in t.spans]
    t.text = original
    return t


def _with_sentences(t: TokenizedText, ends: Sequence[bool]) -> TokenizedText:
    lengths, n = [], 0
    for e in list(ends) + [True]:
        n += 1
        if e:
            lengths.append(n)
            n = 0
    t.sentence_lengths = lengths if t.spans else []
    return t


def tokenize_reference(boundary, sentence, texts: Sequence[str], ngram: int = 3, dictionary=None,
                       links: bool = False, link_spans: bool = False,
                       type_ngram: Optional[int] = None) -> List[TokenizedText]:
    """Tokenization with one ``predict_one`` per decision over the feature strings
    (slow; the reference the batched runner is tested against)."""
    out = []
    originals = list(texts)
    texts, shifts = _stripped(originals)
    for text, original, shift in zip(texts, originals, shifts):
        classes = {int(b): str(boundary.predict_one(boundary_features(text, int(b), ngram, dictionary, type_ngram)
                                                    + piece_features(text, int(b), links, link_spans)))
                   for b in decided_gaps(text)}
        out.append(_shifted(assemble(text, classes, lambda spans: [str(sentence.predict_one(sentence_features(text, spans, k)))
                                                                   == "1" for k in range(len(spans) - 1)]), original, shift))
    return out
