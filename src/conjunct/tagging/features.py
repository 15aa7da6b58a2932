"""Feature templates for sequence labeling, and their encoding to feature ids.

A template is a name; a token's features are ``"<template>=<value>"`` strings:

- ``bias`` (always on), ``w`` (the word), ``lw`` (lower-cased word),
  ``p1``..``p6`` / ``s1``..``s6`` (prefixes / suffixes of the word),
  ``shape`` (character classes, runs collapsed: ``Xx``, ``d.d``, ...),
  ``len`` (length, 12 for 12 or more), and the flags ``hyphen``, ``digit``,
  ``upper`` (any upper-case letter), ``title``, ``allcaps`` (value ``1``; a
  flag template alone has no feature where the flag is off);
- ``w-2``, ``w-1``, ``w+1``, ``w+2``: a neighbouring lower-cased word, and
  ``<attribute>-k`` / ``<attribute>+k`` (k = 1..9) any attribute of a
  neighbouring word (``shape-1``, ``s3+1``); ``<s>`` / ``</s>`` beyond the
  sentence;
- conjunctions joined by ``|`` of any of the above, e.g. ``w-1|w`` (word
  bigram) or ``s3|w-1``.

Values are escaped (feature version 2): ``\\`` and ``|`` inside a value get a
backslash, and so does a word equal to ``<s>`` or ``</s>``, so a feature string
names exactly one tuple of values (``['a|b', 'c']`` and ``['a', 'b|c']`` give
different word pairs).

Encoding turns sentences into a CSR of feature ids per token. Attributes are
computed once per word type, tokens are mapped to integer keys per template
with numpy, and only each distinct key becomes a string and a dictionary
look-up, so there is no Python work per feature occurrence.

Tagging with a fixed vocabulary can keep that work between calls in an
:class:`EncodingCache`: word types' attribute values and every template key's
feature id (found once by its string) are remembered, and tokens are looked up
by integer keys in C++. A stream tagged in batches then pays the string work
only for word types and keys it has not met before.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import DataFormatError

__all__ = ["DEFAULT_TEMPLATES", "EncodingCache", "Featurizer", "word_shape"]

_NEIGHBOURS = {"w-2": -2, "w-1": -1, "w+1": 1, "w+2": 2}  # lower-cased neighbouring words
_BOUNDARY = ("<s>", "</s>")  # the value of any attribute before / after the sentence


def word_shape(word: str) -> str:
    """Character classes of ``word`` (X upper, x lower, d digit, other kept), runs collapsed.

    Parameters
    ----------
    word : str
        The word.

    Returns
    -------
    str
        For example ``"Xx"`` for "Hello" and ``"d.d"`` for "3.14".
    """
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _flag(test):
    return lambda w: "1" if test(w) else "0"


# The attributes of a word type, as functions (the vectorised encoder maps them over types).
_ATTRIBUTES = {
    "bias": lambda w: "", "w": lambda w: w, "lw": str.lower, "shape": word_shape,
    **{f"p{k}": (lambda k: lambda w: w[:k])(k) for k in range(1, 7)},
    **{f"s{k}": (lambda k: lambda w: w[-k:])(k) for k in range(1, 7)},
    "len": lambda w: str(min(len(w), 12)),
    "hyphen": _flag(lambda w: "-" in w),
    "digit": _flag(lambda w: any(c.isdigit() for c in w)),
    "upper": _flag(lambda w: any(c.isupper() for c in w)),
    "title": _flag(str.istitle),
    "allcaps": _flag(str.isupper),
}
# A template that is one of these flags alone has no feature where the flag is
# off: with the bias feature on every token that loses nothing a linear model
# can express, and spares every token five features that weigh every label.
_FLAGS = ("hyphen", "digit", "upper", "title", "allcaps")


def _silent(template: str) -> str:
    """The feature string a template never has (its flag off), or ""."""
    return f"{template}=0" if template in _FLAGS else ""

#: Feature templates used when none are given. The 5- and 6-letter suffixes,
#: word flags and length raised dev accuracy most on unknown words
#: (benchmarks/bench_tagger_features.py).
DEFAULT_TEMPLATES: Tuple[str, ...] = (
    "bias", "w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape",
    "w-2", "w-1", "w+1", "w+2", "w-1|w", "w|w+1",
    "s5", "s6", "hyphen", "digit", "upper", "title", "allcaps", "len",
)

#: Feature strings of version 2 escape ``\\`` and ``|`` inside values and a value
#: equal to a boundary marker, so every feature string names one tuple of values.
#: Taggers saved with version 1 (unescaped strings) are refused: retrain them.
FEATURE_VERSION = 2


def _escape(value: str) -> str:
    if "\\" in value or "|" in value:
        value = value.replace("\\", "\\\\").replace("|", "\\|")
    return "\\" + value if value in _BOUNDARY else value


def _attribute(name: str):
    """The value function of an attribute, escaped."""
    f = _ATTRIBUTES[name]
    return lambda w: _escape(f(w))


_OFFSET = re.compile(r"^(.+?)([+-][1-9])$")


def _part(part: str) -> Tuple[str, int]:
    """(attribute, offset) of a template part: ``w-1`` is the lower-cased word
    before the token, ``<attribute>+k`` / ``<attribute>-k`` an attribute of a
    neighbouring word (``shape-1``, ``s3+1``)."""
    if part in _NEIGHBOURS:
        return "lw", _NEIGHBOURS[part]
    if part in _ATTRIBUTES:
        return part, 0
    m = _OFFSET.match(part)
    if m and m.group(1) in _ATTRIBUTES and m.group(1) != "w":
        return m.group(1), int(m.group(2))
    raise ValueError(f"unknown feature template part {part!r} (attributes: {', '.join(_ATTRIBUTES)}; "
                     f"w-2, w-1, w+1, w+2 for neighbouring words, <attribute>-k / <attribute>+k for their attributes)")


def _template_parts(template: str) -> List[Tuple[str, int]]:
    """(attribute, offset) of each part of a template."""
    try:
        return [_part(p) for p in template.split("|")]
    except ValueError as e:
        raise ValueError(f"{e} in template {template!r}") from None


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
        self._parts = [_template_parts(t) for t in self.templates]

    def strings(self, words: Sequence[str]) -> List[List[str]]:
        """Every token's feature strings (for inspection, or for another tool)."""
        n = len(words)
        value = {}

        def get(attribute: str, j: int) -> str:
            if j < 0 or j >= n:
                return _BOUNDARY[0 if j < 0 else 1]
            key = (attribute, j)
            if key not in value:
                value[key] = _attribute(attribute)(words[j])
            return value[key]

        out = [[f"{t}=" + "|".join(get(a, i + off) for a, off in parts) for t, parts in zip(self.templates, self._parts)]
               for i in range(n)]
        silent = {_silent(t) for t in self.templates} - {""}
        return [[f for f in fs if f not in silent] for fs in out] if silent else out

    def encode(self, sentences: Sequence[Sequence], vocab: Dict[str, int], names: Optional[List[str]] = None,
               source: str = "<input>", cache: Optional["EncodingCache"] = None) -> Tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, ids) of every token of ``sentences``.

        A sentence is a list of token strings (featurized with the templates) or
        a list of per-token feature-string lists (used as they are). With
        ``names`` (training), unknown features are added to ``vocab`` and
        ``names``; otherwise they are dropped (they carry no weight). A
        ``cache`` (built for these templates and this ``vocab``) remembers work
        between calls; the result is the same with or without it.
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
        if cache is not None and not add:
            if cache.templates != self.templates or cache.vocab is not vocab:
                raise ValueError("the encoding cache was built for other templates or another vocabulary")
            return cache.encode(words, lengths)
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
                strings = list(map(_attribute(name), types))
                index: Dict[str, int] = {}
                vid = np.fromiter((index.setdefault(v, len(index)) for v in strings), dtype=np.int64, count=len(types))
                values[name] = (list(index) + list(_BOUNDARY), vid)
            return values[name]

        columns = []
        for t, parts in zip(self.templates, self._parts):
            key = np.zeros(n_tok, dtype=np.int64)
            part_values = []
            for name, off in parts:
                strings, vid = attribute(name)
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
                silent = _silent(t)
                for i in np.flatnonzero(ids_of_key < 0).tolist():
                    if text[i] != silent:
                        ids_of_key[i] = fid(text[i])
            columns.append(ids_of_key[inverse.reshape(-1)])
        ids = np.stack(columns, axis=1) if columns else np.zeros((n_tok, 0), dtype=np.int64)
        keep = ids >= 0
        indptr = np.zeros(n_tok + 1, dtype=np.int64)
        np.cumsum(keep.sum(axis=1), out=indptr[1:])
        return indptr, ids[keep].astype(np.int32)


