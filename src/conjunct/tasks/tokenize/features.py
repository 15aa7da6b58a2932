"""The tokenizer's two feature sets.

- Character gaps (the ``boundary`` component): the Japanese segmenter's
  character and character-type n-grams in a window of three characters on
  each side (:mod:`conjunct.tasks.segment.features`), over the text with its
  whitespace, so a gap sees the spaces near it. Only gaps between two
  non-whitespace characters are decided: whitespace always separates tokens.
  Each gap also gets the two parts of its whitespace-delimited piece, left and
  right of it, and the pieces before and after that one
  (:func:`piece_features`): ``L=ca`` ``R=n't`` in ``can't``, ``N=a`` in
  ``its a``, so the classifier sees whole words, not three characters each side.
  Both sets are one template spec (:func:`gap_spec`), whose ids the C++
  engine computes from the text (``_core.BoundaryFeatures``); the functions
  here are the reference path that names the same features as strings.
- Token ends (the ``sentence`` component): the token, its neighbours and
  their shapes (:func:`sentence_features`).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ...features.spec import FeatureSpec, Part, Template
from ..segment.features import spec as boundary_spec

__all__ = ["shape", "sentence_features", "piece_features", "space_mask", "SentenceEncoder", "gap_spec",
           "PIECE_TEMPLATES", "KIND_TEMPLATE", "piece_kind", "LINK_TEMPLATE", "link_span", "PARAGRAPH_START", "PARAGRAPH_END"]

PARAGRAPH_START, PARAGRAPH_END = "<p>", "</p>"  # the neighbours of a paragraph's first and last token


def shape(word: str) -> str:
    """Letter case and digits of a word, runs collapsed, at most 5 symbols:
    ``Mr.`` -> ``Xx.``, ``U.S.`` -> ``X.X.``, ``1990s`` -> ``dx``."""
    out: List[str] = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
            if len(out) == 5:
                break
    return "".join(out)


def sentence_features(text: str, spans: Sequence[Tuple[int, int]], k: int) -> List[str]:
    """Feature strings of "a sentence ends after token ``k``" (``spans`` are the text's tokens)."""
    n = len(spans)
    w0 = text[spans[k][0]:spans[k][1]]
    wp = text[spans[k - 1][0]:spans[k - 1][1]] if k > 0 else PARAGRAPH_START
    w1 = text[spans[k + 1][0]:spans[k + 1][1]] if k + 1 < n else PARAGRAPH_END
    w2 = text[spans[k + 2][0]:spans[k + 2][1]] if k + 2 < n else PARAGRAPH_END
    gap = "none" if k + 1 < n and spans[k + 1][0] == spans[k][1] else "space"
    return [f"w0={w0}", f"l0={w0.lower()}", f"s0={shape(w0)}", f"e0={w0[-1]}", f"n0={min(len(w0), 6)}",
            f"w1={w1}", f"l1={w1.lower()}", f"s1={shape(w1)}", f"f1={w1[0]}",
            f"lp={wp.lower()}", f"sp={shape(wp)}", f"s2={shape(w2)}", f"g={gap}",
            f"l0l1={w0.lower()}_{w1.lower()}", f"lpl0={wp.lower()}_{w0.lower()}"]


PART = 12  # longest part of a piece kept whole; a longer one keeps its PART characters nearest the gap

#: The piece templates of a gap, after the segmenter's character templates:
#: the piece's parts left and right of the gap, the end of the piece before
#: it and the start of the one after it (what the C++ engine computes too).
PIECE_TEMPLATES = (Template("L", (Part("piece.left", "gap"),), "piece"),
                   Template("R", (Part("piece.right", "gap"),), "piece"),
                   Template("P", (Part("piece.end", "piece-1"),), "piece"),
                   Template("N", (Part("piece.start", "piece+1"),), "piece"))


#: A piece that looks like a web address or an e-mail address (:func:`piece_kind`):
#: EWT keeps such a piece whole, though its characters are cut elsewhere.
KIND_TEMPLATE = Template("K", (Part("piece.kind", "gap"),), "piece")


def piece_kind(piece: str) -> Optional[str]:
    """"link" for a piece that holds "://", "www." or an "@" with a "." after it, else None."""
    at = piece.find("@")
    return "link" if "://" in piece or "www." in piece or (at >= 0 and piece.find(".", at) >= 0) else None


#: Where a gap is in its piece's web or e-mail address (:func:`link_span`):
#: "in", "edge" (at either end of it) or nothing, so the quotes and brackets
#: around an address are cut as elsewhere.
LINK_TEMPLATE = Template("U", (Part("piece.link", "gap"),), "piece")

_LINK_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#@!$%&*+=,;")


def link_span(piece: str) -> Optional[Tuple[int, int]]:
    """[start, end) of the web or e-mail address in ``piece``: from the first
    "://", "www." or "@" with a "." after it, grown over ASCII letters, digits
    and URL punctuation but quotes and brackets (leftwards not over a ":"),
    without trailing ``.,;:!?``; None without one."""
    anchor = None
    for i in range(len(piece)):
        if piece.startswith(("://", "www."), i) or (piece[i] == "@" and piece.find(".", i) >= 0):
            anchor = i
            break
    if anchor is None:
        return None
    a = e = anchor
    while a > 0 and piece[a - 1] in _LINK_CHARS and piece[a - 1] != ":":  # "mailto:", "Email:"
        a -= 1
    while e < len(piece) and piece[e] in _LINK_CHARS:
        e += 1
    while e > anchor + 1 and piece[e - 1] in ".,;:!?":
        e -= 1
    return a, e


def gap_spec(ngram: int = 3, dictionary: bool = False, links: bool = False, link_spans: bool = False,
             type_ngram: Optional[int] = None) -> FeatureSpec:
    """The template spec of the tokenizer's gap features (with ``dictionary``,
    the segmenter's dictionary flags; with ``links``, :data:`KIND_TEMPLATE`;
    with ``link_spans``, :data:`LINK_TEMPLATE`; type n-grams up to ``type_ngram``, default ``ngram``)."""
    extra = PIECE_TEMPLATES + ((KIND_TEMPLATE,) if links else ()) + ((LINK_TEMPLATE,) if link_spans else ())
    return boundary_spec(ngram, extra, dictionary=dictionary, type_ngram=type_ngram)


_L, _R, _P, _N = (t.name + "=" for t in PIECE_TEMPLATES)


def _parts(piece: str, k: int) -> List[str]:
    left, right = piece[:k], piece[k:]
    if len(left) > PART:
        left = "~" + left[-PART:]
    if len(right) > PART:
        right = right[:PART] + "~"
    return [_L + left, _R + right]


def _neighbours(before: str, after: str) -> List[str]:
    return [_P + before[-PART:], _N + after[:PART]]


def _runs(space: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Starts and ends of the whitespace-delimited pieces."""
    edges = np.diff(np.concatenate(([0], (~space).astype(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def gap_piece_features(text: str, gaps: Sequence[int], links: bool = False, spans: bool = False) -> List[List[str]]:
    """:func:`piece_features` of many gaps of one text (with ``links``, the piece's kind after them;
    with ``spans``, where the gap is in the piece's address last)."""
    starts, ends = _runs(space_mask(text))
    out = []
    for b in gaps:
        k = int(np.searchsorted(starts, b, side="right")) - 1
        a, e = int(starts[k]), int(ends[k])
        before = text[starts[k - 1]:ends[k - 1]] if k > 0 else PARAGRAPH_START
        after = text[starts[k + 1]:ends[k + 1]] if k + 1 < len(starts) else PARAGRAPH_END
        row = _parts(text[a:e], int(b) - a) + _neighbours(before, after)
        if links and piece_kind(text[a:e]):
            row.append("K=link")
        if spans:
            got = link_span(text[a:e])
            g = int(b) - a
            if got is not None and got[0] <= g <= got[1]:
                row.append("U=in" if got[0] < g < got[1] else "U=edge")
        out.append(row)
    return out


def piece_features(text: str, b: int, links: bool = False, spans: bool = False) -> List[str]:
    """The parts of the whitespace-delimited piece of ``text`` around gap ``b``
    (before character ``b``; both neighbours non-whitespace) left and right of
    it, and the pieces before and after it (:data:`PARAGRAPH_START` / ``END`` at the ends)."""
    return gap_piece_features(text, [b], links, spans)[0]


def space_mask(text: str) -> np.ndarray:
    """Per character of ``text``, whether it is whitespace (``str.isspace``)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    uniq, inverse = np.unique(codes, return_inverse=True)
    return np.asarray([chr(c).isspace() for c in uniq.tolist()], dtype=bool)[inverse] if len(codes) else \
        np.zeros(0, dtype=bool)


# The templates of sentence_features by the token they read: (offset, names); pairs separately.
_UNARY = ((0, ("w0", "l0", "s0", "e0", "n0")), (1, ("w1", "l1", "s1", "f1")), (-1, ("lp", "sp")), (2, ("s2",)))


def _unary_values(word: str) -> dict:
    low = word.lower()
    return {"w": word, "l": low, "s": shape(word), "e": word[-1], "n": str(min(len(word), 6)), "f": word[0]}


class SentenceEncoder:
    """Feature ids of the token ends of many texts, the same features as
    :func:`sentence_features`: each distinct token's ids are looked up once,
    then gathered per position with numpy; the two word-pair features are one
    dictionary look-up per token."""

    def __init__(self, index):
        self.index = index
        self.width = sum(len(names) for _, names in _UNARY) + 3
        self._token_ids: dict = {}
        self._rows: List[np.ndarray] = []
        for w in (PARAGRAPH_START, PARAGRAPH_END):
            self._token_id(w)

    def _token_id(self, word: str) -> int:
        i = self._token_ids.get(word)
        if i is None:
            get = self.index.get
            v = _unary_values(word)
            self._rows.append(np.asarray([get(f"{name}={v[name[0]]}") if name[1] != "p" else
                                          get(f"{name}={v['l' if name == 'lp' else 's']}")
                                          for _, names in _UNARY for name in names], dtype=np.int32))
            i = self._token_ids[word] = len(self._rows) - 1
        return i

    def encode(self, items: Sequence[Tuple[str, Sequence[Tuple[int, int]]]]) -> Tuple[np.ndarray, np.ndarray]:
        """(indptr, column ids with -1 for unknown features): one row per token
        but the last of each (text, spans)."""
        get = self.index.get
        prepared = []
        for text, spans in items:
            if len(spans) < 2:
                continue
            words = [text[a:b] for a, b in spans]
            prepared.append((spans, words, np.asarray([self._token_id(w) for w in words], dtype=np.int64)))
        if not prepared:
            return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
        table = np.stack(self._rows)
        start, end = self._token_ids[PARAGRAPH_START], self._token_ids[PARAGRAPH_END]
        space, none = get("g=space"), get("g=none")
        blocks = []
        for spans, words, ids in prepared:
            n = len(words)
            at = {0: ids[:-1], 1: ids[1:], -1: np.concatenate(([start], ids[:-2])), 2: np.concatenate((ids[2:], [end]))}
            cols = []
            j = 0
            for offset, names in _UNARY:
                cols.append(table[at[offset], j:j + len(names)])
                j += len(names)
            glued = np.asarray([spans[k + 1][0] == spans[k][1] for k in range(n - 1)])
            cols.append(np.where(glued, none, space).astype(np.int32)[:, None])
            lows = [w.lower() for w in words]
            cols.append(np.asarray([get(f"l0l1={a}_{b}") for a, b in zip(lows, lows[1:])], dtype=np.int32)[:, None])
            cols.append(np.asarray([get(f"lpl0={a}_{b}") for a, b in zip([PARAGRAPH_START] + lows, lows[:-1])],
                                   dtype=np.int32)[:, None])
            blocks.append(np.concatenate(cols, axis=1))
        rows = np.concatenate(blocks)
        return np.arange(len(rows) + 1, dtype=np.int64) * self.width, np.ascontiguousarray(rows.reshape(-1))
