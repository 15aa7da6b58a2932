"""Character-boundary features, declared once as a template spec
(:func:`spec`): the character and character-type n-grams in a window around
the boundary. The C++ engine (``_core.BoundaryFeatures``) computes their ids
from UTF-8 text; this module is the reference path, which names the same
features as strings through the spec (:func:`boundary_features`).

Attributes of a character: ``c1`` .. ``c4``, the character n-gram starting
there, and ``t1`` .. ``t6``, the n-gram of the characters' types
(:func:`char_type`; by default n-grams up to 3 of both). Positions: offsets from the boundary, ``-3`` .. ``+2``
(``-1`` is the character left of it, ``+0`` the one right of it). A template
is one n-gram at one offset inside the window, named ``c-1:2`` (the character
bigram starting at ``-1``); its feature reads ``c-1:2=本語``.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from typing import List, Optional, Sequence, Tuple

from ...features.spec import FeatureSpec, Part, Template
from .dictionary import WordDictionary, dictionary_templates, flag_names

__all__ = ["char_type", "CHAR_TYPES", "PAD", "LEFT", "RIGHT", "spec", "templates", "boundary_features",
           "feature_lists"]

PAD = "\x02"  # the character outside the sentence (type "O")
LEFT, RIGHT = 3, 3  # window: characters -3..-1 left of the boundary, +0..+2 right of it

CHAR_TYPES = {
    "K": "kanji (CJK ideographs, and 々 〆 〇)",
    "H": "hiragana",
    "T": "katakana (incl. ー, half-width katakana)",
    "N": "digit (Unicode decimal digits, incl. full-width)",
    "A": "latin / other alphabetic letters (incl. full-width)",
    "S": "symbol: punctuation, spaces and everything else",
    "O": "outside the sentence (padding)",
}

_TABLE: Optional[Tuple[list, list, list]] = None


def _table() -> Tuple[list, list, list]:
    # The class ranges the C++ engine reads (tools/gen_char_classes.py), so both
    # paths classify alike whatever Unicode version this Python's unicodedata has.
    global _TABLE
    if _TABLE is None:
        from ... import _core

        first, last, cls, _ = _core.BoundaryFeatures.char_class_ranges()
        _TABLE = (first.tolist(), last.tolist(), [chr(c) for c in cls.tolist()])
    return _TABLE


@lru_cache(maxsize=1 << 16)
def char_type(ch: str) -> str:
    """The type of one character, one of :data:`CHAR_TYPES`: K, H, T, N, A, S (O for :data:`PAD`)."""
    if ch == PAD:
        return "O"
    first, last, cls = _table()
    cp = ord(ch)
    k = bisect_right(first, cp) - 1
    return cls[k] if k >= 0 and cp <= last[k] else "S"


def templates(ngram: int = 3, type_ngram: Optional[int] = None) -> List[Tuple[str, int, int]]:
    """The feature templates (kind, first position, length): characters ("c")
    n-grams of length 1..ngram and types ("t") of length 1..type_ngram
    (default ``ngram``) inside the window."""
    type_ngram = ngram if type_ngram is None else type_ngram
    if ngram not in (1, 2, 3, 4):
        raise ValueError(f"ngram must be 1 to 4, got {ngram!r}")
    if type_ngram not in range(1, LEFT + RIGHT + 1):
        raise ValueError(f"type_ngram must be 1 to {LEFT + RIGHT}, got {type_ngram!r}")
    return [(kind, k, n) for kind, most in (("c", ngram), ("t", type_ngram)) for n in range(1, most + 1)
            for k in range(-LEFT, RIGHT - n + 1)]


def spec(ngram: int = 3, extra: Sequence[Template] = (), dictionary: bool = False,
         type_ngram: Optional[int] = None, longest_match: bool = False) -> FeatureSpec:
    """The template spec of the boundary features (with ``dictionary``, the
    dictionary flags after them, and with ``longest_match`` too the
    longest-match flags; ``extra`` templates last)."""
    return FeatureSpec([Template(f"{kind}{k:+d}:{n}", (Part(f"{kind}{n}", f"{k:+d}"),), "chars" if kind == "c" else "types")
                        for kind, k, n in templates(ngram, type_ngram)] + (dictionary_templates(longest_match) if dictionary else [])
                       + list(extra))


@lru_cache(maxsize=None)
def _prefixes(ngram: int, type_ngram: Optional[int] = None) -> List[Tuple[str, bool, int, int]]:
    """Per template, (its name and '=', reads types, offset, length): what the reference fills in."""
    s = spec(ngram, type_ngram=type_ngram)
    return [(s.name(t, ("",)), kind == "t", k, n) for t, (kind, k, n) in enumerate(templates(ngram, type_ngram))]


def feature_lists(text: str, positions: Sequence[int], ngram: int = 3,
                  dictionary: Optional[WordDictionary] = None, type_ngram: Optional[int] = None,
                  longest_match: bool = False) -> List[List[str]]:
    """The feature strings of the boundaries before characters ``positions`` of
    ``text`` (with a ``dictionary``, its flags after the n-grams; with
    ``longest_match`` too its longest-match flags)."""
    padded = PAD * LEFT + text + PAD * RIGHT
    types = "".join(map(char_type, padded))
    prefixes = _prefixes(ngram, type_ngram)
    out = []
    for b in positions:
        p = b + LEFT
        out.append([pre + (types if typed else padded)[p + k:p + k + n] for pre, typed, k, n in prefixes])
    if dictionary is not None:
        flags = dictionary.flags(text, longest_match).tolist()
        for row, b in zip(out, positions):
            row.extend(flag_names(flags[b]))
    return out


def boundary_features(text: str, b: int, ngram: int = 3, dictionary: Optional[WordDictionary] = None,
                      type_ngram: Optional[int] = None, longest_match: bool = False) -> List[str]:
    """Feature strings of the boundary before character ``b`` (1 <= b < len(text))."""
    return feature_lists(text, [b], ngram, dictionary, type_ngram, longest_match)[0]
