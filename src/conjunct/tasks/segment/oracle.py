"""Segmentation as boundary decisions: the gold decisions of a word
sequence (the training examples) and the words a sequence of decisions makes."""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Tuple

from ..._errors import DataFormatError
from ..base import oracle_sentences
from .dictionary import WordDictionary
from .features import feature_lists

__all__ = ["boundary_labels", "words_from_boundaries", "training_examples", "training_rows", "engine_training_rows"]


def boundary_labels(words: Sequence[str]) -> List[int]:
    """+1 / -1 for every boundary of the sentence the words make: +1 where a word ends."""
    labels: List[int] = []
    for w in words:
        if not w:
            raise DataFormatError("empty word")
        labels.extend([-1] * (len(w) - 1))
        labels.append(1)
    return labels[:-1]


def words_from_boundaries(text: str, boundaries: Sequence[bool]) -> List[str]:
    """Split ``text`` where ``boundaries[b - 1]`` is true (the boundary before character b)."""
    words, start = [], 0
    for b, cut in enumerate(boundaries, 1):
        if cut:
            words.append(text[start:b])
            start = b
    if text:
        words.append(text[start:])
    return words


# Sentences per vectorised call of the oracle: often enough for a progress bar.
ORACLE_BATCH = 1000
# Sentences whose feature strings are alive at once while building rows (about 25 MB on GSD).
ROWS_BATCH = 250


def _example_batches(sentences: Sequence[Sequence[str]], ngram: int, dictionaries: Optional[Sequence[WordDictionary]],
                     type_ngram: Optional[int], batch: int,
                     longest_match: bool = False) -> Iterator[Tuple[List[List[str]], List[int]]]:
    """(feature strings, +1/-1) of the boundaries of every ``batch`` sentences
    in turn (sentence k's features hold the flags of ``dictionaries[k]``)."""
    k = 0
    for part in oracle_sentences(sentences, batch):
        feats: List[List[str]] = []
        labels: List[int] = []
        for s in part:
            text = "".join(s)
            feats.extend(feature_lists(text, range(1, len(text)), ngram,
                                       None if dictionaries is None else dictionaries[k], type_ngram, longest_match))
            labels.extend(boundary_labels(s))
            k += 1
        yield feats, labels


def training_examples(sentences: Sequence[Sequence[str]], ngram: int = 3,
                      dictionaries: Optional[Sequence[WordDictionary]] = None,
                      type_ngram: Optional[int] = None, longest_match: bool = False) -> Tuple[List[List[str]], List[int]]:
    """(feature strings, +1/-1) of every character boundary of the gold
    segmentations (with ``dictionaries``, sentence k's features hold the
    flags of ``dictionaries[k]``)."""
    feats: List[List[str]] = []
    labels: List[int] = []
    for f, y in _example_batches(sentences, ngram, dictionaries, type_ngram, ORACLE_BATCH, longest_match):
        feats.extend(f)
        labels.extend(y)
    return feats, labels


def training_rows(sentences: Sequence[Sequence[str]], ngram: int = 3,
                  dictionaries: Optional[Sequence[WordDictionary]] = None,
                  type_ngram: Optional[int] = None, longest_match: bool = False) -> Tuple["IndexedRows", List[int]]:
    """:func:`training_examples` as rows over a feature index, built batch by
    batch (:class:`~conjunct.tasks.rows.RowBuilder`): the same model, without
    the strings of every boundary alive at once."""
    from ..rows import RowBuilder

    rows = RowBuilder()
    for f, y in _example_batches(sentences, ngram, dictionaries, type_ngram, ROWS_BATCH, longest_match):
        rows.add(f, y)
    return rows.rows()


def engine_training_rows(sentences: Sequence[Sequence[str]], ngram: int = 3,
                         dictionaries: Optional[Sequence[WordDictionary]] = None,
                         type_ngram: Optional[int] = None,
                         longest_match: bool = False) -> Tuple["IndexedRows", List[int]]:
    """:func:`training_rows` from the C++ feature engine the segmenter decides
    with (:func:`~conjunct.tasks.boundary_rows.boundary_rows`): the same rows,
    index and counts, without a string per feature."""
    from ..boundary_rows import boundary_rows
    from .features import spec

    sentences = list(sentences)
    labels: List[int] = []
    for s in sentences:
        labels.extend(boundary_labels(s))
    rows, _ = boundary_rows(["".join(s) for s in sentences],
                            spec(ngram, dictionary=dictionaries is not None, type_ngram=type_ngram,
                                 longest_match=longest_match), "all", dictionaries)
    return rows, labels
