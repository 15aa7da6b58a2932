"""Text chunking in the YamCha style (Kudo & Matsumoto 2001) on CoNLL-2000.

Each token gets one multi-class decision (its IOB2 chunk tag), left to right.
Its features are the words and POS tags in a window of +-2 tokens (static,
computed once per token and cached as feature ids) plus the two previous
decisions ("t[-1]=B-NP", "t[-2]=I-NP": YamCha's dynamic features). Because
each decision feeds the next one's features, the loop is sequential; it runs
in C++ (``cpp/src/yamcha_chunk.cpp``) and calls the compiled classifier
directly with the GIL released. Training uses the gold previous tags.

Scores are chunk precision / recall / F1 exactly as ``conlleval`` counts them
(:func:`conlleval_chunks`: a chunk starts at ``B-X``, at ``I-X`` after ``O``
or after a chunk of another type, and ends before ``B``, ``O`` or a type
change).
"""

from __future__ import annotations

import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..corpora import window_features

__all__ = [
    "conlleval_chunks",
    "chunk_scores",
    "token_features",
    "dynamic_features",
    "training_examples",
    "ChunkEncoder",
    "YamchaChunker",
    "chunk_reference",
    "Chunker",
]

COLUMNS = ("w", "p")


# -- conlleval ---------------------------------------------------------------------------------------------
def _split(tag: str) -> Tuple[str, str]:
    """conlleval's split of a tag into (prefix, type): "B-NP" -> ("B", "NP"), "O" -> ("O", "")."""
    prefix, sep, kind = tag.partition("-")
    return (prefix, kind) if sep else (tag, "")


