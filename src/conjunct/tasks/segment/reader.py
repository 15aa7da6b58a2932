"""Gold segmentations: the words of each sentence of a CoNLL-U file."""

from __future__ import annotations

import os
from typing import List

from ..._errors import DataFormatError
from ...io.corpora import read_conllu

__all__ = ["read_segmented_conllu"]


def read_segmented_conllu(path) -> List[List[str]]:
    """The words (FORM of each word line) of every sentence of a CoNLL-U file."""
    sentences = [[t[0] for t in s] for s in read_conllu(path, fields=("form",))]
    for k, s in enumerate(sentences):
        if any(not w or any(ch.isspace() for ch in w) for w in s):
            raise DataFormatError(f"sentence {k + 1} has an empty word or a word with whitespace", os.fspath(path))
    return sentences
