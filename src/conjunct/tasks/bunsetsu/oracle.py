"""Sassano's (2004) linear-time shift-reduce algorithm, its oracle on gold
trees, and the training examples it yields."""

from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from ..._lazy import sparse as sp

from ... import _core
from ...features.index import FeatureIndex
from ...features.spec import MAX_PARTS, FeatureKeys
from ..base import oracle_sentences
from .features import DEFAULT_GROUPS, SentenceFeatures, check_groups, spec_for
from .sentence import BunsetsuSentence

__all__ = ["sassano_parse", "sassano_oracle", "is_head_final_projective", "training_examples", "training_rows"]


def is_head_final_projective(heads: Sequence[int]) -> bool:
    """Whether every non-final bunsetsu depends on a later one, without crossing arcs,
    and only the last is the root."""
    n = len(heads)
    if n == 0 or heads[-1] != -1:
        return False
    for i in range(n - 1):
        h = heads[i]
        if not i < h < n:
            return False
        for k in range(i + 1, h):
            if not heads[k] <= h:
                return False
    return True


def sassano_parse(n: int, depends: Callable[[int, int], bool], heads: Optional[List[int]] = None) -> List[int]:
    """Heads of n bunsetsu by Sassano's (2004) linear-time shift-reduce algorithm.

    ``depends(i, j)`` answers whether bunsetsu i modifies bunsetsu j (i < j).
    Every bunsetsu left when the last one is reached depends on it, unasked.
    The result is head-final and projective; the last bunsetsu is the root (-1).
    ``heads``, when given, is the list of n heads filled in place, so that
    ``depends`` can read the parse so far.
    """
    if heads is None:
        heads = [-1] * n
    elif len(heads) != n:
        raise ValueError(f"heads has {len(heads)} entries for {n} bunsetsu")
    else:
        heads[:] = [-1] * n
    stack: List[int] = []
    for j in range(1, n):
        i = j - 1
        while i != -1:
            if j == n - 1 or depends(i, j):
                heads[i] = j
                i = stack.pop() if stack else -1
            else:
                break
        if i != -1:
            stack.append(i)
    return heads


def sassano_oracle(heads: Sequence[int]) -> List[Tuple[int, int, bool]]:
    """The (i, j, depends) decisions Sassano's algorithm asks when parsing the
    gold tree ``heads`` (head-final and projective): the training examples."""
    asked: List[Tuple[int, int, bool]] = []

    def depends(i: int, j: int) -> bool:
        answer = heads[i] == j
        asked.append((i, j, answer))
        return answer

    got = sassano_parse(len(heads), depends)
    if list(got) != list(heads):
        raise ValueError("the tree is not head-final and projective; Sassano's algorithm cannot produce it")
    return asked


def training_examples(sentences: Iterable[BunsetsuSentence], groups: Iterable[str] = DEFAULT_GROUPS
                      ) -> Tuple[List[List[str]], List[int], int]:
    """(pair features, labels +1/-1, skipped sentences) of the decisions Sassano's
    algorithm asks on the gold trees (features of the feature ``groups``);
    sentences that are not head-final and projective are skipped. When (i, j)
    is asked, every bunsetsu between them has its gold head already."""
    feats: List[List[str]] = []
    labels: List[int] = []
    skipped = 0
    for s in oracle_sentences(sentences):
        if not is_head_final_projective(s.heads):
            skipped += 1
            continue
        f = SentenceFeatures(s, groups)
        heads = s.heads
        for i, j, dep in sassano_oracle(heads):
            feats.append(f.pair(i, j, heads))
            labels.append(1 if dep else -1)
    return feats, labels, skipped


def training_rows(sentences: Iterable[BunsetsuSentence], groups: Iterable[str] = DEFAULT_GROUPS
                  ) -> Tuple["IndexedRows", np.ndarray, int]:
    """:func:`training_examples` built by the C++ feature engine in one call:
    (the decisions' rows over a feature index, labels +1/-1, skipped
    sentences). The index holds the same features, ids (first occurrence),
    counts and names as the strings of :func:`training_examples` would give
    it, and their keys, so training on it gives the same model without a
    string per feature."""
    from ...training.inputs import IndexedRows

    spec = spec_for(check_groups(groups))
    sentences = list(oracle_sentences(sentences))
    gold = np.fromiter((b.head for s in sentences for b in s.bunsetsu), dtype=np.int32)
    # The spec's tables without features: the engine builds the training vocabularies itself.
    templates = FeatureKeys(spec, [[] for _ in spec.attributes], np.zeros(0, dtype=np.int32),
                            np.zeros((0, MAX_PARTS), dtype=np.int32)).tables()
    (indptr, indices, labels, counts, template_of, codes, vocabs, names, skipped,
     n) = _core.bunsetsu_training_examples(templates=templates, sentences=sentences, gold=gold)
    index = FeatureIndex(names=names, counts=counts)
    index.keys = FeatureKeys(spec, vocabs, template_of, codes.reshape(n, MAX_PARTS))
    M = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(labels.size, n))
    M.sort_indices()
    return IndexedRows(M, index), labels.astype(np.int64), int(skipped)
