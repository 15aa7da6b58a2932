"""One analysed sentence, whatever the language: its words and what each
stage said about them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from .._errors import DataFormatError

__all__ = ["Analysis", "split_joint_tag", "JOINT"]

#: The separator of a joint ``UPOS|XPOS`` tag (UPOS never holds it).
JOINT = "|"


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

    def __len__(self) -> int:
        return len(self.forms)

    def to_conllu(self) -> str:
        """The sentence as a CoNLL-U block (ending in a blank line). HEAD and
        DEPREL are ``_`` without a word-level parse; chunk tags go to MISC as
        ``Chunk=``, bunsetsu as ``BunsetuBILabel=`` / ``BunsetuHead=`` (the head
        bunsetsu's 0-based index, -1 for the root). A word with a tab or a line
        break, or a comment that is not one ``#`` line, is an error: it would
        shift the columns or the lines of the block."""
        _check_fields(self)
        lines = list(self.comments)
        for k, form in enumerate(self.forms):
            misc = []
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


def _check_fields(a: "Analysis") -> None:
    joined = "\x00".join(a.forms)
    if not (all(a.forms) and "\t" not in joined and "\n" not in joined and "\r" not in joined):
        k, form = next((k, f) for k, f in enumerate(a.forms) if not f or "\t" in f or "\n" in f or "\r" in f)
        raise DataFormatError(f"word {k + 1} ({form!r}) is empty or holds a tab or a line break: it cannot be "
                              "written as a CoNLL-U field")
    for c in a.comments:
        if not c.startswith("#") or "\n" in c or "\r" in c:
            raise DataFormatError(f"comment {c!r:.60} is not one line starting with '#'")
