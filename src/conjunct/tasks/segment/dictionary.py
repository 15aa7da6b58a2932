"""The word-dictionary features of a boundary (Neubig et al. 2011, KyTea):
for each gap, whether a known word of length k ends just left of it (``dL``),
starts just right of it (``dR``) or spans it (``dI``), lengths 1 .. 3 and
4 or more; optionally (``longest``) whether the greedy longest-match
segmentation with the known words cuts there, matching from the left
(``dM1``) or from the right (``dM2``). The known words are the training words (a sentence of the
training data sees only the words of the other folds, so that the
classifier learns how far a dictionary match can be trusted on text it has
not seen) and, optionally, a user dictionary (one word per line).

Each feature is a flag template of the spec (``dL1`` at position
``dict.L1``); the C++ engine reads the same words from the model file
(sections ``dictionary.blob`` / ``dictionary.offsets``).
"""

from __future__ import annotations

import os
import re
from typing import Iterable, List, Sequence, Tuple

import numpy as np

from ..._errors import ConjunctError, DataFormatError
from ...features.spec import Part, Template

__all__ = ["DICT_KINDS", "DICT_LENGTHS", "MAX_WORD", "dictionary_templates", "WordDictionary", "read_user_dictionary",
           "fold_dictionaries", "training_dictionaries", "dictionary_config", "restore_dictionary",
           "check_dictionary_config"]

DICT_KINDS = ("L", "R", "I")  # a word ends left of the gap, starts right of it, spans it
DICT_LENGTHS = 4  # lengths 1, 2, 3 and 4 or more
LONGEST_BITS = (3 * DICT_LENGTHS, 3 * DICT_LENGTHS + 1)  # forward, backward longest match cuts (dM1, dM2)
MAX_WORD = 16  # longest word kept (characters): longer ones rarely recur and cost a look-up per length


def dictionary_templates(longest: bool = False) -> List[Template]:
    """The flag templates of the dictionary features, ``dL1`` .. ``dI4`` (and
    with ``longest`` the longest-match cuts ``dM1``, ``dM2``)."""
    return [Template(f"d{kind}{k}", (Part(None, f"dict.{kind}{k}"),), "dictionary")
            for kind in DICT_KINDS for k in range(1, DICT_LENGTHS + 1)] + \
        ([Template(f"dM{k}", (Part(None, f"dict.M{k}"),), "dictionary") for k in (1, 2)] if longest else [])


# A character a dictionary word may not hold: whitespace (str.isspace, which is what \s means in a str
# pattern) or the engine's text separator. One regex search per word: a pipeline's load checks 40k words.
_UNUSABLE = re.compile("[\\s\x02]")


def _usable(word: str) -> bool:
    return 1 <= len(word) <= MAX_WORD and _UNUSABLE.search(word) is None


class WordDictionary:
    """A set of known words and the dictionary features they give a text."""

    def __init__(self, words: Iterable[str]):
        self.words = frozenset(w for w in words if _usable(w))
        self.longest = max(map(len, self.words), default=0)

    def __len__(self) -> int:
        return len(self.words)

    def flags(self, text: str, longest_match: bool = False) -> np.ndarray:
        """Per boundary b of ``text`` (row b; rows 0 and len(text) unused), a
        bit mask of the dictionary features: bit ``kind * DICT_LENGTHS + k - 1``
        (with ``longest_match``, the bits :data:`LONGEST_BITS` too)."""
        m = len(text)
        out = np.zeros(m + 1, dtype=np.int32)
        words, longest = self.words, self.longest
        from_, to = [0] * (m + 1), [0] * (m + 1)  # the longest known word starting / ending at each position
        for i in range(m):
            for n in range(1, min(longest, m - i) + 1):
                if text[i:i + n] in words:
                    k = min(n, DICT_LENGTHS) - 1
                    out[i + n] |= 1 << k                            # L: ends left of boundary i + n
                    out[i] |= 1 << (DICT_LENGTHS + k)               # R: starts right of boundary i
                    out[i + 1:i + n] |= 1 << (2 * DICT_LENGTHS + k)  # I: spans boundaries i+1 .. i+n-1
                    from_[i], to[i + n] = n, max(to[i + n], n)
        if longest_match:  # greedy longest match from the left and from the right; an unknown character is a word
            i = max(from_[0], 1)
            while i < m:
                out[i] |= 1 << LONGEST_BITS[0]
                i += max(from_[i], 1)
            j = m - max(to[m], 1)
            while j > 0:
                out[j] |= 1 << LONGEST_BITS[1]
                j -= max(to[j], 1)
        return out

    def to_arrays(self) -> Tuple[np.ndarray, np.ndarray]:
        """The words, sorted, as one UTF-8 blob and the offsets of each (plus the end)."""
        encoded = [w.encode("utf-8", "surrogatepass") for w in sorted(self.words)]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets

    @classmethod
    def from_arrays(cls, blob, offsets) -> "WordDictionary":
        data = bytes(np.asarray(blob, dtype=np.uint8))
        cuts = np.asarray(offsets, dtype=np.int64).tolist()
        return cls(data[a:b].decode("utf-8", "surrogatepass") for a, b in zip(cuts, cuts[1:]))