def _encode_strings(strings: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    """UTF-8 bytes of ``strings`` (lone surrogates kept) as one uint8 blob, and offsets into it."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


class EncodingCache:
    """What encoding tokens with fixed templates and a fixed vocabulary can remember.

    Word types are mapped to their attribute values once, and each template key
    (the attribute values a template combines) to its feature id once, found
    through its feature string; later tokens are looked up by integer keys in
    C++ (:class:`conjunct._core.TemplateKeys`). Results equal
    :meth:`Featurizer.encode` without a cache. Safe to share between threads
    (calls take turns). The cache empties itself when it holds more than
    ``max_types`` word types or ``max_keys`` keys, so memory stays bounded on
    endless input.

    Parameters
    ----------
    templates : sequence of str
        The featurizer's templates.
    vocab : dict
        Feature string to id; must not change while the cache is in use.
    max_types, max_keys : int
        Size limits. A key takes 24-48 bytes in C++, a word type a few hundred
        in Python (its attribute values), so the defaults bound the cache to
        roughly 100 MB each.
    name_in_cpp : bool
        Give C++ a copy of the vocabulary (built once, about the size of the
        feature strings), so keys met for the first time are named there
        too; otherwise they are named in Python.
    """

    def __init__(self, templates: Sequence[str], vocab: Dict[str, int], *, max_types: int = 1 << 18,
                 max_keys: int = 1 << 21, name_in_cpp: bool = True):
        from .. import _core

        self.templates = tuple(templates)
        self.vocab = vocab
        self.max_types = int(max_types)
        self.max_keys = int(max_keys)
        parts = [_template_parts(t) for t in self.templates]
        self._attributes: List[str] = sorted({a for ps in parts for a, _ in ps}, key=list(_ATTRIBUTES).index)
        column = {a: k for k, a in enumerate(self._attributes)}
        self._parts = [[(column[a], off) for a, off in ps] for ps in parts]
        self._keys = _core.TemplateKeys(self._parts, len(self._attributes))
        self._lock = threading.Lock()
        self._reset()
        # New keys are named in C++ when it holds the vocabulary (one pass over
        # it here); otherwise (name_in_cpp=False, or a hash shared by two
        # feature strings) in Python, once per key.
        self.names_in_cpp = False
        if name_in_cpp and vocab:
            blob, offsets = _encode_strings(list(vocab))
            ids = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
            if ids.min() >= 0 and ids.max() < 2**31:
                self.names_in_cpp = bool(self._keys.set_names(blob, offsets, ids.astype(np.int32), list(self.templates)))

    def _reset(self) -> None:
        self._keys.clear()
        self._type_index: Dict[str, int] = {}
        self._type_codes = np.zeros((1024, len(self._attributes)), dtype=np.int32)
        # Per attribute: value -> code, and code -> value (0, 1: before / after the sentence).
        self._value_index: List[Dict[str, int]] = [{} for _ in self._attributes]
        self._value_strings: List[List[str]] = [list(_BOUNDARY) for _ in self._attributes]

    @property
    def n_types(self) -> int:
        """Word types remembered."""
        return len(self._type_index)

    @property
    def n_keys(self) -> int:
        """Template keys remembered."""
        return int(self._keys.size)

    def _add_types(self, words: List[str], tok_type: np.ndarray) -> None:
        # Types of the tokens not found (tok_type -1), new ones numbered in order
        # of appearance; then each new type's attribute value codes. C loops only.
        positions = np.flatnonzero(tok_type < 0)
        if not len(positions):
            return
        index = self._type_index
        unknown = list(map(words.__getitem__, positions.tolist()))
        new_types = list(dict.fromkeys(unknown))
        n0 = len(index)
        index.update(zip(new_types, range(n0, n0 + len(new_types))))
        tok_type[positions] = np.fromiter(map(index.__getitem__, unknown), dtype=np.int32, count=len(unknown))
        n = len(index)
        if n > len(self._type_codes):
            grown = np.zeros((max(n, 2 * len(self._type_codes)), len(self._attributes)), dtype=np.int32)
            grown[:n0] = self._type_codes[:n0]
            self._type_codes = grown
        for a, name in enumerate(self._attributes):
            codes_of, strings = self._value_index[a], self._value_strings[a]
            values = list(map(_attribute(name), new_types))
            fresh = list(dict.fromkeys(itertools.filterfalse(codes_of.__contains__, values)))
            codes_of.update(zip(fresh, range(len(strings), len(strings) + len(fresh))))
            strings.extend(fresh)
            self._keys.add_values(a, *_encode_strings(fresh))
            if self._keys.n_values(a) != len(strings):
                raise RuntimeError("encoding cache: value strings out of step with C++")
            self._type_codes[n0:n, a] = np.fromiter(map(codes_of.__getitem__, values), dtype=np.int32,
                                                    count=len(values))

    def encode(self, words: List[str], lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, ids) of the tokens ``words`` in sentences of ``lengths``."""
        with self._lock:
            if self.n_types > self.max_types or self.n_keys > self.max_keys:
                self._reset()
            vocab = self.vocab
            tok_type = np.fromiter(map(self._type_index.get, words, itertools.repeat(-1)), dtype=np.int32,
                                   count=len(words))
            self._add_types(words, tok_type)
            sentence_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=sentence_ptr[1:])
            pending_template, pending_codes = self._keys.lookup(tok_type, sentence_ptr,
                                                                self._type_codes[: self.n_types])
            # Keys met for the first time, grouped by template: named once, then looked up.
            found = np.full(len(pending_template), -1, dtype=np.int32)
            bounds = np.searchsorted(pending_template, np.arange(len(self.templates) + 1))
            for t in range(len(self.templates)):
                b, e = int(bounds[t]), int(bounds[t + 1])
                if b == e:
                    continue
                values = [list(map(self._value_strings[a].__getitem__, pending_codes[b:e, k].tolist()))
                          for k, (a, _) in enumerate(self._parts[t])]
                prefix = self.templates[t] + "="
                text = [prefix + "|".join(v) for v in zip(*values)]
                found[b:e] = np.fromiter(map(vocab.get, text, itertools.repeat(-1)), dtype=np.int32, count=e - b)
            return self._keys.resolve(found)


def _combine(key: np.ndarray, v: np.ndarray, radix: int) -> Tuple[np.ndarray, int]:
    """A dense integer code of the pairs (key, v), which stays below n_tokens * radix."""
    if not key.any():
        return v.copy(), radix
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64) * radix + v, len(uniq) * radix
