"""Word precision / recall / F1 (words as character spans) and boundary accuracy."""

from __future__ import annotations

from typing import Sequence

from .oracle import boundary_labels

__all__ = ["word_scores"]


def _spans(words: Sequence[str]) -> set:
    out, pos = set(), 0
    for w in words:
        out.add((pos, pos + len(w)))
        pos += len(w)
    return out


def word_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict:
    """Word precision, recall and F1 (words as character spans), and the
    boundary accuracy (fraction of character boundaries decided right)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted")
    correct = n_gold = n_pred = boundaries = boundaries_ok = 0
    for g, p in zip(gold, predicted):
        if "".join(g) != "".join(p):
            raise ValueError(f"gold and predicted words spell different sentences: {''.join(g)!r} / {''.join(p)!r}")
        gs, ps = _spans(g), _spans(p)
        correct += len(gs & ps)
        n_gold += len(gs)
        n_pred += len(ps)
        gb, pb = boundary_labels(g), boundary_labels(p) if p else []
        boundaries += len(gb)
        boundaries_ok += sum(a == b for a, b in zip(gb, pb))
    precision = correct / n_pred if n_pred else 0.0
    recall = correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "accuracy": boundaries_ok / boundaries if boundaries else 1.0,
            "correct_words": correct, "gold_words": n_gold, "predicted_words": n_pred, "boundaries": boundaries}
