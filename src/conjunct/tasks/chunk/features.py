"""YamCha's chunking features: words and POS tags in a window of +-2 tokens
(static, looked up once per distinct word and tag as ids: :class:`ChunkEncoder`)
and the two previous decisions (dynamic)."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...corpora import window_features

__all__ = ["token_features", "dynamic_features", "features_with", "ChunkEncoder", "COLUMNS"]

COLUMNS = ("w", "p")


def token_features(sentence: Sequence[Tuple[str, ...]], i: int, window: int = 2) -> List[str]:
    """Static features of token i: words and POS tags at offsets -window..+window."""
    return window_features(sentence, i, window=window, columns=COLUMNS)


def dynamic_features(prev1: Optional[str], prev2: Optional[str]) -> List[str]:
    """YamCha's dynamic features: the two previous decisions (None: before the sentence)."""
    return [f"t[-1]={prev1 if prev1 is not None else 'BOS'}", f"t[-2]={prev2 if prev2 is not None else 'BOS'}"]


def features_with(sentence, i: int, tags: Sequence[str], window: int) -> List[str]:
    return token_features(sentence, i, window) + dynamic_features(tags[i - 1] if i >= 1 else None, tags[i - 2] if i >= 2 else None)


class ChunkEncoder:
    """Static feature ids of tokens, vectorised: each distinct word and POS
    tag's ids at every window offset are looked up once and cached."""

    def __init__(self, index, window: int = 2):
        self.index = index
        self.window = window
        self.offsets = list(range(-window, window + 1))
        self._rows: List[Dict[str, int]] = [{}, {}]            # per column: value -> table row
        self._tables: List[List[np.ndarray]] = [[], []]         # per column: rows of ids per offset

    def _row(self, column: int, value: str) -> int:
        rows = self._rows[column]
        r = rows.get(value)
        if r is None:
            get, name = self.index.get, COLUMNS[column]
            r = rows[value] = len(rows)
            self._tables[column].append(np.asarray([get(f"{name}[{o:+d}]={value}") for o in self.offsets], dtype=np.int32))
        return r

    def encode(self, sentences) -> dict:
        """sentence_ptr, token_ptr and token_ids (fixed width: 2 x (2 window + 1)
        ids per token, -1 for features the model does not know)."""
        w = self.window
        width = len(self.offsets)
        lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        sentence_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=sentence_ptr[1:])
        n = int(sentence_ptr[-1])
        ids = np.empty((n, 2 * width), dtype=np.int32)
        if n:
            for c in range(2):
                bos, eos = self._row(c, "BOS"), self._row(c, "EOS")
                padded = []
                for s in sentences:
                    padded.extend([bos] * w)
                    padded.extend(self._row(c, t[c]) for t in s)
                    padded.extend([eos] * w)
                padded = np.asarray(padded, dtype=np.int64)
                table = np.stack(self._tables[c])
                # Token k of sentence j sits at padded position sentence_ptr[j] + 2 w j + w + (k - sentence_ptr[j]).
                pos = np.arange(n, dtype=np.int64) + np.repeat(np.arange(len(sentences), dtype=np.int64) * 2 * w, lengths) + w
                for k, o in enumerate(self.offsets):
                    ids[:, c + 2 * k] = table[padded[pos + o], k]
        token_ptr = np.arange(n + 1, dtype=np.int64) * (2 * width)
        return {"sentence_ptr": sentence_ptr, "token_ptr": token_ptr, "token_ids": ids.reshape(-1)}
