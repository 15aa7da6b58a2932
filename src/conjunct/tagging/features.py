"""Feature templates of the sequence taggers, declared on the feature engine.

A template names token attributes at token offsets, joined by ``|``:

- ``bias`` (always on), ``w`` (the word), ``lw`` (lower-cased word),
  ``p1``..``p6`` / ``s1``..``s6`` (prefixes / suffixes of the word),
  ``shape`` (character classes, runs collapsed: ``Xx``, ``d.d``, ...),
  ``len`` (length, 12 for 12 or more), ``ctype`` (character types as the
  Japanese segmenter classes them, runs collapsed: ``KH``), and the flags ``hyphen``, ``digit``,
  ``upper`` (any upper-case letter), ``title``, ``allcaps`` (value ``1``; a
  flag template alone has no feature where the flag is off);
- ``w-2``, ``w-1``, ``w+1``, ``w+2``: a neighbouring lower-cased word, and
  ``<attribute>-k`` / ``<attribute>+k`` (k = 1..9) any attribute of a
  neighbouring word (``shape-1``, ``s3+1``); ``<s>`` / ``</s>`` beyond the
  sentence;
- conjunctions of up to three of the above, e.g. ``w-1|w`` (word bigram) or
  ``s3|w-1``.

The templates become a :class:`~conjunct.features.spec.FeatureSpec` (attribute
× offset parts; a template's name joins its parts with ``,``), which the C++
engine compiles once: a word's attributes are computed once per batch and
looked up in the model's vocabularies, and its templates' codes pack into
integer keys that the model's key table maps to feature ids
(``cpp/src/tagging/token_features.cpp``). A feature's readable name comes from the
spec: ``"w-1,w=the|dog"``. Values are escaped: ``\\`` and ``|`` inside a value
get a backslash, and so does a word equal to ``<s>`` or ``</s>``, so a name
names exactly one tuple of values. :meth:`Featurizer.strings` is the Python
reference path, built from the same spec; tests check that the engine's ids
equal it feature for feature.
"""

from __future__ import annotations

import itertools
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import DataFormatError
from ..features.spec import FeatureKeys, FeatureSpec, Part, Template

__all__ = ["DEFAULT_TEMPLATES", "JAPANESE_TEMPLATES", "Featurizer", "TokenFeatures", "word_shape", "token_buffers"]

_NEIGHBOURS = {"w-2": -2, "w-1": -1, "w+1": 1, "w+2": 2}  # lower-cased neighbouring words
_BOUNDARY = ("<s>", "</s>")  # the value of any attribute before / after the sentence
_MAX_OFFSET = 9  # the C++ TokenTemplates::kMaxOffset


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


def char_types(word: str) -> str:
    """The character types of ``word`` (the Japanese segmenter's: K kanji, H
    hiragana, T katakana, N digit, A other letter, S other), runs collapsed:
    ``"KH"`` for 食べる."""
    from ..tasks.segment.features import char_type

    out = []
    for ch in word:
        t = char_type(ch)
        if not out or out[-1] != t:
            out.append(t)
    return "".join(out)


def _flag(test):
    return lambda w: "1" if test(w) else "0"


#: The token attributes (the C++ TokenAttribute, same names), as the reference path computes them.
ATTRIBUTES: Dict[str, Callable[[str], str]] = {
    "bias": lambda w: "", "w": lambda w: w, "lw": str.lower,
    **{f"p{k}": (lambda k: lambda w: w[:k])(k) for k in range(1, 7)},
    **{f"s{k}": (lambda k: lambda w: w[-k:])(k) for k in range(1, 7)},
    "shape": word_shape,
    "len": lambda w: str(min(len(w), 12)),
    "hyphen": _flag(lambda w: "-" in w),
    "digit": _flag(lambda w: any(c.isdigit() for c in w)),
    "upper": _flag(lambda w: any(c.isupper() for c in w)),
    "title": _flag(str.istitle),
    "allcaps": _flag(str.isupper),
    "ctype": char_types,
}
# A template that is one of these flags alone has no feature where the flag is
# off: with the bias feature on every token that loses nothing a linear model
# can express, and spares every token five features that weigh every label.
_FLAGS = ("hyphen", "digit", "upper", "title", "allcaps")

