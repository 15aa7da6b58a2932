"""Text input decoded by conjunct itself: strict UTF-8 whatever the locale.

Python decodes standard input with ``surrogateescape`` under the C and
C.UTF-8 locales, so an invalid byte would become a lone surrogate inside a
token instead of an error. Every input (files and standard input) is
therefore read as bytes and decoded here, line by line: the first invalid byte
is reported with its line, column and byte offset, for a stream as for a file.
Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` and come out ending in ``\\n``, as
in text mode; a byte-order mark at the start is dropped.

Text streams opened by the caller (``io.StringIO``, a file opened in text
mode) are read as they are, but a lone surrogate in one of their lines is an
error too: it cannot be written as UTF-8.
"""

from __future__ import annotations

import io
import os
import re
import sys
from contextlib import contextmanager
from typing import IO, Any, Iterator, List, Optional, Tuple, Union

from .._errors import DataFormatError

__all__ = ["StrictText", "TextLines", "check_no_surrogates", "has_surrogate", "open_text", "numbered", "sentence_blocks",
           "find_bad_utf8", "Source"]

#: A path, "-" (standard input or output) or an open text stream.
Source = Union[str, "os.PathLike[str]", IO[str]]

_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (a code point UTF-8 cannot encode)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def check_no_surrogates(text: str, where: str, source: Optional[str] = None, line: Optional[int] = None) -> None:
    """A :class:`DataFormatError` naming ``where`` when ``text`` holds a lone surrogate."""
    if has_surrogate(text):
        m = _SURROGATE.search(text)
        assert m is not None
        raise DataFormatError(f"{where}: lone surrogate U+{ord(m.group()):04X} at character {m.start() + 1}; text must "
                              "be valid Unicode (a str that came from undecodable bytes, e.g. read with "
                              "errors='surrogateescape', cannot be written as UTF-8)", source, line)


class _LineReader:
    """A text stream read line by line from ``_lines()``: iteration, ``readline`` and ``read``."""

    _it: Optional[Iterator[str]] = None

    def __iter__(self) -> Iterator[str]:
        if self._it is None:
            self._it = self._lines()
        return self._it

    def readline(self) -> str:
        return next(iter(self), "")

    def read(self) -> str:
        return "".join(iter(self))

    def _lines(self) -> Iterator[str]:
        raise NotImplementedError


class StrictText(_LineReader):
    """The lines of a binary stream ``raw`` as strict UTF-8 text.

    Bytes are read and decoded in blocks of whole lines (the splitting and the
    newline translation run in C); a block is read with ``read1``, so a pipe's
    lines come out as soon as they arrive.

    Parameters
    ----------
    raw : binary stream
        What to read.
    name : str
        For errors (a path, ``<stdin>``).
    max_line_bytes : int, optional
        A line longer than this is an error raised before the rest of it is
        read (``line_hint`` says why the limit exists).
    """

    BLOCK = 1 << 16

    def __init__(self, raw: IO[bytes], name: str, *, max_line_bytes: Optional[int] = None, line_hint: str = ""):
        self.raw = raw
        self.name = name
        self.max_line_bytes = max_line_bytes
        self.line_hint = line_hint
        self.lines = 0  # line ends before the current block
        self.offset = 0  # bytes before the current block

    def _lines(self) -> Iterator[str]:
        read = getattr(self.raw, "read1", self.raw.read)
        limit = self.max_line_bytes
        pending = b""
        first = True
        while True:
            chunk = read(self.BLOCK)
            if not chunk:
                whole, pending = pending, b""
                if not whole:
                    return
            else:
                data = pending + chunk if pending else chunk
                cut = data.rfind(b"\n") + 1
                whole, pending = data[:cut], data[cut:]
                if limit is not None and len(pending) > limit:
                    # a line still without its end: refuse it before reading the rest
                    self._check_lengths(pending, limit, self.lines + len(_LINE_END.findall(whole)))
                if not whole:
                    continue
            if first:
                first = False
                if whole.startswith(_BOM):
                    whole = whole[len(_BOM):]
                    self.offset = len(_BOM)
            if limit is not None and len(whole) > limit:
                self._check_lengths(whole, limit, self.lines)
            try:
                text = whole.decode("utf-8")
            except UnicodeDecodeError as e:
                # The lines before the bad one first: errors come in the file's order, whatever the blocks.
                error = self._bad_byte(whole, e)
                good = whole[:whole.rfind(b"\n", 0, e.start) + 1].decode("utf-8")
                yield from io.StringIO(good.replace("\r\n", "\n").replace("\r", "\n"), newline="\n")
                raise error from None
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            self.lines += text.count("\n")
            self.offset += len(whole)
            yield from io.StringIO(text, newline="\n")

    def _check_lengths(self, data: bytes, limit: int, lines_before: int) -> None:
        parts = _LINE_END.split(data)
        longest = max(range(len(parts)), key=lambda i: len(parts[i]))
        if len(parts[longest]) > limit:
            raise DataFormatError(f"a line longer than {limit:,} bytes{self.line_hint}", self.name,
                                  lines_before + 1 + longest)

    def _bad_byte(self, data: bytes, e: UnicodeDecodeError) -> DataFormatError:
        ends = list(_LINE_END.finditer(data, 0, e.start))
        start = ends[-1].end() if ends else 0
        where = "input" if self.name == "<stdin>" else "file"
        return DataFormatError(f"not UTF-8 text: byte 0x{data[e.start]:02x} at column {e.start - start + 1} (byte "
                               f"{self.offset + e.start} of the {where}; {e.reason})", self.name,
                               self.lines + len(ends) + 1)


