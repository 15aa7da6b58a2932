"""YamCha's chunking features, declared once as a template spec
(:func:`spec`): the words and POS tags in a window of +-2 tokens (static)
and the two previous decisions (dynamic). The C++ engine
(``_core.ChunkFeatures``) computes their ids from the tokens' strings; the
functions here are the reference path, which names the same features as
strings through the spec (``w[-1]=the``, ``p[+0]=NN``, ``t[-1]=B-NP``)."""

from __future__ import annotations

from functools import lru_cache
from typing import List, Optional, Sequence, Tuple

from ...features.spec import FeatureSpec, Part, Template

__all__ = ["spec", "token_features", "dynamic_features", "features_with", "COLUMNS"]

#: Attributes of a token: its word and its POS tag (the columns of a CoNLL-2000 token).
COLUMNS = ("w", "p")
#: The value of a word or tag outside the sentence, and of a decision before it.
BOS, EOS = "BOS", "EOS"


@lru_cache(maxsize=None)
def spec(window: int = 2) -> FeatureSpec:
    """Templates: each column at each offset -window..+window, then the
    decided tag ("t") at -1 and -2."""
    static = [Template(f"{col}[{off:+d}]", (Part(col, f"{off:+d}"),), "static")
              for off in range(-window, window + 1) for col in COLUMNS]
    return FeatureSpec(static + [Template(f"t[{off:+d}]", (Part("t", f"{off:+d}"),), "dynamic") for off in (-1, -2)])


@lru_cache(maxsize=None)
def _prefixes(window: int) -> Tuple[List[Tuple[str, int, int]], Tuple[str, str]]:
    """(per static template: name and '=', offset, column; the two dynamic templates' name and '=')."""
    s = spec(window)
    static = [(s.name(t, ("",)), int(s.templates[t].parts[0].position), COLUMNS.index(s.templates[t].parts[0].attribute))
              for t in range(len(s)) if s.templates[t].group == "static"]
    return static, (s.name(s.index("t[-1]"), ("",)), s.name(s.index("t[-2]"), ("",)))


def token_features(sentence: Sequence[Tuple[str, ...]], i: int, window: int = 2) -> List[str]:
    """Static features of token i: words and POS tags at offsets -window..+window."""
    n = len(sentence)
    return [pre + (sentence[i + off][col] if 0 <= i + off < n else (BOS if i + off < 0 else EOS))
            for pre, off, col in _prefixes(window)[0]]


def dynamic_features(prev1: Optional[str], prev2: Optional[str], window: int = 2) -> List[str]:
    """YamCha's dynamic features: the two previous decisions (None: before the sentence)."""
    p1, p2 = _prefixes(window)[1]
    return [p1 + (prev1 if prev1 is not None else BOS), p2 + (prev2 if prev2 is not None else BOS)]


def features_with(sentence, i: int, tags: Sequence[str], window: int) -> List[str]:
    return token_features(sentence, i, window) + dynamic_features(tags[i - 1] if i >= 1 else None,
                                                                  tags[i - 2] if i >= 2 else None, window)
