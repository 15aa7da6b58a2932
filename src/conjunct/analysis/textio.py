"""Reading text for the pipelines and writing their CoNLL-U, one sentence at a
time (memory stays bounded on a corpus of any size).

Input is either CoNLL-U (its words' FORMs are the tokens; comments are kept;
tags and trees in it are ignored) or plain text, one sentence per line:
whitespace-separated tokens for English, raw text for Japanese.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Iterator, List, Tuple, Union

from .._errors import ConjunctError, DataFormatError
from ..io._textin import numbered, open_text
from ..io.corpora import capped_blocks, conllu_sentence

__all__ = ["read_text", "analyze_stream", "Sentence", "FORMATS", "MAX_SENTENCE_LENGTH"]

#: One input sentence: (its tokens -- or, for raw text, one string --, comment lines).
Sentence = Tuple[Union[List[str], str], List[str]]

#: Input formats of :func:`read_text`: ``auto`` guesses (see :func:`read_text`).
FORMATS = ("auto", "text", "conllu")

#: The longest sentence read by default: tokens (words of CoNLL-U, whitespace-separated
#: tokens of a line) or, for raw text, characters. The analysis of a sentence is held
#: in memory whole (a few KiB per token), so longer ones are refused, not split: a
#: split would cut dependencies at arbitrary places and change the number of sentences.
MAX_SENTENCE_LENGTH = 10_000

# A line longer than this many bytes per allowed token is refused while it is read,
# so that a file without line breaks is never read whole.
_BYTES_PER_TOKEN = 64


def _is_conllu(line: str) -> bool:
    return line.startswith("#") or len(line.rstrip("\r\n").split("\t")) == 10


def _guess_hint(line: str):
    """What to add to a CoNLL-U error when the format was guessed from ``#``
    (10 tab-separated columns leave no doubt)."""
    if not line.startswith("#") or len(line.rstrip("\r\n").split("\t")) == 10:
        return None
    return "read as CoNLL-U because its first line starts with '#'; for plain text, one sentence per line, give --format text"


def _length_limit(max_length) -> int:
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
        raise ConjunctError(f"max_length must be an integer >= 1, got {max_length!r}")
    return max_length


_LIMIT_HINT = (" (long sentences are refused, not split; raise the limit with --max-sentence-length, or max_length= in "
               "read_text)")


def _too_long(n, unit: str, max_length: int) -> str:
    return f"a sentence of {n} {unit}, over the limit of {max_length:,}{_LIMIT_HINT}"


def read_text(source, *, raw: bool = False, format: str = "auto",
              max_length: int = MAX_SENTENCE_LENGTH) -> Iterator[Sentence]:
    """The sentences of ``source`` (a path, ``'-'`` or a text stream).

    Parameters
    ----------
    source : str, os.PathLike, binary or text stream
        CoNLL-U, or one sentence per line.
    raw : bool
        Plain-text lines are raw text (a string per sentence, stripped at both
        ends) rather than whitespace-separated tokens; a CoNLL-U sentence then
        becomes its words joined without spaces.
    format : {"auto", "text", "conllu"}
        ``auto`` reads CoNLL-U when the first non-blank line starts with ``#``
        or has 10 tab-separated columns, else one sentence per line; a plain
        text whose first line starts with ``#`` needs ``"text"``.
    max_length : int
        The longest sentence accepted: tokens, or for raw text characters
        (:data:`MAX_SENTENCE_LENGTH` by default). A longer one is an error naming
        its line; a line longer than 64 bytes per token is refused while it is read.

    Yields
    ------
    (tokens or text, comment lines)

    Raises
    ------
    DataFormatError
        Naming the line: for text that is not UTF-8, a blank line between
        sentences of plain text (one sentence per line has no empty sentence),
        a malformed CoNLL-U block, a sentence over ``max_length``, or an input
        without sentences.
    """
    if format not in FORMATS:
        raise ConjunctError(f"unknown input format {format!r} (choose from {', '.join(FORMATS)})")
    max_length = _length_limit(max_length)
    hint = (f": more than a sentence of {max_length:,} tokens can hold ({_BYTES_PER_TOKEN} bytes per token); raise "
            "the limit with --max-sentence-length")
    with open_text(source, max_line_bytes=_BYTES_PER_TOKEN * max_length, line_hint=hint) as (f, name):
        lines = numbered(f, name)
        first = next(((n, line) for n, line in lines if line.strip()), None)
        if first is None:
            raise DataFormatError("no sentences (the input is empty)", name)
        stream = itertools.chain([first], lines)
        if format == "conllu" or format == "auto" and _is_conllu(first[1]):
            guessed = None if format == "conllu" else _guess_hint(first[1])
            yield from _conllu(stream, name, raw, max_length, guessed)
        else:
            yield from _lines(stream, name, raw, max_length)


def _conllu(stream, name: str, raw: bool, max_length: int, guessed) -> Iterator[Sentence]:
    found = False
    for block in capped_blocks(stream, name, max_length, hint=_LIMIT_HINT):
        try:
            s = conllu_sentence(block, name)
        except DataFormatError as e:
            if guessed is None:
                raise
            raise DataFormatError(f"{e.problem} ({guessed})", e.source, e.line) from None
        if not s.words:
            continue  # a block of comments only
        found = True
        forms = s.column("form")
        comments = [line for line in s.lines if line.startswith("#")]
        yield ("".join(forms) if raw else forms), comments
    if not found:
        raise DataFormatError("no sentences (CoNLL-U without word lines" + (f"; {guessed})" if guessed else ")"), name)


def _lines(stream, name: str, raw: bool, max_length: int) -> Iterator[Sentence]:
    blank = None
    for lineno, line in stream:
        text = line.strip()
        if not text:
            blank = blank or lineno
            continue
        if blank is not None:
            raise DataFormatError("empty line: plain-text input has one sentence per line and no blank lines "
                                  "(CoNLL-U input separates sentences by blank lines)", name, blank)
        if raw:
            if len(text) > max_length:
                raise DataFormatError(_too_long(f"{len(text):,}", "characters", max_length), name, lineno)
            yield text, []
        else:
            tokens = text.split()
            if len(tokens) > max_length:
                raise DataFormatError(_too_long(f"{len(tokens):,}", "tokens", max_length), name, lineno)
            yield tokens, []


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
        Sentences per call of each stage (fewer when their tokens would take
        more than half the memory budget).

    Yields
    ------
    str
        One CoNLL-U block per sentence, in input order.
    """
    from ..budget import memory_budget

    # Batches also end before their tokens could take more than half the memory
    # budget (each stage holds a batch's analysis whole); one sentence past the
    # budget is refused by the pipeline's own check.
    cap = max(1, memory_budget() // (2 * getattr(pipeline, "BYTES_PER_TOKEN", 4096)))
    batch: List[Sentence] = []
    size = done = 0

    def run(batch):
        try:
            yield from _analyzed(pipeline, batch)
        except DataFormatError as e:
            # Batches are not all full (the budget ends some early): say where this one starts in the stream.
            e.batch_start = done
            raise

    for sentence in sentences:
        n = len(sentence[0])
        if batch and (len(batch) == batch_size or size + n > cap):
            yield from run(batch)
            done += len(batch)
            batch, size = [], 0
        batch.append(sentence)
        size += n
    if batch:
        yield from run(batch)


def _analyzed(pipeline, batch: List[Sentence]) -> Iterator[str]:
    for analysis, (_, comments) in zip(pipeline.analyze([s for s, _ in batch]), batch):
        analysis.comments = list(comments)
        yield analysis.to_conllu()
