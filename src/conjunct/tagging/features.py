"""Feature templates for sequence labeling, and their encoding to feature ids.

A template is a name; a token's features are ``"<template>=<value>"`` strings:

- ``bias`` (always on), ``w`` (the word), ``lw`` (lower-cased word),
  ``p1``..``p4`` / ``s1``..``s4`` (prefixes / suffixes of the word),
  ``shape`` (character classes, runs collapsed: ``Xx``, ``d.d``, ...);
- ``w-2``, ``w-1``, ``w+1``, ``w+2``: a neighbouring lower-cased word
  (``<s>`` / ``</s>`` beyond the sentence);
- conjunctions joined by ``|`` of any of the above, e.g. ``w-1|w`` (word
  bigram) or ``s3|w-1``.

Encoding turns sentences into a CSR of feature ids per token. Attributes are
computed once per word type, tokens are mapped to integer keys per template
with numpy, and only each distinct key becomes a string and a dictionary
look-up, so there is no Python work per feature occurrence.
"""

from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import DataFormatError

__all__ = ["DEFAULT_TEMPLATES", "Featurizer", "word_shape"]

_LOCAL = ("bias", "w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape")
_NEIGHBOURS = {"w-2": -2, "w-1": -1, "w+1": 1, "w+2": 2}

DEFAULT_TEMPLATES: Tuple[str, ...] = (
    "bias", "w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape",
    "w-2", "w-1", "w+1", "w+2", "w-1|w", "w|w+1",
)


def word_shape(word: str) -> str:
    """Character classes of ``word`` (X upper, x lower, d digit, other kept), runs collapsed."""
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _atom(name: str, word: str, lw: str) -> str:
    if name == "bias":
        return ""
    if name == "w":
        return word
    if name == "lw":
        return lw
    if name == "shape":
        return word_shape(word)
    if name[0] == "p":
        return word[: int(name[1])]
    return word[-int(name[1]):]  # "s1".."s4"


# The attributes of a word type, as functions (the vectorised encoder maps them over types).
_ATTRIBUTES = {
    "bias": lambda w: "", "w": lambda w: w, "lw": str.lower, "shape": word_shape,
    **{f"p{k}": (lambda k: lambda w: w[:k])(k) for k in range(1, 5)},
    **{f"s{k}": (lambda k: lambda w: w[-k:])(k) for k in range(1, 5)},
}


