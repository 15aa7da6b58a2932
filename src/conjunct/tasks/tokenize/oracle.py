"""The tokenizer's gold decisions: a class per character gap inside the
non-whitespace text (no cut / a token ends / a word of a multiword token
ends) and, per token end, whether a sentence ends there."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..._lazy import sparse as sp
from ...progress import each
from ..base import oracle_sentences
from ..rows import RowBuilder
from ..segment.features import feature_lists
from .features import gap_piece_features, sentence_features, space_mask
from .reader import TokenizedText

__all__ = ["GAP_CLASSES", "gap_labels", "decided_gaps", "training_examples", "training_rows", "engine_training_rows",
           "sentence_rows", "known_words"]

#: The classes of a gap between two non-whitespace characters.
GAP_CLASSES = ("0", "1", "2")  # inside a token, a token ends, a word of a multiword token ends
INSIDE, TOKEN, WORD = GAP_CLASSES


def decided_gaps(text: str) -> np.ndarray:
    """The gaps b (before character b, 1 <= b < len(text)) the boundary classifier
    decides: both neighbours are non-whitespace."""
    space = space_mask(text)
    if len(text) < 2:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(~space[:-1] & ~space[1:]) + 1


def gap_labels(t: TokenizedText) -> Dict[int, str]:
    """The gold class of every decided gap of a tokenized text."""
    labels = {int(b): INSIDE for b in decided_gaps(t.text)}
    for (a, b), words in zip(t.spans, t.words):
        if a in labels:
            labels[a] = TOKEN
        if b in labels:
            labels[b] = TOKEN
        at = a
        for w in words[:-1]:
            at += len(w)
            labels[at] = WORD
    return labels


def known_words(t: TokenizedText) -> List[str]:
    """What a text adds to the tokenizer's dictionary: its tokens and the words of its multiword tokens."""
    return [t.text[a:b] for a, b in t.spans] + [w for ws in t.words if len(ws) > 1 for w in ws]


# Texts (paragraphs, about 265 decided gaps each on EWT) per vectorised call of the
# oracle; their feature strings are alive at once (about 35 MB at 50).
ORACLE_BATCH = 50


def _examples(batch: Sequence[TokenizedText], first: int, ngram: int, dictionaries: Optional[Sequence], links: bool,
              link_spans: bool = False, type_ngram: Optional[int] = None):
    """(gap features, gap labels, token-end features, token-end labels) of
    ``batch``, whose first text is text ``first`` of the data."""
    gap_feats: List[List[str]] = []
    gap_y: List[str] = []
    sent_feats: List[List[str]] = []
    sent_y: List[int] = []
    for n, t in enumerate(batch, first):
        labels = gap_labels(t)
        gaps = sorted(labels)
        gap_y.extend(labels[b] for b in gaps)
        d = None if dictionaries is None else dictionaries[n]
        gap_feats.extend(f + p for f, p in zip(feature_lists(t.text, gaps, ngram, d, type_ngram),
                                               gap_piece_features(t.text, gaps, links, link_spans)))
        ends = set(np.cumsum(t.sentence_lengths)[:-1].tolist())
        for k in range(len(t.spans) - 1):
            sent_feats.append(sentence_features(t.text, t.spans, k))
            sent_y.append(1 if k + 1 in ends else -1)
    return gap_feats, gap_y, sent_feats, sent_y


def training_examples(data: Sequence[TokenizedText], ngram: int = 3, dictionaries: Optional[Sequence] = None,
                      links: bool = False, link_spans: bool = False,
                      type_ngram: Optional[int] = None) -> Dict[str, Tuple[List[List[str]], List]]:
    """Per component, (feature strings, labels) of the gold decisions of
    ``data`` (with ``dictionaries``, text k's gaps hold the flags of
    ``dictionaries[k]``; with ``links``, the piece kinds; with ``link_spans``,
    where a gap is in its piece's address)."""
    out: Tuple[list, list, list, list] = ([], [], [], [])
    n = 0
    for batch in oracle_sentences(data, ORACLE_BATCH):
        for whole, part in zip(out, _examples(batch, n, ngram, dictionaries, links, link_spans, type_ngram)):
            whole.extend(part)
        n += len(batch)
    return {"boundary": (out[0], out[1]), "sentence": (out[2], out[3])}


def training_rows(data: Sequence[TokenizedText], ngram: int = 3, dictionaries: Optional[Sequence] = None,
                  links: bool = False, link_spans: bool = False,
                  type_ngram: Optional[int] = None) -> Dict[str, Tuple["IndexedRows", list]]:
    """:func:`training_examples` as rows over feature indexes (per component,
    (:class:`~conjunct.training.inputs.IndexedRows`, labels)), built batch by
    batch with :class:`~conjunct.tasks.rows.RowBuilder`: the same model, but
    only one batch's strings alive at a time."""
    builders = {"boundary": RowBuilder(), "sentence": RowBuilder()}
    n = 0
    for batch in oracle_sentences(data, ORACLE_BATCH):
        gap_feats, gap_y, sent_feats, sent_y = _examples(batch, n, ngram, dictionaries, links, link_spans, type_ngram)
        n += len(batch)
        builders["boundary"].add(gap_feats, gap_y)
        builders["sentence"].add(sent_feats, sent_y)
    return {c: b.rows() for c, b in builders.items()}


