"""Attachment scores of dependency parses."""

from __future__ import annotations

from typing import Sequence

from ..._errors import DataFormatError
from .reader import DepSentence

__all__ = ["attachment_scores"]


def attachment_scores(gold: Sequence[DepSentence], predicted) -> dict:
    """UAS and LAS over every word (punctuation included), and UAS without PUNCT words."""
    total = uas = las = np_total = np_uas = 0
    for k, s in enumerate(gold):
        if s.heads is None:
            raise DataFormatError(f"sentence {k + 1} has no gold HEAD/DEPREL to evaluate against")
    for s, (heads, labels) in zip(gold, predicted):
        for k in range(len(s)):
            ok = heads[k] == s.heads[k]
            total += 1
            uas += ok
            las += ok and labels[k] == s.labels[k]
            if s.upos[k] != "PUNCT":
                np_total += 1
                np_uas += ok
    return {"uas": uas / total if total else 0.0, "las": las / total if total else 0.0,
            "uas_no_punct": np_uas / np_total if np_total else 0.0, "words": total}
