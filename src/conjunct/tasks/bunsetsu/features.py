"""The features of a bunsetsu pair (Yoshinaga & Kitsuregawa 2009, Table 1) as
strings, for training, and as ids of a model's feature index, cached per
bunsetsu, for the C++ parser (:class:`BunsetsuEncoder`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .sentence import Bunsetsu, BunsetsuSentence, Token

__all__ = ["SentenceFeatures", "pair_features", "BunsetsuEncoder", "encode_sentences", "DISTANCE_FEATURES"]

OPEN_BRACKETS = set("「『（(［[【〈《〔｛{")
CLOSE_BRACKETS = set("」』）)］]】〉》〕｝}")
QUOTES = set("\"'“”‘’")
PUNCTUATION = set("、。，．,.！？!?・…")


@lru_cache(maxsize=1 << 16)
def _word_strings(prefix: str, form: str, lemma: str, xpos: str) -> Tuple[str, ...]:
    pos = xpos.split("-", 1)[0]
    pos2 = "-".join(xpos.split("-")[:2])
    infl = form[-1] if form != lemma and form else "-"
    return (f"{prefix}.w={form}", f"{prefix}.p={pos}", f"{prefix}.s={pos2}", f"{prefix}.x={xpos}", f"{prefix}.i={infl}")


def _word_features(prefix: str, t: Optional[Token]) -> Tuple[str, ...]:
    if t is None:
        return (f"{prefix}=NONE",)
    return _word_strings(prefix, t.form, t.lemma, t.xpos)


@lru_cache(maxsize=1 << 12)
def _symbol_strings(prefix: str, chars: str) -> Tuple[str, ...]:
    """Bracket, quote and punctuation features of a bunsetsu's symbol characters."""
    c = set(chars)
    return (tuple(f"{prefix}.ob={ch}" for ch in sorted(c & OPEN_BRACKETS)) + tuple(f"{prefix}.cb={ch}" for ch in sorted(c & CLOSE_BRACKETS))
            + tuple(f"{prefix}.q={ch}" for ch in sorted(c & QUOTES)) + tuple(f"{prefix}.pu={ch}" for ch in sorted(c & PUNCTUATION)))


def _symbol_chars(b: Bunsetsu) -> str:
    return b.symbol_chars()


def _bunsetsu_features(prefix: str, b: Bunsetsu, index: int, n: int) -> List[str]:
    feats = list(_word_features(f"{prefix}.h", b.head_word()) + _word_features(f"{prefix}.f", b.function_word()))
    feats += _symbol_strings(prefix, _symbol_chars(b))
    if index == 0:
        feats.append(f"{prefix}.pos=begin")
    if index == n - 1:
        feats.append(f"{prefix}.pos=end")
    return feats


def _between_strings(b: Bunsetsu) -> Tuple[str, ...]:
    """What a bunsetsu contributes to the pairs spanning it: its case particle,
    brackets, quotes and punctuation."""
    f = b.function_word()
    case = (f"b.case={f.form}",) if f is not None and f.pos2 in ("助詞-格助詞", "助詞-係助詞") else ()
    return case + _between_symbols(_symbol_chars(b))


@lru_cache(maxsize=1 << 12)
def _between_symbols(chars: str) -> Tuple[str, ...]:
    c = set(chars)
    return (tuple(f"b.br={ch}" for ch in sorted(c & (OPEN_BRACKETS | CLOSE_BRACKETS))) + tuple(f"b.q={ch}" for ch in sorted(c & QUOTES))
            + tuple(f"b.pu={ch}" for ch in sorted(c & PUNCTUATION)))


def _distance(d: int) -> str:
    return "1" if d == 1 else ("2-5" if d <= 5 else "6+")