class TextLines(_LineReader):
    """The lines of a text stream opened by the caller, each checked for lone surrogates."""

    def __init__(self, f: IO[str], name: str):
        self.f = f
        self.name = name
        self.lineno = 0

    def _lines(self) -> Iterator[str]:
        for line in self.f:
            self.lineno += 1
            if not line.isascii() and _SURROGATE.search(line):
                check_no_surrogates(line, "not valid Unicode", self.name, self.lineno)
            yield line


@contextmanager
def open_text(source: Source, mode: str = "r", *, max_line_bytes: Optional[int] = None,
               line_hint: str = "") -> Iterator[Tuple[Any, str]]:
    """(file, name) for a path, '-' (stdin/stdout) or an open text file (the
    file: a text stream, or a :class:`StrictText` / :class:`TextLines` reader).

    Read, paths and standard input are decoded as strict UTF-8 by conjunct
    (this module), whatever the locale; the lines of a text stream
    are checked for lone surrogates. ``max_line_bytes``: a longer line is an
    error before the rest of it is read (paths and standard input).
    """
    reading = "r" in mode
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        if name == "-":
            if not reading:
                yield sys.stdout, "<stdout>"
                return
            buffer = getattr(sys.stdin, "buffer", None)
            if buffer is None:  # replaced by a text stream (tests, embedding)
                yield TextLines(sys.stdin, "<stdin>"), "<stdin>"
            else:
                yield StrictText(buffer, "<stdin>", max_line_bytes=max_line_bytes, line_hint=line_hint), "<stdin>"
            return
        try:
            f = open(name, "rb") if reading else open(name, mode, encoding="utf-8", newline="\n")
        except FileNotFoundError:
            raise DataFormatError("no such file", name) from None
        with f:
            yield (StrictText(f, name, max_line_bytes=max_line_bytes, line_hint=line_hint) if reading else f), name
    elif reading and isinstance(source, (StrictText, TextLines)):
        yield source, source.name
    elif reading and isinstance(source, (io.RawIOBase, io.BufferedIOBase)):
        name = str(getattr(source, "name", "<stream>"))
        yield StrictText(source, name, max_line_bytes=max_line_bytes, line_hint=line_hint), name
    elif reading:
        name = str(getattr(source, "name", "<stream>"))
        yield TextLines(source, name), name
    else:
        yield source, getattr(source, "name", "<stream>")


def numbered(f: IO[str], name: str) -> Iterator[Tuple[int, str]]:
    """(line number, line) of a text stream; a leading byte-order mark is dropped
    and undecodable bytes are reported with their line and offset."""
    lineno = 0
    try:
        for lineno, line in enumerate(f, 1):
            if lineno == 1 and line.startswith("\ufeff"):
                line = line[1:]
            yield lineno, line
    except UnicodeDecodeError as e:
        raise not_utf8(name, e, lineno) from None


def not_utf8(name: str, e: UnicodeDecodeError, lines_read: int) -> DataFormatError:
    """Where the first invalid byte is: found again in the file (the decoder's
    offset is relative to a buffer), else the last line read before it."""
    found = find_bad_utf8(name) if os.path.isfile(name) else None
    if found is None:
        return DataFormatError(f"not UTF-8 text after line {lines_read} ({e.reason})", name)
    line, column, offset, byte = found
    return DataFormatError(f"not UTF-8 text: byte 0x{byte:02x} at column {column + 1} (byte {offset} of the file; "
                           f"{e.reason})", name, line)


def find_bad_utf8(path: str) -> Optional[Tuple[int, int, int, int]]:
    """(line, byte column, byte offset, byte value) of the first invalid UTF-8 byte.
    Lines end at \\n, \\r\\n or \\r, as when reading text."""
    line, offset = 0, 0
    with open(path, "rb") as f:
        for raw in f:
            for part in re.split(rb"(?<=\r)(?!\n)", raw):
                line += 1
                # Columns count after a leading byte-order mark, as the readers drop it.
                bom = 3 if line == 1 and part.startswith(b"\xef\xbb\xbf") else 0
                try:
                    part.decode("utf-8")
                except UnicodeDecodeError as e:
                    return line, e.start - bom, offset + e.start, part[e.start]
                offset += len(part)
    return None


def sentence_blocks(f: IO[str], name: str) -> Iterator[List[Tuple[int, str]]]:
    """The blank-line-separated blocks of a column corpus: per sentence, its
    (line number, line without the newline) pairs."""
    block: List[Tuple[int, str]] = []
    for lineno, line in numbered(f, name):
        line = line.rstrip("\r\n")
        if line.strip():
            block.append((lineno, line))
        elif block:
            yield block
            block = []
    if block:
        yield block
