"""Dependency sentences of CoNLL-U files (words only), read through
:func:`conjunct.io.corpora.read_conllu`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ..._errors import DataFormatError
from ...io.corpora import read_conllu

__all__ = ["DepSentence", "read_ud_english"]


@dataclass
class DepSentence:
    """One sentence: per word its FORM, UPOS, XPOS and (gold, or None) HEAD and DEPREL."""

    forms: List[str]
    upos: List[str]
    xpos: List[str]
    heads: Optional[List[int]] = None  # 0 = root, words are 1..n
    labels: Optional[List[str]] = None

    def __len__(self) -> int:
        return len(self.forms)


def _sentence(rows, name="<input>", k=0) -> DepSentence:
    forms = [r[0] for r in rows]
    upos = [r[1] for r in rows]
    xpos = [r[2] for r in rows]
    if all(r[3].isdigit() for r in rows):
        heads = [int(r[3]) for r in rows]
        n = len(rows)
        bad = [h for h in heads if h > n]
        if bad:
            raise DataFormatError(f"sentence {k + 1}: head {bad[0]} outside the sentence", name)
        return DepSentence(forms, upos, xpos, heads, [r[4] for r in rows])
    return DepSentence(forms, upos, xpos)


def read_ud_english(path) -> List[DepSentence]:
    """Sentences of a CoNLL-U file (words only: no multiword ranges or empty nodes).

    Parameters
    ----------
    path : str or os.PathLike
        The CoNLL-U file.

    Returns
    -------
    list of DepSentence
    """
    rows = read_conllu(path, fields=("form", "upos", "xpos", "head", "deprel"))
    return [_sentence(r, str(path), k) for k, r in enumerate(rows)]