class Featurizer:
    """Turns token sequences into feature ids with a fixed list of templates.

    Parameters
    ----------
    templates : sequence of str
        Template names (see the module docstring); defaults to
        :data:`DEFAULT_TEMPLATES`.
    """

    def __init__(self, templates: Optional[Sequence[str]] = None):
        self.templates = tuple(DEFAULT_TEMPLATES if templates is None else templates)
        if not self.templates:
            raise ValueError("at least one feature template is needed")
        for t in self.templates:
            for part in t.split("|"):
                if part not in _LOCAL and part not in _NEIGHBOURS:
                    raise ValueError(f"unknown feature template part {part!r} in {t!r} "
                                     f"(known: {', '.join(_LOCAL + tuple(_NEIGHBOURS))})")
        # Templates that only look at the word itself are cached per word type.
        self._local = [t for t in self.templates if all(p in _LOCAL for p in t.split("|"))]
        self._context = [t for t in self.templates if t not in self._local]

    def _local_strings(self, word: str) -> List[str]:
        lw = word.lower()
        return [f"{t}=" + "|".join(_atom(p, word, lw) for p in t.split("|")) for t in self._local]

    def _context_strings(self, words: Sequence[str], lws: Sequence[str], i: int) -> List[str]:
        n = len(words)
        out = []
        for t in self._context:
            vals = []
            for p in t.split("|"):
                off = _NEIGHBOURS.get(p)
                if off is None:
                    vals.append(_atom(p, words[i], lws[i]))
                else:
                    j = i + off
                    vals.append(lws[j] if 0 <= j < n else ("<s>" if j < 0 else "</s>"))
            out.append(f"{t}=" + "|".join(vals))
        return out

    def strings(self, words: Sequence[str]) -> List[List[str]]:
        """Every token's feature strings (for inspection, or for another tool)."""
        lws = [w.lower() for w in words]
        return [self._local_strings(w) + self._context_strings(words, lws, i) for i, w in enumerate(words)]

    def encode(self, sentences: Sequence[Sequence], vocab: Dict[str, int], names: Optional[List[str]] = None,
               source: str = "<input>") -> Tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, ids) of every token of ``sentences``.

        A sentence is a list of token strings (featurized with the templates) or
        a list of per-token feature-string lists (used as they are). With
        ``names`` (training), unknown features are added to ``vocab`` and
        ``names``; otherwise they are dropped (they carry no weight).
        """
        add = names is not None

        def fid(s: str) -> int:
            i = vocab.get(s)
            if i is None:
                if not add:
                    return -1
                i = vocab[s] = len(names)
                names.append(s)
            return i

        sentences = list(sentences)
        if any(len(s) and not isinstance(s, str) and not isinstance(s[0], str) for s in sentences):
            return self._encode_lists(sentences, fid, source)
        lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        words: List[str] = []
        for k, sent in enumerate(sentences):
            if isinstance(sent, str):
                raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
            for i, w in enumerate(sent):
                if not isinstance(w, str) or not w:
                    raise DataFormatError(f"sentence {k + 1}, token {i + 1}: tokens must be non-empty strings, got {w!r}", source)
            words.extend(sent)
        return self._encode_tokens(words, lengths, fid, vocab, add)

    def _encode_lists(self, sentences, fid, source):
        ids: List[int] = []
        lengths: List[int] = []
        for k, sent in enumerate(sentences):
            if isinstance(sent, str):
                raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
            for i, feats in enumerate(sent):
                if isinstance(feats, str) or not all(isinstance(f, str) for f in feats):
                    raise DataFormatError(f"sentence {k + 1}, token {i + 1}: expected a list of feature strings", source)
                row = [j for j in map(fid, feats) if j >= 0]
                ids.extend(row)
                lengths.append(len(row))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return indptr, np.asarray(ids, dtype=np.int32)

    def _encode_tokens(self, words: List[str], lengths: np.ndarray, fid, vocab: Dict[str, int], add: bool
                       ) -> Tuple[np.ndarray, np.ndarray]:
        # Work per word type and per distinct feature value, not per token: a
        # template's value at a token is a tuple of attribute values of word
        # types at fixed offsets, so tokens are mapped to integer keys with numpy
        # and only each distinct key is turned into a string and looked up.
        n_tok = len(words)
        type_of: Dict[str, int] = {}
        tok_type = np.fromiter((type_of.setdefault(w, len(type_of)) for w in words), dtype=np.int64, count=n_tok)
        types = list(type_of)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        ends = starts + np.repeat(lengths, lengths)
        pos = np.arange(n_tok, dtype=np.int64)
        values: Dict[str, Tuple[List[str], np.ndarray]] = {}

        def attribute(name: str) -> Tuple[List[str], np.ndarray]:
            # Distinct values of one attribute and each type's value id; the
            # last two ids are the sentence-boundary values.
            if name not in values:
                strings = list(map(_ATTRIBUTES[name], types))
                index: Dict[str, int] = {}
                vid = np.fromiter((index.setdefault(v, len(index)) for v in strings), dtype=np.int64, count=len(types))
                values[name] = (list(index) + ["<s>", "</s>"], vid)
            return values[name]

        columns = []
        for t in self.templates:
            parts = t.split("|")
            key = np.zeros(n_tok, dtype=np.int64)
            part_values = []
            for p in parts:
                off = _NEIGHBOURS.get(p, 0)
                strings, vid = attribute("lw" if p in _NEIGHBOURS else p)
                j = pos + off
                inside = (j >= starts) & (j < ends)
                v = np.where(j < starts, len(strings) - 2, len(strings) - 1)
                v[inside] = vid[tok_type[j[inside]]]
                part_values.append((strings, v))
                key, _ = _combine(key, v, len(strings))
            uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            # The distinct keys' feature strings, built by object-array additions (C loops).
            text = np.full(len(uniq), f"{t}=", dtype=object)
            for k, (strings, v) in enumerate(part_values):
                text = text + (np.asarray(strings, dtype=object)[v[first]] if k == 0
                               else "|" + np.asarray(strings, dtype=object)[v[first]])
            ids_of_key = np.fromiter(map(vocab.get, text, itertools.repeat(-1)), dtype=np.int64, count=len(uniq))
            if add:
                for i in np.flatnonzero(ids_of_key < 0).tolist():
                    ids_of_key[i] = fid(text[i])
            columns.append(ids_of_key[inverse.reshape(-1)])
        ids = np.stack(columns, axis=1) if columns else np.zeros((n_tok, 0), dtype=np.int64)
        keep = ids >= 0
        indptr = np.zeros(n_tok + 1, dtype=np.int64)
        np.cumsum(keep.sum(axis=1), out=indptr[1:])
        return indptr, ids[keep].astype(np.int32)


def _combine(key: np.ndarray, v: np.ndarray, radix: int) -> Tuple[np.ndarray, int]:
    """A dense integer code of the pairs (key, v), which stays below n_tokens * radix."""
    if not key.any():
        return v.copy(), radix
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64) * radix + v, len(uniq) * radix
