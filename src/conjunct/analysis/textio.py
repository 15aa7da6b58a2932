"""Reading text for the pipelines and writing their CoNLL-U, one sentence at a
time (memory stays bounded on a corpus of any size).

Input is either CoNLL-U (its words' FORMs are the tokens; comments are kept;
tags and trees in it are ignored) or plain text, one sentence per line:
whitespace-separated tokens for English, raw text for Japanese.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Iterator, List, Tuple, Union

from .._errors import DataFormatError
from ..corpora import conllu_sentence
from ..data import _numbered, _open_text, _sentence_blocks

__all__ = ["read_text", "analyze_stream", "Sentence"]

#: One input sentence: (its tokens -- or, for raw text, one string --, comment lines).
Sentence = Tuple[Union[List[str], str], List[str]]


def _is_conllu(line: str) -> bool:
    return line.startswith("#") or len(line.rstrip("\r\n").split("\t")) == 10


def read_text(source, *, raw: bool = False) -> Iterator[Sentence]:
    """The sentences of ``source`` (a path, ``'-'`` or a text stream).

    Parameters
    ----------
    source : str, os.PathLike or text stream
        CoNLL-U, or one sentence per line.
    raw : bool
        Plain-text lines are raw text (a string per sentence, stripped at both
        ends) rather than whitespace-separated tokens; a CoNLL-U sentence then
        becomes its words joined without spaces.

    Yields
    ------
    (tokens or text, comment lines)

    Raises
    ------
    DataFormatError
        Naming the line: for text that is not UTF-8, a blank line between
        sentences of plain text (one sentence per line has no empty sentence),
        a malformed CoNLL-U block, or an input without sentences.
    """
    with _open_text(source) as (f, name):
        lines = _numbered(f, name)
        first = next(((n, line) for n, line in lines if line.strip()), None)
        if first is None:
            raise DataFormatError("no sentences (the input is empty)", name)
        stream = itertools.chain([first], lines)
        if _is_conllu(first[1]):
            yield from _conllu(stream, name, raw)
        else:
            yield from _lines(stream, name, raw)


def _conllu(stream, name: str, raw: bool) -> Iterator[Sentence]:
    found = False
    for block in _sentence_blocks(_Lines(stream), name):
        s = conllu_sentence(block, name)
        if not s.words:
            continue
        found = True
        forms = s.column("form")
        comments = [line for line in s.lines if line.startswith("#")]
        yield ("".join(forms) if raw else forms), comments
    if not found:
        raise DataFormatError("no sentences (CoNLL-U without word lines)", name)


def _lines(stream, name: str, raw: bool) -> Iterator[Sentence]:
    blank = None
    for lineno, line in stream:
        text = line.strip()
        if not text:
            blank = blank or lineno
            continue
        if blank is not None:
            raise DataFormatError("empty line: plain-text input has one sentence per line and no blank lines "
                                  "(CoNLL-U input separates sentences by blank lines)", name, blank)
        yield (text if raw else text.split()), []


class _Lines:
    """A (line number, line) stream read as a file by ``_sentence_blocks``."""

    def __init__(self, stream):
        self.stream = stream

    def __iter__(self):
        return (line for _, line in self.stream)


def analyze_stream(pipeline, sentences: Iterable[Sentence], *, batch_size: int = 1000) -> Iterator[str]:
    """CoNLL-U blocks of ``sentences`` analysed by ``pipeline``, batch by batch.

    This is the one function ``conjunct analyze`` runs a file through (and what
    runs it elsewhere, e.g. per partition on a cluster): (model, iterable of
    input sentences) -> iterable of output blocks.

    Parameters
    ----------
    pipeline : TextPipeline
        A fitted English or Japanese pipeline.
    sentences : iterable of (tokens or text, comments)
        As :func:`read_text` yields them.
    batch_size : int
        Sentences per call of each stage.

    Yields
    ------
    str
        One CoNLL-U block per sentence, in input order.
    """
    it = iter(sentences)
    while True:
        batch = list(itertools.islice(it, batch_size))
        if not batch:
            return
        for analysis, (_, comments) in zip(pipeline.analyze([s for s, _ in batch]), batch):
            analysis.comments = list(comments)
            yield analysis.to_conllu()
