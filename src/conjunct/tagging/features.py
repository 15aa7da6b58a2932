"""Feature templates for sequence labeling, and their encoding to feature ids.

A template is a name; a token's features are ``"<template>=<value>"`` strings:

- ``bias`` (always on), ``w`` (the word), ``lw`` (lower-cased word),
  ``p1``..``p4`` / ``s1``..``s4`` (prefixes / suffixes of the word),
  ``shape`` (character classes, runs collapsed: ``Xx``, ``d.d``, ...);
- ``w-2``, ``w-1``, ``w+1``, ``w+2``: a neighbouring lower-cased word
  (``<s>`` / ``</s>`` beyond the sentence);
- conjunctions joined by ``|`` of any of the above, e.g. ``w-1|w`` (word
  bigram) or ``s3|w-1``.

Encoding turns sentences into a CSR of feature ids per token. The features of a
word type are built once and cached, so the Python work per token is a few
dictionary look-ups rather than one string per template.
"""

from __future__ import annotations

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
        get = vocab.get

        def fid(s: str) -> Optional[int]:
            i = get(s)
            if i is None and add:
                i = vocab[s] = len(names)
                names.append(s)
            return i

        cache: Dict[str, List[int]] = {}
        ids: List[int] = []
        lengths: List[int] = []
        for k, sent in enumerate(sentences):
            if isinstance(sent, str):
                raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
            if len(sent) and not isinstance(sent[0], str):
                for i, feats in enumerate(sent):
                    if isinstance(feats, str) or not all(isinstance(f, str) for f in feats):
                        raise DataFormatError(f"sentence {k + 1}, token {i + 1}: expected a list of feature strings", source)
                    row = [j for j in map(fid, feats) if j is not None]
                    ids.extend(row)
                    lengths.append(len(row))
                continue
            for i, w in enumerate(sent):
                if not isinstance(w, str) or not w:
                    raise DataFormatError(f"sentence {k + 1}, token {i + 1}: tokens must be non-empty strings, got {w!r}", source)
            lws = [w.lower() for w in sent]
            for i, w in enumerate(sent):
                row = cache.get(w)
                if row is None:
                    row = cache[w] = [j for j in map(fid, self._local_strings(w)) if j is not None]
                ctx = [j for j in map(fid, self._context_strings(sent, lws, i)) if j is not None]
                ids.extend(row)
                ids.extend(ctx)
                lengths.append(len(row) + len(ctx))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return indptr, np.asarray(ids, dtype=np.int32)
