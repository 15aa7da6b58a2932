"""Dependency and sentence accuracy of bunsetsu parses."""

from __future__ import annotations

from typing import Sequence, Tuple

from .sentence import BunsetsuSentence

__all__ = ["dependency_accuracy"]


def dependency_accuracy(gold: Sequence[BunsetsuSentence], predicted: Sequence[Sequence[int]]) -> Tuple[float, float]:
    """(dependency accuracy over non-final bunsetsu, sentence accuracy), as in Kudo & Matsumoto."""
    correct = total = sentences_ok = 0
    for s, heads in zip(gold, predicted):
        ok = True
        for k in range(len(s) - 1):
            total += 1
            if heads[k] == s.bunsetsu[k].head:
                correct += 1
            else:
                ok = False
        sentences_ok += ok
    return (correct / total if total else 0.0, sentences_ok / len(gold) if gold else 0.0)