def flag_names(mask: int) -> List[str]:
    """The feature names of the set bits of a mask (in template order)."""
    return [f"d{DICT_KINDS[bit // DICT_LENGTHS]}{bit % DICT_LENGTHS + 1}" for bit in range(len(DICT_KINDS) * DICT_LENGTHS)
            if mask >> bit & 1] + [f"dM{k}" for k, bit in enumerate(LONGEST_BITS, 1) if mask >> bit & 1]


def read_user_dictionary(path) -> List[str]:
    """The words of a user dictionary: one word per line, UTF-8; blank lines
    and lines starting with ``#`` are skipped."""
    words = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            w = line.strip()
            if not w or w.startswith("#"):
                continue
            if any(ch.isspace() for ch in w):
                raise DataFormatError(f"line {n}: a dictionary word holds whitespace: {w!r}", os.fspath(path))
            if len(w) > MAX_WORD:
                raise DataFormatError(f"line {n}: a dictionary word longer than {MAX_WORD} characters", os.fspath(path))
            words.append(w)
    return words


def fold_dictionaries(sentences: Sequence[Sequence[str]], folds: int, extra: Iterable[str] = ()) -> List[WordDictionary]:
    """Per sentence, the dictionary it sees in training: the words of the other
    ``folds - 1`` folds (sentence k is in fold k mod folds) and ``extra``;
    with ``folds`` 1, every training word."""
    extra = list(extra)
    if folds <= 1:
        d = WordDictionary([w for s in sentences for w in s] + extra)
        return [d] * len(sentences)
    counts: List[dict] = [dict() for _ in range(folds)]
    for k, s in enumerate(sentences):
        c = counts[k % folds]
        for w in s:
            c[w] = c.get(w, 0) + 1
    total: dict = {}
    for c in counts:
        for w, n in c.items():
            total[w] = total.get(w, 0) + n
    dicts = []
    for f in range(folds):
        own = counts[f]
        dicts.append(WordDictionary([w for w, n in total.items() if n > own.get(w, 0)] + extra))
    return [dicts[k % folds] for k in range(len(sentences))]


# -- what a pipeline with dictionary flags shares (the segmenter, the tokenizer) ---------------------------
def training_dictionaries(pipeline, word_lists: Sequence[Sequence[str]]):
    """Per training text (its known words in ``word_lists``), the dictionary it
    sees, or None without ``pipeline.dictionary``; sets ``pipeline.dictionary_``,
    the dictionary of every training word (and of ``pipeline.user_dictionary``)."""
    pipeline.dictionary_ = None
    if not pipeline.dictionary:
        return None
    folds = pipeline.dictionary_folds
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 1:
        raise ConjunctError(f"dictionary_folds must be a positive integer, got {folds!r}")
    user = getattr(pipeline, "user_dictionary", None)
    extra = read_user_dictionary(user) if user else []
    pipeline.dictionary_ = WordDictionary([w for ws in word_lists for w in ws] + extra)
    return fold_dictionaries(word_lists, folds, extra)


def dictionary_config(pipeline) -> dict:
    """What a model file keeps of the dictionary: its words (sorted)."""
    words = getattr(pipeline, "dictionary_", None)
    return {"dictionary_words": sorted(words.words)} if words is not None and pipeline.dictionary else {}


def restore_dictionary(pipeline, config: dict) -> None:
    """The dictionary of a loaded file (a file written before the flags has none)."""
    pipeline.dictionary = config.get("dictionary", False) is True
    pipeline.dictionary_ = WordDictionary(config.get("dictionary_words", ())) if pipeline.dictionary else None


def check_dictionary_config(config) -> None:
    """The dictionary entries of a file's config (a ``validation.Meta``)."""
    config.int("dictionary_folds", 1, 1000, optional=True)
    config.str("user_dictionary", optional=True, none=True)
    if config.bool("dictionary", optional=True):
        for k, w in enumerate(config.list("dictionary_words")):
            if not isinstance(w, str) or not _usable(w):
                config.where.meta_fail(f"{config.path}.dictionary_words[{k}]",
                                       f"a dictionary word is a string of 1 to {MAX_WORD} non-space characters")