#: Feature templates used when none are given. The 5- and 6-letter suffixes,
#: word flags and length raised dev accuracy most on unknown words
#: (benchmarks/bench_tagger_features.py).
DEFAULT_TEMPLATES: Tuple[str, ...] = (
    "bias", "w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "shape",
    "w-2", "w-1", "w+1", "w+2", "w-1|w", "w|w+1",
    "s5", "s6", "hyphen", "digit", "upper", "title", "allcaps", "len",
)

#: The Japanese text pipeline's tagger: the defaults and the word's character
#: types (``ctype``), which raised UPOS on GSD dev by 0.15 (1.0 on unknown
#: words; benchmarks/bench_tagger_ja.py).
JAPANESE_TEMPLATES: Tuple[str, ...] = DEFAULT_TEMPLATES + ("ctype",)

#: Version 3: features are keys of a template spec (section ``keys``), not
#: strings. Taggers saved with earlier versions are refused: retrain them.
FEATURE_VERSION = 3


def _escape(value: str) -> str:
    if "\\" in value or "|" in value:
        value = value.replace("\\", "\\\\").replace("|", "\\|")
    return "\\" + value if value in _BOUNDARY else value


def attribute_value(name: str, word: str) -> str:
    """The escaped value of token attribute ``name`` of ``word`` (the reference path)."""
    return _escape(ATTRIBUTES[name](word))


_OFFSET = re.compile(r"^(.+?)([+-][1-9])$")


def _part(part: str) -> Tuple[str, int]:
    """(attribute, offset) of a template part: ``w-1`` is the lower-cased word
    before the token, ``<attribute>+k`` / ``<attribute>-k`` an attribute of a
    neighbouring word (``shape-1``, ``s3+1``)."""
    if part in _NEIGHBOURS:
        return "lw", _NEIGHBOURS[part]
    if part in ATTRIBUTES:
        return part, 0
    m = _OFFSET.match(part)
    if m and m.group(1) in ATTRIBUTES and m.group(1) != "w":
        return m.group(1), int(m.group(2))
    raise ValueError(f"unknown feature template part {part!r} (attributes: {', '.join(ATTRIBUTES)}; "
                     f"w-2, w-1, w+1, w+2 for neighbouring words, <attribute>-k / <attribute>+k for their attributes)")


def _position(offset: int) -> str:
    return "0" if offset == 0 else f"{offset:+d}"


def spec_of(templates: Sequence[str]) -> FeatureSpec:
    """The feature spec of tagger templates (``ValueError`` naming a bad one)."""
    if not templates:
        raise ValueError("at least one feature template is needed")
    out = []
    for t in templates:
        try:
            parts = [_part(p) for p in t.split("|")]
        except ValueError as e:
            raise ValueError(f"{e} in template {t!r}") from None
        if len(parts) > 3:
            raise ValueError(f"template {t!r}: a template conjoins at most 3 parts")
        out.append(Template(t.replace("|", ","), tuple(Part(a, _position(off)) for a, off in parts)))
    return FeatureSpec(out)


