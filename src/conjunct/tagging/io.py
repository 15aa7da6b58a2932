"""Tagged corpora for the taggers: CoNLL-U, CoNLL-2000 and plain columns."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional, Sequence, Tuple

from .._errors import DataFormatError
from ..io.corpora import capped_blocks, conllu_sentence, read_columns, read_conll2000, read_conllu
from ..io.data import _numbered, _open_text

__all__ = ["FORMATS", "iter_words", "read_tagged", "write_tagged"]

#: Corpus formats: ``conllu`` (tags from ``tag_field``, e.g. ``xpos``, ``upos``,
#: ``upos|feats``), ``conll2000`` (``word POS chunk``; tags ``pos``, ``chunk`` or
#: ``joint`` = ``POS|chunk``), ``columns`` (``word tag`` per line, or just the
#: word when tagging), ``text`` (one sentence per line, words separated by
#: spaces; for tagging only).
FORMATS = ("auto", "conllu", "conll2000", "columns", "text")

# Lines the format sniffer looks at.
_SNIFF_LINES = 200


def _format_of(lines: Sequence[str]) -> str:
    """The format of a corpus's first non-comment, non-blank lines: 10 tab
    columns is CoNLL-U; a varying number of fields per line is text (one
    sentence per line); else 3 fields is CoNLL-2000 and others are columns."""
    widths = {len(line.split()) for line in lines}
    if len(lines[0].rstrip("\r\n").split("\t")) == 10:
        return "conllu"
    if len(widths) > 1:
        return "text"
    return "conll2000" if widths == {3} else "columns"


def _sniff(path: str) -> str:
    if path.endswith(".conllu"):
        return "conllu"
    lines: List[str] = []
    try:
        with open(path, encoding="utf-8-sig") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                lines.append(line)
                if len(lines) == _SNIFF_LINES:
                    break
    except FileNotFoundError:
        raise DataFormatError("no such file", path) from None
    except IsADirectoryError:
        raise DataFormatError("is a directory, not a corpus file", path) from None
    except UnicodeDecodeError as e:
        raise DataFormatError(f"not UTF-8 text ({e.reason})", path) from None
    if not lines:
        raise DataFormatError("no sentences", path)
    return _format_of(lines)


def _read_columns(path: str, with_tags: bool) -> Tuple[List[List[str]], List[List[str]]]:
    rows = read_columns(path, min_columns=2 if with_tags else 1)
    return [[r[0] for r in s] for s in rows], [[r[-1] if with_tags else "" for r in s] for s in rows]


def read_tagged(path, *, format: str = "auto", tag_field: str = "", with_tags: bool = True
                ) -> Tuple[List[List[str]], List[List[str]]]:
    """(sentences of words, their tags) of a corpus file.

    ``tag_field`` selects the tags: for CoNLL-U a column name (``xpos`` by
    default) or two joined by ``|``; for CoNLL-2000 ``pos``, ``chunk`` or
    ``joint`` (the default, ``POS|chunk``: the joint tagging of Kaji et al. 2010).

    Parameters
    ----------
    path : str or os.PathLike
        The corpus.
    format : {"auto", "conllu", "conll2000", "columns"}
        Its format (``"auto"`` sniffs it; ``columns``: ``word tag`` per line).
    tag_field : str
        Which tags (see above); empty for the format's default.
    with_tags : bool
        False reads words only (tags come back empty).

    Returns
    -------
    sentences : list of list of str
    tags : list of list of str
    """
    name = os.fspath(path)
    if format not in FORMATS:
        raise DataFormatError(f"unknown corpus format {format!r} (choose from {', '.join(FORMATS)})", name)
    fmt = _sniff(name) if format == "auto" else format
    if fmt == "text":
        raise DataFormatError("text (one sentence per line) has no tags; give a tagged corpus (CoNLL-U, CoNLL-2000 "
                              "or 'word tag' columns)", name)
    if fmt == "conllu":
        rows = read_conllu(name, fields=("form", tag_field or "xpos"))
        return [[r[0] for r in s] for s in rows], [[r[1] for r in s] for s in rows]
    if fmt == "conll2000":
        field = tag_field or "joint"
        if field not in ("pos", "chunk", "joint"):
            raise DataFormatError(f"CoNLL-2000 tags are pos, chunk or joint, not {field!r}", name)
        rows = read_conll2000(name)
        pick = {"pos": lambda r: r[1], "chunk": lambda r: r[2], "joint": lambda r: f"{r[1]}|{r[2]}"}[field]
        return [[r[0] for r in s] for s in rows], [[pick(r) for r in s] for s in rows]
    return _read_columns(name, with_tags)


def iter_words(path, *, format: str = "auto", max_length: Optional[int] = None) -> Iterator[List[str]]:
    """The sentences (lists of words) of a corpus, read one at a time.

    Memory stays bounded however large the input: this is what ``conjunct tag
    tag`` reads. ``'-'`` reads standard input; with ``format="auto"`` a file is
    sniffed like :func:`read_tagged` does and standard input is CoNLL-U if its
    first word line has 10 tab-separated columns. CoNLL-U gives the FORM
    column (comments, multiword ranges and empty nodes skipped); the other
    formats give each line's first column.

    Parameters
    ----------
    path : str, os.PathLike or '-'
        The corpus.
    format : {"auto", "conllu", "conll2000", "columns", "text"}
        Its format.
    max_length : int, optional
        The most words a sentence may have (``conjunct tag run``:
        ``--max-sentence-length``, 10,000 by default): a longer one is an error
        naming its line, and a line of more than 64 bytes per word is refused
        before it is read whole. None: no limit.

    Yields
    ------
    list of str
    """
    name = os.fspath(path)
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1):
        raise DataFormatError(f"max_length must be an integer >= 1, got {max_length!r}", name)
    hint = " (long sentences are refused, not split; raise the limit with --max-sentence-length)"
    if format not in FORMATS:
        raise DataFormatError(f"unknown corpus format {format!r} (choose from {', '.join(FORMATS)})", name)
    fmt = _sniff(name) if format == "auto" and name != "-" else format
    count = 0
    width = width_line = None
    cap = None if max_length is None else 64 * max_length
    with _open_text(name, max_line_bytes=cap, line_hint=hint) as (f, name):
        # Text blocks are counted per line below; column and CoNLL-U blocks as they are read.
        for block in capped_blocks(_numbered(f, name), name, None if fmt == "text" else max_length,
                                   conllu=fmt != "columns" and fmt != "conll2000", hint=hint):
            if fmt == "auto":
                fmt = _format_of([line for _, line in block if not line.startswith("#")] or [block[0][1]])
            if fmt == "conllu":
                words = conllu_sentence(block, name).column("form")
                if not words:
                    continue
            elif fmt == "text":
                for lineno, line in block:
                    words = line.split()
                    if max_length is not None and len(words) > max_length:
                        raise DataFormatError(f"a sentence of {len(words):,} words, over the limit of {max_length:,}"
                                              f"{hint}", name, lineno)
                    count += 1
                    yield words
                continue
            else:
                words = []
                for lineno, line in block:
                    fields = line.split()
                    # Never drop words silently: a line of several words is text, not a token line.
                    if width is None:
                        width, width_line = len(fields), lineno
                    elif len(fields) != width:
                        raise DataFormatError(
                            f"{len(fields)} columns where line {width_line} had {width}: a {fmt} corpus has one "
                            f"token per line; for one sentence per line give --format text", name, lineno)
                    words.append(fields[0])
            count += 1
            yield words
    if not count:
        raise DataFormatError("no sentences", name)


def write_tagged(out, sentences: Sequence[Sequence[str]], tags: Sequence[Sequence[str]]) -> None:
    """``word<TAB>tag`` per line, a blank line after each sentence (a word or
    tag holding a tab or a line break is an error).

    Parameters
    ----------
    out : text file
        Where to write.
    sentences : sequence of sequence of str
        The words.
    tags : sequence of sequence of str
        Their tags.
    """
    for k, (words, ts) in enumerate(zip(sentences, tags)):
        text = "".join(f"{w}\t{t}\n" for w, t in zip(words, ts))
        # Exactly one tab and one line break per token, or a word broke the format.
        if text.count("\t") != len(ts) or text.count("\n") != len(ts) or "\r" in text:
            i = next(i for i, w in enumerate(words) if any(c in f"{w}{ts[i]}" for c in "\t\n\r"))
            raise DataFormatError(f"sentence {k + 1}, token {i + 1}: {words[i]!r} (tag {ts[i]!r}) holds a tab or a "
                                  "line break: it cannot be written as a word<TAB>tag line")
        out.write(text)
        out.write("\n")
