"""Readers for the column corpora conjunct's tasks use (CoNLL-2000, CoNLL-U).

They return plain Python structures; errors name the file and line.
"""

from __future__ import annotations

import os
from typing import List, Sequence, Tuple

from ._errors import DataFormatError

__all__ = ["read_conll2000", "window_features"]

Token = Tuple[str, ...]


def read_conll2000(path, *, n_columns: int = 3) -> List[List[Token]]:
    """Sentences of a CoNLL-2000 style file: one ``word POS chunk`` token per line,
    a blank line after each sentence."""
    name = os.fspath(path)
    sentences: List[List[Token]] = []
    current: List[Token] = []
    try:
        f = open(name, encoding="utf-8")
    except FileNotFoundError:
        raise DataFormatError("no such file", name) from None
    with f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                if current:
                    sentences.append(current)
                    current = []
                continue
            if len(fields) != n_columns:
                raise DataFormatError(f"expected {n_columns} columns, found {len(fields)}", name, lineno)
            current.append(tuple(fields))
    if current:
        sentences.append(current)
    if not sentences:
        raise DataFormatError("no sentences", name)
    return sentences


def window_features(sentence: Sequence[Token], i: int, *, window: int = 2, columns: Sequence[str] = ("w", "p")) -> List[str]:
    """YamCha-style window features of token ``i``: ``w[-2]=...``, ``p[+1]=...``, ...

    Positions outside the sentence give ``BOS``/``EOS`` values.
    """
    feats = []
    n = len(sentence)
    for off in range(-window, window + 1):
        j = i + off
        for c, col in enumerate(columns):
            value = sentence[j][c] if 0 <= j < n else ("BOS" if j < 0 else "EOS")
            feats.append(f"{col}[{off:+d}]={value}")
    return feats
