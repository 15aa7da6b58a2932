"""The static arc-eager oracle (Nivre 2008) and the training examples of its
decisions for the two components (transition, label)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..._errors import DataFormatError
from ..base import oracle_sentences
from .features import ARC_FEATURES, ConfigurationFeatures
from .reader import DepSentence
from .transitions import LA, RA, RE, ROOT_LABEL, SH, TRANSITIONS, State, is_projective

__all__ = ["arc_eager_oracle", "training_examples"]


def arc_eager_oracle(heads: Sequence[int], labels: Sequence[str]) -> List[Tuple[int, Optional[str]]]:
    """The static oracle's (transition, label) sequence for a projective gold
    tree (Nivre 2008): LA if b0 heads s0, RA if s0 heads b0, RE if b0 is linked
    to a token below s0, else SH. Raises ValueError for trees it cannot build."""
    n = len(heads)
    gold = [-1] + list(heads)
    state = State(n)
    out: List[Tuple[int, Optional[str]]] = []
    while not state.done():
        s0, b = state.stack[-1], state.b
        if s0 > 0 and gold[s0] == b:
            move = (LA, labels[s0 - 1])
        elif gold[b] == s0:
            move = (RA, labels[b - 1] if s0 else ROOT_LABEL)
        elif any(gold[k] == b or gold[b] == k for k in state.stack[:-1]):
            move = (RE, None)
        else:
            move = (SH, None)
        try:
            state.apply(*move)
        except ValueError:
            raise ValueError("the tree is not projective; the arc-eager oracle cannot build it") from None
        out.append(move)
    if state.heads[1:] != list(heads):
        raise ValueError("the tree is not projective; the arc-eager oracle cannot build it")
    return out


def training_examples(sentences: Sequence[DepSentence], features: str = "malt") -> Tuple[dict, int]:
    """({component: (feature lists, labels)}, skipped non-projective sentences)
    of the static oracle's decisions on the gold trees, with the feature set
    ``features`` ("malt" or "rich")."""
    tf: List[List[str]] = []
    tl: List[str] = []
    lf: List[List[str]] = []
    ll: List[str] = []
    skipped = 0
    for s in oracle_sentences(sentences):
        if s.heads is None:
            raise DataFormatError("training needs gold HEAD and DEPREL columns")
        if not is_projective(s.heads):
            skipped += 1
            continue
        feats = ConfigurationFeatures(s, features)
        state = State(len(s))
        for t, label in arc_eager_oracle(s.heads, s.labels):
            f = feats.features(state)
            tf.append(f)
            tl.append(TRANSITIONS[t])
            if t == LA or (t == RA and state.stack[-1] != 0):
                lf.append(f + [ARC_FEATURES[0 if t == LA else 1]])
                ll.append(label)
            state.apply(t, label)
    return {"transition": (tf, tl), "label": (lf, ll)}, skipped
