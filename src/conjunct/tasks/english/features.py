"""MaltParser-style configuration features: strings, for training and the
Python reference parser (:class:`ConfigurationFeatures`), and ids of a model's
feature index per token and role, for the C++ loop (:class:`EnglishEncoder`)."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from .reader import DepSentence
from .transitions import State

__all__ = ["ConfigurationFeatures", "EnglishEncoder", "FEATURE_SETS", "ROLES", "LABEL_ROLES", "DISTANCES",
           "ARC_FEATURES"]

ROLES = ("s0", "s1", "b0", "b1", "b2", "b3", "hs0")
# Token attributes each role contributes: w = FORM, p = XPOS, u = UPOS.
ROLE_ATTRS = {"s0": "wpu", "s1": "p", "b0": "wpu", "b1": "wp", "b2": "p", "b3": "p", "hs0": "wp",
              "lds0": "wp", "rds0": "wp", "ldb0": "wp", "hhs0": "p", "ld2s0": "p", "rd2s0": "p", "ld2b0": "p"}
LABEL_ROLES = ("s0.l", "lds0.l", "rds0.l", "ldb0.l")
DISTANCES = ("1", "2", "3", "4", "5-9", "10+")
ARC_FEATURES = ("t=LA", "t=RA")

# The "rich" set adds Zhang & Nivre's (2011) non-local features: words and tags
# of the leftmost / rightmost dependents, second-order tokens (head of s0's
# head, second leftmost / rightmost dependents) and their labels, the label of
# s0's head, valencies, and the label sets of s0's and b0's dependents.
RICH_ROLES = ROLES + ("lds0", "rds0", "ldb0", "hhs0", "ld2s0", "rd2s0", "ld2b0")
RICH_LABEL_ROLES = LABEL_ROLES + ("ld2s0.l", "rd2s0.l", "ld2b0.l", "hs0.l")
VALENCY_ROLES = ("s0.vl", "s0.vr", "b0.vl")
VALENCIES = ("0", "1", "2", "3", "4+")
LABEL_SET_ROLES = ("s0.sl", "s0.sr", "b0.sl")

# name -> (token roles, label roles, valency and label-set features)
FEATURE_SETS = {
    "malt": (ROLES, LABEL_ROLES, False),
    "rich": (RICH_ROLES, RICH_LABEL_ROLES, True),
}


def _role_strings(role: str, form: str, upos: str, xpos: str) -> Tuple[str, ...]:
    attrs = ROLE_ATTRS[role]
    values = {"w": form, "p": xpos, "u": upos}
    return tuple(f"{role}.{a}={values[a]}" for a in attrs)


def _distance(d: int) -> int:
    return d - 1 if d <= 4 else (4 if d < 10 else 5)


def feature_set(name: str):
    """(token roles, label roles, non-local) of a feature set name."""
    try:
        return FEATURE_SETS[name]
    except KeyError:
        raise ValueError(f"unknown feature set {name!r}; expected one of {sorted(FEATURE_SETS)}") from None


class ConfigurationFeatures:
    """Feature strings of configurations of one sentence (training and the
    Python reference parser); token strings are built once per token and role."""

    def __init__(self, sentence: DepSentence, features: str = "malt"):
        self.n = len(sentence)
        roles, _, self.rich = feature_set(features)
        self.roles = {
            r: [(f"{r}=ROOT",)] + [_role_strings(r, w, u, x) for w, u, x in zip(sentence.forms, sentence.upos, sentence.xpos)]
            for r in roles
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
        if not self.rich:
            return f
        hs0 = state.heads[s0] if s0 > 0 else -1
        for role, tok in (("lds0", state.ldep[s0]), ("rds0", state.rdep[s0]), ("ldb0", state.ldep[b]),
                          ("hhs0", state.heads[hs0] if hs0 > 0 else -1), ("ld2s0", state.ldep2[s0]),
                          ("rd2s0", state.rdep2[s0]), ("ld2b0", state.ldep2[b])):
            f.extend(self._role(role, tok))
        for role, tok in zip(RICH_LABEL_ROLES[len(LABEL_ROLES):], (state.ldep2[s0], state.rdep2[s0], state.ldep2[b], hs0)):
            label = state.labels[tok] if tok > 0 else None
            f.append(f"{role}={label if label is not None else 'NONE'}")
        for role, deps in zip(VALENCY_ROLES, (state.lsets[s0], state.rsets[s0], state.lsets[b])):
            f.append(f"{role}={VALENCIES[min(len(deps), 4)]}")
        for role, deps in zip(LABEL_SET_ROLES, (state.lsets[s0], state.rsets[s0], state.lsets[b])):
            f.extend(f"{role}={v}" for v in dict.fromkeys(deps))
        return f


class EnglishEncoder:
    """Feature ids of tokens per role (looked up once per distinct word and
    role, cached), and the id tables of NONE, labels, distances and arcs."""

    def __init__(self, index, label_values: Sequence[str], features: str = "malt"):
        self.index = index
        get = index.get
        self.roles, label_roles, self.rich = feature_set(features)
        self._ids: Dict[tuple, np.ndarray] = {}
        self.none_ids = np.asarray([get(f"{r}=NONE") for r in self.roles], dtype=np.int32)
        self.root_ids = [self._lookup(("ROOT", r), (f"{r}=ROOT",)) for r in self.roles]
        values = list(label_values) + ["NONE"]
        self.label_feature = np.asarray([get(f"{lr}={v}") for lr in label_roles for v in values], dtype=np.int32)
        self.distance = np.asarray([get(f"d={d}") for d in DISTANCES], dtype=np.int32)
        self.arc_feature = np.asarray([get(a) for a in ARC_FEATURES], dtype=np.int32)
        self.extra = {}
        if self.rich:
            self.extra = {
                "valency": np.asarray([get(f"{r}={v}") for r in VALENCY_ROLES for v in VALENCIES], dtype=np.int32),
                "label_set": np.asarray([get(f"{r}={v}") for r in LABEL_SET_ROLES for v in label_values], dtype=np.int32),
            }

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
            parts = [self._lookup((r, w, u, x), _role_strings(r, w, u, x)) for r in self.roles]
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
                "arc_feature": self.arc_feature, **self.extra}
