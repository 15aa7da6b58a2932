"""The chunker's training examples: every token with its gold tag, the
dynamic features taken from the gold previous tags."""

from __future__ import annotations

from typing import List, Tuple

from ..base import oracle_sentences
from .features import features_with

__all__ = ["training_examples"]


def training_examples(sentences, window: int = 2) -> Tuple[List[List[str]], List[str]]:
    """(features, gold tag) of every token; the dynamic features use the gold previous tags."""
    feats, labels = [], []
    for s in oracle_sentences(sentences):
        tags = [t[2] for t in s]
        for i in range(len(s)):
            feats.append(features_with(s, i, tags, window))
            labels.append(tags[i])
    return feats, labels
