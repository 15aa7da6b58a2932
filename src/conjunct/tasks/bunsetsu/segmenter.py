"""Bunsetsu boundaries for UD Japanese GSD's train file, which does not mark
them: a back-off table learned from the gold boundaries of dev."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Sequence

from ..._errors import DataFormatError
from .sentence import Token

__all__ = ["BunsetsuSegmenter"]


class BunsetsuSegmenter:
    """Bunsetsu boundaries (B/I per token) by a back-off table learned from gold labels."""

    LEVELS = 5

    def __init__(self, min_count: int = 2):
        self.min_count = min_count
        self.tables_: List[Dict[tuple, Counter]] = []

    @staticmethod
    def _keys(tokens: Sequence[Token], k: int) -> List[tuple]:
        t = tokens[k]
        p = tokens[k - 1] if k else None
        px = p.xpos if p else "BOS"
        direction = "L" if 0 < t.head < t.id else ("R" if t.head > t.id else "0")
        reach = "prev" if t.head == t.id - 1 else ("next" if t.head == t.id + 1 else "far")
        prev_att = ("p>cur" if p.head == t.id else ("p>L" if p.head < p.id else "p>R")) if p else "BOS"
        rel = f"{t.deprel}:{direction}:{reach}:{prev_att}"
        return [(px, t.xpos, rel), (px.split("-")[0], t.pos, rel), (t.deprel, rel.split(":", 1)[1]), (px, t.xpos),
                (px.split("-")[0], t.pos)]

    def fit(self, sentences: Iterable[Sequence[Token]]) -> "BunsetsuSegmenter":
        tables: List[Dict[tuple, Counter]] = [defaultdict(Counter) for _ in range(self.LEVELS)]
        n = 0
        for tokens in sentences:
            for k, t in enumerate(tokens):
                if t.bi not in ("B", "I"):
                    raise DataFormatError(f"token {t.id} ({t.form}) has no gold bunsetsu label")
                for level, key in enumerate(self._keys(tokens, k)):
                    tables[level][key][t.bi] += 1
                n += 1
        if not n:
            raise DataFormatError("no gold bunsetsu labels to learn from")
        self.tables_ = [dict(t) for t in tables]
        return self

    def labels(self, tokens: Sequence[Token]) -> List[str]:
        if not self.tables_:
            raise RuntimeError("the segmenter is not fitted")
        out = []
        for k in range(len(tokens)):
            label = "B" if k == 0 else "I"
            if k:
                for level, key in enumerate(self._keys(tokens, k)):
                    c = self.tables_[level].get(key)
                    if c is not None and sum(c.values()) >= self.min_count:
                        label = c.most_common(1)[0][0]
                        break
            out.append(label)
        return out
