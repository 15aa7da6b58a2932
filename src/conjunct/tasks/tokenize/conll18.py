"""The evaluation of the CoNLL 2018 shared task (Zeman et al. 2018,
``conll18_ud_eval.py``) for text analysed from raw text, where system and gold
tokens need not agree.

Tokens, words and sentences are spans of the text with its whitespace removed
(both sides must spell the same characters). Tokens and sentences score by
exact span; words are aligned by span, and inside a multiword token (whose
words share its span) by the longest common subsequence of their lowercased
forms over the smallest region of overlapping multiword tokens. UPOS, XPOS,
UAS and LAS count aligned words whose tag, head (the gold head's aligned
system word) and universal relation (the part before ``:``) agree; precision
divides by the system's words, recall by the gold words, and "aligned
accuracy" by the aligned words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ...io.corpora import iter_conllu

__all__ = ["EvalWord", "Document", "conll18_scores", "tokenization_scores", "document_from_conllu",
           "document_from_tokenized", "METRICS"]


@dataclass
class EvalWord:
    """One syntactic word: its form, tags, head (1-based word index in its
    sentence, 0 for the root, None when unknown) and relation."""

    form: str
    upos: str = "_"
    xpos: str = "_"
    head: Optional[int] = None
    deprel: str = "_"


#: A document: sentences of tokens, each token (its form, its words).
Document = List[List[Tuple[str, List[EvalWord]]]]

METRICS = ("tokens", "sentences", "words", "upos", "xpos", "uas", "las")


class _Word:
    __slots__ = ("start", "end", "multi", "form", "upos", "xpos", "deprel", "parent")

    def __init__(self, start, end, multi, w: EvalWord):
        self.start, self.end, self.multi = start, end, multi
        self.form = w.form.lower()
        self.upos, self.xpos = w.upos, w.xpos
        self.deprel = w.deprel.split(":")[0]
        self.parent = None  # index of the head word in the document; -1 for the root


def _flatten(doc: Document, what: str):
    """(characters, token spans, sentence spans, words) of a document."""
    chars: List[str] = []
    tokens, sentences, words = [], [], []
    pos = 0
    for s in doc:
        first_word = len(words)
        s_start = pos
        for form, ws in s:
            form = "".join(c for c in form if not c.isspace())
            if not form:
                raise ValueError(f"{what}: an empty token")
            chars.append(form)
            tokens.append((pos, pos + len(form)))
            for w in ws:
                words.append(_Word(pos, pos + len(form), len(ws) > 1, w))
            pos += len(form)
        if len(words) > first_word:
            sentences.append((s_start, pos))
        n = len(words) - first_word
        idx = 0
        for _, ws in s:
            for w in ws:
                if w.head is not None:
                    if not 0 <= w.head <= n:
                        raise ValueError(f"{what}: head {w.head} outside its sentence of {n} words")
                    words[first_word + idx].parent = -1 if w.head == 0 else first_word + w.head - 1
                idx += 1
    return "".join(chars), tokens, sentences, words


def _spans_score(gold, system) -> Tuple[int, int, int]:
    correct = gi = si = 0
    while gi < len(gold) and si < len(system):
        if system[si][0] < gold[gi][0]:
            si += 1
        elif gold[gi][0] < system[si][0]:
            gi += 1
        else:
            correct += gold[gi][1] == system[si][1]
            gi += 1
            si += 1
    return len(gold), len(system), correct


def _beyond_end(words, i, end) -> bool:
    if i >= len(words):
        return True
    if words[i].multi:
        return words[i].start >= end
    return words[i].end > end


def _extend_end(word, end) -> int:
    return word.end if word.multi and word.end > end else end


def _multiword_region(gold, system, gi, si):
    """The smallest region of words around a multiword token whose ends agree."""
    if gold[gi].multi:
        end = gold[gi].end
        if not system[si].multi and system[si].start < gold[gi].start:
            si += 1
    else:
        end = system[si].end
        if not gold[gi].multi and gold[gi].start < system[si].start:
            gi += 1
    gs, ss = gi, si
    while not _beyond_end(gold, gi, end) or not _beyond_end(system, si, end):
        if gi < len(gold) and (si >= len(system) or gold[gi].start <= system[si].start):
            end = _extend_end(gold[gi], end)
            gi += 1
        else:
            end = _extend_end(system[si], end)
            si += 1
    return gs, ss, gi, si


def _align(gold, system) -> Dict[int, int]:
    """system word index -> aligned gold word index."""
    aligned: Dict[int, int] = {}
    gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].multi or system[si].multi:
            gs, ss, gi, si = _multiword_region(gold, system, gi, si)
            ng, ns = gi - gs, si - ss
            if ng and ns:
                # lcs[g][s]: longest common subsequence of gold[gs+g:] and system[ss+s:] by lowercased form.
                lcs = [[0] * (ns + 1) for _ in range(ng + 1)]
                for g in range(ng - 1, -1, -1):
                    for s in range(ns - 1, -1, -1):
                        best = lcs[g + 1][s + 1] + 1 if gold[gs + g].form == system[ss + s].form else 0
                        lcs[g][s] = max(best, lcs[g + 1][s], lcs[g][s + 1])
                g = s = 0
                while g < ng and s < ns:
                    if gold[gs + g].form == system[ss + s].form:
                        aligned[ss + s] = gs + g
                        g += 1
                        s += 1
                    elif lcs[g][s] == lcs[g + 1][s]:
                        g += 1
                    else:
                        s += 1
        elif (gold[gi].start, gold[gi].end) == (system[si].start, system[si].end):
            aligned[si] = gi
            gi += 1
            si += 1
        elif gold[gi].start <= system[si].start:
            gi += 1
        else:
            si += 1
    return aligned


def _prf(n_gold: int, n_system: int, correct: int, n_aligned: Optional[int] = None) -> Dict[str, float]:
    p = correct / n_system if n_system else 0.0
    r = correct / n_gold if n_gold else 0.0
    out = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
    if n_aligned is not None:
        out["aligned_accuracy"] = correct / n_aligned if n_aligned else 0.0
    return out


def conll18_scores(gold: Document, system: Document, *, metrics: Sequence[str] = METRICS) -> Dict[str, float]:
    """Precision, recall and F1 (and aligned accuracy for the tags and
    attachments) of ``system`` against ``gold``, as ``{metric}_{score}``
    (``words_f1``, ``las_f1``, ``upos_aligned_accuracy``, ...), plus the counts.

    Raises
    ------
    ValueError
        When the two documents do not spell the same characters (whitespace aside).
    """
    gchars, gtok, gsent, gwords = _flatten(gold, "gold")
    schars, stok, ssent, swords = _flatten(system, "system")
    if gchars != schars:
        at = next((i for i, (a, b) in enumerate(zip(gchars, schars)) if a != b), min(len(gchars), len(schars)))
        raise ValueError(f"gold and system text differ at non-whitespace character {at + 1}: "
                         f"{gchars[at:at + 20]!r} / {schars[at:at + 20]!r}")
    out: Dict[str, float] = {}
    counts = {"tokens": _spans_score(gtok, stok), "sentences": _spans_score(gsent, ssent)}
    aligned = _align(gwords, swords)
    counts["words"] = (len(gwords), len(swords), len(aligned))

    def head_of(i: int, words, to_gold) -> Optional[int]:
        p = words[i].parent
        if p is None or p == -1:
            return p
        return to_gold(p)

    keys = {
        "upos": lambda g, s: gwords[g].upos == swords[s].upos,
        "xpos": lambda g, s: gwords[g].xpos == swords[s].xpos,
        "uas": lambda g, s: gwords[g].parent is not None and head_of(g, gwords, lambda p: p) == head_of(s, swords, lambda p: aligned.get(p, "unaligned")),
        "las": lambda g, s: gwords[g].parent is not None and head_of(g, gwords, lambda p: p) == head_of(s, swords, lambda p: aligned.get(p, "unaligned"))
        and gwords[g].deprel == swords[s].deprel,
    }
    for m in metrics:
        if m in counts:
            out.update({f"{m}_{k}": v for k, v in _prf(*counts[m]).items()})
        else:
            correct = sum(keys[m](g, s) for s, g in aligned.items())
            out.update({f"{m}_{k}": v for k, v in _prf(len(gwords), len(swords), correct, len(aligned)).items()})
    out.update({"gold_tokens": len(gtok), "system_tokens": len(stok), "gold_words": len(gwords),
                "system_words": len(swords), "gold_sentences": len(gsent), "system_sentences": len(ssent)})
    return out


def document_from_tokenized(texts) -> Document:
    """A document of :class:`~conjunct.tasks.tokenize.TokenizedText` (tokens and words only)."""
    doc: Document = []
    for t in texts:
        for a, b in t.sentences():
            doc.append([(t.text[x:y], [EvalWord(w) for w in ws]) for (x, y), ws in zip(t.spans[a:b], t.words[a:b])])
    return doc


def tokenization_scores(gold, system) -> Dict[str, float]:
    """Tokens, words and sentences P/R/F1 of tokenized texts against gold ones (the same texts)."""
    return conll18_scores(document_from_tokenized(gold), document_from_tokenized(system),
                          metrics=("tokens", "sentences", "words"))


def document_from_conllu(source) -> Document:
    """A CoNLL-U file (multiword-token ranges kept, empty nodes skipped) as a document."""
    doc: Document = []
    for s in iter_conllu(source):
        if not s.words:
            continue
        sentence = []
        lines = [line for line in s.lines if not line.startswith("#")]
        k = 0
        while k < len(lines):
            cols = lines[k].split("\t")
            if "." in cols[0]:
                k += 1
                continue
            if "-" in cols[0]:
                a, b = (int(x) for x in cols[0].split("-"))
                parts = [lines[k + 1 + j].split("\t") for j in range(b - a + 1)]
                sentence.append((cols[1], [_word(p) for p in parts]))
                k += 2 + b - a
                continue
            sentence.append((cols[1], [_word(cols)]))
            k += 1
        doc.append(sentence)
    return doc


def _word(cols) -> EvalWord:
    head = int(cols[6]) if cols[6].isdigit() else None
    return EvalWord(cols[1], cols[3], cols[4], head, cols[7])
