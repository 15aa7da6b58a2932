"""Readers of the corpora conjunct's tasks and taggers use.

- CoNLL-U: :func:`iter_conllu` is the one reader every CoNLL-U consumer goes
  through (the taggers, the parsers, the segmenter, ``conjunct parse run``);
  :func:`read_conllu` picks columns from it.
- Whitespace-separated columns, one token per line and a blank line after
  each sentence (CoNLL-2000, ``word tag`` files): :func:`read_columns`.

They return plain Python structures; errors name the file and line.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from .._errors import DataFormatError
from ._textin import open_text, sentence_blocks

__all__ = ["read_conll2000", "read_columns", "iter_columns", "read_conllu", "iter_conllu", "ConlluSentence", "window_features",
           "CONLLU_FIELDS"]

Token = Tuple[str, ...]

CONLLU_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")


# -- CoNLL-U -----------------------------------------------------------------------------------------
class ConlluSentence(NamedTuple):
    """One sentence block of a CoNLL-U file, as read.

    Parameters
    ----------
    lines : list of str
        Every line of the block: comments, multiword-token ranges and empty nodes included.
    words : list of list of str
        The 10 columns of each word line (integer ids 1, 2, 3, ...).
    at : list of int
        Index in ``lines`` of each word.
    line_numbers : list of int
        1-based line number in the file of each word (for errors).
    """

    lines: List[str]
    """Every line of the block: comments, multiword-token ranges and empty nodes included."""
    words: List[List[str]]
    """The 10 columns of each word line (integer ids 1, 2, 3, ...)."""
    at: List[int]
    """Index in ``lines`` of each word."""
    line_numbers: List[int]
    """1-based line number in the file of each word (for errors)."""

    def column(self, field: str) -> List[str]:
        """One column of every word, by its name in :data:`CONLLU_FIELDS`."""
        k = CONLLU_FIELDS.index(field)
        return [w[k] for w in self.words]


def conllu_sentence(block: Sequence[Tuple[int, str]], name: str) -> ConlluSentence:
    """Parse one blank-line-separated block of (line number, line) pairs.

    Comments, multiword-token ranges (``3-4``) and empty nodes (``5.1``) are
    kept as lines but are not words; word ids must run 1, 2, 3, ... A range
    comes just before the words it covers and an empty node ``N.k`` just after
    word N; a range whose words are missing, or a block of ranges and empty
    nodes without any word, is an error (it would be dropped silently).
    """
    lines: List[str] = []
    words: List[List[str]] = []
    at: List[int] = []
    numbers: List[int] = []
    covered, range_line, range_id = 0, 0, ""  # the last word a range covers, and where it was
    other = 0  # the first range or empty node line
    for lineno, line in block:
        lines.append(line)
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise DataFormatError(f"expected 10 tab-separated CoNLL-U columns, found {len(cols)}", name, lineno)
        word_id = cols[0]
        n = len(words)
        if "-" in word_id:
            a, _, b = word_id.partition("-")
            if not (a.isdigit() and b.isdigit()) or int(a) != n + 1 or int(b) <= int(a):
                raise DataFormatError(f"bad multiword-token range {word_id!r} (expected {n + 1}-M with M > {n + 1}: "
                                      "a range comes just before the words it covers)", name, lineno)
            if int(a) <= covered:
                raise DataFormatError(f"multiword-token range {word_id} overlaps range {range_id}", name, lineno)
            covered, range_line, range_id = int(b), lineno, word_id
            other = other or lineno
            continue
        if "." in word_id:
            a, _, b = word_id.partition(".")
            if not (a.isdigit() and b.isdigit()) or int(a) != n or int(b) < 1:
                raise DataFormatError(f"bad empty node id {word_id!r} (expected {n}.K: an empty node follows the "
                                      "word it is numbered after)", name, lineno)
            other = other or lineno
            continue
        if not word_id.isdigit():
            raise DataFormatError(f"bad word id {word_id!r}", name, lineno)
        if int(word_id) != n + 1:
            raise DataFormatError(f"word id {word_id} out of sequence (expected {n + 1})", name, lineno)
        words.append(cols)
        at.append(len(lines) - 1)
        numbers.append(lineno)
    if not words and other:
        raise DataFormatError("a sentence block without word lines: only multiword-token ranges or empty nodes",
                              name, other)
    if covered > len(words):
        raise DataFormatError(f"multiword-token range {range_id} without its words (the sentence ends at word "
                              f"{len(words)})", name, range_line)
    return ConlluSentence(lines, words, at, numbers)


def capped_blocks(lines: Iterable[Tuple[int, str]], name: str, max_length: Optional[int], *, conllu: bool = True,
                  hint: str = "") -> Iterator[List[Tuple[int, str]]]:
    """The blank-line-separated blocks of (line number, line) pairs, lines
    without their newline. A block of more than ``max_length`` words (CoNLL-U
    lines with an integer id, or any line of a column corpus) is an error
    naming its first line, raised before the rest of it is read."""
    block: List[Tuple[int, str]] = []
    words = 0
    for lineno, line in lines:
        line = line.rstrip("\r\n")
        if line.strip():
            block.append((lineno, line))
            if max_length is not None and (not conllu or line[:1].isdigit() and line[:line.find("\t")].isdigit()):
                words += 1
                if words > max_length:
                    raise DataFormatError(f"a sentence of more than {max_length:,} words, over the limit{hint}", name,
                                          block[0][0])
        elif block:
            yield block
            block, words = [], 0
    if block:
        yield block


def iter_conllu(source) -> Iterator[ConlluSentence]:
    """The sentence blocks of a CoNLL-U file, one at a time (memory stays
    bounded). A block may hold no word (only comments); consumers that want
    sentences skip those.

    Parameters
    ----------
    source : str, os.PathLike or text stream
        A path, ``'-'`` (standard input) or an open text stream.

    Yields
    ------
    ConlluSentence
        One block at a time.
    """
    with open_text(source) as (f, name):
        for block in sentence_blocks(f, name):
            yield conllu_sentence(block, name)


def _field_columns(fields: Sequence[str], name: str) -> List[List[int]]:
    columns = []
    for field in fields:
        parts = field.lower().split("|")
        bad = [p for p in parts if p not in CONLLU_FIELDS]
        if bad:
            raise DataFormatError(f"unknown CoNLL-U field {bad[0]!r} (choose from {', '.join(CONLLU_FIELDS)})", name)
        columns.append([CONLLU_FIELDS.index(p) for p in parts])
    return columns


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
    columns = _field_columns(fields, name)
    sentences = [[tuple("|".join(w[i] for i in idx) for idx in columns) for w in s.words]
                 for s in iter_conllu(name) if s.words]
    if not sentences:
        raise DataFormatError("no sentences", name)
    return sentences


# -- whitespace-separated columns ------------------------------------------------------------------
def read_columns(source, *, widths: Optional[Sequence[int]] = None, min_columns: int = 1) -> List[List[Token]]:
    """Sentences of a column corpus: whitespace-separated columns, one token
    per line, a blank line after each sentence (``'-'`` reads standard input).

    Parameters
    ----------
    source : str, os.PathLike or text stream
        A path, ``'-'`` (standard input) or an open text stream.
    widths : sequence of int, optional
        The numbers of columns a token line may have; the same number must hold
        throughout the file.
    min_columns : int
        Without ``widths``, the least number of columns of a token line.

    Returns
    -------
    list of list of tuple
        The sentences, each a list of tokens (tuples of column strings).
    """
    return list(iter_columns(source, widths=widths, min_columns=min_columns))


def iter_columns(source, *, widths: Optional[Sequence[int]] = None, min_columns: int = 1) -> Iterator[List[Token]]:
    """The sentences of :func:`read_columns`, read one at a time (memory stays
    bounded; a sentence is yielded before the next is read).

    Parameters
    ----------
    source : str, os.PathLike or text stream
        A path, ``'-'`` (standard input) or an open text stream.
    widths : sequence of int, optional
        The numbers of columns a token line may have (as :func:`read_columns`).
    min_columns : int
        Without ``widths``, the least number of columns of a token line.

    Yields
    ------
    list of tuple
        One sentence at a time.
    """
    count = 0
    width = None
    with open_text(source) as (f, name):
        for block in sentence_blocks(f, name):
            sentence = []
            for lineno, line in block:
                fields = line.split()
                if widths is None:
                    if len(fields) < min_columns:
                        raise DataFormatError(f"expected at least {min_columns} columns, found {len(fields)}", name, lineno)
                elif width is None:
                    if len(fields) not in widths:
                        raise DataFormatError(f"expected {' or '.join(map(str, widths))} columns, found {len(fields)}", name, lineno)
                    width = len(fields)
                elif len(fields) != width:
                    raise DataFormatError(f"expected {width} columns like the first line, found {len(fields)}", name, lineno)
                sentence.append(tuple(fields))
            count += 1
            yield sentence
    if not count:
        raise DataFormatError("no sentences", name)


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
    return read_columns(os.fspath(path), widths=(n_columns,))


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