def engine_training_rows(data: Sequence[TokenizedText], ngram: int = 3, dictionaries: Optional[Sequence] = None,
                         links: bool = False, link_spans: bool = False,
                         type_ngram: Optional[int] = None) -> Dict[str, Tuple["IndexedRows", list]]:
    """:func:`training_rows` with the gap rows from the C++ feature engine the
    runner decides with (:func:`~conjunct.tasks.boundary_rows.boundary_rows`):
    the same rows, index and counts, without a string per gap feature."""
    from ..boundary_rows import boundary_rows
    from .features import gap_spec

    data = list(data)
    gap_rows, positions = boundary_rows([t.text for t in data], gap_spec(ngram, dictionaries is not None, links,
                                                                         link_spans, type_ngram),
                                        "inner", dictionaries, desc="collecting gap examples")
    gap_y: List[str] = []
    for k, (t, pos) in enumerate(zip(data, positions)):
        labels = gap_labels(t)
        if len(labels) != len(pos):
            raise ValueError(f"text {k + 1}: the engine decides {len(pos)} gaps, the oracle {len(labels)}")
        gap_y.extend(labels[b] for b in pos.tolist())
    return {"boundary": (gap_rows, gap_y), "sentence": sentence_rows(data)}


def sentence_rows(data: Sequence[TokenizedText]) -> Tuple["IndexedRows", List[int]]:
    """The token-end rows of :func:`training_rows` (the same rows, index and
    counts as :func:`~.features.sentence_features`' strings): each distinct
    token's features are named once, each position's two word pairs once, and
    the ids are numbered in order of first occurrence with numpy."""
    from ...features.index import FeatureIndex
    from ...training.inputs import IndexedRows
    from ..boundary_rows import FirstSeen
    from .features import PARAGRAPH_END, PARAGRAPH_START, shape

    strings: Dict[str, int] = {}
    intern = strings.setdefault
    tokens: Dict[str, int] = {}
    table: List[List[int]] = []

    def token(word: str) -> int:
        k = tokens.get(word)
        if k is None:
            low, sh = word.lower(), shape(word)
            table.append([intern(s, len(strings)) for s in (
                f"w0={word}", f"l0={low}", f"s0={sh}", f"e0={word[-1]}", f"n0={min(len(word), 6)}",
                f"w1={word}", f"l1={low}", f"s1={sh}", f"f1={word[0]}", f"lp={low}", f"sp={sh}", f"s2={sh}")])
            k = tokens[word] = len(table) - 1
        return k

    start, end = token(PARAGRAPH_START), token(PARAGRAPH_END)
    space, none = intern("g=space", len(strings)), intern("g=none", len(strings))
    blocks: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    labels: List[int] = []
    for t in each(data, desc="collecting token-end examples", unit=" texts"):
        n = len(t.spans)
        if n < 2:
            continue
        words = [t.text[a:b] for a, b in t.spans]
        lows = [w.lower() for w in words]
        ids = np.asarray([token(w) for w in words], dtype=np.int64)
        glued = np.asarray([t.spans[k + 1][0] == t.spans[k][1] for k in range(n - 1)])
        pairs = [[intern(f"l0l1={a}_{b}", len(strings)) for a, b in zip(lows, lows[1:])],
                 [intern(f"lpl0={a}_{b}", len(strings)) for a, b in zip([PARAGRAPH_START] + lows, lows[:-1])]]
        blocks.append((ids, glued, np.asarray(pairs, dtype=np.int64).T))
        ends = set(np.cumsum(t.sentence_lengths)[:-1].tolist())
        labels.extend(1 if k + 1 in ends else -1 for k in range(n - 1))
    units = np.asarray(table, dtype=np.int64).reshape(-1, 12)
    rows = [np.concatenate([units[ids[:-1], 0:5], units[ids[1:], 5:9],
                            units[np.concatenate(([start], ids[:-2])), 9:11],
                            units[np.concatenate((ids[2:], [end])), 11:12],
                            np.where(glued, none, space)[:, None], pairs], axis=1)
            for ids, glued, pairs in blocks]
    width = 15
    flat = np.concatenate(rows).reshape(-1) if rows else np.zeros(0, dtype=np.int64)
    seen = FirstSeen(len(strings))
    flat = seen.map(flat)
    kept = seen.kept()
    names = list(strings)
    index = FeatureIndex(names=[names[k] for k in kept.tolist()], counts=np.bincount(flat, minlength=len(kept)))
    indptr = np.arange(len(flat) // width + 1, dtype=np.int64) * width
    M = sp.csr_matrix((np.ones(flat.size, dtype=np.int8), flat, indptr), shape=(len(indptr) - 1, len(kept)))
    M.has_sorted_indices = False
    M.sort_indices()
    return IndexedRows(M, index), labels
