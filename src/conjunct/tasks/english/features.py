"""MaltParser-style configuration features: strings, for training and the
Python reference parser (:class:`ConfigurationFeatures`), and ids of a model's
feature index per token and role, for the C++ loop (:class:`EnglishEncoder`)."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from .reader import DepSentence
from .transitions import State

__all__ = ["ConfigurationFeatures", "EnglishEncoder", "ROLES", "LABEL_ROLES", "DISTANCES", "ARC_FEATURES"]

ROLES = ("s0", "s1", "b0", "b1", "b2", "b3", "hs0")
# Token attributes each role contributes: w = FORM, p = XPOS, u = UPOS.
ROLE_ATTRS = {"s0": "wpu", "s1": "p", "b0": "wpu", "b1": "wp", "b2": "p", "b3": "p", "hs0": "wp"}
LABEL_ROLES = ("s0.l", "lds0.l", "rds0.l", "ldb0.l")
DISTANCES = ("1", "2", "3", "4", "5-9", "10+")
ARC_FEATURES = ("t=LA", "t=RA")


def _role_strings(role: str, form: str, upos: str, xpos: str) -> Tuple[str, ...]:
    attrs = ROLE_ATTRS[role]
    values = {"w": form, "p": xpos, "u": upos}
    return tuple(f"{role}.{a}={values[a]}" for a in attrs)


def _distance(d: int) -> int:
    return d - 1 if d <= 4 else (4 if d < 10 else 5)


class ConfigurationFeatures:
    """Feature strings of configurations of one sentence (training and the
    Python reference parser); token strings are built once per token and role."""

    def __init__(self, sentence: DepSentence):
        self.n = len(sentence)
        self.roles = {
            r: [(f"{r}=ROOT",)] + [_role_strings(r, w, u, x) for w, u, x in zip(sentence.forms, sentence.upos, sentence.xpos)]
            for r in ROLES
        }

    def _role(self, role: str, token: int) -> Tuple[str, ...]:
        return (f"{role}=NONE",) if token < 0 else self.roles[role][token]

    def features(self, state: State) -> List[str]:
        s0, b = state.stack[-1], state.b
        s1 = state.stack[-2] if len(state.stack) >= 2 else -1
        n = self.n
        f: List[str] = []
        for role, tok in (("s0", s0), ("s1", s1), ("b0", b), ("b1", b + 1 if b + 1 <= n else -1),
                          ("b2", b + 2 if b + 2 <= n else -1), ("b3", b + 3 if b + 3 <= n else -1),
                          ("hs0", state.heads[s0] if s0 > 0 else -1)):
            f.extend(self._role(role, tok))
        for role, tok in zip(LABEL_ROLES, (s0, state.ldep[s0], state.rdep[s0], state.ldep[b])):
            label = state.labels[tok] if tok > 0 else None
            f.append(f"{role}={label if label is not None else 'NONE'}")
        f.append(f"d={DISTANCES[_distance(b - s0)]}")
        return f


class EnglishEncoder:
    """Feature ids of tokens per role (looked up once per distinct word and
    role, cached), and the id tables of NONE, labels, distances and arcs."""

    def __init__(self, index, label_values: Sequence[str]):
        self.index = index
        get = index.get
        self._ids: Dict[tuple, np.ndarray] = {}
        self.none_ids = np.asarray([get(f"{r}=NONE") for r in ROLES], dtype=np.int32)
        self.root_ids = [self._lookup(("ROOT", r), (f"{r}=ROOT",)) for r in ROLES]
        values = list(label_values) + ["NONE"]
        self.label_feature = np.asarray([get(f"{lr}={v}") for lr in LABEL_ROLES for v in values], dtype=np.int32)
        self.distance = np.asarray([get(f"d={d}") for d in DISTANCES], dtype=np.int32)
        self.arc_feature = np.asarray([get(a) for a in ARC_FEATURES], dtype=np.int32)

    def _lookup(self, key: tuple, strings) -> np.ndarray:
        ids = self._ids.get(key)
        if ids is None:
            get = self.index.get
            ids = np.fromiter((i for i in map(get, strings) if i >= 0), dtype=np.int32)
            self._ids[key] = ids
        return ids

    def _word(self, w: str, u: str, x: str):
        key = (w, u, x)
        got = self._words.get(key)
        if got is None:
            parts = [self._lookup((r, w, u, x), _role_strings(r, w, u, x)) for r in ROLES]
            got = (np.concatenate(parts), [len(a) for a in parts])
            self._words[key] = got
        return got

    def encode(self, sentences: Sequence[DepSentence]) -> dict:
        """sentence_ptr (token offsets, ROOT included), token_ptr/token_ids (CSR,
        one row per token and role), and the id tables."""
        sentence_ptr = [0]
        if not hasattr(self, "_words"):
            self._words = {}
            self._root = (np.concatenate(self.root_ids), [len(a) for a in self.root_ids])
        arrays: List[np.ndarray] = []
        lengths: List[int] = []
        word = self._word
        for s in sentences:
            for ids, lens in [self._root] + [word(w, u, x) for w, u, x in zip(s.forms, s.upos, s.xpos)]:
                arrays.append(ids)
                lengths.extend(lens)
            sentence_ptr.append(sentence_ptr[-1] + len(s) + 1)
        ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        ids = np.concatenate(arrays).astype(np.int32, copy=False) if arrays else np.zeros(0, dtype=np.int32)
        return {"sentence_ptr": np.asarray(sentence_ptr, dtype=np.int64), "token_ptr": ptr, "token_ids": ids,
                "none_ids": self.none_ids, "label_feature": self.label_feature, "distance": self.distance,
                "arc_feature": self.arc_feature}
