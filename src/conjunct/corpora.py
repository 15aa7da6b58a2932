"""Readers for the column corpora conjunct's tasks use (CoNLL-2000, CoNLL-U).

They return plain Python structures; errors name the file and line.
"""

from __future__ import annotations

import os
from typing import List, Sequence, Tuple

from ._errors import DataFormatError
from .data import _open_text, _sentence_blocks

__all__ = ["read_conll2000", "read_conllu", "window_features", "CONLLU_FIELDS"]

Token = Tuple[str, ...]


def read_conll2000(path, *, n_columns: int = 3) -> List[List[Token]]:
    """Sentences of a CoNLL-2000 style file: one ``word POS chunk`` token per line,
    a blank line after each sentence.

    Parameters
    ----------
    path : str, os.PathLike or text file
        The corpus ('-' reads standard input).
    n_columns : int
        Columns every token line must have.

    Returns
    -------
    list of list of tuple
        Per sentence, one tuple of the columns per token.
    """
    sentences: List[List[Token]] = []
    with _open_text(os.fspath(path)) as (f, name):
        for block in _sentence_blocks(f, name):
            sentence = []
            for lineno, line in block:
                fields = line.split()
                if len(fields) != n_columns:
                    raise DataFormatError(f"expected {n_columns} columns, found {len(fields)}", name, lineno)
                sentence.append(tuple(fields))
            sentences.append(sentence)
    if not sentences:
        raise DataFormatError("no sentences", name)
    return sentences


def window_features(sentence: Sequence[Token], i: int, *, window: int = 2, columns: Sequence[str] = ("w", "p")) -> List[str]:
    """YamCha-style window features of token ``i``: ``w[-2]=...``, ``p[+1]=...``, ...

    Positions outside the sentence give ``BOS``/``EOS`` values.

    Parameters
    ----------
    sentence : sequence of tuple
        Tokens as column tuples (``read_conll2000``'s).
    i : int
        The token.
    window : int
        Positions on each side.
    columns : sequence of str
        Feature prefix of each column used (``w``: column 0, ``p``: column 1, ...).

    Returns
    -------
    list of str
    """
    feats = []
    n = len(sentence)
    for off in range(-window, window + 1):
        j = i + off
        for c, col in enumerate(columns):
            value = sentence[j][c] if 0 <= j < n else ("BOS" if j < 0 else "EOS")
            feats.append(f"{col}[{off:+d}]={value}")
    return feats


CONLLU_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


def conllu_word_lines(block, name: str):
    """(line number, the 10 columns) of a CoNLL-U sentence block's word lines:
    comments, multiword-token ranges (``3-4``) and empty nodes (``5.1``) skipped."""
    for lineno, line in block:
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise DataFormatError(f"expected 10 tab-separated CoNLL-U columns, found {len(cols)}", name, lineno)
        if "-" in cols[0] or "." in cols[0]:
            continue
        yield lineno, cols


def conllu_sentence(block, name: str, columns: Sequence[Sequence[int]]) -> List[Token]:
    """The words of a CoNLL-U sentence block, each a tuple with one value per
    entry of ``columns`` (column indices, several joined by ``|``); word ids
    must run 1, 2, 3, ..."""
    current: List[Token] = []
    for lineno, cols in conllu_word_lines(block, name):
        word_id = cols[0]
        if not word_id.isdigit():
            raise DataFormatError(f"bad word id {word_id!r}", name, lineno)
        if int(word_id) != len(current) + 1:
            raise DataFormatError(f"word id {word_id} out of sequence (expected {len(current) + 1})", name, lineno)
        current.append(tuple("|".join(cols[i] for i in idx) for idx in columns))
    return current


def read_conllu(path, *, fields: Sequence[str] = ("form", "xpos")) -> List[List[Token]]:
    """Sentences of a CoNLL-U file as tuples of the requested ``fields`` per word.

    Comment lines are skipped, and so are multiword-token ranges (``3-4``) and
    empty nodes (``5.1``): the words of a sentence are its integer-id lines.
    ``fields`` names columns of :data:`CONLLU_FIELDS`; ``"upos|feats"`` joins two
    columns with ``|`` (e.g. a morphological tag set).

    Parameters
    ----------
    path : str, os.PathLike or text file
        The CoNLL-U file ('-' reads standard input).
    fields : sequence of str
        The columns to return per word.

    Returns
    -------
    list of list of tuple
    """
    name = os.fspath(path)
    columns = []
    for f in fields:
        parts = f.lower().split("|")
        bad = [p for p in parts if p not in CONLLU_FIELDS]
        if bad:
            raise DataFormatError(f"unknown CoNLL-U field {bad[0]!r} (choose from {', '.join(CONLLU_FIELDS)})", name)
        columns.append([CONLLU_FIELDS.index(p) for p in parts])
    sentences: List[List[Token]] = []
    with _open_text(name) as (f, name):
        for block in _sentence_blocks(f, name):
            current = conllu_sentence(block, name, columns)
            if current:
                sentences.append(current)
    if not sentences:
        raise DataFormatError("no sentences", name)
    return sentences
