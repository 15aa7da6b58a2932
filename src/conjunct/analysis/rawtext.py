"""Raw English text through a pipeline with a tokenizer: paragraphs in, one
CoNLL-U block per sentence out, every character of the input accounted for.

The input is cut into paragraphs at blank lines; a paragraph keeps the
whitespace that follows it (its line ends and the blank lines), and the
first one any in front of it, so the paragraphs spell the input exactly.
A line break inside a paragraph is whitespace like any other: sentences may
go across it but never across a blank line. Offsets (``TokenRange``) count
characters of the input as read: UTF-8 decoded, a leading byte-order mark
dropped, line ends read as ``\\n``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional

from .._errors import DataFormatError
from ..io._textin import numbered, open_text

__all__ = ["Paragraph", "read_paragraphs", "analyze_paragraphs", "sentence_text", "input_kind", "analyze_file"]

# A paragraph also ends at a line end once it holds this many characters, so
# that text without blank lines is read in bounded pieces (a line is never cut).
MAX_PARAGRAPH = 1 << 20


@dataclass
class Paragraph:
    """One paragraph of the input: its text (with the whitespace after it),
    its offset in the input and the line it starts on."""

    text: str
    offset: int
    line: int


def read_paragraphs(source, *, lines=None) -> Iterator[Paragraph]:
    """The paragraphs of ``source`` (a path, ``'-'`` or a text stream), or of
    ``lines`` ((number, line) pairs already read from it).

    Raises
    ------
    DataFormatError
        Text that is not UTF-8 (naming the line), or an input without any
        non-whitespace character.
    """
    if lines is None:
        with open_text(source) as (f, name):
            yield from _paragraphs(numbered(f, name), name)
    else:
        yield from _paragraphs(lines, getattr(source, "name", str(source)))


def _paragraphs(lines, name: str) -> Iterator[Paragraph]:
    parts: List[str] = []
    size = offset = 0
    first_line = None  # line of the paragraph's first non-blank line
    blank_seen = False
    for lineno, line in lines:
        blank = not line.strip()
        if not blank and first_line is not None and (blank_seen or size >= MAX_PARAGRAPH):
            text = "".join(parts)
            yield Paragraph(text, offset, first_line)
            offset += len(text)
            parts, size, first_line, blank_seen = [], 0, None, False
        parts.append(line)
        size += len(line)
        if blank:
            blank_seen = first_line is not None
        elif first_line is None:
            first_line = lineno
    if first_line is None:  # whitespace after a paragraph is part of it: no line was ever non-blank
        raise DataFormatError("no sentences (the input is empty or only whitespace)", name)
    yield Paragraph("".join(parts), offset, first_line)


def sentence_text(text: str) -> str:
    """A sentence's text for its ``# text`` line: every whitespace character
    written as a space (a comment is one line), so offsets stay those of the input."""
    return "".join(" " if c.isspace() else c for c in text)


def analyze_paragraphs(pipeline, paragraphs: Iterable[Paragraph], *, batch_size: int = 1000) -> Iterator[str]:
    """CoNLL-U blocks of the sentences of ``paragraphs`` analysed by an English
    pipeline with a tokenizer, batch by batch (``batch_size`` paragraphs).

    Each block starts with ``# newpar`` (first sentence of a paragraph),
    ``# sent_id`` and ``# text``; its tokens carry ``TokenRange`` and the
    whitespace after them, a paragraph's first token any whitespace in front
    of it (:meth:`Analysis.to_conllu`), so the input can be rebuilt from the
    output.
    """
    it = iter(paragraphs)
    number = 0
    while True:
        batch = list(itertools.islice(it, batch_size))
        if not batch:
            return
        try:
            per_text = pipeline.analyze_text([p.text for p in batch])
        except DataFormatError as e:
            raise DataFormatError(f"{e} (in the paragraph of lines from {batch[0].line})") from None
        for p, sentences in zip(batch, per_text):
            for k, a in enumerate(sentences):
                number += 1
                a.tokens = [(s + p.offset, e + p.offset, n) for s, e, n in a.tokens]
                start, end = a.tokens[0][0], a.tokens[-1][1]
                a.comments = (["# newpar"] if k == 0 else []) + [f"# sent_id = {number}",
                                                                 f"# text = {sentence_text(p.text[start - p.offset:end - p.offset])}"]
                yield a.to_conllu()


class _Replay:
    """Lines already read from a stream, then the rest of it, read again as a file."""

    def __init__(self, seen, rest, name: str):
        self.seen, self.rest, self.name = seen, rest, name

    def __iter__(self):
        yield from (line for _, line in self.seen)
        yield from (line for _, line in self.rest)


def input_kind(pipeline, first_line: str, *, tokenized: bool = False) -> str:
    """How an input is read: ``"conllu"`` (its first non-blank line is a
    comment or has 10 tab-separated fields), ``"raw"`` (plain text through the
    pipeline's tokenizer: English with a tokenizer, unless ``tokenized``), or
    ``"lines"`` (one sentence per line: whitespace-separated tokens for
    English, raw text for Japanese)."""
    from .textio import _is_conllu

    if _is_conllu(first_line):
        return "conllu"
    if not tokenized and getattr(pipeline, "lang", None) == "en" and getattr(pipeline, "tokenizer", None) is not None:
        return "raw"
    return "lines"


def analyze_file(pipeline, source, *, batch_size: int = 1000, tokenized: bool = False, format: str = "auto",
                 max_length: Optional[int] = None) -> Iterator[str]:
    """CoNLL-U blocks of the input ``source`` (a path, ``'-'`` or a text
    stream) analysed by ``pipeline``; with ``format="auto"`` the input kind is
    chosen by :func:`input_kind` from its first non-blank line, with ``"text"``
    it is plain text, with ``"conllu"`` CoNLL-U. ``max_length`` bounds the
    sentences of CoNLL-U and tokenized input (:func:`~conjunct.analysis.read_text`);
    the tokenizer reads long lines of raw text in pieces."""
    from .textio import MAX_SENTENCE_LENGTH, analyze_stream, read_text

    limit = {"max_length": max_length or MAX_SENTENCE_LENGTH}
    if format == "conllu":
        yield from analyze_stream(pipeline, read_text(source, raw=pipeline.lang == "ja", format="conllu", **limit),
                                  batch_size=batch_size)
        return
    with open_text(source) as (f, name):
        lines = numbered(f, name)
        seen = []
        for item in lines:
            seen.append(item)
            if item[1].strip():
                break
        if not seen or not seen[-1][1].strip():
            raise DataFormatError("no sentences (the input is empty or only whitespace)", name)
        kind = input_kind(pipeline, "" if format == "text" else seen[-1][1], tokenized=tokenized)
        if kind == "raw":
            yield from analyze_paragraphs(pipeline, read_paragraphs(name, lines=itertools.chain(seen, lines)),
                                          batch_size=batch_size)
        else:
            text_format = "text" if format == "text" else "auto"
            yield from analyze_stream(pipeline, read_text(_Replay(seen, lines, name), raw=pipeline.lang == "ja",
                                                          format=text_format, **limit),
                                      batch_size=batch_size)
