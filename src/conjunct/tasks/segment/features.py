"""Character-boundary features: character and character-type n-grams in a
window around the boundary, as strings (:func:`boundary_features`, the
reference) and as ids computed with numpy over many sentences at once
(:class:`SegmentEncoder`)."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..._errors import DataFormatError

__all__ = ["char_type", "CHAR_TYPES", "PAD", "templates", "boundary_features", "SegmentEncoder"]

PAD = "\x02"  # the character outside the sentence (type "O")
LEFT, RIGHT = 3, 3  # window: characters -3..-1 left of the boundary, +0..+2 right of it

CHAR_TYPES = {
    "K": "kanji (CJK ideographs, and 々 〆 〇)",
    "H": "hiragana",
    "T": "katakana (incl. ー, half-width katakana)",
    "N": "digit (any Unicode decimal digit, incl. full-width)",
    "A": "latin / other alphabetic letters (incl. full-width)",
    "S": "symbol: punctuation, spaces and everything else",
    "O": "outside the sentence (padding)",
}


@lru_cache(maxsize=1 << 16)
def char_type(ch: str) -> str:
    """The type of one character, one of :data:`CHAR_TYPES`: K, H, T, N, A, S (O for :data:`PAD`)."""
    if ch == PAD:
        return "O"
    cp = ord(ch)
    if (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF or 0x20000 <= cp <= 0x3FFFF
            or cp in (0x3005, 0x3006, 0x3007)):
        return "K"
    if 0x3041 <= cp <= 0x309F:
        return "H"
    if 0x30A0 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9F:
        return "T"
    cat = unicodedata.category(ch)
    if cat == "Nd":
        return "N"
    if cat.startswith("L"):
        return "A"
    return "S"


def templates(ngram: int = 3) -> List[Tuple[str, int, int]]:
    """The feature templates (kind, first position, length): characters ("c")
    and types ("t"), n-grams of length 1..ngram inside the window."""
    if ngram not in (1, 2, 3):
        raise ValueError(f"ngram must be 1, 2 or 3, got {ngram!r}")
    out = []
    for kind in ("c", "t"):
        for n in range(1, ngram + 1):
            for k in range(-LEFT, RIGHT - n + 1):
                out.append((kind, k, n))
    return out


def _name(kind: str, k: int, n: int, value: str) -> str:
    return f"{kind}{k:+d}:{n}={value}"


def boundary_features(text: str, b: int, ngram: int = 3) -> List[str]:
    """Feature strings of the boundary before character ``b`` (1 <= b < len(text))."""
    padded = PAD * LEFT + text + PAD * RIGHT
    types = "".join(char_type(c) for c in padded)
    p = b + LEFT
    return [_name(kind, k, n, (padded if kind == "c" else types)[p + k:p + k + n]) for kind, k, n in templates(ngram)]


_SHIFT = 16  # bits per character id in a key
_TYPE_ID = {t: i for i, t in enumerate(CHAR_TYPES, 1)}


class SegmentEncoder:
    """Feature ids of every boundary of many sentences, computed with numpy.

    Each feature is an integer key ``template << 48 | id(c1) << 32 | id(c2) << 16 | id(c3)``
    over small character ids (type ids for the type templates); the keys the
    model knows are sorted once, and a batch is looked up with ``searchsorted``.
    With ``grow`` (training), unseen characters get new ids and
    :meth:`names` turns keys back into feature strings.
    """

    def __init__(self, ngram: int = 3, index=None):
        self.ngram = ngram
        self.templates = templates(ngram)
        self._tid = {t: i for i, t in enumerate(self.templates, 1)}
        self.char_ids: Dict[str, int] = {PAD: 1}
        self._chars: List[str] = ["", PAD]
        self.keys = np.zeros(0, dtype=np.int64)
        self.columns = np.zeros(0, dtype=np.int32)
        if index is not None:
            self._index_keys(index)

    def _char_id(self, ch: str, grow: bool) -> int:
        i = self.char_ids.get(ch)
        if i is None:
            if not grow:
                return 0
            i = self.char_ids[ch] = len(self._chars)
            if i >= 1 << _SHIFT:
                raise DataFormatError(f"more than {(1 << _SHIFT) - 1} distinct characters")
            self._chars.append(ch)
        return i

    def _index_keys(self, index) -> None:
        """The sorted keys of the features of a trained model's index."""
        keys, cols = [], []
        for col, name in enumerate(index.names):
            head, sep, value = name.partition("=")
            try:
                kind, (k, n) = head[0], map(int, head[1:].split(":"))
                tid = self._tid[(kind, k, n)]
            except (ValueError, KeyError, IndexError):
                continue  # not a segmentation feature of this window / n-gram order
            if len(value) != n:
                continue
            ids = [_TYPE_ID.get(ch, 0) for ch in value] if kind == "t" else [self._char_id(ch, True) for ch in value]
            keys.append(self._key(tid, ids))
            cols.append(col)
        order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
        self.keys = np.asarray(keys, dtype=np.int64)[order]
        self.columns = np.asarray(cols, dtype=np.int32)[order]

    @staticmethod
    def _key(tid: int, ids: Sequence[int]) -> int:
        key = tid << 48
        for j, i in enumerate(ids):
            key |= i << (_SHIFT * (2 - j))
        return key

    def boundary_keys(self, texts: Sequence[str], *, grow: bool = False) -> Tuple[np.ndarray, np.ndarray]:
        """(keys of shape (n_boundaries, n_templates), boundary offsets per sentence)."""
        lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        n_bound = np.maximum(lengths - 1, 0)
        ptr = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(n_bound, out=ptr[1:])
        n = int(ptr[-1])
        if n == 0:
            return np.zeros((0, len(self.templates)), dtype=np.int64), ptr
        # One padded string: PAD*3 t1 PAD*3 t2 ... tn PAD*3 (LEFT == RIGHT).
        joined = (PAD * LEFT).join([""] + list(texts) + [""])
        codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
        uniq, inverse = np.unique(codes, return_inverse=True)
        uchars = [chr(c) for c in uniq]
        cids = np.asarray([self._char_id(c, grow) for c in uchars], dtype=np.int64)[inverse]
        tids = np.asarray([_TYPE_ID[char_type(c)] for c in uchars], dtype=np.int64)[inverse]
        # Boundary b (1..m-1) of sentence j sits before padded position start_j + b.
        starts = LEFT + np.concatenate(([0], np.cumsum(lengths[:-1] + LEFT)))
        sent = np.repeat(np.arange(len(texts)), n_bound)
        pos = starts[sent] + (np.arange(n, dtype=np.int64) - ptr[sent]) + 1
        keys = np.empty((n, len(self.templates)), dtype=np.int64)
        for col, (kind, k, m) in enumerate(self.templates):
            src = cids if kind == "c" else tids
            key = np.full(n, self._tid[(kind, k, m)] << 48, dtype=np.int64)
            for j in range(m):
                key |= src[pos + k + j] << (_SHIFT * (2 - j))
            keys[:, col] = key
        return keys, ptr

    def names(self, keys: np.ndarray) -> np.ndarray:
        """Feature strings of keys (an object array of the same shape)."""
        uniq, inverse = np.unique(keys, return_inverse=True)
        inv_type = {i: t for t, i in _TYPE_ID.items()}
        out = []
        for key in uniq.tolist():
            kind, k, n = self.templates[(key >> 48) - 1]
            ids = [(key >> (_SHIFT * (2 - j))) & ((1 << _SHIFT) - 1) for j in range(n)]
            value = "".join(inv_type[i] for i in ids) if kind == "t" else "".join(self._chars[i] for i in ids)
            out.append(_name(kind, k, n, value))
        return np.asarray(out, dtype=object)[inverse.reshape(keys.shape)]

    def encode(self, texts: Sequence[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, column ids, boundary offsets per sentence): a fixed-width CSR
        with -1 for features the model does not know (the classifier drops them)."""
        keys, ptr = self.boundary_keys(texts)
        n, width = keys.shape
        if self.keys.size:
            at = np.searchsorted(self.keys, keys.reshape(-1)).clip(max=self.keys.size - 1)
            cols = np.where(self.keys[at] == keys.reshape(-1), self.columns[at], -1).astype(np.int32)
        else:
            cols = np.full(n * width, -1, dtype=np.int32)
        return np.arange(n + 1, dtype=np.int64) * width, cols, ptr