def token_buffers(sentences: Sequence[Sequence[str]], source: str = "<input>"
                  ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(UTF-8 text, token byte offsets, sentence pointers) of sentences of word
    tokens, checked: ``DataFormatError`` naming a sentence that is a string or
    a token that is not a non-empty string."""
    for k, sent in enumerate(sentences):
        if isinstance(sent, str):
            raise DataFormatError(f"sentence {k + 1}: expected a list of tokens, got a string", source)
    sent_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences)), out=sent_ptr[1:])
    words = list(itertools.chain.from_iterable(sentences))
    try:
        joined = "".join(words)
    except TypeError:
        joined = None
    lengths = None if joined is None else np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    if lengths is None or (len(words) and not lengths.min()):
        i = next(i for i, w in enumerate(words) if not isinstance(w, str) or not w)
        k = int(np.searchsorted(sent_ptr, i, side="right")) - 1
        where = f"sentence {k + 1}, token {i - int(sent_ptr[k]) + 1}"
        if isinstance(words[i], (list, tuple)):
            raise DataFormatError(f"{where}: the tagger reads word tokens and builds its features from its templates; "
                                  f"per-token feature lists are not read (got {words[i]!r:.60})", source)
        raise DataFormatError(f"{where}: tokens must be non-empty strings, got {words[i]!r}", source)
    text = joined.encode("utf-8", "surrogatepass")
    if len(text) != len(joined):  # not ASCII: each word's characters of 2, 3 and 4 UTF-8 bytes add, vectorised
        cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        extra = (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
        starts = np.zeros(len(words), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        lengths = lengths + np.add.reduceat(extra, starts)
    offsets = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.frombuffer(text, dtype=np.uint8), offsets, sent_ptr


class Featurizer:
    """A tagger's feature templates: their spec, the Python reference path
    (feature names) and the building of a model's feature keys from training data.

    Parameters
    ----------
    templates : sequence of str
        Template names (see the module docstring); defaults to
        :data:`DEFAULT_TEMPLATES`.
    """

    def __init__(self, templates: Optional[Sequence[str]] = None):
        self.templates = tuple(DEFAULT_TEMPLATES if templates is None else templates)
        self.spec = spec_of(self.templates)
        self._parts = [[(p.attribute, int(p.position)) for p in t.parts] for t in self.spec.templates]

    def strings(self, words: Sequence[str]) -> List[List[str]]:
        """Every token's feature names, computed in Python from the spec (the
        reference path; also for inspection, or for another tool)."""
        n = len(words)
        value: Dict[Tuple[str, int], str] = {}

        def get(attribute: str, j: int) -> str:
            if j < 0 or j >= n:
                return _BOUNDARY[0 if j < 0 else 1]
            key = (attribute, j)
            if key not in value:
                value[key] = attribute_value(attribute, words[j])
            return value[key]

        out = []
        for i in range(n):
            row = []
            for t, parts in enumerate(self._parts):
                values = [get(a, i + off) for a, off in parts]
                if len(parts) == 1 and parts[0][1] == 0 and parts[0][0] in _FLAGS and values[0] == "0":
                    continue
                row.append(self.spec.name(t, values))
            out.append(row)
        return out

    def build(self, sentences: Sequence[Sequence[str]], source: str = "<input>"
              ) -> Tuple[FeatureKeys, np.ndarray, np.ndarray]:
        """(keys, indptr, ids) of training sentences: every feature they hold,
        numbered in order of first appearance, and each token's ids (CSR)."""
        from .. import _core

        builder = _core.TokenFeatureBuilder(list(self.spec.attributes), list(self.spec.positions),
                                            self.spec.core_templates())
        indptr, ids = builder.add(*token_buffers(sentences, source))
        blob, offsets, vocab_ptr, template_of, codes = builder.keys()
        arrays = {"values_blob": blob, "values_offsets": offsets, "vocab_ptr": vocab_ptr, "template": template_of,
                  "codes": codes}
        return FeatureKeys.from_arrays(self.spec.to_meta(), arrays), indptr, ids


class TokenFeatures:
    """A fitted tagger's features: its keys and the C++ extractor over them."""

    def __init__(self, keys: FeatureKeys):
        from .. import _core

        self.keys = keys
        self.core = _core.TokenFeatures(keys.tables())

    def encode(self, sentences: Sequence[Sequence[str]], source: str = "<input>") -> Tuple[np.ndarray, np.ndarray]:
        """Every token's feature ids (CSR indptr, ids); features the model lacks are left out."""
        return self.core.extract(*token_buffers(sentences, source))


def check_sections(meta, arrays, where, section, feature_keys) -> int:
    """Checks a perceptron tagger's feature sections in its model file (here,
    next to the code that writes them; ``section`` and ``feature_keys`` are
    the shared checks of :mod:`conjunct.io.validation`, passed in so that this
    module does not import it); returns the number of features. Files of
    earlier feature versions (feature strings) are refused with the advice to retrain."""
    version = meta.raw("feature_version", optional=True)
    if version != FEATURE_VERSION or isinstance(version, bool):
        said = repr(version) if isinstance(version, (int, float, str)) and not isinstance(version, bool) else "1"
        where.meta_fail("feature_version", f"saved with feature version {said} (feature strings); this version of "
                                           f"conjunct reads feature version {FEATURE_VERSION} (template keys) only: "
                                           f"retrain it (conjunct tag train)")
    n = section(arrays, where.sub("keys"), "template", "<i4", (None,)).size
    feature_keys(meta.obj("keys"), arrays, where.sub("keys"), n)
    return n