def _end_of_chunk(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    """conlleval's endOfChunk: whether a chunk ended at the previous token."""
    end = (prev_tag, tag) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
    if prev_tag not in ("O", ".") and prev_type != kind:
        end = True
    return end or prev_tag in ("]", "[")


def _start_of_chunk(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    """conlleval's startOfChunk: whether a chunk starts at the current token."""
    start = (prev_tag, tag) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
    if tag not in ("O", ".") and prev_type != kind:
        start = True
    return start or tag in ("[", "]")


def conlleval_chunks(tags: Sequence[str]) -> List[Tuple[str, int, int]]:
    """The chunks of one sentence as ``(type, start, end)`` (end exclusive), as
    ``conlleval`` finds them: a sentence boundary acts as an ``O``, and an
    ``I-X`` without a ``B-X`` before it starts a chunk."""
    chunks = []
    prev_tag, prev_type = "O", ""
    start = None
    for i, tag in enumerate(list(tags) + ["O"]):
        t, kind = _split(tag)
        if start is not None and _end_of_chunk(prev_tag, t, prev_type, kind):
            chunks.append((prev_type, start, i))
            start = None
        if i < len(tags) and _start_of_chunk(prev_tag, t, prev_type, kind):
            start = i
        prev_tag, prev_type = t, kind
    return chunks


def chunk_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict:
    """conlleval's overall figures: chunk precision, recall, F1 (fractions, not
    percent), token accuracy, and the chunk counts."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted")
    correct = found_gold = found_pred = tokens = tokens_ok = 0
    for g, p in zip(gold, predicted):
        if len(g) != len(p):
            raise ValueError(f"a sentence has {len(g)} gold tags but {len(p)} predicted")
        gc, pc = set(conlleval_chunks(g)), set(conlleval_chunks(p))
        correct += len(gc & pc)
        found_gold += len(gc)
        found_pred += len(pc)
        tokens += len(g)
        tokens_ok += sum(a == b for a, b in zip(g, p))
    precision = correct / found_pred if found_pred else 0.0
    recall = correct / found_gold if found_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": tokens_ok / tokens if tokens else 0.0,
            "correct_chunks": correct, "gold_chunks": found_gold, "predicted_chunks": found_pred, "tokens": tokens}


# -- features ----------------------------------------------------------------------------------------------
def token_features(sentence: Sequence[Tuple[str, ...]], i: int, window: int = 2) -> List[str]:
    """Static features of token i: words and POS tags at offsets -window..+window."""
    return window_features(sentence, i, window=window, columns=COLUMNS)


def dynamic_features(prev1: Optional[str], prev2: Optional[str]) -> List[str]:
    """YamCha's dynamic features: the two previous decisions (None: before the sentence)."""
    return [f"t[-1]={prev1 if prev1 is not None else 'BOS'}", f"t[-2]={prev2 if prev2 is not None else 'BOS'}"]


def _features_with(sentence, i: int, tags: Sequence[str], window: int) -> List[str]:
    return token_features(sentence, i, window) + dynamic_features(tags[i - 1] if i >= 1 else None, tags[i - 2] if i >= 2 else None)


def training_examples(sentences, window: int = 2) -> Tuple[List[List[str]], List[str]]:
    """(features, gold tag) of every token; the dynamic features use the gold previous tags."""
    feats, labels = [], []
    for s in sentences:
        tags = [t[2] for t in s]
        for i in range(len(s)):
            feats.append(_features_with(s, i, tags, window))
            labels.append(tags[i])
    return feats, labels


class ChunkEncoder:
    """Static feature ids of tokens, vectorised: each distinct word and POS
    tag's ids at every window offset are looked up once and cached."""

    def __init__(self, index, window: int = 2):
        self.index = index
        self.window = window
        self.offsets = list(range(-window, window + 1))
        self._rows: List[Dict[str, int]] = [{}, {}]            # per column: value -> table row
        self._tables: List[List[np.ndarray]] = [[], []]         # per column: rows of ids per offset

    def _row(self, column: int, value: str) -> int:
        rows = self._rows[column]
        r = rows.get(value)
        if r is None:
            get, name = self.index.get, COLUMNS[column]
            r = rows[value] = len(rows)
            self._tables[column].append(np.asarray([get(f"{name}[{o:+d}]={value}") for o in self.offsets], dtype=np.int32))
        return r

    def encode(self, sentences) -> dict:
        """sentence_ptr, token_ptr and token_ids (fixed width: 2 x (2 window + 1)
        ids per token, -1 for features the model does not know)."""
        w = self.window
        width = len(self.offsets)
        lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        sentence_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=sentence_ptr[1:])
        n = int(sentence_ptr[-1])
        ids = np.empty((n, 2 * width), dtype=np.int32)
        if n:
            for c in range(2):
                bos, eos = self._row(c, "BOS"), self._row(c, "EOS")
                padded = []
                for s in sentences:
                    padded.extend([bos] * w)
                    padded.extend(self._row(c, t[c]) for t in s)
                    padded.extend([eos] * w)
                padded = np.asarray(padded, dtype=np.int64)
                table = np.stack(self._tables[c])
                # Token k of sentence j sits at padded position sentence_ptr[j] + 2 w j + w + (k - sentence_ptr[j]).
                pos = np.arange(n, dtype=np.int64) + np.repeat(np.arange(len(sentences), dtype=np.int64) * 2 * w, lengths) + w
                for k, o in enumerate(self.offsets):
                    ids[:, c + 2 * k] = table[padded[pos + o], k]
        token_ptr = np.arange(n + 1, dtype=np.int64) * (2 * width)
        return {"sentence_ptr": sentence_ptr, "token_ptr": token_ptr, "token_ids": ids.reshape(-1)}


class YamchaChunker:
    """The left-to-right chunking loop (C++) around a compiled multi-class
    classifier over the chunking features."""

    def __init__(self, classifier, *, window: int = 2, early_exit: bool = True):
        index = classifier.features
        if index is None or index.is_numeric:
            raise ValueError("the classifier needs a named feature index (chunking feature strings)")
        self.classifier = classifier
        self.early_exit = early_exit
        self.encoder = ChunkEncoder(index, window)
        classes = [str(c) for c in classifier.rule.classes]
        self.classes = np.asarray(classes, dtype=object)
        get = index.get
        self.prev1 = np.asarray([get(f) for f in (f"t[-1]={c}" for c in classes + ["BOS"])], dtype=np.int32)
        self.prev2 = np.asarray([get(f) for f in (f"t[-2]={c}" for c in classes + ["BOS"])], dtype=np.int32)
        self.decisions = 0
        self.classifier_seconds = 0.0
        self.loop_seconds = 0.0

    def chunk_many(self, sentences, *, collect: bool = False, timing: bool = False):
        """Tags of every sentence; with ``collect``, also the decisions' feature
        vectors as a CSR matrix (events for an fstrie)."""
        import scipy.sparse as sp

        from .. import _core

        enc = self.encoder.encode(sentences)
        clf = self.classifier
        labels, decisions, clf_seconds, total, events = _core.chunk_yamcha(
            clf._core, clf.rule.kind, len(clf.rule.classes), self.early_exit, enc["sentence_ptr"], enc["token_ptr"],
            enc["token_ids"], self.prev1, self.prev2, timing, collect)
        self.decisions += int(decisions)
        self.classifier_seconds += clf_seconds
        self.loop_seconds += total
        tags = self.classes[labels]
        ptr = enc["sentence_ptr"]
        result = [tags[ptr[k]:ptr[k + 1]].tolist() for k in range(len(sentences))]
        if not collect:
            return result
        ev_ptr, ev_ids = events
        matrix = sp.csr_matrix((np.ones(len(ev_ids)), ev_ids, ev_ptr), shape=(len(ev_ptr) - 1, len(clf.features)))
        matrix.sum_duplicates()
        matrix.data[:] = 1.0
        return result, matrix


def chunk_reference(classifier, sentences, window: int = 2) -> List[List[str]]:
    """The same left-to-right chunking in plain Python, one ``predict_one``
    per token over feature strings (slow; the reference the C++ loop is tested against)."""
    out = []
    for s in sentences:
        tags: List[str] = []
        for i in range(len(s)):
            tags.append(str(classifier.predict_one(_features_with(s, i, tags, window))))
        out.append(tags)
    return out


# -- the pipeline ------------------------------------------------------------------------------------------
from .base import TaskPipeline, register_task  # noqa: E402


@register_task
class Chunker(TaskPipeline):
    """CoNLL-2000 text chunker in the YamCha style: a multi-class polynomial-kernel
    classifier (IOB2 chunk tags as classes) over +-2 word/POS window features and
    the two previous decisions, trained with PA-I (kernel slicing).

    Sentences are lists of ``(word, POS)`` or ``(word, POS, chunk)`` tuples, as
    :func:`conjunct.corpora.read_conll2000` returns them.

    >>> chunker = Chunker(degree=2).fit(read_conll2000("train.txt"))   # doctest: +SKIP
    >>> chunker.evaluate(read_conll2000("test.txt"))["f1"]             # doctest: +SKIP

    Parameters
    ----------
    degree : int
        Polynomial kernel degree.
    window : int
        Word / POS positions on each side of the token.
    **params
        :class:`~conjunct.tasks.base.TaskPipeline`'s (C, n_iter, margin, method, ...).
    """

    task = "conll2000-chunk"
    COMPONENT = "chunk"

    def __init__(self, *, degree: int = 2, window: int = 2, **params):
        super().__init__(degree=degree, **params)
        self.window = window

    def _config(self) -> dict:
        return {"window": self.window}

    def _restore(self, config: dict) -> None:
        self.window = int(config.get("window", 2))

    def training_examples(self, data):
        _check_gold(data)
        return {self.COMPONENT: training_examples(data, self.window)}

    def _on_compiled(self) -> None:
        self._runner = YamchaChunker(self.classifiers_[self.COMPONENT], window=self.window)

    def _chunker(self) -> YamchaChunker:
        self._check_fitted()
        if getattr(self, "_runner", None) is None or self._runner.classifier is not self.classifiers_[self.COMPONENT]:
            self._on_compiled()
        return self._runner

    def collect_events(self, data):
        _, events = self._chunker().chunk_many(data, collect=True)
        return {self.COMPONENT: events}

    def chunk(self, sentences, *, timing: bool = False) -> List[List[str]]:
        """The IOB2 chunk tag of every token of every sentence."""
        return self._chunker().chunk_many(sentences, timing=timing)

    run = chunk

    def evaluate(self, sentences) -> dict:
        """conlleval chunk precision / recall / F1 and token accuracy, and where the time goes."""
        _check_gold(sentences)
        runner = self._chunker()
        before = (runner.decisions, runner.classifier_seconds)
        start = time.perf_counter()
        tags = runner.chunk_many(sentences, timing=True)
        seconds = time.perf_counter() - start
        decisions = runner.decisions - before[0]
        clf_seconds = runner.classifier_seconds - before[1]
        scores = chunk_scores([[t[2] for t in s] for s in sentences], tags)
        return {
            **scores, "sentences": len(sentences), "decisions": decisions, "seconds": seconds,
            "sentences_per_second": len(sentences) / seconds if seconds else float("inf"),
            "classifier_seconds": clf_seconds,
            "classifications_per_second": decisions / clf_seconds if clf_seconds else float("inf"),
            "other_seconds": seconds - clf_seconds, "method": self.classifier_.method,
        }


def _check_gold(sentences) -> None:
    from .._errors import DataFormatError

    for k, s in enumerate(sentences):
        for t in s:
            if len(t) < 3:
                raise DataFormatError(f"sentence {k + 1}: tokens need a gold chunk tag (word POS chunk)")
