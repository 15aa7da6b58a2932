"""Gold tokenized text from a CoNLL-U treebank: each paragraph's raw text
(its sentences' ``# text`` lines joined as the CoNLL 2018 shared task built its
raw text: a space between sentences unless the last token has SpaceAfter=No,
paragraphs at ``# newpar`` / ``# newdoc``), with every token's character span,
its syntactic words (a multiword token has several) and where sentences end."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterator, List, Tuple

from ..._errors import DataFormatError
from ...io.corpora import iter_conllu

__all__ = ["TokenizedText", "read_tokenized_conllu", "conllu_paragraphs"]


@dataclass
class TokenizedText:
    """One text cut into tokens, words and sentences.

    Parameters
    ----------
    text : str
        The text as given (whitespace included).
    spans : list of (int, int)
        Each token's [start, end) character offsets in ``text``, in order; tokens
        hold no whitespace and every other character is in one.
    words : list of tuple of str
        Each token's syntactic words: ``(token,)`` for a plain token, several
        for a multiword token (EWT: ``do n't``); they spell the token.
    sentence_lengths : list of int
        Tokens per sentence, in order; they add up to ``len(spans)``.
    """

    text: str
    spans: List[Tuple[int, int]] = field(default_factory=list)
    words: List[Tuple[str, ...]] = field(default_factory=list)
    sentence_lengths: List[int] = field(default_factory=list)

    def tokens(self) -> List[str]:
        return [self.text[a:b] for a, b in self.spans]

    def sentences(self) -> List[Tuple[int, int]]:
        """(first token, one past the last token) of every sentence."""
        out, k = [], 0
        for n in self.sentence_lengths:
            out.append((k, k + n))
            k += n
        return out

    def sentence_words(self) -> List[List[str]]:
        """The syntactic words of every sentence."""
        return [[w for t in range(a, b) for w in self.words[t]] for a, b in self.sentences()]


def _misc_no_space(misc: str) -> bool:
    return "SpaceAfter=No" in misc.split("|")


def _sentence_tokens(s):
    """(text, tokens as (form, words), last token has SpaceAfter=No) of one CoNLL-U sentence."""
    text = None
    for line in s.lines:
        if line.startswith("# text ="):
            text = line[len("# text ="):].strip()
    tokens: List[Tuple[str, Tuple[str, ...]]] = []
    glued: List[bool] = []  # SpaceAfter=No per token
    k = 0
    lines = [line for line in s.lines if not line.startswith("#")]
    while k < len(lines):
        cols = lines[k].split("\t")
        wid = cols[0]
        if "." in wid:
            k += 1
            continue
        if "-" in wid:
            a, b = (int(x) for x in wid.split("-"))
            parts = [lines[k + 1 + j].split("\t")[1] for j in range(b - a + 1)]
            tokens.append((cols[1], tuple(parts)))
            glued.append(_misc_no_space(cols[9]))
            k += 2 + b - a
            continue
        tokens.append((cols[1], (cols[1],)))
        glued.append(_misc_no_space(cols[9]))
        k += 1
    if text is None:  # no "# text": the tokens and their SpaceAfter spell it
        text = "".join(f + ("" if g else " ") for (f, _), g in zip(tokens, glued)).rstrip(" ")
    return text, tokens, bool(glued and glued[-1])


def conllu_paragraphs(path) -> Iterator[List]:
    """The sentences (CoNLL-U blocks) of a treebank, grouped in paragraphs."""
    current: List = []
    for s in iter_conllu(path):
        if not s.words:
            continue
        starts = any(line.startswith(("# newpar", "# newdoc")) for line in s.lines)
        if starts and current:
            yield current
            current = []
        current.append(s)
    if current:
        yield current


def read_tokenized_conllu(path) -> List[TokenizedText]:
    """Every paragraph of a CoNLL-U treebank as gold :class:`TokenizedText`.

    Raises
    ------
    DataFormatError
        When a sentence's tokens do not spell its ``# text``.
    """
    name = os.fspath(path)
    out = []
    for paragraph in conllu_paragraphs(path):
        text, spans, words, lengths = "", [], [], []
        for s in paragraph:
            stext, tokens, no_space = _sentence_tokens(s)
            pos = len(text)
            at = 0
            for form, parts in tokens:
                while at < len(stext) and stext[at].isspace():
                    at += 1
                if not form or stext[at:at + len(form)] != form or any(c.isspace() for c in form) or "".join(parts) != form:
                    raise DataFormatError(f"sentence at line {s.line_numbers[0]}: token {form!r} does not match its "
                                          f"# text at character {at + 1} (or its words do not spell it)", name)
                spans.append((pos + at, pos + at + len(form)))
                words.append(parts)
                at += len(form)
            if stext[at:].strip():
                raise DataFormatError(f"sentence at line {s.line_numbers[0]}: # text goes on after the last token "
                                      f"({stext[at:at + 20]!r})", name)
            text += stext
            sep = "" if no_space else " "
            text += sep
            lengths.append(len(tokens))
        out.append(TokenizedText(text[:len(text) - len(sep)], spans, words, lengths))
    return out
