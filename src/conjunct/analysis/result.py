"""One analysed sentence, whatever the language: its words and what each
stage said about them."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple

from .._errors import DataFormatError

__all__ = ["Analysis", "split_joint_tag", "JOINT", "escape_spaces", "unescape_spaces", "collector_paused"]

#: The separator of a joint ``UPOS|XPOS`` tag (UPOS never holds it).
JOINT = "|"


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a batch's analyses are
    built: they are thousands of small lists and objects, none in a cycle, and
    every collection their allocations set off walks every live object of the
    process, so it costs more the more results the caller keeps
    (``benchmarks/bench_text_peers.py``: its pass over EWT dev, after test's
    results were kept, ran at 0.85-0.87 of the speed of test with the collector
    running). Collection resumes afterwards if it was on."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def split_joint_tag(tag: str):
    """(UPOS, XPOS) of a joint tag; a tag without the separator is both."""
    upos, sep, xpos = tag.partition(JOINT)
    return (upos, xpos) if sep else (tag, tag)


@dataclass
class Analysis:
    """The analysis of one sentence.

    Parameters
    ----------
    forms : list of str
        The words.
    upos, xpos : list of str
        Predicted tags.
    heads : list of int, optional
        Word heads (1-based, 0 = root), for a word-level parser.
    deprels : list of str, optional
        Their relations.
    chunks : list of str, optional
        IOB2 chunk tags.
    bunsetsu : list of int, optional
        Per word, the index of its bunsetsu (0-based).
    bunsetsu_heads : list of int, optional
        Per bunsetsu, the index of its head bunsetsu (-1: the root).
    comments : list of str
        Comment lines of the input (CoNLL-U), kept in the output.
    tokens : list of (int, int, int), optional
        From raw text: per surface token its [start, end) character offsets in
        the input and its number of words (more than one: a multiword token).
    spaces_after : list of str, optional
        From raw text: per token the whitespace that follows it in the input.
    spaces_before : str
        From raw text: whitespace in front of the sentence's first token that
        no earlier token's ``spaces_after`` holds (the start of a paragraph).
    """

    forms: List[str]
    upos: List[str]
    xpos: List[str]
    heads: Optional[List[int]] = None
    deprels: Optional[List[str]] = None
    chunks: Optional[List[str]] = None
    bunsetsu: Optional[List[int]] = None
    bunsetsu_heads: Optional[List[int]] = None
    comments: List[str] = field(default_factory=list)
    tokens: Optional[List[Tuple[int, int, int]]] = None
    spaces_after: Optional[List[str]] = None
    spaces_before: str = ""

    def __len__(self) -> int:
        return len(self.forms)

    def to_conllu(self) -> str:
        """The sentence as a CoNLL-U block (ending in a blank line). HEAD and
        DEPREL are ``_`` without a word-level parse; chunk tags go to MISC as
        ``Chunk=``, bunsetsu as ``BunsetuBILabel=`` / ``BunsetuHead=`` (the head
        bunsetsu's 0-based index, -1 for the root). From raw text, each surface
        token's MISC holds ``TokenRange=start:end`` (character offsets in the
        input) and ``SpaceAfter=No`` or ``SpacesAfter=`` (escaped whitespace,
        when it is not one space), a paragraph's first token ``SpacesBefore=``
        when whitespace stands in front of it; a multiword token gets its
        ``a-b`` range line. A word with a tab or a line break, or a comment that
        is not one ``#`` line, is an error: it would shift the columns or the
        lines of the block."""
        _check_fields(self)
        lines = list(self.comments)
        token_misc, ranges = {}, {}
        if self.tokens is not None:
            k = 0
            for t, (start, end, n) in enumerate(self.tokens):
                misc = [f"TokenRange={start}:{end}"]
                after = self.spaces_after[t] if self.spaces_after is not None else " "
                if after == "":
                    misc.append("SpaceAfter=No")
                elif after != " ":
                    misc.append(f"SpacesAfter={escape_spaces(after)}")
                if t == 0 and self.spaces_before:
                    misc.insert(0, f"SpacesBefore={escape_spaces(self.spaces_before)}")
                if n > 1:
                    ranges[k] = (k + n, "".join(self.forms[k:k + n]), "|".join(misc))
                else:
                    token_misc[k] = misc
                k += n
        for k, form in enumerate(self.forms):
            if k in ranges:
                last, surface, misc = ranges[k]
                lines.append("\t".join((f"{k + 1}-{last}", surface, "_", "_", "_", "_", "_", "_", "_", misc)))
            misc = list(token_misc.get(k, ()))
            if self.chunks is not None:
                misc.append(f"Chunk={self.chunks[k]}")
            if self.bunsetsu is not None:
                b = self.bunsetsu[k]
                first = k == 0 or self.bunsetsu[k - 1] != b
                misc.append(f"Bunsetu={b}")
                misc.append(f"BunsetuBILabel={'B' if first else 'I'}")
                if self.bunsetsu_heads is not None:
                    misc.append(f"BunsetuHead={self.bunsetsu_heads[b]}")
            head = str(self.heads[k]) if self.heads is not None else "_"
            rel = self.deprels[k] if self.deprels is not None else "_"
            lines.append("\t".join((str(k + 1), form, "_", self.upos[k], self.xpos[k], "_", head, rel, "_",
                                    "|".join(misc) or "_")))
        return "\n".join(lines) + "\n\n"


_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_spaces(spaces: str) -> str:
    """Whitespace as UDPipe writes it in ``SpacesAfter``: ``\\s`` ``\\t`` ``\\n``
    ``\\r``, any other character as ``\\uXXXX``."""
    return "".join(_ESCAPES.get(c) or f"\\u{ord(c):04X}" for c in spaces)


def unescape_spaces(value: str) -> str:
    """The whitespace ``escape_spaces`` wrote."""
    out, k = [], 0
    back = {v[1]: c for c, v in _ESCAPES.items()}
    while k < len(value):
        if value[k] == "\\" and k + 1 < len(value) and value[k + 1] in back:
            out.append(back[value[k + 1]])
            k += 2
        elif value.startswith("\\u", k):
            out.append(chr(int(value[k + 2:k + 6], 16)))
            k += 6
        else:
            out.append(value[k])
            k += 1
    return "".join(out)


def _check_fields(a: "Analysis") -> None:
    joined = "\x00".join(a.forms)
    if not (all(a.forms) and "\t" not in joined and "\n" not in joined and "\r" not in joined):
        k, form = next((k, f) for k, f in enumerate(a.forms) if not f or "\t" in f or "\n" in f or "\r" in f)
        raise DataFormatError(f"word {k + 1} ({form!r}) is empty or holds a tab or a line break: it cannot be "
                              "written as a CoNLL-U field")
    for c in a.comments:
        if not c.startswith("#") or "\n" in c or "\r" in c:
            raise DataFormatError(f"comment {c!r:.60} is not one line starting with '#'")
