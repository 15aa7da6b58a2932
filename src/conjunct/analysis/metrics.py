"""End-to-end scores of analyses against gold, with every stage predicted.

English (gold tokenization): UPOS / XPOS accuracy, UAS / LAS, chunk F1.
English from raw text: the CoNLL 2018 shared task's scores of CoNLL-U output
against gold CoNLL-U (:func:`raw_text_scores`, through
:mod:`conjunct.tasks.tokenize.conll18`): tokens, words, sentences, and tags
and attachments over aligned words.
Japanese (raw text): words, tags, bunsetsu and bunsetsu dependencies as
character spans, so that predicted and gold units need not line up: word F1,
POS F1 (a word right with its tag), bunsetsu F1, and the dependency F1 of
(bunsetsu span, head bunsetsu span) pairs of non-final bunsetsu -- its recall
is the usual dependency accuracy when the segmentation is right.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from ..tasks.chunk import chunk_scores
from ..tasks.english import DepSentence, attachment_scores
from ..tasks.segment import word_scores
from ..tasks.tokenize import conll18_scores, document_from_conllu
from .result import Analysis

__all__ = ["english_scores", "chunking_scores", "japanese_scores", "raw_text_scores"]


def english_scores(gold: Sequence[DepSentence], predicted: Sequence[Analysis]) -> dict:
    """UPOS and XPOS accuracy, UAS and LAS (every word) of analyses of the gold sentences' tokens."""
    gold, predicted = list(gold), list(predicted)
    _same_length(gold, predicted)
    words = sum(len(s) for s in gold)
    upos = sum(p == g for s, a in zip(gold, predicted) for p, g in zip(a.upos, s.upos))
    xpos = sum(p == g for s, a in zip(gold, predicted) for p, g in zip(a.xpos, s.xpos))
    att = attachment_scores(gold, [(a.heads, a.deprels) for a in predicted])
    return {"upos_accuracy": upos / words, "xpos_accuracy": xpos / words, "uas": att["uas"], "las": att["las"],
            "words": words}


def raw_text_scores(gold, system) -> dict:
    """CoNLL 2018 shared task scores (tokens, words, sentences F1; UPOS, XPOS,
    UAS, LAS F1 over aligned words) of CoNLL-U output ``system`` analysed from
    the raw text of gold CoNLL-U ``gold`` (paths or text streams)."""
    return conll18_scores(document_from_conllu(gold), document_from_conllu(system))


def chunking_scores(gold: Sequence[Sequence[Tuple[str, ...]]], predicted: Sequence[Analysis]) -> dict:
    """conlleval chunk F1 (and XPOS accuracy) of analyses of CoNLL-2000 ``(word, POS, chunk)`` sentences."""
    gold, predicted = list(gold), list(predicted)
    _same_length(gold, predicted)
    scores = chunk_scores([[t[2] for t in s] for s in gold], [a.chunks for a in predicted])
    tokens = sum(len(s) for s in gold)
    pos = sum(t[1] == p for s, a in zip(gold, predicted) for t, p in zip(s, a.xpos))
    return {"chunk_precision": scores["precision"], "chunk_recall": scores["recall"], "chunk_f1": scores["f1"],
            "xpos_accuracy": pos / tokens, "tokens": tokens}


def _spans(lengths: Sequence[int]) -> List[Tuple[int, int]]:
    out, pos = [], 0
    for n in lengths:
        out.append((pos, pos + n))
        pos += n
    return out


def _prf(correct: int, n_gold: int, n_pred: int) -> Dict[str, float]:
    p = correct / n_pred if n_pred else 0.0
    r = correct / n_gold if n_gold else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def _units(words: Sequence[str], tags: Sequence[str], bunsetsu: Sequence[int], heads: Sequence[int]):
    """(word spans with tags, bunsetsu spans, dependency pairs of non-final bunsetsu)."""
    wspans = _spans([len(w) for w in words])
    tagged = {(s, t) for s, t in zip(wspans, tags)}
    blen: Dict[int, int] = {}
    for w, b in zip(words, bunsetsu):
        blen[b] = blen.get(b, 0) + len(w)
    bspans = _spans([blen[b] for b in sorted(blen)])
    deps = {(bspans[k], bspans[h]) for k, h in enumerate(heads) if k < len(bspans) - 1 and h >= 0}
    return tagged, set(bspans), deps


def japanese_scores(gold: Sequence, predicted: Sequence[Analysis]) -> dict:
    """Word, POS (XPOS and UPOS), bunsetsu and dependency precision / recall / F1
    of analyses of the gold bunsetsu sentences' raw texts."""
    gold, predicted = list(gold), list(predicted)
    _same_length(gold, predicted)
    gold_words = [[t.form for b in s.bunsetsu for t in b.tokens] for s in gold]
    out = {f"word_{k}": v for k, v in word_scores(gold_words, [a.forms for a in predicted]).items()
           if k in ("precision", "recall", "f1")}
    counts = {k: [0, 0, 0] for k in ("xpos", "upos", "bunsetsu", "dependency")}
    for s, ws, a in zip(gold, gold_words, predicted):
        gb = [k for k, b in enumerate(s.bunsetsu) for _ in b.tokens]
        toks = [t for b in s.bunsetsu for t in b.tokens]
        g = _units(ws, [t.xpos for t in toks], gb, s.heads)
        p = _units(a.forms, a.xpos, a.bunsetsu, a.bunsetsu_heads)
        gu = _units(ws, [t.upos for t in toks], gb, s.heads)[0]
        pu = _units(a.forms, a.upos, a.bunsetsu, a.bunsetsu_heads)[0]
        for key, gs, ps in (("xpos", g[0], p[0]), ("upos", gu, pu), ("bunsetsu", g[1], p[1]), ("dependency", g[2], p[2])):
            c = counts[key]
            c[0] += len(gs & ps)
            c[1] += len(gs)
            c[2] += len(ps)
    for key, (correct, n_gold, n_pred) in counts.items():
        out.update({f"{key}_{k}": v for k, v in _prf(correct, n_gold, n_pred).items()})
    return out


def _same_length(gold, predicted) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} analysed")
