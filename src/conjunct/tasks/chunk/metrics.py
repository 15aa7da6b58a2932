"""Chunk precision / recall / F1 exactly as ``conlleval`` counts them: a
chunk starts at ``B-X``, at ``I-X`` after ``O`` or after a chunk of another
type, and ends before ``B``, ``O`` or a type change."""

from __future__ import annotations

from typing import List, Sequence, Tuple

__all__ = ["conlleval_chunks", "chunk_scores"]


def _split(tag: str) -> Tuple[str, str]:
    """conlleval's split of a tag into (prefix, type): "B-NP" -> ("B", "NP"), "O" -> ("O", "")."""
    prefix, sep, kind = tag.partition("-")
    return (prefix, kind) if sep else (tag, "")


def _end_of_chunk(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    """conlleval's endOfChunk: whether a chunk ended at the previous token."""
    end = (prev_tag, tag) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"), ("E", "O")}
    if prev_tag not in ("O", ".") and prev_type != kind:
        end = True
    return end or prev_tag in ("]", "[")


def _start_of_chunk(prev_tag: str, tag: str, prev_type: str, kind: str) -> bool:
    """conlleval's startOfChunk: whether a chunk starts at the current token."""
    start = (prev_tag, tag) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"), ("O", "E")}
    if tag not in ("O", ".") and prev_type != kind:
        start = True
    return start or tag in ("[", "]")


def conlleval_chunks(tags: Sequence[str]) -> List[Tuple[str, int, int]]:
    """The chunks of one sentence as ``(type, start, end)`` (end exclusive), as
    ``conlleval`` finds them: a sentence boundary acts as an ``O``, and an
    ``I-X`` without a ``B-X`` before it starts a chunk."""
    chunks = []
    prev_tag, prev_type = "O", ""
    start = None
    for i, tag in enumerate(list(tags) + ["O"]):
        t, kind = _split(tag)
        if start is not None and _end_of_chunk(prev_tag, t, prev_type, kind):
            chunks.append((prev_type, start, i))
            start = None
        if i < len(tags) and _start_of_chunk(prev_tag, t, prev_type, kind):
            start = i
        prev_tag, prev_type = t, kind
    return chunks


def chunk_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict:
    """conlleval's overall figures: chunk precision, recall, F1 (fractions, not
    percent), token accuracy, and the chunk counts."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted")
    correct = found_gold = found_pred = tokens = tokens_ok = 0
    for g, p in zip(gold, predicted):
        if len(g) != len(p):
            raise ValueError(f"a sentence has {len(g)} gold tags but {len(p)} predicted")
        gc, pc = set(conlleval_chunks(g)), set(conlleval_chunks(p))
        correct += len(gc & pc)
        found_gold += len(gc)
        found_pred += len(pc)
        tokens += len(g)
        tokens_ok += sum(a == b for a, b in zip(g, p))
    precision = correct / found_pred if found_pred else 0.0
    recall = correct / found_gold if found_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": tokens_ok / tokens if tokens else 0.0,
            "correct_chunks": correct, "gold_chunks": found_gold, "predicted_chunks": found_pred, "tokens": tokens}