class SentenceFeatures:
    """Features of every bunsetsu pair of one sentence, computed once per bunsetsu.

    ``pair(i, j)`` is the feature list of "does bunsetsu i depend on bunsetsu j"
    (i < j): modifier and head-candidate features, the distance bucket, and the
    case particles, brackets, quotes and punctuation between them.
    """

    def __init__(self, sentence: BunsetsuSentence):
        bs = sentence.bunsetsu
        n = len(bs)
        self.n = n
        self.modifier = [_bunsetsu_features("m", b, k, n) for k, b in enumerate(bs)]
        self.head = [_bunsetsu_features("h", b, k, n) for k, b in enumerate(bs)]
        self._between = [set(_between_strings(b)) for b in bs]

    @property
    def between(self) -> List[set]:
        """Per bunsetsu, the features it contributes to pairs that span it."""
        return self._between

    def pair(self, i: int, j: int) -> List[str]:
        inside = set()
        for k in range(i + 1, j):
            inside |= self._between[k]
        return self.modifier[i] + self.head[j] + [f"dist={_distance(j - i)}"] + sorted(inside)


def pair_features(sentence: BunsetsuSentence, i: int, j: int) -> List[str]:
    """Features of the pair (modifier i, head candidate j); see :class:`SentenceFeatures`."""
    return SentenceFeatures(sentence).pair(i, j)


DISTANCE_FEATURES = ("dist=1", "dist=2-5", "dist=6+")


class BunsetsuEncoder:
    """Feature ids of bunsetsu. A bunsetsu's ids depend only on its head and
    function words, its symbol characters and whether it starts or ends the
    sentence, so they are computed once per such key and cached (a corpus
    repeats them); the cache is cleared when it reaches ``max_cache`` keys."""

    def __init__(self, index, max_cache: int = 1 << 20):
        self.index = index
        self.max_cache = max_cache
        self._cache: Dict[tuple, Tuple[List[int], List[int], List[int]]] = {}
        self.distance = np.asarray([index.get(d) for d in DISTANCE_FEATURES], dtype=np.int32)

    def _ids(self, strings) -> List[int]:
        get = self.index.get
        return [i for i in map(get, strings) if i >= 0]

    def _entry(self, b: Bunsetsu, k: int, n: int) -> Tuple[List[int], List[int], List[int]]:
        return (self._ids(_bunsetsu_features("m", b, k, n)), self._ids(_bunsetsu_features("h", b, k, n)),
                self._ids(_between_strings(b)))

    def encode(self, sentences: Sequence[BunsetsuSentence]) -> dict:
        """The arrays the C++ parser reads: per bunsetsu its modifier-side,
        head-side and between feature ids (CSR), sentence offsets, distance ids."""
        cache = self._cache
        sentence_ptr = [0]
        mod, head, btw = [], [], []
        mod_ptr, head_ptr, btw_ptr = [0], [0], [0]
        for s in sentences:
            bs = s.bunsetsu
            n = len(bs)
            last = n - 1
            for k, b in enumerate(bs):
                h, f = b.head_word(), b.function_word()
                key = (h.form if h else None, h.lemma if h else None, h.xpos if h else None,
                       f.form if f else None, f.lemma if f else None, f.xpos if f else None,
                       b.symbol_chars(), k == 0, k == last)
                entry = cache.get(key)
                if entry is None:
                    if len(cache) >= self.max_cache:
                        cache.clear()
                    entry = cache[key] = self._entry(b, k, n)
                mod += entry[0]
                mod_ptr.append(len(mod))
                head += entry[1]
                head_ptr.append(len(head))
                btw += entry[2]
                btw_ptr.append(len(btw))
            sentence_ptr.append(sentence_ptr[-1] + n)
        i64, i32 = np.int64, np.int32
        return {"sentence_ptr": np.asarray(sentence_ptr, dtype=i64), "distance": self.distance,
                "mod_ptr": np.asarray(mod_ptr, dtype=i64), "mod_ids": np.asarray(mod, dtype=i32),
                "head_ptr": np.asarray(head_ptr, dtype=i64), "head_ids": np.asarray(head, dtype=i32),
                "btw_ptr": np.asarray(btw_ptr, dtype=i64), "btw_ids": np.asarray(btw, dtype=i32)}


def encode_sentences(sentences: Sequence[BunsetsuSentence], index) -> dict:
    """Per-bunsetsu feature ids of many sentences (see :class:`BunsetsuEncoder`)."""
    return BunsetsuEncoder(index).encode(sentences)
